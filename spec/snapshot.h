// SnapshotModel ("snapshot"): an atomic snapshot object of integer segments, all starting at 0
// (the single-writer snapshot of seed 003's experiments).
//
// Methods: update(segment, v) (alias write(i, v)): segment := v; scan() -> [v0 v1 ...]: the
// result is compared with the first len(result) segments; readpair(i, j) -> [d_i d_j] (the pair
// snapshot): reads two segments atomically. Failed calls are left out, as are pending scans and
// reads.
// State: the segment values, trailing zeros trimmed.
//
// Thread-safety: immutable; usable from several threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_SNAPSHOT_H_
#define LINFAULT_SPEC_SNAPSHOT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class SnapshotModel {
 public:
  static constexpr bool kCallsNeverBlock = true;  // every call returns (spec/model.h)
  // Segments are 0 .. kMaxSegments - 1; an operation on another is a ModelError.
  static constexpr std::int64_t kMaxSegments = std::int64_t{1} << 20;
  using State = std::vector<std::int64_t>;
  struct Op {
    enum class Kind : std::uint8_t { kUpdate, kScan, kReadPair } kind;
    std::vector<std::int64_t> segments;  // update: {i}; readpair: {i, j}; scan: unused
    std::vector<std::int64_t> values;    // update: {v}; scan/readpair: the values read
  };

  std::string_view name() const { return "snapshot"; }
  State initial() const { return {}; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& state, const Op& op) const {
    auto segment = [&](std::int64_t i) {
      const auto index = static_cast<std::size_t>(i);
      return index < state.size() ? state[index] : 0;
    };
    switch (op.kind) {
      case Op::Kind::kUpdate: {
        const auto index = static_cast<std::size_t>(op.segments[0]);
        if (index >= state.size()) state.resize(index + 1, 0);
        state[index] = op.values[0];
        while (!state.empty() && state.back() == 0) state.pop_back();
        return true;
      }
      case Op::Kind::kScan:
        for (std::size_t i = 0; i < op.values.size(); ++i) {
          if (segment(static_cast<std::int64_t>(i)) != op.values[i]) return false;
        }
        return true;
      case Op::Kind::kReadPair:
        return segment(op.segments[0]) == op.values[0] && segment(op.segments[1]) == op.values[1];
    }
    return false;
  }
  std::size_t hash(const State& state) const { return hash_ints(state); }
  std::size_t heap_bytes(const State& state) const {
    return state.capacity() * sizeof(std::int64_t);
  }
  std::string describe(const State& state) const;
  std::vector<history::Call> build(const State& state) const;
  std::vector<history::Call> reveal(const State& state) const;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_SNAPSHOT_H_
