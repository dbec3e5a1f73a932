#include "spec/per_producer_queue.h"

#include <algorithm>
#include <optional>

namespace linfault::spec {
namespace {

using Ints = std::vector<std::int32_t>;

// One alternative lies in v[base, v.size()): v[base] is its owed removals, then its FIFOs as
// (producer, n, x_1 ... x_n), producers ascending.

std::size_t fifo_end(const Ints& v, std::size_t fifo) {
  return fifo + 2 + static_cast<std::size_t>(v[fifo + 1]);
}

void enqueue(Ints& v, std::size_t base, std::int32_t producer, std::int32_t x) {
  std::size_t fifo = base + 1;
  for (; fifo < v.size(); fifo = fifo_end(v, fifo)) {
    if (v[fifo] == producer) {
      v.insert(v.begin() + static_cast<std::ptrdiff_t>(fifo_end(v, fifo)), x);
      ++v[fifo + 1];
      return;
    }
    if (v[fifo] > producer) break;
  }
  const std::int32_t added[] = {producer, 1, x};
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(fifo), added, added + 3);
}

// A way for a dequeue to return x: from the FIFO at `fifo`, after `skipped` owed removals took
// the elements before it.
struct Take {
  std::size_t fifo;
  std::int32_t skipped;
};

// Calls f(Take) for each FIFO whose first x lies within reach of the owed removals.
template <class F>
void for_each_take(const Ints& v, std::size_t base, std::int32_t x, F&& f) {
  const std::int32_t owed = v[base];
  for (std::size_t fifo = base + 1; fifo < v.size(); fifo = fifo_end(v, fifo)) {
    const std::int32_t reach = std::min(v[fifo + 1], owed + 1);
    for (std::int32_t i = 0; i < reach; ++i) {
      if (v[fifo + 2 + static_cast<std::size_t>(i)] == x) {
        f(Take{fifo, i});
        break;
      }
    }
  }
}

void take(Ints& v, std::size_t base, Take t) {
  v[base] -= t.skipped;
  const std::int32_t n = v[t.fifo + 1];
  const std::int32_t removed = t.skipped + 1;
  const auto fifo = v.begin() + static_cast<std::ptrdiff_t>(t.fifo);
  if (removed == n) {
    v.erase(fifo, fifo + 2 + n);
  } else {
    v.erase(fifo + 2, fifo + 2 + removed);
    v[t.fifo + 1] = n - removed;
  }
}

// deq() -> nil: the owed removals empty every FIFO, or the step is illegal.
bool empty_out(Ints& v, std::size_t base) {
  std::int64_t total = 0;
  for (std::size_t fifo = base + 1; fifo < v.size(); fifo = fifo_end(v, fifo)) total += v[fifo + 1];
  if (total > v[base]) return false;
  v[base] -= static_cast<std::int32_t>(total);
  v.resize(base + 1);
  return true;
}

// The alternatives of a state, each without its length.
std::vector<Ints> alternatives(const Ints& state) {
  std::vector<Ints> out;
  for (std::size_t at = 0; at < state.size(); at += 1 + static_cast<std::size_t>(state[at])) {
    const auto first = state.begin() + static_cast<std::ptrdiff_t>(at + 1);
    out.emplace_back(first, first + state[at]);
  }
  return out;
}

std::int64_t elements(const Ints& alternative) {
  std::int64_t n = 0;
  for (std::size_t fifo = 1; fifo < alternative.size(); fifo = fifo_end(alternative, fifo)) {
    n += alternative[fifo + 1];
  }
  return n;
}

}  // namespace

Compiled<PerProducerQueueModel::Op> PerProducerQueueModel::compile(
    const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"enq", "offer", "enqueue"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{.kind = Op::Kind::kEnq,
                .producer = producers_->intern(history::Value(recorded.process)),
                .value = values_->intern(op.non_nil_arg(0))};
    }
    const bool may_fail = op.is({"try_dequeue", "try_deq"});
    if (!may_fail && !op.is({"deq", "poll", "dequeue"})) op.unknown_method();
    op.arity(0);
    if (op.failed()) return NoEffect{};
    if (op.pending()) return Op{.kind = Op::Kind::kOwe};
    if (recorded.result.is_nil()) {
      if (may_fail) return NoEffect{};  // legal in every state, and removes nothing
      return Op{.kind = Op::Kind::kEmpty};
    }
    return Op{.kind = Op::Kind::kDeq, .value = values_->intern(recorded.result)};
  });
}

