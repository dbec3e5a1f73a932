// Small index structures shared by the container monitors (internal to detect/monitors/). They are
// flat arrays walked iteratively, because the monitors run them over 10^7 operations.
//
//   radix_sort_keys  LSD radix sort of 64-bit keys (event sweeps over millions of operations).
//   counting_order   the indices 0..n-1 stably ordered by a small integer key.
//   TimeRanks        rank of a time among a set of distinct times, O(1) per query (bitmap).
//   LowCountTree     range add over n slots, reporting the slots that fall to a limit.
//   RangeAddPoint    Fenwick tree: range add, point query (sums of value ids per slot, mod 2^32).
//   StabIndex        items with closed slot ranges [lo, hi], grouped in contiguous blocks; reports
//                    the active items of a block whose range contains a point.
//
// Thread-safety: plain data structures, one thread at a time.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_INTERVAL_STRUCTURES_H_
#define LINFAULT_DETECT_MONITORS_INTERVAL_STRUCTURES_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory_resource>
#include <vector>

namespace linfault::detect::internal {

// The monitors' working arrays, allocated from a ScratchMemory (scratch_memory.h).
template <class T>
using ScratchArray = std::pmr::vector<T>;

// Sorts `keys` ascending; `scratch` is reused between calls to avoid reallocation.
inline void radix_sort_keys(ScratchArray<std::uint64_t>& keys,
                            ScratchArray<std::uint64_t>& scratch) {
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

// The indices i of `key` ordered by key[i] ascending, ties by i; keys lie in [0, key_bound).
// `within` (optional) restricts and pre-orders the indices: the result keeps their relative order
// among equal keys.
inline ScratchArray<std::int32_t> counting_order(
    const ScratchArray<std::int32_t>& key, std::size_t key_bound,
    const ScratchArray<std::int32_t>* within = nullptr) {
  ScratchArray<std::int32_t> start(key_bound + 1, 0, key.get_allocator());
  const std::size_t n = within ? within->size() : key.size();
  auto item = [&](std::size_t p) { return within ? (*within)[p] : static_cast<std::int32_t>(p); };
  for (std::size_t p = 0; p < n; ++p) ++start[static_cast<std::size_t>(key[item(p)]) + 1];
  for (std::size_t k = 0; k < key_bound; ++k) start[k + 1] += start[k];
  ScratchArray<std::int32_t> order(n, key.get_allocator());
  for (std::size_t p = 0; p < n; ++p) {
    const std::int32_t i = item(p);
    order[static_cast<std::size_t>(start[static_cast<std::size_t>(key[i])]++)] = i;
  }
  return order;
}

// A set of distinct non-negative times, answering rank(t) = |{times < t}| in O(1) with a bitmap
// and per-word prefix counts: 1.5 bits per unit of the time range.
class TimeRanks {
 public:
  // `max_time` bounds every time that is inserted or queried.
  TimeRanks(std::int64_t max_time, std::pmr::memory_resource* memory)
      : bits_(static_cast<std::size_t>(max_time) / 64 + 2, 0, memory),
        before_(bits_.size(), 0, memory) {}

  void insert(std::int64_t t) {
    bits_[static_cast<std::size_t>(t) >> 6] |= std::uint64_t{1} << (t & 63);
  }

  // Call once after the last insert and before the first rank().
  void freeze() {
    std::uint32_t sum = 0;
    for (std::size_t w = 0; w < bits_.size(); ++w) {
      before_[w] = sum;
      sum += static_cast<std::uint32_t>(std::popcount(bits_[w]));
    }
    size_ = sum;
  }

  std::int32_t rank(std::int64_t t) const {
    const auto w = static_cast<std::size_t>(t) >> 6;
    const std::uint64_t below = bits_[w] & ((std::uint64_t{1} << (t & 63)) - 1);
    return static_cast<std::int32_t>(before_[w] + static_cast<std::uint32_t>(std::popcount(below)));
  }

  std::size_t size() const { return size_; }
  // Gap g lies between the g-th and the (g+1)-th time.
  std::size_t gaps() const { return size_ == 0 ? 0 : size_ - 1; }

 private:
  ScratchArray<std::uint64_t> bits_;
  ScratchArray<std::uint32_t> before_;
  std::size_t size_ = 0;
};

// Counts over n slots under range adds, reporting the slots of an updated range whose count has
// fallen to a limit or below.
class LowCountTree {
 public:
  // Slot i starts at initial[i].
  explicit LowCountTree(const ScratchArray<std::int32_t>& initial)
      : size_(std::bit_ceil(std::max<std::size_t>(initial.size(), 1))),
        min_(2 * size_, kAbsent, initial.get_allocator()),
        lazy_(size_, 0, initial.get_allocator()) {
    std::copy(initial.begin(), initial.end(), min_.begin() + static_cast<std::ptrdiff_t>(size_));
    for (std::size_t i = size_ - 1; i >= 1; --i) min_[i] = std::min(min_[2 * i], min_[2 * i + 1]);
  }

  // Adds `delta` to slots [lo, hi], then calls report(slot, count) for every slot of [lo, hi]
  // whose count is at most `limit`.
  template <class Report>
  void add(std::size_t lo, std::size_t hi, std::int32_t delta, std::int32_t limit,
           Report&& report) {
    if (lo > hi) return;
    update(1, 0, size_ - 1, lo, hi, delta, 0, limit, report);
  }

 private:
  static constexpr std::int32_t kAbsent = std::numeric_limits<std::int32_t>::max() / 2;

  // `above`: the lazy adds of the node's strict ancestors.
  template <class Report>
  void update(std::size_t node, std::size_t node_lo, std::size_t node_hi, std::size_t lo,
              std::size_t hi, std::int32_t delta, std::int32_t above, std::int32_t limit,
              Report& report) {
    if (hi < node_lo || node_hi < lo) return;
    if (lo <= node_lo && node_hi <= hi) {
      min_[node] += delta;
      if (node < size_) lazy_[node] += delta;
      report_low(node, above, limit, report);
      return;
    }
    const std::size_t mid = node_lo + (node_hi - node_lo) / 2;
    update(2 * node, node_lo, mid, lo, hi, delta, above + lazy_[node], limit, report);
    update(2 * node + 1, mid + 1, node_hi, lo, hi, delta, above + lazy_[node], limit, report);
    min_[node] = std::min(min_[2 * node], min_[2 * node + 1]) + lazy_[node];
  }

  template <class Report>
  void report_low(std::size_t node, std::int32_t above, std::int32_t limit, Report& report) {
    if (min_[node] + above > limit) return;
    if (node >= size_) {
      report(node - size_, min_[node] + above);
      return;
    }
    report_low(2 * node, above + lazy_[node], limit, report);
    report_low(2 * node + 1, above + lazy_[node], limit, report);
  }

  std::size_t size_;
  ScratchArray<std::int32_t> min_;   // min over the subtree, including this node's lazy add
  ScratchArray<std::int32_t> lazy_;  // pending add for the whole subtree (inner nodes)
};

// Range add / point query of sums modulo 2^32 (exact whenever the true sum fits, e.g. a sole id).
class RangeAddPoint {
 public:
  // Slot i starts at initial[i]; built in O(n).
  explicit RangeAddPoint(const ScratchArray<std::uint32_t>& initial)
      : tree_(initial.size() + 2, 0, initial.get_allocator()) {
    // Difference array, then the standard linear Fenwick construction.
    std::uint32_t previous = 0;
    for (std::size_t i = 0; i < initial.size(); ++i) {
      tree_[i + 1] = initial[i] - previous;
      previous = initial[i];
    }
    for (std::size_t i = 1; i < tree_.size(); ++i) {
      const std::size_t parent = i + (i & (~i + 1));
      if (parent < tree_.size()) tree_[parent] += tree_[i];
    }
  }

  void add(std::size_t lo, std::size_t hi, std::uint32_t delta) {
    if (lo > hi) return;
    add_suffix(lo, delta);
    add_suffix(hi + 1, std::uint32_t{0} - delta);
  }

  std::uint32_t at(std::size_t slot) const {
    std::uint32_t sum = 0;
    for (std::size_t i = slot + 1; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  void add_suffix(std::size_t slot, std::uint32_t delta) {
    for (std::size_t i = slot + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  ScratchArray<std::uint32_t> tree_;
};

// Items are given in the order they are stored: blocks are contiguous runs of positions, each
// sorted by `lo`. A query (block range, slots [first, last]) reports every active item of the
// range whose [lo, hi] meets [first, last]; the caller deactivates what it reports. Cost
// O((1 + reported) log n).
class StabIndex {
 public:
  // `lo` and `hi` per stored position.
  StabIndex(ScratchArray<std::int32_t> lo, const ScratchArray<std::int32_t>& hi)
      : lo_(std::move(lo)),
        size_(std::bit_ceil(std::max<std::size_t>(lo_.size(), 1))),
        max_hi_(2 * size_, kInactive, hi.get_allocator()) {
    std::copy(hi.begin(), hi.end(), max_hi_.begin() + static_cast<std::ptrdiff_t>(size_));
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

  // Calls report(position) for each active item in [begin, end) that meets [first, last].
  // `report` may deactivate the position it is given.
  template <class Report>
  void stab(std::size_t begin, std::size_t end, std::int32_t first, std::int32_t last,
            Report&& report) {
    // Within a block sorted by lo, the items with lo <= last form a prefix.
    end = static_cast<std::size_t>(
        std::upper_bound(lo_.begin() + static_cast<std::ptrdiff_t>(begin),
                         lo_.begin() + static_cast<std::ptrdiff_t>(end), last) -
        lo_.begin());
    stab_low(begin, end, first, report);
  }

  // Like stab(), when the caller knows that [begin, end) are exactly the items with lo <= last:
  // reports those with hi >= point (= first).
  template <class Report>
  void stab_low(std::size_t begin, std::size_t end, std::int32_t point, Report&& report) {
    // Right to left: the items live at `point` tend to start just before it, so the searches
    // stay in small subtrees near the end of the range.
    for (std::size_t p = last_reaching(begin, end, point); p != kNone;
         p = last_reaching(begin, p, point)) {
      report(p);
    }
  }

 private:
  static constexpr std::int32_t kInactive = std::numeric_limits<std::int32_t>::min();
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

  // The last position in [begin, end) whose item is active with hi >= point, or kNone.
  std::size_t last_reaching(std::size_t begin, std::size_t end, std::int32_t point) const {
    if (end <= begin) return kNone;
    std::size_t node = size_ + end - 1;
    const int leaf_depth = std::countr_zero(size_);
    // Climb to the first subtree at or left of end - 1 that holds a reaching item.
    while (max_hi_[node] < point) {
      while ((node & 1) == 0) node >>= 1;  // a left child: its parent's left part is done too
      if (node == 1) return kNone;
      --node;
      const int depth_below = leaf_depth - (static_cast<int>(std::bit_width(node)) - 1);
      if ((((node + 1) << depth_below) - 1) - size_ < begin) return kNone;
    }
    while (node < size_) {
      node = 2 * node + 1;
      if (max_hi_[node] < point) --node;
    }
    return node - size_ >= begin ? node - size_ : kNone;
  }

  ScratchArray<std::int32_t> lo_;
  std::size_t size_;
  ScratchArray<std::int32_t> max_hi_;
};

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_INTERVAL_STRUCTURES_H_
