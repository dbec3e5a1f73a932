#include "dpct/litmus.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "dpct/exhaustive.h"
#include "dpct/shared.h"
#include "dpct/weak_memory.h"

namespace linfault::dpct {
namespace {

constexpr int kMaxLocations = 8;
constexpr int kMaxRegisters = 16;
constexpr std::size_t kMaxThreads = 4;
constexpr std::size_t kMaxEvents = 16;  // of the threads, not counting the initial writes

std::string location_name(int location) {
  static const char* const kNames[] = {"x", "y", "z", "w"};
  return location < 4 ? kNames[location] : "l" + std::to_string(location);
}

// The sizes of a program; throws for one out of bounds.
struct Shape {
  int locations = 0;
  int registers = 0;
};
Shape validate(const LitmusProgram& program) {
  if (program.threads.empty() || program.threads.size() > kMaxThreads) {
    throw std::invalid_argument("a litmus program has 1 to 4 threads");
  }
  Shape shape;
  std::size_t events = 0;
  for (const auto& thread : program.threads) {
    for (const LitmusOp& op : thread) {
      ++events;
      if (op.location < 0 || op.location >= kMaxLocations) {
        throw std::invalid_argument("a litmus location is 0 to 7");
      }
      if (op.reg < -1 || op.reg >= kMaxRegisters) {
        throw std::invalid_argument("a litmus register is 0 to 15");
      }
      if (op.kind != LitmusOp::kFence) shape.locations = std::max(shape.locations, op.location + 1);
      shape.registers = std::max(shape.registers, op.reg + 1);
    }
  }
  if (events > kMaxEvents) throw std::invalid_argument("a litmus program has at most 16 events");
  std::uint32_t set = 0;
  for (const auto& thread : program.threads) {
    for (const LitmusOp& op : thread) {
      if (op.reg < 0 || op.kind == LitmusOp::kFence || op.kind == LitmusOp::kStore) continue;
      if (set >> op.reg & 1u) throw std::invalid_argument("a litmus register is set twice");
      set |= 1u << op.reg;
    }
  }
  return shape;
}

// Relations over at most 32 events, one bit row per event.
using Relation = std::array<std::uint32_t, 32>;

void close_transitively(Relation& r, int n) {
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      if (r[i] >> k & 1u) r[i] |= r[k];
    }
  }
}

bool irreflexive(const Relation& r, int n) {
  for (int i = 0; i < n; ++i) {
    if (r[i] >> i & 1u) return false;
  }
  return true;
}

Relation compose(const Relation& a, const Relation& b, int n) {
  Relation out{};
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n; ++k) {
      if (a[i] >> k & 1u) out[i] |= b[k];
    }
  }
  return out;
}

Relation unite(const Relation& a, const Relation& b) {
  Relation out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i] | b[i];
  return out;
}

// One event of the execution graph.
struct Event {
  int thread = -1;  // -1: a location's initial write
  LitmusOp::Kind kind = LitmusOp::kStore;
  int location = 0;
  std::memory_order order = std::memory_order_relaxed;
  std::int64_t value = 0;  // a store's value, an RMW's addend
  int reg = -1;
  bool reads() const { return kind == LitmusOp::kLoad || kind == LitmusOp::kFetchAdd; }
  bool writes() const { return kind == LitmusOp::kStore || kind == LitmusOp::kFetchAdd; }
  bool access() const { return kind != LitmusOp::kFence; }
};

class AxiomaticSearch {
 public:
  AxiomaticSearch(const LitmusProgram& program, Shape shape) : shape_(shape) {
    for (int l = 0; l < shape.locations; ++l) events_.push_back({-1, LitmusOp::kStore, l});
    for (std::size_t t = 0; t < program.threads.size(); ++t) {
      for (const LitmusOp& op : program.threads[t]) {
        events_.push_back({static_cast<int>(t), op.kind, op.location, op.order, op.value, op.reg});
      }
    }
    n_ = static_cast<int>(events_.size());
    for (int e = 0; e < n_; ++e) {
      if (events_[e].reads()) reads_.push_back(e);
    }
    for (int l = 0; l < shape.locations; ++l) {
      std::vector<int> writes;
      for (int e = shape.locations; e < n_; ++e) {
        if (events_[e].writes() && events_[e].location == l) writes.push_back(e);
      }
      writes_.push_back(writes);
    }
    // po: program order, and every initial write before every other event.
    for (int a = 0; a < n_; ++a) {
      for (int b = 0; b < n_; ++b) {
        const Event& x = events_[a];
        const Event& y = events_[b];
        const bool po =
            (x.thread == -1 && y.thread != -1) || (x.thread != -1 && x.thread == y.thread && a < b);
        if (po) po_[a] |= 1u << b;
      }
    }
  }

