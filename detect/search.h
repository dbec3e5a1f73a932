// The Wing–Gong–Lowe linearizability search over one (sub-)history; an implementation detail of
// detect/checker.h, exposed so that tests and benchmarks can drive it directly.
//
// Input: the operations that take part (their full-history op index, call event, return event or
// kNoEvent for a pending op, and the model's compiled Op). Each completed op contributes a call
// and a return entry to an intrusive doubly-linked list in event order, a pending op only a call
// entry (it may be linearized any time after its call, or never). The search repeatedly lifts a
// call entry that lies before the first remaining return entry and that the model accepts,
// backtracking when none is left; configurations (set of linearized ops, model state) already
// explored are cut off by a memo (Lowe). The calls of a configuration are tried in the order of
// their ops' returns, not of their calls (see list_choices); what is explored in all does not
// change. Measured on one thread against the call order (bench/check/README.md): Porcupine's
// etcd logs 8 times fewer states, KV c50-bad 18 times, generated queue and stack histories
// about the same.
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
// A search can run in slices (Search::advance): the checker interleaves the searches of a
// history's partitions so that the cheapest violation bounds the others early.
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

// One search, resumable: advance(steps) runs at most `steps` more steps and returns the result
// once the search has ended, nullopt while it has not. The checker interleaves the searches of
// several partitions this way, so that a cheap violation in one partition is found (and bounds
// the others) before an expensive partition has run to its end.
template <spec::SequentialModel M>
class Search {
 public:
  using State = typename M::State;
  using Op = typename M::Op;

  // `ops` must be sorted by call event.
  Search(const M& model, std::vector<SearchOp<Op>> ops, SearchLimits& limits)
      : model_(model), ops_(std::move(ops)), limits_(limits) {}

  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;
  // A search dropped before its end (an exception in a slice) gives back the memory it reported.
  ~Search() {
    if (reported_bytes_ > 0) limits_.should_stop(-static_cast<std::ptrdiff_t>(reported_bytes_));
  }

  std::optional<SearchResult> advance(std::uint64_t steps);
  SearchResult run() { return *advance(std::numeric_limits<std::uint64_t>::max()); }

  std::uint64_t steps_taken() const { return steps_; }

 private:
  static constexpr std::uint64_t kCheckInterval = 4096;

  struct Frame {
    std::int32_t entry;
    std::int32_t previous_end;
    std::int32_t choice;  // the position of `entry` in its configuration's choices
    State state;
  };

  void start();
  void list_choices();
  std::vector<history::OpIndex> order_of_stack() const;
  SearchResult finish(SearchEnd how);
  void unlink(std::int32_t e) {
    next_[prev_[e]] = next_[e];
    prev_[next_[e]] = prev_[e];
  }
  void relink(std::int32_t e) {
    prev_[next_[e]] = e;
    next_[prev_[e]] = e;
  }
  void lift(std::int32_t e) {
    unlink(e);
    if (match_[e] >= 0) unlink(match_[e]);
  }
  void unlift(std::int32_t e) {
    if (match_[e] >= 0) relink(match_[e]);
    relink(e);
  }
  std::size_t stack_bytes() const {
    std::size_t bytes = stack_.capacity() * sizeof(Frame);
    for (const Frame& f : stack_) bytes += state_heap_bytes(model_, f.state);
    return bytes;
  }

  const M& model_;
  std::vector<SearchOp<Op>> ops_;
  SearchLimits& limits_;
  bool started_ = false;
  std::optional<SearchResult> ended_;

  // The event list: entries 1..size in event order; 0 is the head sentinel, size + 1 the tail.
  std::int32_t head_ = 0;
  std::int32_t tail_ = 0;
  std::vector<std::int32_t> next_, prev_, match_, entry_op_;
  std::vector<history::EventIndex> entry_event_;
  std::vector<std::uint8_t> is_call_;
  std::int32_t returns_left_ = 0;

  // Completed ops are numbered in call order for the memo's compact set encoding; pending ops
  // get their own numbering for the subsumption masks.
  std::vector<std::int32_t> slot_;
  std::vector<std::uint8_t> pending_op_;
  std::vector<std::uint64_t> zobrist_;

