// KvModel ("kv"): a key/value store of strings with get, put and append (Porcupine's KV model).
//
// Methods: get(k) -> v, put(k, v), append(k, v). The key is the operation's own key
// (Operation::key, e.g. Jepsen's :key) or else the first argument. An absent key reads as ""
// (a nil get result is read as "" as well); integer values are compared as their decimal text.
// Failed calls did not take effect; pending gets constrain nothing and are left out.
//
// State: per key (dense interned key ids) the value's length and a polynomial fingerprint modulo
// the Mersenne prime 2^61-1, so that a state is two machine words per key however long the
// appended strings grow, and append is O(1). Two different strings of length L have equal
// fingerprints for at most L of the 2^61 possible bases, so a false "equal" needs an adversarial
// input tailored to the fixed base; this is the one place where the checker trades exactness for
// speed, and the trade is documented here.
// Partitionable by key.
//
// build() can only name values it saw whole (a put argument or a get result); for others it
// throws std::invalid_argument.
//
// Thread-safety: immutable apart from internally synchronized dictionaries.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_KV_H_
#define LINFAULT_SPEC_KV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class KvModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  struct Fingerprint {
    std::uint64_t hash = 0;  // polynomial hash modulo 2^61-1
    std::uint64_t length = 0;
    friend bool operator==(const Fingerprint&, const Fingerprint&) = default;
    friend auto operator<=>(const Fingerprint&, const Fingerprint&) = default;
  };
  // slots[k - 1] is the value of key id k; trailing empty slots are trimmed so that equal stores
  // have equal states.
  struct State {
    std::vector<Fingerprint> slots;
    friend bool operator==(const State&, const State&) = default;
  };
  struct Op {
    enum class Kind : std::uint8_t { kGet, kPut, kAppend } kind;
    std::int32_t key;
    Fingerprint value;        // get: expected; put: new value; append: the suffix
    std::uint64_t shift = 0;  // append: base^length(suffix) mod 2^61-1
  };

  KvModel();

  std::string_view name() const { return "kv"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    const auto slot = static_cast<std::size_t>(op.key - 1);
    if (op.kind == Op::Kind::kGet) {
      const Fingerprint current = slot < state.slots.size() ? state.slots[slot] : Fingerprint{};
      return current == op.value;
    }
    if (slot >= state.slots.size()) state.slots.resize(slot + 1);
    Fingerprint& v = state.slots[slot];
    if (op.kind == Op::Kind::kPut) {
      v = op.value;
    } else {
      v.hash = add_mod(mul_mod(v.hash, op.shift), op.value.hash);
      v.length += op.value.length;
    }
    while (!state.slots.empty() && state.slots.back() == Fingerprint{}) state.slots.pop_back();
    return true;
  }
  std::size_t hash(const State& state) const;
  std::size_t heap_bytes(const State& state) const {
    return state.slots.capacity() * sizeof(Fingerprint);
  }
  std::string describe(const State& state) const;
  std::string describe_op(const Op& op) const;
  std::optional<history::Value> partition_key(const history::Operation& op) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;

  static Fingerprint fingerprint(std::string_view text);

 private:
  static constexpr std::uint64_t kModulus = (std::uint64_t{1} << 61) - 1;
  static std::uint64_t add_mod(std::uint64_t a, std::uint64_t b) {
    std::uint64_t s = a + b;
    return s >= kModulus ? s - kModulus : s;
  }
  static std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b) {
    const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
    return add_mod(static_cast<std::uint64_t>(p & kModulus), static_cast<std::uint64_t>(p >> 61));
  }
  static std::uint64_t power(std::uint64_t exponent);

  struct Dictionary {
    std::mutex mutex;
    std::map<Fingerprint, std::string> texts;
  };
  std::shared_ptr<ValueInterner> keys_;
  std::shared_ptr<Dictionary> dictionary_;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_KV_H_
