// CasRegisterModel ("cas-register"): a register with compare-and-set, initial value nil; the
// model of Jepsen's etcd tests. Parameter `init`: the initial value ("cas-register(init=0)": a
// Jepsen cas-register test usually starts at 0).
//
// Methods: read() -> v, write(v), cas([from to]) or cas(from, to) -> bool.
// Outcomes: a completed cas whose result is not a boolean (Jepsen echoes the arguments) returned
// true; a *failed* cas (kFail) returned false, i.e. it is kept and constrains the state; a failed
// read or write did not take effect and is left out, as is a pending read. Pending writes and
// cas calls may take effect at any point after their invocation, or never.
// State: the interned id of the current value (one int32).
//
// Thread-safety: immutable apart from the internally synchronized interner.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_CAS_REGISTER_H_
#define LINFAULT_SPEC_CAS_REGISTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_params.h"
#include "spec/model_support.h"

namespace linfault::spec {

class CasRegisterModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = std::int32_t;
  struct Op {
    enum class Kind : std::uint8_t { kRead, kWrite, kCas } kind;
    // kCas only: the recorded result; kUnknown when pending.
    enum class Outcome : std::uint8_t {
      kUnknown,
      kSwapped,
      kNotSwapped
    } outcome = Outcome::kUnknown;
    std::int32_t value = 0;     // read: observed; write: written; cas: new value
    std::int32_t expected = 0;  // cas: the value compared against
  };

  CasRegisterModel() : values_(std::make_shared<ValueInterner>()), name_("cas-register") {}
  // Parameters: init (any value; default nil).
  explicit CasRegisterModel(ModelParams& params);

  std::string_view name() const { return name_; }
  State initial() const { return initial_; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    switch (op.kind) {
      case Op::Kind::kRead:
        return state == op.value;
      case Op::Kind::kWrite:
        state = op.value;
        return true;
      case Op::Kind::kCas:
        if (state == op.expected) {
          if (op.outcome == Op::Outcome::kNotSwapped) return false;
          state = op.value;
          return true;
        }
        return op.outcome != Op::Outcome::kSwapped;
    }
    return false;
  }
  std::size_t hash(const State& state) const {
    return hash_mix(0, static_cast<std::uint32_t>(state));
  }
  std::string describe(const State& state) const { return values_->value(state).to_string(); }
  std::string describe_op(const Op& op) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;

 private:
  std::shared_ptr<ValueInterner> values_;
  State initial_ = ValueInterner::kNil;
  std::string name_;  // the model spec, with its parameters
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_CAS_REGISTER_H_