  std::optional<Memo<M>> memo_;  // engaged from start() until the search ends
  std::vector<Frame> stack_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint64_t> pending_;
  State state_{};
  State scratch_{};  // reused for trial steps, so failed steps do not allocate
  // The current configuration's choices (see list_choices) and the one being tried.
  std::vector<std::int32_t> choices_;
  std::size_t choice_ = 0;
  std::int32_t first_return_ = 0;  // the configuration's first return entry
  std::int32_t end_ = 0;
  std::int32_t count_ = 0;
  std::uint64_t set_hash_ = 0;
  std::size_t reported_bytes_ = 0;
  std::uint64_t steps_ = 0;
  SearchResult result_;
};

template <spec::SequentialModel M>
void Search<M>::start() {
  started_ = true;
  const auto n = static_cast<std::int32_t>(ops_.size());
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
  tail_ = entries + 1;
  next_.resize(entries + 2);
  prev_.resize(entries + 2);
  match_.assign(entries + 2, -1);
  entry_op_.assign(entries + 2, -1);
  entry_event_.assign(entries + 2, history::kNoEvent);
  is_call_.assign(entries + 2, 0);
  std::vector<std::int32_t> call_entry(ops_.size(), -1);
  for (std::int32_t e = 1; e <= entries; ++e) {
    const Event& ev = events[e - 1];
    entry_op_[e] = ev.op;
    entry_event_[e] = ev.event;
    is_call_[e] = ev.call;
    if (ev.call) {
      call_entry[ev.op] = e;
    } else {
      match_[call_entry[ev.op]] = e;
      ++returns_left_;
    }
  }
  for (std::int32_t e = 0; e <= tail_; ++e) {
    next_[e] = e + 1;
    prev_[e] = e - 1;
  }

  slot_.resize(ops_.size());
  pending_op_.resize(ops_.size());
  std::int32_t completed_count = 0;
  std::int32_t pending_count = 0;
  for (std::int32_t i = 0; i < n; ++i) {
    pending_op_[i] = ops_[i].ret == history::kNoEvent;
    slot_[i] = pending_op_[i] ? pending_count++ : completed_count++;
  }
  zobrist_.resize(ops_.size());
  for (std::int32_t i = 0; i < n; ++i)
    zobrist_[i] = splitmix64(static_cast<std::uint64_t>(slot_[i]) + 1);

  const std::size_t pending_words = (static_cast<std::size_t>(pending_count) + 63) / 64;
  memo_.emplace(model_, pending_words);
  bits_.assign(static_cast<std::size_t>(completed_count) / 64 + 1, 0);
  pending_.assign(pending_words + 1, 0);
  state_ = model_.initial();
  scratch_ = state_;
  memo_->insert(0, 0, 0, bits_, pending_, state_);
  list_choices();
  choice_ = 0;
}

// A configuration's choices are WGL's: the calls before its first return entry. They are tried
// in the order of their ops' returns (pending ops last), not of their calls: the op of the
// first return must be linearized before it, and ops that return late are rarely needed early,
// so witnesses of linearizable histories and prefixes are found with little backtracking. Only
// the order changes, not the set, so violations are still proven by exhausting every choice.
template <spec::SequentialModel M>
void Search<M>::list_choices() {
  choices_.clear();
  std::int32_t e = next_[head_];
  for (; e != tail_ && is_call_[e]; e = next_[e]) choices_.push_back(e);
  first_return_ = e;
  if (choices_.size() < 2) return;
  const std::vector<SearchOp<Op>>& ops = ops_;
  const std::vector<std::int32_t>& entry_op = entry_op_;
  auto return_of = [&](std::int32_t entry) {
    const history::EventIndex r = ops[entry_op[entry]].ret;
    return r == history::kNoEvent ? std::numeric_limits<history::EventIndex>::max() : r;
  };
  std::sort(choices_.begin(), choices_.end(), [&](std::int32_t a, std::int32_t b) {
    const history::EventIndex ra = return_of(a);
    const history::EventIndex rb = return_of(b);
    return ra != rb ? ra < rb : a < b;
  });
}

template <spec::SequentialModel M>
std::vector<history::OpIndex> Search<M>::order_of_stack() const {
  std::vector<history::OpIndex> order;
  order.reserve(stack_.size());
  for (const Frame& f : stack_) order.push_back(ops_[entry_op_[f.entry]].op);
  return order;
}