  std::set<LitmusOutcome> run() {
    rf_.assign(n_, -1);
    mo_.assign(shape_.locations, {});
    for (int l = 0; l < shape_.locations; ++l) mo_[l] = writes_[l];  // sorted: the first order
    choose_rf(0);
    return outcomes_;
  }

 private:
  void choose_rf(std::size_t i) {
    if (i == reads_.size()) {
      choose_mo(0);
      return;
    }
    const int r = reads_[i];
    const int l = events_[r].location;
    rf_[r] = l;  // the initial write
    choose_rf(i + 1);
    for (const int w : writes_[l]) {
      if (w == r) continue;
      rf_[r] = w;
      choose_rf(i + 1);
    }
  }

  void choose_mo(int l) {
    if (l == shape_.locations) {
      check();
      return;
    }
    std::vector<int>& order = mo_[l];
    std::sort(order.begin(), order.end());
    do {
      choose_mo(l + 1);
    } while (std::next_permutation(order.begin(), order.end()));
  }

  // The value event `e` writes (an RMW adds to what it read); false on an rf cycle of RMWs.
  bool written_value(int e, std::int64_t& value, int depth = 0) const {
    if (depth > n_) return false;
    const Event& event = events_[e];
    if (event.thread == -1) {
      value = 0;
      return true;
    }
    if (event.kind == LitmusOp::kStore) {
      value = event.value;
      return true;
    }
    std::int64_t read = 0;
    if (!written_value(rf_[e], read, depth + 1)) return false;
    value = read + event.value;
    return true;
  }

