// The Wing–Gong–Lowe linearizability search over one (sub-)history; an implementation detail of
// detect/checker.h, exposed so that tests and benchmarks can drive it directly.
//
// Input: the operations that take part (their full-history op index, call event, return event or
// kNoEvent for a pending op, and the model's compiled Op). Each completed op contributes a call
// and a return entry to an intrusive doubly-linked list in event order, a pending op only a call
// entry (it may be linearized any time after its call, or never). The search repeatedly lifts a
// call entry that lies before the first remaining return entry and that the model accepts,
// backtracking when it meets a return entry; configurations (set of linearized ops, model state)
// already explored are cut off by a memo (Lowe).
//
// The memo stores the linearized completed ops compactly as (m, the ones below m that are NOT
// linearized), m - 1 being the highest linearized one in call order: in practice a handful of
// words, whatever the length of the history; a 64-bit Zobrist hash of that set is maintained
// incrementally. Linearized pending ops are a bitmask used for subsumption (see Memo::insert):
// a configuration is cut off when an explored one has the same completed ops and state and a
// subset of its pending ops, which tames histories with many crashed (:info) calls.
//
// Besides the verdict the search reports its *frontier*: the furthest return event it reached.
// Every event before it is explained by the partial linearization it reached there.
//
// Thread-safety: a Search is used by one thread; SearchLimits is shared between the searches of
// one check and is thread-safe.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_SEARCH_H_
#define LINFAULT_DETECT_SEARCH_H_

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "detect/verdict.h"
#include "history/history.h"
#include "spec/model.h"

namespace linfault::detect::internal {

inline constexpr history::EventIndex kNoLimitEvent =
    std::numeric_limits<history::EventIndex>::max();

// Limits shared by all searches of one check.
class SearchLimits {
 public:
  SearchLimits(const CheckOptions& options);

  // Called every few thousand search steps: adds the change in this search's memory use and says
  // why to stop, if the time or the memory is up.
  std::optional<std::string> should_stop(std::ptrdiff_t memory_delta);
  // The smallest culprit return event any partition has proved so far (an upper bound on the
  // final answer); partitions that got past it cannot change the answer and may stop.
  history::EventIndex violation_bound() const {
    return violation_bound_.load(std::memory_order_relaxed);
  }
  void offer_violation(history::EventIndex event);

 private:
  std::chrono::steady_clock::time_point start_;
  double timeout_seconds_;
  std::size_t memory_limit_;
  std::atomic<std::int64_t> memory_used_{0};
  std::atomic<history::EventIndex> violation_bound_{kNoLimitEvent};
};

enum class SearchEnd : std::uint8_t {
  kLinearizable,
  kViolation,
  kLimit,      // time or memory ran out; `reason` says which
  kPastBound,  // stopped because the frontier passed SearchLimits::violation_bound()
};

struct SearchResult {
  SearchEnd end = SearchEnd::kLimit;
  // kLinearizable: a witness; otherwise the partial linearization that reached `frontier`.
  std::vector<history::OpIndex> order;
  // The furthest return event reached (kNoEvent if none was reached). For kViolation it is the
  // first return event the search could never get past.
  history::EventIndex frontier = history::kNoEvent;
  std::string reason;
  std::uint64_t states = 0;
  std::size_t memo_bytes = 0;
};

template <class Op>
struct SearchOp {
  history::OpIndex op;
  history::EventIndex call;
  history::EventIndex ret;  // kNoEvent: pending
  const Op* compiled;
};

template <spec::SequentialModel M>
std::size_t state_heap_bytes(const M& model, const typename M::State& state) {
  if constexpr (requires {
                  { model.heap_bytes(state) } -> std::convertible_to<std::size_t>;
                }) {
    return model.heap_bytes(state);
  } else {
    return 0;
  }
}

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The memo: an open-addressing hash set of configurations (linearized set, model state).
template <spec::SequentialModel M>
class Memo {
 public:
  using State = typename M::State;

  Memo(const M& model, std::size_t pending_words) : model_(model), pending_words_(pending_words) {}