bool PerProducerQueueModel::step(State& state, const Op& op) const {
  // One alternative (the usual case): in place, unless a dequeue has several ways to go.
  if (static_cast<std::size_t>(state[0]) + 1 == state.size()) {
    bool several_ways = false;
    switch (op.kind) {
      case Op::Kind::kEnq:
        enqueue(state, 1, op.producer, op.value);
        break;
      case Op::Kind::kOwe:
        ++state[1];
        break;
      case Op::Kind::kEmpty:
        if (!empty_out(state, 1)) return false;
        break;
      case Op::Kind::kDeq: {
        std::optional<Take> first;
        int ways = 0;
        for_each_take(state, 1, op.value, [&](Take t) {
          if (ways++ == 0) first = t;
        });
        if (ways == 0) return false;
        several_ways = ways > 1;
        if (!several_ways) take(state, 1, *first);
        break;
      }
    }
    if (!several_ways) {
      state[0] = static_cast<std::int32_t>(state.size() - 1);
      return true;
    }
  }

  std::vector<Ints> next;
  for (Ints& alternative : alternatives(state)) {
    switch (op.kind) {
      case Op::Kind::kEnq:
        enqueue(alternative, 0, op.producer, op.value);
        next.push_back(std::move(alternative));
        break;
      case Op::Kind::kOwe:
        ++alternative[0];
        next.push_back(std::move(alternative));
        break;
      case Op::Kind::kEmpty:
        if (empty_out(alternative, 0)) next.push_back(std::move(alternative));
        break;
      case Op::Kind::kDeq:
        for_each_take(alternative, 0, op.value, [&](Take t) {
          next.push_back(alternative);
          take(next.back(), 0, t);
        });
        break;
    }
  }
  if (next.empty()) return false;
  std::sort(next.begin(), next.end());
  next.erase(std::unique(next.begin(), next.end()), next.end());
  state.clear();
  for (const Ints& alternative : next) {
    state.push_back(static_cast<std::int32_t>(alternative.size()));
    state.insert(state.end(), alternative.begin(), alternative.end());
  }
  return true;
}

std::string PerProducerQueueModel::describe(const State& state) const {
  std::string out;
  const std::vector<Ints> all = alternatives(state);
  if (all.size() > 1) out = "one of ";
  for (std::size_t a = 0; a < all.size(); ++a) {
    const Ints& v = all[a];
    if (a > 0) out += " | ";
    out += "{";
    for (std::size_t fifo = 1; fifo < v.size(); fifo = fifo_end(v, fifo)) {
      if (fifo > 1) out += ", ";
      out += "p" + producers_->value(v[fifo]).to_string() + " ";
      out +=
          describe_ids(*values_, Ints(v.begin() + static_cast<std::ptrdiff_t>(fifo + 2),
                                      v.begin() + static_cast<std::ptrdiff_t>(fifo_end(v, fifo))));
    }
    out += "}";
    if (v[0] > 0) {
      out += " less up to " + std::to_string(v[0]) + " head" + (v[0] == 1 ? "" : "s") +
             " (pending dequeue)";
    }
  }
  return out;
}

std::vector<history::Call> PerProducerQueueModel::build(const State& state) const {
  std::vector<history::Call> calls;
  const Ints first = alternatives(state).front();
  for (std::size_t fifo = 1; fifo < first.size(); fifo = fifo_end(first, fifo)) {
    for (std::size_t i = fifo + 2; i < fifo_end(first, fifo); ++i) {
      calls.push_back(history::Call{"enq", {values_->value(first[i])}});
    }
  }
  return calls;
}

std::vector<history::Call> PerProducerQueueModel::reveal(const State& state) const {
  std::int64_t most = 0;
  for (const Ints& alternative : alternatives(state)) most = std::max(most, elements(alternative));
  const auto n = static_cast<std::size_t>(most + 1);
  std::vector<history::Call> calls(n, history::Call{"deq", {}});
  calls.insert(calls.end(), n, history::Call{"try_dequeue", {}});
  return calls;
}

}  // namespace linfault::spec