  void check() {
    Relation rf{}, mo{}, rb{}, rmw_rf{};
    for (const int r : reads_) {
      rf[rf_[r]] |= 1u << r;
      if (events_[r].kind == LitmusOp::kFetchAdd) rmw_rf[rf_[r]] |= 1u << r;
    }
    // mo per location: the initial write, then mo_[l] in order.
    std::vector<int> position(n_, -1);
    for (int l = 0; l < shape_.locations; ++l) {
      std::vector<int> chain{l};
      chain.insert(chain.end(), mo_[l].begin(), mo_[l].end());
      for (std::size_t i = 0; i < chain.size(); ++i) {
        position[chain[i]] = static_cast<int>(i);
        for (std::size_t j = i + 1; j < chain.size(); ++j) mo[chain[i]] |= 1u << chain[j];
      }
    }
    for (const int r : reads_) {
      rb[r] = mo[rf_[r]] & ~(1u << r);
    }
    // No thin air: po ∪ rf acyclic (also keeps RMW values well defined).
    Relation porf = unite(po_, rf);
    close_transitively(porf, n_);
    if (!irreflexive(porf, n_)) return;
    // Atomicity: an RMW is the immediate mo successor of the write it read.
    for (const int r : reads_) {
      if (events_[r].kind != LitmusOp::kFetchAdd) continue;
      if (position[r] != position[rf_[r]] + 1) return;
    }
    // rs = [W]; (rf; rmw)*: a write and the RMWs that read it, transitively.
    Relation rs{};
    for (int w = 0; w < n_; ++w) {
      if (events_[w].writes() || events_[w].thread == -1) rs[w] = (1u << w) | rmw_rf[w];
    }
    close_transitively(rs, n_);
    // sw = [E ⊒ rel]; ([F]; po)?; rs; rf; [R]; (po; [F])?; [E ⊒ acq].
    Relation sw{};
    for (int a = 0; a < n_; ++a) {
      const Event& x = events_[a];
      if (x.thread == -1 || !releases(x.order)) continue;
      std::uint32_t heads = 0;  // the writes a's release covers
      if (x.writes()) heads |= 1u << a;
      if (x.kind == LitmusOp::kFence) {
        for (int w = 0; w < n_; ++w) {
          if ((po_[a] >> w & 1u) && events_[w].writes()) heads |= 1u << w;
        }
      }
      std::uint32_t reached = 0;  // writes in the release sequences of the heads
      for (int w = 0; w < n_; ++w) {
        if (heads >> w & 1u) reached |= rs[w];
      }
      std::uint32_t readers = 0;
      for (int w = 0; w < n_; ++w) {
        if (reached >> w & 1u) readers |= rf[w];
      }
      for (int r = 0; r < n_; ++r) {
        if (!(readers >> r & 1u)) continue;
        if (acquires(events_[r].order)) sw[a] |= 1u << r;
        for (int f = 0; f < n_; ++f) {
          if ((po_[r] >> f & 1u) && events_[f].kind == LitmusOp::kFence &&
              acquires(events_[f].order)) {
            sw[a] |= 1u << f;
          }
        }
      }
    }
    Relation hb = unite(po_, sw);
    close_transitively(hb, n_);
    // Coherence: hb; eco? irreflexive.
    Relation eco = unite(unite(rf, mo), rb);
    close_transitively(eco, n_);
    if (!irreflexive(hb, n_) || !irreflexive(compose(hb, eco, n_), n_)) return;
    // SC.
    std::uint32_t sc_events = 0, sc_fences = 0;
    for (int e = 0; e < n_; ++e) {
      if (events_[e].thread == -1 || events_[e].order != std::memory_order_seq_cst) continue;
      (events_[e].access() ? sc_events : sc_fences) |= 1u << e;
    }
    if (sc_events | sc_fences) {
      Relation same_location{}, po_other{}, hb_same{};
      for (int a = 0; a < n_; ++a) {
        for (int b = 0; b < n_; ++b) {
          if (events_[a].access() && events_[b].access() &&
              events_[a].location == events_[b].location) {
            same_location[a] |= 1u << b;
          }
        }
        po_other[a] = po_[a] & ~same_location[a];
        hb_same[a] = hb[a] & same_location[a];
      }
      const Relation scb = unite(
          unite(unite(po_, compose(compose(po_other, hb, n_), po_other, n_)), unite(hb_same, mo)),
          rb);
      Relation left{}, right{};  // [E^sc] ∪ [F^sc]; hb? and [E^sc] ∪ hb?; [F^sc]
      for (int a = 0; a < n_; ++a) {
        if (sc_events >> a & 1u) left[a] |= 1u << a;
        if (sc_fences >> a & 1u) left[a] |= (1u << a) | hb[a];
        for (int b = 0; b < n_; ++b) {
          if ((sc_events >> b & 1u) && a == b) right[a] |= 1u << b;
          if ((sc_fences >> b & 1u) && (a == b || (hb[a] >> b & 1u))) right[a] |= 1u << b;
        }
      }
      Relation psc = compose(compose(left, scb, n_), right, n_);
      const Relation hb_eco_hb = compose(compose(hb, eco, n_), hb, n_);
      for (int a = 0; a < n_; ++a) {
        if (!(sc_fences >> a & 1u)) continue;
        psc[a] |= (hb[a] | hb_eco_hb[a]) & sc_fences;
      }
      close_transitively(psc, n_);
      if (!irreflexive(psc, n_)) return;
    }
    LitmusOutcome outcome;
    outcome.registers.assign(shape_.registers, 0);
    outcome.finals.assign(shape_.locations, 0);
    for (const int r : reads_) {
      if (events_[r].reg < 0) continue;
      std::int64_t value = 0;
      if (!written_value(rf_[r], value)) return;
      outcome.registers[events_[r].reg] = value;
    }
    for (int l = 0; l < shape_.locations; ++l) {
      const int last = mo_[l].empty() ? l : mo_[l].back();
      if (!written_value(last, outcome.finals[l])) return;
    }
    outcomes_.insert(outcome);
  }

  Shape shape_;
  std::vector<Event> events_;
  int n_ = 0;
  std::vector<int> reads_;
  std::vector<std::vector<int>> writes_;  // per location, not counting the initial write
  Relation po_{};
  std::vector<int> rf_;               // per event that reads: the write it reads
  std::vector<std::vector<int>> mo_;  // per location: its writes after the initial one
  std::set<LitmusOutcome> outcomes_;
};

// Every interleaving and every read choice of WeakMemory.
class WeakMemorySearch {
 public:
  WeakMemorySearch(const LitmusProgram& program, Shape shape) : program_(program), shape_(shape) {}

