// RegisterModel ("register"): a read/write register whose initial value is nil, or the value of
// its `init` parameter ("register(init=0)", spec/model_params.h).
//
// Methods: read() -> v, write(v). A failed call (outcome kFail) did not take effect and is left
// out; a pending read constrains nothing and is left out too; a pending write may take effect.
// State: the interned id of the current value (one int32).
//
// Thread-safety: immutable apart from the internally synchronized interner; usable from several
// threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_REGISTER_H_
#define LINFAULT_SPEC_REGISTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_params.h"
#include "spec/model_support.h"

namespace linfault::spec {

class RegisterModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::int32_t;
  struct Op {
    enum class Kind : std::uint8_t { kRead, kWrite } kind;
    std::int32_t value;  // read: the value observed; write: the value written
  };

  RegisterModel() : values_(std::make_shared<ValueInterner>()), name_("register") {}
  // Parameters: init (any value; default nil).
  explicit RegisterModel(ModelParams& params);

  std::string_view name() const { return name_; }
  State initial() const { return initial_; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.kind == Op::Kind::kRead) return state == op.value;
    state = op.value;
    return true;
  }
  std::size_t hash(const State& state) const {
    return hash_mix(0, static_cast<std::uint32_t>(state));
  }
  std::string describe(const State& state) const { return values_->value(state).to_string(); }
  std::string describe_op(const Op& op) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
  // Flow of elements (spec/model.h).
  std::optional<std::int64_t> element_added(const Op& op) const {
    if (op.kind == Op::Kind::kWrite) return op.value;
    return std::nullopt;
  }
  std::optional<std::int64_t> element_taken(const Op& op) const {
    // A read of the initial value (or of nil) may have read no write at all.
    if (op.kind == Op::Kind::kWrite || op.value == initial_ || op.value == ValueInterner::kNil)
      return std::nullopt;
    return op.value;
  }

 private:
  std::shared_ptr<ValueInterner> values_;
  State initial_ = ValueInterner::kNil;
  std::string name_;  // the model spec, with its parameters
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_REGISTER_H_