template <spec::SequentialModel M>
SearchResult Search<M>::finish(SearchEnd how) {
  result_.end = how;
  result_.states = memo_ ? memo_->size() : 0;
  result_.memo_bytes = memo_ ? memo_->bytes() : 0;
  limits_.should_stop(-static_cast<std::ptrdiff_t>(reported_bytes_));
  reported_bytes_ = 0;
  // The search's working memory is not needed any more; the result keeps what matters.
  memo_.reset();
  stack_ = {};
  ended_ = result_;
  return result_;
}

template <spec::SequentialModel M>
std::optional<SearchResult> Search<M>::advance(std::uint64_t steps) {
  if (ended_) return ended_;
  // Another partition may have found an earlier violation since the last call.
  if (started_ && result_.frontier > limits_.violation_bound()) {
    return finish(SearchEnd::kPastBound);
  }
  if (!started_) {
    start();
    if (returns_left_ == 0) return finish(SearchEnd::kLinearizable);
  }
  for (std::uint64_t budget = steps; budget > 0; --budget) {
    if (++steps_ % kCheckInterval == 0) {
      const std::size_t bytes = memo_->bytes() + stack_bytes();
      auto stop = limits_.should_stop(static_cast<std::ptrdiff_t>(bytes) -
                                      static_cast<std::ptrdiff_t>(reported_bytes_));
      reported_bytes_ = bytes;
      if (stop) {
        result_.reason = *stop;
        return finish(SearchEnd::kLimit);
      }
    }
    if (choice_ < choices_.size()) {
      const std::int32_t entry = choices_[choice_];
      const std::int32_t i = entry_op_[entry];
      scratch_ = state_;
      if (model_.step(scratch_, *ops_[i].compiled)) {
        const std::int32_t k = slot_[i];
        const bool is_pending = pending_op_[i];
        std::vector<std::uint64_t>& set = is_pending ? pending_ : bits_;
        set[k >> 6] |= std::uint64_t{1} << (k & 63);
        const std::uint64_t new_hash = is_pending ? set_hash_ : set_hash_ ^ zobrist_[i];
        const std::int32_t new_count = is_pending ? count_ : count_ + 1;
        const std::int32_t new_end = is_pending ? end_ : std::max(end_, k + 1);
        if (memo_->insert(new_hash, new_count, new_end, bits_, pending_, scratch_)) {
          stack_.push_back(
              Frame{entry, end_, static_cast<std::int32_t>(choice_), std::move(state_)});
          state_ = std::move(scratch_);
          scratch_ = State();
          set_hash_ = new_hash;
          count_ = new_count;
          end_ = new_end;
          lift(entry);
          if (match_[entry] >= 0 && --returns_left_ == 0) {
            result_.order = order_of_stack();
            return finish(SearchEnd::kLinearizable);
          }
          list_choices();
          choice_ = 0;
          continue;
        }
        set[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
      }
      ++choice_;
      continue;
    }
    if (first_return_ == tail_) break;  // unreachable: returns_left_ > 0 leaves a return entry
    // Every choice failed: every op returning before the first return entry is linearized here.
    if (entry_event_[first_return_] > result_.frontier) {
      result_.frontier = entry_event_[first_return_];
      result_.order = order_of_stack();
      if (result_.frontier > limits_.violation_bound()) return finish(SearchEnd::kPastBound);
    }
    if (stack_.empty()) return finish(SearchEnd::kViolation);
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    const std::int32_t i = entry_op_[frame.entry];
    unlift(frame.entry);
    const std::int32_t k = slot_[i];
    if (pending_op_[i]) {
      pending_[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
    } else {
      ++returns_left_;
      bits_[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
      set_hash_ ^= zobrist_[i];
      --count_;
    }
    end_ = frame.previous_end;
    scratch_ = std::move(state_);
    state_ = std::move(frame.state);
    // The configuration is the one before the lift: the same choices, in the same order.
    list_choices();
    choice_ = static_cast<std::size_t>(frame.choice) + 1;
  }
  if (choice_ >= choices_.size() && first_return_ == tail_) {
    result_.reason = "internal error: search ran off the event list";
    return finish(SearchEnd::kLimit);
  }
  return std::nullopt;
}

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_SEARCH_H_