  std::set<LitmusOutcome> run() {
    const State start{WeakMemory(program_.threads.size()),
                      std::vector<std::size_t>(program_.threads.size(), 0),
                      std::vector<std::int64_t>(shape_.locations, 0),
                      std::vector<std::int64_t>(shape_.registers, 0)};
    explore(start);
    return outcomes_;
  }

 private:
  struct State {
    WeakMemory memory;
    std::vector<std::size_t> pc;
    std::vector<std::int64_t> cells;  // each location's newest value
    std::vector<std::int64_t> registers;
  };

  const void* address(int location) const { return &addresses_[location]; }

  void explore(const State& state) {
    bool finished = true;
    for (std::uint32_t t = 0; t < program_.threads.size(); ++t) {
      if (state.pc[t] == program_.threads[t].size()) continue;
      finished = false;
      const LitmusOp& op = program_.threads[t][state.pc[t]];
      const std::size_t size = sizeof(std::int64_t);
      if (op.kind == LitmusOp::kLoad) {
        State probe = state;
        const std::size_t choices =
            probe.memory
                .load_candidates(t, address(op.location), size, op.order, &probe.cells[op.location])
                .size();
        for (std::size_t c = 0; c < choices; ++c) {
          State next = state;
          next.memory.load_candidates(t, address(op.location), size, op.order,
                                      &next.cells[op.location]);
          std::int64_t read = 0;
          std::memcpy(&read, next.memory.commit_load(c), size);
          if (op.reg >= 0) next.registers[op.reg] = read;
          ++next.pc[t];
          explore(next);
        }
        continue;
      }
      State next = state;
      if (op.kind == LitmusOp::kFence) {
        next.memory.fence(t, op.order);
      } else {
        std::int64_t& cell = next.cells[op.location];
        const std::int64_t written = op.kind == LitmusOp::kStore ? op.value : cell + op.value;
        if (op.kind == LitmusOp::kStore) {
          next.memory.store(t, address(op.location), size, op.order, &cell, &written);
        } else {
          next.memory.read_modify_write(t, address(op.location), size, op.order, &cell, &written);
          if (op.reg >= 0) next.registers[op.reg] = cell;
        }
        cell = written;
      }
      ++next.pc[t];
      explore(next);
    }
    if (finished) outcomes_.insert({state.registers, state.cells});
  }

  const LitmusProgram& program_;
  Shape shape_;
  std::int64_t addresses_[kMaxLocations] = {};
  std::set<LitmusOutcome> outcomes_;
};

}  // namespace

std::string LitmusProgram::describe() const {
  std::string text;
  for (std::size_t t = 0; t < threads.size(); ++t) {
    if (t > 0) text += " || ";
    for (std::size_t i = 0; i < threads[t].size(); ++i) {
      const LitmusOp& op = threads[t][i];
      if (i > 0) text += "; ";
      const std::string reg = op.reg >= 0 ? "r" + std::to_string(op.reg) + "=" : "";
      const std::string at = location_name(op.location);
      const std::string order = memory_order_name(op.order);
      switch (op.kind) {
        case LitmusOp::kLoad:
          text += reg + at + "." + order;
          break;
        case LitmusOp::kStore:
          text += at + "." + order + "=" + std::to_string(op.value);
          break;
        case LitmusOp::kFetchAdd:
          text += reg + at + "." + order + "+=" + std::to_string(op.value);
          break;
        case LitmusOp::kFence:
          text += "fence." + order;
          break;
      }
    }
  }
  return text;
}

std::string LitmusOutcome::to_string() const {
  std::string text;
  for (std::size_t r = 0; r < registers.size(); ++r) {
    text += "r" + std::to_string(r) + "=" + std::to_string(registers[r]) + " ";
  }
  text += "|";
  for (std::size_t l = 0; l < finals.size(); ++l) {
    text += " " + location_name(static_cast<int>(l)) + "=" + std::to_string(finals[l]);
  }
  return text;
}

