#include "targets/snapshots.h"

#include <stdexcept>
#include <string>

namespace linfault::targets {
namespace {
std::size_t cell_index(std::int64_t cell) {
  if (cell < 0 || cell >= kPairSnapshotCells) {
    throw std::invalid_argument("cell index " + std::to_string(cell) +
                                " is out of range (the pair snapshot has cells 0 and 1)");
  }
  return static_cast<std::size_t>(cell);
}
}  // namespace

void PairSnapshot::write(std::int64_t cell, std::int64_t value) {
  data_[cell_index(cell)].store(value);
}

std::pair<std::int64_t, std::int64_t> PairSnapshot::readpair(std::int64_t i, std::int64_t j) {
  const std::size_t first = cell_index(i);
  const std::size_t second = cell_index(j);
  while (true) {
    const std::int64_t x = data_[first].load();
    const std::int64_t y = data_[second].load();
    const std::int64_t x_again = data_[first].load();
    if (x == x_again) return {x, y};  // the bug: equal values, not an unchanged cell
  }
}

// Both cells start with the same zero box; identities are only ever compared within one cell.
VersionedPairSnapshot::VersionedPairSnapshot()
    : zero_(arena_.make(0)),
      data_{dpct::Atomic<const Box*>(zero_), dpct::Atomic<const Box*>(zero_)} {}

void VersionedPairSnapshot::write(std::int64_t cell, std::int64_t value) {
  data_[cell_index(cell)].store(arena_.make(value));
}

std::pair<std::int64_t, std::int64_t> VersionedPairSnapshot::readpair(std::int64_t i,
                                                                      std::int64_t j) {
  const std::size_t first = cell_index(i);
  const std::size_t second = cell_index(j);
  while (true) {
    const Box* x = data_[first].load();
    const Box* y = data_[second].load();
    const Box* x_again = data_[first].load();
    if (x == x_again) return {x->value, y->value};
  }
}

}  // namespace linfault::targets