  // Inserts the configuration unless an explored one subsumes it: same linearized completed ops
  // (`bits`, `count` of them, all below `end`), same state, and a subset of its linearized
  // pending ops (`pending`). Pending ops never constrain anything, so linearizing more of them
  // only removes options. Returns false if subsumed.
  bool insert(std::uint64_t set_hash, std::int32_t count, std::int32_t end,
              const std::vector<std::uint64_t>& bits, const std::vector<std::uint64_t>& pending,
              const State& state) {
    const std::uint64_t hash = set_hash ^ splitmix64(model_.hash(state));
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const std::uint32_t index = slots_[slot];
      if (index == 0) {
        add(slot, hash, end, bits, state);
        entries_.back().masks = add_mask(pending, kNoMask);
        return true;
      }
      Entry& e = entries_[index - 1];
      if (e.hash != hash || e.end != end || e.end - e.excluded_count != count) continue;
      // Same size, same bound, and none of the entry's excluded ops is linearized: same set.
      bool same = true;
      for (std::int32_t k = 0; k < e.excluded_count && same; ++k) {
        const std::int32_t op = excluded_[e.excluded_offset + static_cast<std::uint32_t>(k)];
        same = !((bits[static_cast<std::size_t>(op) >> 6] >> (op & 63)) & 1);
      }
      if (!same || !(e.state == state)) continue;
      // The entry's pending masks form an antichain: cut off if one is a subset of `pending`,
      // otherwise add `pending` and drop the masks it subsumes.
      std::uint32_t* link = &e.masks;
      while (*link != kNoMask) {
        const std::uint32_t m = *link;
        if (is_subset(m, pending)) return false;
        if (is_superset(m, pending)) {
          *link = mask_next_[m];
        } else {
          link = &mask_next_[m];
        }
      }
      e.masks = add_mask(pending, e.masks);
      return true;
    }
  }

  std::size_t size() const { return mask_next_.size(); }
  std::size_t bytes() const {
    return entries_.capacity() * sizeof(Entry) + slots_.capacity() * sizeof(std::uint32_t) +
           excluded_.capacity() * sizeof(std::int32_t) + masks_.capacity() * sizeof(std::uint64_t) +
           mask_next_.capacity() * sizeof(std::uint32_t) + state_heap_bytes_;
  }

 private:
  static constexpr std::uint32_t kNoMask = 0xffffffffu;

  struct Entry {
    std::uint64_t hash;
    std::uint32_t excluded_offset;
    std::int32_t excluded_count;
    std::int32_t end;
    std::uint32_t masks;  // head of this configuration's list of pending masks
    State state;
  };

  bool is_subset(std::uint32_t m, const std::vector<std::uint64_t>& pending) const {
    const std::uint64_t* words = masks_.data() + static_cast<std::size_t>(m) * pending_words_;
    for (std::size_t w = 0; w < pending_words_; ++w) {
      if (words[w] & ~pending[w]) return false;
    }
    return true;
  }
  bool is_superset(std::uint32_t m, const std::vector<std::uint64_t>& pending) const {
    const std::uint64_t* words = masks_.data() + static_cast<std::size_t>(m) * pending_words_;
    for (std::size_t w = 0; w < pending_words_; ++w) {
      if (pending[w] & ~words[w]) return false;
    }
    return true;
  }
  std::uint32_t add_mask(const std::vector<std::uint64_t>& pending, std::uint32_t next) {
    masks_.insert(masks_.end(), pending.begin(),
                  pending.begin() + static_cast<std::ptrdiff_t>(pending_words_));
    mask_next_.push_back(next);
    return static_cast<std::uint32_t>(mask_next_.size() - 1);
  }

  void add(std::size_t slot, std::uint64_t hash, std::int32_t end,
           const std::vector<std::uint64_t>& bits, const State& state) {
    const auto offset = static_cast<std::uint32_t>(excluded_.size());
    for (std::int32_t word = 0; word * 64 < end; ++word) {
      std::uint64_t missing = ~bits[static_cast<std::size_t>(word)];
      if ((word + 1) * 64 > end) missing &= (std::uint64_t{1} << (end - word * 64)) - 1;
      while (missing) {
        excluded_.push_back(word * 64 + std::countr_zero(missing));
        missing &= missing - 1;
      }
    }
    const auto excluded = static_cast<std::int32_t>(excluded_.size() - offset);
    entries_.push_back(Entry{hash, offset, excluded, end, kNoMask, state});
    state_heap_bytes_ += state_heap_bytes(model_, state);
    slots_[slot] = static_cast<std::uint32_t>(entries_.size());
  }