std::vector<NamedLitmus> litmus_suite() {
  constexpr auto rlx = std::memory_order_relaxed;
  constexpr auto acq = std::memory_order_acquire;
  constexpr auto rel = std::memory_order_release;
  constexpr auto sc = std::memory_order_seq_cst;
  constexpr int x = 0;
  constexpr int y = 1;
  auto ld = [](int location, int reg, std::memory_order order) {
    return LitmusOp{LitmusOp::kLoad, location, 0, order, reg};
  };
  auto st = [](int location, std::int64_t value, std::memory_order order) {
    return LitmusOp{LitmusOp::kStore, location, value, order};
  };
  auto add = [](int location, int reg, std::memory_order order) {
    return LitmusOp{LitmusOp::kFetchAdd, location, 1, order, reg};
  };
  const LitmusOp fence_sc{LitmusOp::kFence, 0, 0, sc};
  const LitmusOp fence_rel{LitmusOp::kFence, 0, 0, rel};
  const LitmusOp fence_acq{LitmusOp::kFence, 0, 0, acq};

  std::vector<NamedLitmus> suite;
  auto add_test = [&suite](std::string name, std::string variant,
                           std::vector<std::vector<LitmusOp>> threads) {
    suite.push_back({std::move(name), std::move(variant), LitmusProgram{std::move(threads)}});
  };
  // (store order, load order) variants of the shapes without fences.
  const struct {
    const char* name;
    std::memory_order store;
    std::memory_order load;
  } kOrders[] = {{"relaxed", rlx, rlx}, {"rel-acq", rel, acq}, {"seq_cst", sc, sc}};

  for (const auto& o : kOrders) {
    add_test("SB", o.name,
             {{st(x, 1, o.store), ld(y, 0, o.load)}, {st(y, 1, o.store), ld(x, 1, o.load)}});
  }
  add_test("SB", "sc-fences",
           {{st(x, 1, rlx), fence_sc, ld(y, 0, rlx)}, {st(y, 1, rlx), fence_sc, ld(x, 1, rlx)}});

  for (const auto& o : kOrders) {
    add_test("MP", o.name, {{st(x, 1, rlx), st(y, 1, o.store)}, {ld(y, 0, o.load), ld(x, 1, rlx)}});
  }
  add_test("MP", "fences",
           {{st(x, 1, rlx), fence_rel, st(y, 1, rlx)}, {ld(y, 0, rlx), fence_acq, ld(x, 1, rlx)}});

  for (const auto& o : kOrders) {
    add_test("LB", o.name,
             {{ld(x, 0, o.load), st(y, 1, o.store)}, {ld(y, 1, o.load), st(x, 1, o.store)}});
  }

  for (const auto& o : kOrders) {
    add_test("IRIW", o.name,
             {{st(x, 1, o.store)},
              {st(y, 1, o.store)},
              {ld(x, 0, o.load), ld(y, 1, o.load)},
              {ld(y, 2, o.load), ld(x, 3, o.load)}});
  }
  add_test("IRIW", "sc-fences",
           {{st(x, 1, rlx)},
            {st(y, 1, rlx)},
            {ld(x, 0, rlx), fence_sc, ld(y, 1, rlx)},
            {ld(y, 2, rlx), fence_sc, ld(x, 3, rlx)}});
  add_test("IRIW", "acq-sc",
           {{st(x, 1, sc)},
            {st(y, 1, sc)},
            {ld(x, 0, acq), ld(y, 1, sc)},
            {ld(y, 2, acq), ld(x, 3, sc)}});

  for (const auto& o : kOrders) {
    add_test("2+2W", o.name,
             {{st(x, 1, o.store), st(y, 2, o.store)}, {st(y, 1, o.store), st(x, 2, o.store)}});
  }
  add_test("2+2W", "sc-fences",
           {{st(x, 1, rlx), fence_sc, st(y, 2, rlx)}, {st(y, 1, rlx), fence_sc, st(x, 2, rlx)}});

  for (const auto& o : kOrders) {
    add_test("R", o.name,
             {{st(x, 1, o.store), st(y, 1, o.store)}, {st(y, 2, o.store), ld(x, 0, o.load)}});
  }
  add_test("R", "sc-fences",
           {{st(x, 1, rlx), fence_sc, st(y, 1, rlx)}, {st(y, 2, rlx), fence_sc, ld(x, 0, rlx)}});

  for (const auto& o : kOrders) {
    add_test("S", o.name, {{st(x, 2, rlx), st(y, 1, o.store)}, {ld(y, 0, o.load), st(x, 1, rlx)}});
  }

  for (const auto& o : kOrders) {
    add_test("WRC", o.name,
             {{st(x, 1, o.store)},
              {ld(x, 0, o.load), st(y, 1, o.store)},
              {ld(y, 1, o.load), ld(x, 2, rlx)}});
  }

  for (const auto& o : {kOrders[0], kOrders[2]}) {
    add_test("CoRR", o.name, {{st(x, 1, o.store)}, {ld(x, 0, o.load), ld(x, 1, o.load)}});
    add_test("CoWR", o.name, {{st(x, 1, o.store), ld(x, 0, o.load)}, {st(x, 2, o.store)}});
    add_test("CoRW", o.name, {{ld(x, 0, o.load), st(x, 1, o.store)}, {st(x, 2, o.store)}});
    add_test("CoWW", o.name, {{st(x, 1, o.store), st(x, 2, o.store)}, {ld(x, 0, o.load)}});
    add_test("RMW", o.name, {{add(x, 0, o.store)}, {add(x, 1, o.store)}});
  }

  // Release sequences (C++20): through another thread's RMW, and not through the releasing
  // thread's later relaxed store.
  add_test("relseq-rmw", "rel-acq",
           {{st(x, 1, rlx), st(y, 1, rel)}, {add(y, -1, rlx)}, {ld(y, 0, acq), ld(x, 1, rlx)}});
  add_test("relseq-store", "rel-acq",
           {{st(x, 1, rlx), st(y, 1, rel), st(y, 2, rlx)}, {ld(y, 0, acq), ld(x, 1, rlx)}});
  // SC accesses mixed with weaker ones: an SC load must not read a relaxed store older than an
  // SC store; what an SC fence saw travels with happens-before.
  add_test("SC-stale", "mixed",
           {{st(x, 2, sc), ld(y, 0, sc)}, {st(x, 1, rlx), st(y, 1, sc), ld(x, 1, sc)}});
  add_test("SC-fence-hb", "mixed",
           {{st(x, 1, sc), ld(y, 0, sc)},
            {st(y, 1, rlx), fence_sc, st(y, 2, rlx)},
            {ld(y, 1, acq), ld(x, 2, rlx)}});
  return suite;
}

