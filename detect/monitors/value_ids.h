// ValueIds: maps the Values that a history's operations add, return or name to dense ids 0..n-1
// in Value order (internal to detect/monitors/). Integers, the common case, take fast paths: a
// direct table when they span a small range, else a radix sort; other values go through a
// std::map.
//
//   ValueIds ids;
//   ids.note(&op.call.args[0]);            // pointers must stay valid until assign()
//   std::vector<std::int32_t> id = ids.assign(count);   // id[k]: the k-th noted value's id
//
// Thread-safety: a plain object, one thread at a time.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_VALUE_IDS_H_
#define LINFAULT_DETECT_MONITORS_VALUE_IDS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "history/value.h"

namespace linfault::detect::internal {

class ValueIds {
 public:
  void note(const history::Value* v) { pending_.push_back(v); }

  // Returns the id of every noted value, in noting order.
  std::vector<std::int32_t> assign(std::int32_t& count) {
    const bool all_ints = std::all_of(pending_.begin(), pending_.end(),
                                      [](const history::Value* v) { return v->is_int(); });
    return all_ints ? assign_ints(count) : assign_values(count);
  }

 private:
  std::vector<std::int32_t> assign_ints(std::int32_t& count) {
    const std::size_t n = pending_.size();
    std::vector<std::int32_t> ids(n);
    if (n == 0) {
      count = 0;
      return ids;
    }
    // Offsets from the minimum, as unsigned so that the full int64 range cannot overflow.
    std::vector<std::uint64_t> offset(n);
    std::int64_t low = pending_[0]->as_int(), high = low;
    for (const history::Value* v : pending_) {
      low = std::min(low, v->as_int());
      high = std::max(high, v->as_int());
    }
    for (std::size_t i = 0; i < n; ++i) {
      offset[i] =
          static_cast<std::uint64_t>(pending_[i]->as_int()) - static_cast<std::uint64_t>(low);
    }
    const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    if (range < 4 * static_cast<std::uint64_t>(n) + 64) {
      std::vector<std::int32_t> id_of(range + 1, -1);
      for (std::uint64_t o : offset) id_of[o] = 0;
      std::int32_t next = 0;
      for (std::int32_t& id : id_of) {
        if (id == 0) id = next++;
      }
      for (std::size_t i = 0; i < n; ++i) ids[i] = id_of[offset[i]];
      count = next;
      return ids;
    }
    std::vector<std::uint32_t> order(n), scratch_order(n);
    std::vector<std::uint64_t> scratch(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    constexpr int kDigitBits = 11;
    constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
    std::vector<std::size_t> bucket(kBuckets);
    for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += kDigitBits) {
      std::fill(bucket.begin(), bucket.end(), 0);
      for (std::uint64_t o : offset) ++bucket[(o >> shift) & (kBuckets - 1)];
      std::size_t sum = 0;
      for (std::size_t& c : bucket) sum += std::exchange(c, sum);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t to = bucket[(offset[i] >> shift) & (kBuckets - 1)]++;
        scratch[to] = offset[i];
        scratch_order[to] = order[i];
      }
      offset.swap(scratch);
      order.swap(scratch_order);
    }
    std::int32_t next = -1;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 0 || offset[i] != offset[i - 1]) ++next;
      ids[order[i]] = next;
    }
    count = next + 1;
    return ids;
  }

  std::vector<std::int32_t> assign_values(std::int32_t& count) {
    std::vector<std::int32_t> ids(pending_.size());
    std::map<history::Value, std::int32_t> index;
    for (const history::Value* v : pending_) index.emplace(*v, 0);
    std::int32_t next = 0;
    for (auto& [value, id] : index) id = next++;
    for (std::size_t i = 0; i < pending_.size(); ++i) ids[i] = index.at(*pending_[i]);
    count = next;
    return ids;
  }

  std::vector<const history::Value*> pending_;
};

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_VALUE_IDS_H_
