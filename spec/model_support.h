// Shared helpers for the built-in sequential models: value interning and operation-shape checks.
//
// ValueInterner maps history::Values to dense int32 ids so that model states are small integer
// vectors that hash and copy cheaply. Id 0 is always nil. Models intern only in compile(),
// describe(), build() and reveal() (never in step()), so the search loop never takes its lock.
//
// OpShape wraps a recorded operation for compile(): it checks method names, argument counts and
// argument kinds, and throws ShapeError with a one-line message that compile() turns into a
// spec::ModelError ("stack: push expects 1 argument, got 2").
//
// Thread-safety: ValueInterner is internally synchronized; OpShape is a short-lived local.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_MODEL_SUPPORT_H_
#define LINFAULT_SPEC_MODEL_SUPPORT_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "history/history.h"
#include "spec/model.h"

namespace linfault::spec {

class ValueInterner {
 public:
  static constexpr std::int32_t kNil = 0;

  ValueInterner();
  std::int32_t intern(const history::Value& value);
  history::Value value(std::int32_t id) const;

 private:
  // Small integers, the values of most generated workloads, find their id here without the lock
  // or a hash: an id is stored (release) only after its value is in values_, and 0 means not yet
  // interned. Interning is a few percent of a 2 x 5 detection history otherwise.
  static constexpr std::int64_t kSmallIntMin = -64;
  static constexpr std::size_t kSmallInts = 256;
  std::atomic<std::int32_t>* small_int_slot(const history::Value& value);
  std::array<std::atomic<std::int32_t>, kSmallInts> small_int_ids_{};

  mutable std::mutex mutex_;
  std::unordered_map<history::Value, std::int32_t, history::ValueHash> ids_;
  std::vector<history::Value> values_;
};

struct ShapeError {
  std::string message;
};

class OpShape {
 public:
  OpShape(std::string_view model, const history::Operation& op) : model_(model), op_(op) {}

  const history::Operation& op() const { return op_; }
  const std::string& method() const { return op_.call.method; }
  bool is(std::initializer_list<std::string_view> names) const;
  bool pending() const { return op_.outcome == history::Outcome::kPending; }
  bool failed() const { return op_.outcome == history::Outcome::kFail; }
  bool ok() const { return op_.outcome == history::Outcome::kOk; }

  // Throws unless the call has exactly `count` arguments. Nil arguments at the end are ignored
  // (Jepsen writes "read nil"), so arity(0) accepts read() and read(nil).
  void arity(std::size_t count) const;
  const history::Value& arg(std::size_t i) const { return op_.call.args.at(i); }
  std::int64_t int_arg(std::size_t i) const;
  // Throws if the value is nil (elements of collections must be real values).
  const history::Value& non_nil_arg(std::size_t i) const;

  // The recorded result as a boolean (bool, or an integer 0/1); nullopt when it is not recorded
  // (pending or nil).
  std::optional<bool> bool_result() const;
  // The recorded result as an integer; nullopt when pending or nil. Throws for other kinds.
  std::optional<std::int64_t> int_result() const;

  [[noreturn]] void unknown_method() const;
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  std::string_view model_;
  const history::Operation& op_;
};

// While it lives, the first OpShape::is() on this thread that matches writes the names it was
// given (the method's spellings) into `into`: spec::method_aliases() uses it.
class AliasCapture {
 public:
  explicit AliasCapture(std::vector<std::string>& into);
  ~AliasCapture();
  AliasCapture(const AliasCapture&) = delete;
  AliasCapture& operator=(const AliasCapture&) = delete;

 private:
  std::vector<std::string>* saved_;
};

// Runs `body` (which returns a Compiled<Op>) and turns a ShapeError into a ModelError.
template <class Op, class Body>
Compiled<Op> compile_guarded(Body&& body) {
  try {
    return body();
  } catch (const ShapeError& e) {
    return ModelError{e.message};
  }
}

inline std::size_t hash_mix(std::size_t seed, std::uint64_t value) {
  value *= 0x9e3779b97f4a7c15ULL;
  value ^= value >> 32;
  return (seed ^ value) * 0xff51afd7ed558ccdULL + 0x632be59bd9b4e5f5ULL;
}

template <class Int>
std::size_t hash_ints(const std::vector<Int>& items) {
  std::size_t seed = items.size();
  for (Int x : items) seed = hash_mix(seed, static_cast<std::uint64_t>(x));
  return seed;
}

// "[a b c]" of a list of interned ids.
std::string describe_ids(const ValueInterner& interner, const std::vector<std::int32_t>& ids);

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_MODEL_SUPPORT_H_