std::vector<NamedLitmus> litmus_order_sweep(std::size_t stride) {
  if (stride == 0) throw std::invalid_argument("litmus_order_sweep: stride 0");
  constexpr int x = 0;
  constexpr int y = 1;
  const LitmusOp::Kind ld = LitmusOp::kLoad, st = LitmusOp::kStore, rmw = LitmusOp::kFetchAdd;
  struct Skeleton {
    const char* name;
    std::vector<std::vector<LitmusOp>> threads;  // orders are filled in
  };
  auto op = [](LitmusOp::Kind kind, int location, std::int64_t value, int reg = -1) {
    return LitmusOp{kind, location, value, std::memory_order_relaxed, reg};
  };
  const Skeleton skeletons[] = {
      {"SB", {{op(st, x, 1), op(ld, y, 0, 0)}, {op(st, y, 1), op(ld, x, 0, 1)}}},
      {"MP", {{op(st, x, 1), op(st, y, 1)}, {op(ld, y, 0, 0), op(ld, x, 0, 1)}}},
      {"R", {{op(st, x, 1), op(st, y, 1)}, {op(st, y, 2), op(ld, x, 0, 0)}}},
      {"S", {{op(st, x, 2), op(st, y, 1)}, {op(ld, y, 0, 0), op(st, x, 1)}}},
      {"2+2W", {{op(st, x, 1), op(st, y, 2)}, {op(st, y, 1), op(st, x, 2)}}},
      {"LB", {{op(ld, x, 0, 0), op(st, y, 1)}, {op(ld, y, 0, 1), op(st, x, 1)}}},
      {"SB+RMW", {{op(rmw, x, 1, 0), op(ld, y, 0, 1)}, {op(rmw, y, 1, 2), op(ld, x, 0, 3)}}},
      {"WRC",
       {{op(st, x, 1)}, {op(ld, x, 0, 0), op(st, y, 1)}, {op(ld, y, 0, 1), op(ld, x, 0, 2)}}},
      {"RWC",
       {{op(st, x, 1)}, {op(ld, x, 0, 0), op(ld, y, 0, 1)}, {op(st, y, 1), op(ld, x, 0, 2)}}},
      {"SC-stale",
       {{op(st, x, 2), op(ld, y, 0, 0)}, {op(st, x, 1), op(st, y, 1), op(ld, x, 0, 1)}}},
      {"SC-fence-hb",
       {{op(st, x, 1), op(ld, y, 0, 0)},
        {op(st, y, 1), op(st, y, 2)},
        {op(ld, y, 0, 1), op(ld, x, 0, 2)}}},
  };
  auto orders_of = [](LitmusOp::Kind kind) -> std::array<std::memory_order, 3> {
    const auto middle = kind == LitmusOp::kLoad    ? std::memory_order_acquire
                        : kind == LitmusOp::kStore ? std::memory_order_release
                                                   : std::memory_order_acq_rel;
    return {std::memory_order_relaxed, middle, std::memory_order_seq_cst};
  };
  constexpr std::array<std::memory_order, 3> kFences = {
      std::memory_order_release, std::memory_order_acquire, std::memory_order_seq_cst};

  std::vector<NamedLitmus> sweep;
  std::size_t index = 0;
  for (const Skeleton& skeleton : skeletons) {
    std::size_t accesses = 0;
    std::vector<std::size_t> slots;  // threads that get a fence slot
    for (std::size_t t = 0; t < skeleton.threads.size(); ++t) {
      accesses += skeleton.threads[t].size();
      if (skeleton.threads[t].size() >= 2 && slots.size() < 2) slots.push_back(t);
    }
    std::size_t order_variants = 1;
    for (std::size_t a = 0; a < accesses; ++a) order_variants *= 3;
    std::size_t fence_variants = 1;
    for (std::size_t f = 0; f < slots.size(); ++f) fence_variants *= 4;
    for (std::size_t v = 0; v < order_variants * fence_variants; ++v, ++index) {
      if (index % stride != 0) continue;
      std::size_t code = v;
      NamedLitmus test{skeleton.name, "", {}};
      std::string variant;
      for (const auto& thread : skeleton.threads) {
        test.program.threads.emplace_back();
        for (const LitmusOp& base : thread) {
          LitmusOp filled = base;
          filled.order = orders_of(base.kind)[code % 3];
          code /= 3;
          variant += memory_order_name(filled.order);
          variant += ' ';
          test.program.threads.back().push_back(filled);
        }
      }
      for (const std::size_t t : slots) {
        const std::size_t fence = code % 4;
        code /= 4;
        if (fence == 0) continue;
        auto& ops = test.program.threads[t];
        ops.insert(ops.begin() + 1, LitmusOp{LitmusOp::kFence, 0, 0, kFences[fence - 1]});
        variant += "F" + std::to_string(t) + "." + memory_order_name(kFences[fence - 1]) + " ";
      }
      variant.pop_back();
      test.variant = variant;
      sweep.push_back(std::move(test));
    }
  }
  return sweep;
}

