// Small index structures shared by the container monitors (internal to detect/monitors/).
//
//   radix_sort_keys  LSD radix sort of 64-bit keys (event sweeps over millions of operations).
//   MinCountTree     range add / global minimum with its leftmost position over n slots.
//   RangeAddPoint    Fenwick tree: range add, point query (sums of value ids per slot).
//   StabIndex        items with closed slot ranges [lo, hi], grouped in contiguous blocks; reports
//                    and removes the active items of a block whose range contains a point.
//
// Thread-safety: plain data structures, one thread at a time.

#ifndef LINFAULT_DETECT_MONITORS_INTERVAL_STRUCTURES_H_
#define LINFAULT_DETECT_MONITORS_INTERVAL_STRUCTURES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace linfault::detect::internal {

// Sorts `keys` ascending; `scratch` is reused between calls to avoid reallocation.
inline void radix_sort_keys(std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& scratch) {
  if (keys.size() < 256) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::uint64_t all_bits = 0;
  for (std::uint64_t k : keys) all_bits |= k;
  constexpr int kDigitBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  scratch.resize(keys.size());
  std::vector<std::size_t> count(kBuckets);
  for (int shift = 0; shift < 64 && (all_bits >> shift) != 0; shift += kDigitBits) {
    std::fill(count.begin(), count.end(), 0);
    for (std::uint64_t k : keys) ++count[(k >> shift) & (kBuckets - 1)];
    std::size_t sum = 0;
    for (std::size_t& c : count) {
      const std::size_t here = c;
      c = sum;
      sum += here;
    }
    for (std::uint64_t k : keys) scratch[count[(k >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(scratch);
  }
}

class MinCountTree {
 public:
  explicit MinCountTree(std::size_t n) : n_(std::max<std::size_t>(n, 1)) {
    size_ = 1;
    while (size_ < n_) size_ <<= 1;
    min_.assign(2 * size_, kAbsent);
    lazy_.assign(2 * size_, 0);
    for (std::size_t i = 0; i < n; ++i) min_[size_ + i] = 0;
    for (std::size_t i = size_ - 1; i >= 1; --i) min_[i] = std::min(min_[2 * i], min_[2 * i + 1]);
  }

  // Adds `delta` to slots [lo, hi] (inclusive).
  void add(std::size_t lo, std::size_t hi, std::int64_t delta) {
    if (lo > hi) return;
    add(1, 0, size_ - 1, lo, hi, delta);
  }

  std::int64_t min() const { return min_[1]; }

  // The leftmost slot holding min(); the tree must hold at least one slot.
  std::size_t argmin() const {
    std::size_t node = 1;
    std::int64_t remaining = min_[1];
    while (node < size_) {
      remaining -= lazy_[node];
      node = min_[2 * node] == remaining ? 2 * node : 2 * node + 1;
    }
    return node - size_;
  }

 private:
  static constexpr std::int64_t kAbsent = std::numeric_limits<std::int64_t>::max() / 4;

  void add(std::size_t node, std::size_t node_lo, std::size_t node_hi, std::size_t lo,
           std::size_t hi, std::int64_t delta) {
    if (hi < node_lo || node_hi < lo) return;
    if (lo <= node_lo && node_hi <= hi) {
      min_[node] += delta;
      lazy_[node] += delta;
      return;
    }
    const std::size_t mid = node_lo + (node_hi - node_lo) / 2;
    add(2 * node, node_lo, mid, lo, hi, delta);
    add(2 * node + 1, mid + 1, node_hi, lo, hi, delta);
    min_[node] = std::min(min_[2 * node], min_[2 * node + 1]) + lazy_[node];
  }

  std::size_t n_;
  std::size_t size_;
  std::vector<std::int64_t> min_;   // min over the subtree, including this node's lazy add
  std::vector<std::int64_t> lazy_;  // pending add for the whole subtree
};

class RangeAddPoint {
 public:
  explicit RangeAddPoint(std::size_t n) : tree_(n + 2, 0) {}

  void add(std::size_t lo, std::size_t hi, std::int64_t delta) {
    if (lo > hi) return;
    add_suffix(lo, delta);
    add_suffix(hi + 1, -delta);
  }

  std::int64_t at(std::size_t slot) const {
    std::int64_t sum = 0;
    for (std::size_t i = slot + 1; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  void add_suffix(std::size_t slot, std::int64_t delta) {
    for (std::size_t i = slot + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  std::vector<std::int64_t> tree_;
};

// Items are given in the order they are stored: blocks are contiguous runs of positions, each
// sorted by `lo`. A query (block range, point p) reports every active item of the range with
// lo <= p <= hi and deactivates it; the cost is O((1 + reported) log n).
class StabIndex {
 public:
  // `lo` and `hi` per stored position.
  StabIndex(std::vector<std::int32_t> lo, const std::vector<std::int32_t>& hi)
      : lo_(std::move(lo)) {
    size_ = 1;
    while (size_ < lo_.size()) size_ <<= 1;
    max_hi_.assign(2 * size_, kInactive);
    for (std::size_t i = 0; i < hi.size(); ++i) max_hi_[size_ + i] = hi[i];
    for (std::size_t i = size_ - 1; i >= 1; --i) {
      max_hi_[i] = std::max(max_hi_[2 * i], max_hi_[2 * i + 1]);
    }
  }

  void deactivate(std::size_t position) {
    std::size_t node = size_ + position;
    max_hi_[node] = kInactive;
    for (node >>= 1; node >= 1; node >>= 1) {
      const std::int32_t m = std::max(max_hi_[2 * node], max_hi_[2 * node + 1]);
      if (max_hi_[node] == m) break;
      max_hi_[node] = m;
    }
  }

  // Calls report(position) for each active item in [begin, end) containing `point`; the caller
  // deactivates what it reports (possibly through other indexes too).
  template <class Report>
  void stab(std::size_t begin, std::size_t end, std::int32_t point, Report&& report) {
    // Within a block sorted by lo, the items with lo <= point form a prefix.
    end = static_cast<std::size_t>(
        std::upper_bound(lo_.begin() + static_cast<std::ptrdiff_t>(begin),
                         lo_.begin() + static_cast<std::ptrdiff_t>(end), point) -
        lo_.begin());
    if (begin >= end) return;
    collect(1, 0, size_ - 1, begin, end - 1, point, report);
  }

 private:
  static constexpr std::int32_t kInactive = std::numeric_limits<std::int32_t>::min();

  template <class Report>
  void collect(std::size_t node, std::size_t node_lo, std::size_t node_hi, std::size_t lo,
               std::size_t hi, std::int32_t point, Report& report) {
    if (hi < node_lo || node_hi < lo || max_hi_[node] < point) return;
    if (node >= size_) {
      report(node - size_);
      return;
    }
    const std::size_t mid = node_lo + (node_hi - node_lo) / 2;
    collect(2 * node, node_lo, mid, lo, hi, point, report);
    collect(2 * node + 1, mid + 1, node_hi, lo, hi, point, report);
  }

  std::vector<std::int32_t> lo_;
  std::size_t size_;
  std::vector<std::int32_t> max_hi_;
};

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_INTERVAL_STRUCTURES_H_