  void grow() {
    std::vector<std::uint32_t> slots(std::max<std::size_t>(64, slots_.size() * 2), 0);
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      std::size_t slot = entries_[i].hash & mask;
      while (slots[slot] != 0) slot = (slot + 1) & mask;
      slots[slot] = static_cast<std::uint32_t>(i + 1);
    }
    slots_ = std::move(slots);
  }

  const M& model_;
  std::size_t pending_words_;
  std::vector<Entry> entries_;
  std::vector<std::uint64_t> masks_;  // pending_words_ words per mask
  std::vector<std::uint32_t> mask_next_;
  std::vector<std::uint32_t> slots_;
  std::vector<std::int32_t> excluded_;
  std::size_t state_heap_bytes_ = 0;
};

template <spec::SequentialModel M>
class Search {
 public:
  using State = typename M::State;
  using Op = typename M::Op;

  // `ops` must be sorted by call event.
  Search(const M& model, std::vector<SearchOp<Op>> ops, SearchLimits& limits)
      : model_(model), ops_(std::move(ops)), limits_(limits) {}

  SearchResult run();

 private:
  static constexpr std::uint64_t kCheckInterval = 4096;

  struct Frame {
    std::int32_t entry;
    std::int32_t previous_end;
    State state;
  };

  std::size_t stack_bytes(const std::vector<Frame>& stack) const {
    std::size_t bytes = stack.capacity() * sizeof(Frame);
    for (const Frame& f : stack) bytes += state_heap_bytes(model_, f.state);
    return bytes;
  }

  const M& model_;
  std::vector<SearchOp<Op>> ops_;
  SearchLimits& limits_;
};