LitmusProgram random_litmus_program(std::uint64_t seed, bool seq_cst_only) {
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  auto next = [&state](std::uint64_t bound) {  // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (state * 0x2545f4914f6cdd1dull >> 32) % bound;
  };
  constexpr std::memory_order kOrders[] = {std::memory_order_relaxed, std::memory_order_acquire,
                                           std::memory_order_release, std::memory_order_acq_rel,
                                           std::memory_order_seq_cst};
  constexpr auto sc = std::memory_order_seq_cst;
  LitmusProgram program;
  program.threads.resize(2 + next(2));
  int reg = 0;
  for (auto& thread : program.threads) {
    const std::size_t ops = 1 + next(program.threads.size() == 2 ? 3 : 2);
    for (std::size_t i = 0; i < ops; ++i) {
      const int location = static_cast<int>(next(2));
      const std::memory_order any = kOrders[next(5)];
      switch (seq_cst_only ? next(3) : next(4)) {
        case 0: {  // a load: no release part
          const std::memory_order order =
              seq_cst_only                       ? sc
              : any == std::memory_order_release ? std::memory_order_relaxed
              : any == std::memory_order_acq_rel ? std::memory_order_acquire
                                                 : any;
          thread.push_back({LitmusOp::kLoad, location, 0, order, reg++});
          break;
        }
        case 1: {  // a store: no acquire part
          const std::memory_order order =
              seq_cst_only                       ? sc
              : any == std::memory_order_acquire ? std::memory_order_relaxed
              : any == std::memory_order_acq_rel ? std::memory_order_release
                                                 : any;
          thread.push_back(
              {LitmusOp::kStore, location, 1 + static_cast<std::int64_t>(next(2)), order});
          break;
        }
        case 2:
          thread.push_back({LitmusOp::kFetchAdd, location, 1, seq_cst_only ? sc : any, reg++});
          break;
        default:  // a relaxed fence does nothing: make it seq_cst
          thread.push_back({LitmusOp::kFence, 0, 0, any == std::memory_order_relaxed ? sc : any});
          break;
      }
    }
  }
  return program;
}

