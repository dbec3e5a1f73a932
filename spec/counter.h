// CounterModel ("counter"): an integer counter starting at 0.
//
// Methods: inc()/increment(), dec()/decrement(), add(n), get()/read() -> n. The results of inc,
// dec and add are not checked. Failed calls are left out, as are pending reads.
// State: the current value, in exact arithmetic. The arguments and results are int64, but their
// sum is not cut to 64 bits: add(INT64_MAX) twice, then add(2), makes 2^64, so a get() that
// returns 0 is a violation. A counter that wraps around (std::atomic<int64_t>::fetch_add) is not
// this model once it overflows. The sum of any history's adds fits the 128-bit state.
//
// Thread-safety: immutable; usable from several threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_COUNTER_H_
#define LINFAULT_SPEC_COUNTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class CounterModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  using State = __int128;  // NOLINT(runtime/int): exact sums of int64 amounts
  struct Op {
    bool read = false;
    std::int64_t amount = 0;  // read: the value observed; otherwise the increment
  };

  std::string_view name() const { return "counter"; }
  State initial() const { return 0; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    if (op.read) return state == op.amount;
    state += op.amount;
    return true;
  }
  std::size_t hash(const State& state) const {
    const auto bits = static_cast<unsigned __int128>(state);
    return hash_mix(hash_mix(0, static_cast<std::uint64_t>(bits)),
                    static_cast<std::uint64_t>(bits >> 64));
  }
  std::string describe(const State& state) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_COUNTER_H_