template <spec::SequentialModel M>
SearchResult Search<M>::run() {
  const auto n = static_cast<std::int32_t>(ops_.size());
  // Entries 1..size in event order; 0 is the head sentinel and size + 1 the tail sentinel.
  struct Event {
    history::EventIndex event;
    std::int32_t op;
    bool call;
  };
  std::vector<Event> events;
  events.reserve(ops_.size() * 2);
  for (std::int32_t i = 0; i < n; ++i) {
    events.push_back({ops_[i].call, i, true});
    if (ops_[i].ret != history::kNoEvent) events.push_back({ops_[i].ret, i, false});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.event < b.event; });
  const auto entries = static_cast<std::int32_t>(events.size());
  const std::int32_t head = 0;
  const std::int32_t tail = entries + 1;
  std::vector<std::int32_t> next(entries + 2), prev(entries + 2), match(entries + 2, -1);
  std::vector<std::int32_t> entry_op(entries + 2, -1);
  std::vector<history::EventIndex> entry_event(entries + 2, history::kNoEvent);
  std::vector<std::uint8_t> is_call(entries + 2, 0);
  std::vector<std::int32_t> call_entry(ops_.size(), -1);
  std::int32_t returns_left = 0;
  for (std::int32_t e = 1; e <= entries; ++e) {
    const Event& ev = events[e - 1];
    entry_op[e] = ev.op;
    entry_event[e] = ev.event;
    is_call[e] = ev.call;
    if (ev.call) {
      call_entry[ev.op] = e;
    } else {
      match[call_entry[ev.op]] = e;
      ++returns_left;
    }
  }
  for (std::int32_t e = 0; e <= tail; ++e) {
    next[e] = e + 1;
    prev[e] = e - 1;
  }
  auto unlink = [&](std::int32_t e) {
    next[prev[e]] = next[e];
    prev[next[e]] = prev[e];
  };
  auto relink = [&](std::int32_t e) {
    prev[next[e]] = e;
    next[prev[e]] = e;
  };
  auto lift = [&](std::int32_t e) {
    unlink(e);
    if (match[e] >= 0) unlink(match[e]);
  };
  auto unlift = [&](std::int32_t e) {
    if (match[e] >= 0) relink(match[e]);
    relink(e);
  };

  // Completed ops are numbered in call order for the memo's compact set encoding; pending ops
  // get their own numbering for the subsumption masks.
  std::vector<std::int32_t> slot(ops_.size());
  std::vector<std::uint8_t> pending_op(ops_.size());
  std::int32_t completed_count = 0;
  std::int32_t pending_count = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    pending_op[i] = ops_[i].ret == history::kNoEvent;
    slot[i] = pending_op[i] ? pending_count++ : completed_count++;
  }
  std::vector<std::uint64_t> zobrist(ops_.size());
  for (std::int32_t i = 0; i < n; ++i)
    zobrist[i] = splitmix64(static_cast<std::uint64_t>(slot[i]) + 1);

  SearchResult result;
  auto order_of = [&](const std::vector<Frame>& stack) {
    std::vector<history::OpIndex> order;
    order.reserve(stack.size());
    for (const Frame& f : stack) order.push_back(ops_[entry_op[f.entry]].op);
    return order;
  };

  const std::size_t pending_words = (static_cast<std::size_t>(pending_count) + 63) / 64;
  Memo<M> memo(model_, pending_words);
  std::vector<Frame> stack;
  std::vector<std::uint64_t> bits(static_cast<std::size_t>(completed_count) / 64 + 1, 0);
  std::vector<std::uint64_t> pending(pending_words + 1, 0);
  State state = model_.initial();
  State scratch = state;  // reused for trial steps, so failed steps do not allocate
  std::int32_t end = 0;
  std::int32_t count = 0;
  std::uint64_t set_hash = 0;
  std::size_t reported_bytes = 0;
  std::uint64_t steps = 0;
  auto finish = [&](SearchEnd how) {
    result.end = how;
    result.states = memo.size();
    result.memo_bytes = memo.bytes();
    limits_.should_stop(-static_cast<std::ptrdiff_t>(reported_bytes));
    return result;
  };

  if (returns_left == 0) return finish(SearchEnd::kLinearizable);
  memo.insert(0, 0, 0, bits, pending, state);
  std::int32_t entry = next[head];
  while (true) {
    if (++steps % kCheckInterval == 0) {
      const std::size_t bytes = memo.bytes() + stack_bytes(stack);
      auto stop = limits_.should_stop(static_cast<std::ptrdiff_t>(bytes) -
                                      static_cast<std::ptrdiff_t>(reported_bytes));
      reported_bytes = bytes;
      if (stop) {
        result.reason = *stop;
        return finish(SearchEnd::kLimit);
      }
    }
    if (entry == tail) break;  // unreachable: returns_left > 0 puts a return entry before the tail
    if (is_call[entry]) {
      const std::int32_t i = entry_op[entry];
      scratch = state;
      if (model_.step(scratch, *ops_[i].compiled)) {
        const std::int32_t k = slot[i];
        const bool is_pending = pending_op[i];
        std::vector<std::uint64_t>& set = is_pending ? pending : bits;
        set[k >> 6] |= std::uint64_t{1} << (k & 63);
        const std::uint64_t new_hash = is_pending ? set_hash : set_hash ^ zobrist[i];
        const std::int32_t new_count = is_pending ? count : count + 1;
        const std::int32_t new_end = is_pending ? end : std::max(end, k + 1);
        if (memo.insert(new_hash, new_count, new_end, bits, pending, scratch)) {
          stack.push_back(Frame{entry, end, std::move(state)});
          state = std::move(scratch);
          scratch = State();
          set_hash = new_hash;
          count = new_count;
          end = new_end;
          lift(entry);
          if (match[entry] >= 0 && --returns_left == 0) {
            result.order = order_of(stack);
            return finish(SearchEnd::kLinearizable);
          }
          entry = next[head];
          continue;
        }
        set[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
      }
      entry = next[entry];
      continue;
    }
    // A return entry: every op returning before it is linearized in this configuration.
    if (entry_event[entry] > result.frontier) {
      result.frontier = entry_event[entry];
      result.order = order_of(stack);
      if (result.frontier > limits_.violation_bound()) return finish(SearchEnd::kPastBound);
    }
    if (stack.empty()) return finish(SearchEnd::kViolation);
    Frame frame = std::move(stack.back());
    stack.pop_back();
    const std::int32_t i = entry_op[frame.entry];
    unlift(frame.entry);
    const std::int32_t k = slot[i];
    if (pending_op[i]) {
      pending[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
    } else {
      ++returns_left;
      bits[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
      set_hash ^= zobrist[i];
      --count;
    }
    end = frame.previous_end;
    scratch = std::move(state);
    state = std::move(frame.state);
    entry = next[frame.entry];
  }
  result.reason = "internal error: search ran off the event list";
  return finish(SearchEnd::kLimit);
}

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_SEARCH_H_