std::set<LitmusOutcome> axiomatic_outcomes(const LitmusProgram& program) {
  return AxiomaticSearch(program, validate(program)).run();
}

std::set<LitmusOutcome> weak_memory_outcomes(const LitmusProgram& program) {
  return WeakMemorySearch(program, validate(program)).run();
}

namespace {

// A litmus program as an object: call t runs thread t's operations; the destructor (after Pr,
// natively) writes the registers and each location's final value (its newest store: the
// modification order's last, as modification order is execution order) into `sink`.
class LitmusObject final : public ObjectUnderTest {
 public:
  LitmusObject(const LitmusProgram& program, Shape shape, LitmusOutcome& sink)
      : program_(program),
        shape_(shape),
        sink_(sink),
        registers_(static_cast<std::size_t>(shape.registers), 0) {}
  ~LitmusObject() override {
    sink_.registers = registers_;
    sink_.finals.clear();
    for (int l = 0; l < shape_.locations; ++l) sink_.finals.push_back(locations_[l].unsafe_peek());
  }
  LitmusObject(const LitmusObject&) = delete;
  LitmusObject& operator=(const LitmusObject&) = delete;

  history::Value invoke(const history::Call& call) override {
    const auto thread = static_cast<std::size_t>(call.args.at(0).as_int());
    for (const LitmusOp& op : program_.threads.at(thread)) {
      std::int64_t read = 0;
      switch (op.kind) {
        case LitmusOp::kLoad:
          read = locations_[op.location].load(op.order);
          break;
        case LitmusOp::kStore:
          locations_[op.location].store(op.value, op.order);
          continue;
        case LitmusOp::kFetchAdd:
          read = locations_[op.location].fetch_add(op.value, op.order);
          break;
        case LitmusOp::kFence:
          dpct::atomic_thread_fence(op.order);
          continue;
      }
      if (op.reg >= 0) registers_[static_cast<std::size_t>(op.reg)] = read;
    }
    return {};
  }

 private:
  const LitmusProgram& program_;
  Shape shape_;
  LitmusOutcome& sink_;
  std::vector<std::int64_t> registers_;
  Atomic<std::int64_t> locations_[kMaxLocations] = {};
};

}  // namespace

std::set<LitmusOutcome> executed_outcomes(const LitmusProgram& program, MemoryModel model,
                                          std::uint64_t* executions) {
  const Shape shape = validate(program);
  Workload workload;
  for (std::size_t t = 0; t < program.threads.size(); ++t) {
    workload.threads.push_back({history::Call{"thread", {static_cast<std::int64_t>(t)}}});
  }
  LitmusOutcome outcome;
  const ObjectFactory factory = [&] {
    return std::make_unique<LitmusObject>(program, shape, outcome);
  };
  std::set<LitmusOutcome> outcomes;
  Executor executor;
  ExhaustiveOptions options;
  options.memory_model = model;
  options.execution.record_history = false;
  options.execution.record_points = false;
  options.execution.synchronize_operations = false;  // a thread is no client's operation
  options.execution.check_memory_model = true;
  const ExhaustiveResult result =
      explore_exhaustively(executor, factory, workload, options, [&](const Run& run) {
        if (run.outcome != RunOutcome::kOk) {
          throw std::logic_error("litmus program " + program.describe() + ": a run ended as " +
                                 run_outcome_name(run.outcome) + ": " + run.message);
        }
        if (!run.memory_model_violation.empty()) {
          throw std::logic_error("litmus program " + program.describe() +
                                 ": a run breaks the C++20 axioms: " + run.memory_model_violation);
        }
        outcomes.insert(outcome);
        return false;
      });
  if (executions != nullptr) *executions = result.executions;
  return outcomes;
}

}  // namespace linfault::dpct
