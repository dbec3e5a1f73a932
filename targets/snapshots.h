// Pair snapshots: two cells written one at a time and read together by readpair(i, j), which
// returns [d_i, d_j] (the "snapshot" model's pair form; both cells start at 0).
//
// Thread-safety: any number of threads may call any method concurrently. Cell indices outside
// {0, 1} throw std::invalid_argument before touching shared memory.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_SNAPSHOTS_H_
#define LINFAULT_TARGETS_SNAPSHOTS_H_

#include <cstdint>
#include <utility>

#include "dpct/shared.h"
#include "targets/arena.h"

namespace linfault::targets {

inline constexpr std::int64_t kPairSnapshotCells = 2;

// Qadeer, Sezgin and Tasiran's pair snapshot (CGVT Fig. 1, target pair_snapshot): readpair
// loops { x = d[i]; y = d[j]; x2 = d[i]; if x == x2 return (x, y) }. The double collect compares
// values, so it is ABA-prone: with writes (2,1), (2,2), (2,1), (1,1) between the reader's loads it
// returns (1, 2), a state that never existed (type 1, 1 || 4). The cells are dpct::Var: the race
// is by design and is a relaxed atomic natively.
class PairSnapshot {
 public:
  PairSnapshot() = default;

  void write(std::int64_t cell, std::int64_t value);
  std::pair<std::int64_t, std::int64_t> readpair(std::int64_t i, std::int64_t j);

 private:
  dpct::Var<std::int64_t> data_[kPairSnapshotCells];
};

// The correct control (target pair_snapshot_correct): every write installs a fresh immutable box,
// and readpair's double collect compares box identities, which never repeat because boxes are
// never freed or reused. This is what the Java original meant by reference equality, without
// Integer's box cache that makes small values share one box. Linearizable: when d[i] holds the
// same box before and after the load of d[j], the pair existed at that load.
class VersionedPairSnapshot {
 public:
  VersionedPairSnapshot();

  void write(std::int64_t cell, std::int64_t value);
  std::pair<std::int64_t, std::int64_t> readpair(std::int64_t i, std::int64_t j);

 private:
  struct Box {
    explicit Box(std::int64_t v) : value(v) {}
    const std::int64_t value;
  };
  NodeArena<Box> arena_;
  const Box* zero_;
  dpct::Atomic<const Box*> data_[kPairSnapshotCells];
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_SNAPSHOTS_H_
