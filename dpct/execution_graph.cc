#include "dpct/execution_graph.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <unordered_map>

namespace linfault::dpct {
namespace {

using Kind = GraphEvent::Kind;

bool acquires(std::memory_order order) {
  return order == std::memory_order_acquire || order == std::memory_order_acq_rel ||
         order == std::memory_order_seq_cst || order == std::memory_order_consume;
}
bool releases(std::memory_order order) {
  return order == std::memory_order_release || order == std::memory_order_acq_rel ||
         order == std::memory_order_seq_cst;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kInit:
      return "initial write";
    case Kind::kRead:
      return "read";
    case Kind::kWrite:
      return "write";
    case Kind::kUpdate:
      return "read-modify-write";
    case Kind::kFence:
      return "fence";
    case Kind::kRelease:
      return "release";
    case Kind::kAcquire:
      return "acquire";
    case Kind::kBarrier:
      return "barrier";
  }
  return "event";
}

std::string name(const ExecutionGraph& graph, std::size_t e) {
  const GraphEvent& event = graph.events[e];
  std::string text = std::string(kind_name(event.kind)) + " #" + std::to_string(e);
  if (event.thread != GraphEvent::kNoThread) text += " (T" + std::to_string(event.thread) + ")";
  return text;
}

// Square bit relations over the events.
class BitMatrix {
 public:
  explicit BitMatrix(std::size_t n) : n_(n), words_((n + 63) / 64), bits_(n * words_, 0) {}
  void set(std::size_t a, std::size_t b) { row(a)[b / 64] |= std::uint64_t{1} << (b % 64); }
  bool test(std::size_t a, std::size_t b) const { return row(a)[b / 64] >> (b % 64) & 1u; }
  std::uint64_t* row(std::size_t a) { return bits_.data() + a * words_; }
  const std::uint64_t* row(std::size_t a) const { return bits_.data() + a * words_; }
  std::size_t words() const { return words_; }

 private:
  std::size_t n_, words_;
  std::vector<std::uint64_t> bits_;
};

// Happens-before as vector clocks, computed in one pass over the events (every edge goes
// forward in execution order): after apply(e), current(u)[v] counts v's events that
// happen-before thread u's next event. Synchronisation through kRelease/kAcquire of
// `ignored_object` is left out.
class ClockPass {
 public:
  ClockPass(const ExecutionGraph& graph, std::optional<std::uint64_t> ignored_object)
      : events_(graph.events),
        t_(graph.threads),
        ignored_(ignored_object),
        current_(t_ * t_, 0),
        release_fence_(t_ * t_, 0),
        pending_(t_ * t_, 0),
        sync_(events_.size() * t_, 0) {}

  std::size_t threads() const { return t_; }
  const std::uint32_t* current(std::size_t thread) const { return &current_[thread * t_]; }

  // Processes event e (events in order, each once); returns its place in its thread (from 1;
  // 0 for events without one). A barrier's clock is `all` afterwards.
  std::uint32_t apply(std::size_t e) {
    const GraphEvent& event = events_[e];
    if (event.kind == Kind::kBarrier) {
      all_.assign(t_, 0);
      for (std::size_t u = 0; u < t_; ++u) join(all_.data(), &current_[u * t_]);
      for (std::size_t u = 0; u < t_; ++u) join(&current_[u * t_], all_.data());
      return 0;
    }
    if (event.kind == Kind::kInit) {  // no thread: ordered by modification order only
      if (event.synchronizes_all) {
        std::uint32_t* sync = &sync_[e * t_];
        for (std::size_t u = 0; u < t_; ++u) join(sync, &current_[u * t_]);
      }
      return 0;
    }
    const std::size_t t = event.thread;
    std::uint32_t* clock = &current_[t * t_];
    const std::uint32_t position = ++clock[t];
    if (event.reads()) {
      const std::uint32_t* sync = &sync_[static_cast<std::size_t>(event.reads_from) * t_];
      join(acquires(event.order) ? clock : &pending_[t * t_], sync);
    }
    if (event.kind == Kind::kFence && acquires(event.order)) join(clock, &pending_[t * t_]);
    const bool ignored = ignored_ && event.location == *ignored_;
    if (event.kind == Kind::kAcquire && !ignored) {
      if (const auto it = objects_.find(event.location); it != objects_.end()) {
        join(clock, it->second.data());
      }
    }
    if (event.kind == Kind::kRelease && !ignored) {
      auto& object = objects_[event.location];
      object.resize(t_, 0);
      join(object.data(), clock);
    }
    if (event.kind == Kind::kFence && releases(event.order)) {
      std::copy(clock, clock + t_, &release_fence_[t * t_]);
    }
    if (event.kind == Kind::kWrite || event.kind == Kind::kUpdate) {
      std::uint32_t* sync = &sync_[e * t_];
      std::copy_n(releases(event.order) ? clock : &release_fence_[t * t_], t_, sync);
      // C++20 release sequences: an RMW passes on what the write it read carried.
      if (event.kind == Kind::kUpdate) {
        join(sync, &sync_[static_cast<std::size_t>(event.reads_from) * t_]);
      }
    }
    return position;
  }
  const std::vector<std::uint32_t>& barrier_clock() const { return all_; }

 private:
  void join(std::uint32_t* into, const std::uint32_t* from) const {
    for (std::size_t u = 0; u < t_; ++u) into[u] = std::max(into[u], from[u]);
  }

  const std::vector<GraphEvent>& events_;
  std::size_t t_;
  std::optional<std::uint64_t> ignored_;
  std::vector<std::uint32_t> current_, release_fence_, pending_;
  std::vector<std::uint32_t> sync_;  // per write: what an acquire read of it obtains
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> objects_;
  std::vector<std::uint32_t> all_;
};

class Checker {
 public:
  explicit Checker(const ExecutionGraph& graph)
      : graph_(graph), events_(graph.events), n_(events_.size()), t_(graph.threads) {}

  std::optional<std::string> run() {
    if (auto error = well_formed()) return error;
    compute_happens_before();
    if (auto error = coherence()) return error;
    return sequential_consistency();
  }

 private:
  // Reads name earlier writes of their location; threads are in range; RMWs are atomic.
  std::optional<std::string> well_formed() {
    std::unordered_map<std::uint64_t, std::size_t> last_write;  // per location
    mo_position_.assign(n_, 0);
    std::unordered_map<std::uint64_t, std::uint32_t> writes_so_far;
    for (std::size_t e = 0; e < n_; ++e) {
      const GraphEvent& event = events_[e];
      const bool threaded = event.kind != Kind::kInit && event.kind != Kind::kBarrier;
      if (threaded != (event.thread != GraphEvent::kNoThread) || (threaded && event.thread >= t_)) {
        return name(graph_, e) + " has no valid thread";
      }
      if (event.reads()) {
        const std::int64_t w = event.reads_from;
        if (w < 0 || static_cast<std::size_t>(w) >= e) {
          return name(graph_, e) + " reads no earlier event (thin air)";
        }
        const GraphEvent& written = events_[static_cast<std::size_t>(w)];
        if (!written.writes() || written.location != event.location) {
          return name(graph_, e) + " reads " + name(graph_, static_cast<std::size_t>(w)) +
                 ", not a write of its location";
        }
        if (event.kind == Kind::kUpdate &&
            last_write[event.location] != static_cast<std::size_t>(w)) {
          return "atomicity: " + name(graph_, e) + " reads " +
                 name(graph_, static_cast<std::size_t>(w)) + ", not the write just before its own";
        }
      } else if (event.kind == Kind::kInit && writes_so_far.count(event.location) != 0) {
        return name(graph_, e) + " initializes a location already written";
      }
      if (event.writes()) {
        last_write[event.location] = e;
        mo_position_[e] = writes_so_far[event.location]++;
        writes_by_location_[event.location].push_back(e);
      }
      if (event.reads()) reads_by_location_[event.location].push_back(e);
    }
    return std::nullopt;
  }

  // clock(e)[u]: how many of thread u's events happen before e or are e.
  void compute_happens_before() {
    clocks_.assign(n_ * t_, 0);
    position_.assign(n_, 0);
    ClockPass pass(graph_, std::nullopt);
    for (std::size_t e = 0; e < n_; ++e) {
      position_[e] = pass.apply(e);
      const GraphEvent& event = events_[e];
      if (event.kind == Kind::kBarrier) {
        std::copy(pass.barrier_clock().begin(), pass.barrier_clock().end(), &clocks_[e * t_]);
      } else if (event.thread != GraphEvent::kNoThread) {
        std::copy_n(pass.current(event.thread), t_, &clocks_[e * t_]);
      }
    }
  }

  bool happens_before(std::size_t a, std::size_t b) const {
    if (a == b) return false;
    const GraphEvent& x = events_[a];
    if (x.thread == GraphEvent::kNoThread) {
      if (x.kind != Kind::kBarrier || b < a) return false;
      // A barrier happens-before what follows it in every thread.
      const GraphEvent& y = events_[b];
      if (y.thread == GraphEvent::kNoThread) return y.kind == Kind::kBarrier;
      for (std::size_t u = 0; u < t_; ++u) {
        if (clocks_[b * t_ + u] < clocks_[a * t_ + u]) return false;
      }
      return true;
    }
    if (events_[b].kind == Kind::kInit) return false;
    return clocks_[b * t_ + x.thread] >= position_[a] && position_[a] != 0;
  }

  // CoWR and CoRR (the other coherence shapes hold by construction: modification order is
  // execution order and happens-before goes forward in it).
  std::optional<std::string> coherence() {
    for (const auto& [location, reads] : reads_by_location_) {
      const std::vector<std::size_t>& writes = writes_by_location_[location];
      for (std::size_t i = 0; i < reads.size(); ++i) {
        const std::size_t r = reads[i];
        const auto w = static_cast<std::size_t>(events_[r].reads_from);
        // CoWR: no write newer than the one read happens-before the read.
        for (auto it = std::upper_bound(writes.begin(), writes.end(), w);
             it != writes.end() && *it < r; ++it) {
          if (happens_before(*it, r)) {
            return "coherence (CoWR): " + name(graph_, r) + " reads " + name(graph_, w) +
                   ", but the newer " + name(graph_, *it) + " happens-before it";
          }
        }
        // CoRR: no read that happens-before this one read a newer write.
        for (std::size_t j = 0; j < i; ++j) {
          const std::size_t earlier = reads[j];
          const auto w0 = static_cast<std::size_t>(events_[earlier].reads_from);
          if (mo_position_[w0] > mo_position_[w] && happens_before(earlier, r)) {
            return "coherence (CoRR): " + name(graph_, r) + " reads " + name(graph_, w) +
                   ", older than " + name(graph_, w0) + " read by " + name(graph_, earlier) +
                   ", which happens-before it";
          }
        }
      }
    }
    return std::nullopt;
  }

  // The coherence position of an access: a write's place in modification order; a read's, that
  // of the write it read.
  std::uint32_t read_position(std::size_t e) const {
    return mo_position_[static_cast<std::size_t>(events_[e].reads_from)];
  }
  // eco = (rf ∪ mo ∪ rb)⁺, which relates accesses to one location by coherence position.
  bool eco(std::size_t x, std::size_t y) const {
    const GraphEvent& a = events_[x];
    const GraphEvent& b = events_[y];
    if (x == y || !a.access() || !b.access() || a.location != b.location) return false;
    if (a.writes()) {
      if (b.writes() && mo_position_[y] > mo_position_[x]) return true;
      if (b.reads() && read_position(y) >= mo_position_[x]) return true;  // rf, mo; rf
      return false;
    }
    // x only reads: rb (to newer writes) and rb; rf (to reads of them).
    if (b.writes() && mo_position_[y] > read_position(x)) return true;
    return b.reads() && read_position(y) > read_position(x);
  }
  bool rb(std::size_t x, std::size_t y) const {
    return x != y && events_[x].reads() && events_[y].writes() &&
           events_[x].location == events_[y].location && mo_position_[y] > read_position(x);
  }
  bool mo(std::size_t x, std::size_t y) const {
    return events_[x].writes() && events_[y].writes() &&
           events_[x].location == events_[y].location && mo_position_[y] > mo_position_[x];
  }
  bool same_location(std::size_t x, std::size_t y) const {
    return events_[x].access() && events_[y].access() && events_[x].location == events_[y].location;
  }

  // RC11's SC axiom: psc = psc_base ∪ psc_F acyclic over the seq_cst accesses and fences.
  std::optional<std::string> sequential_consistency() {
    std::vector<std::size_t> sc;
    for (std::size_t e = 0; e < n_; ++e) {
      const GraphEvent& event = events_[e];
      if ((event.access() || event.kind == Kind::kFence) && event.kind != Kind::kInit &&
          event.order == std::memory_order_seq_cst) {
        sc.push_back(e);
      }
    }
    if (sc.size() < 2) return std::nullopt;
    // Per event: the first event after it in its thread that is not an access of its location,
    // and the last such before it (po|≠loc's nearest ends; later and earlier ones are reached
    // through po ⊆ hb).
    std::vector<std::int64_t> next_other(n_, -1), previous_other(n_, -1);
    {
      std::vector<std::vector<std::size_t>> by_thread(t_);
      for (std::size_t e = 0; e < n_; ++e) {
        if (events_[e].thread != GraphEvent::kNoThread) by_thread[events_[e].thread].push_back(e);
      }
      for (const auto& list : by_thread) {
        for (std::size_t i = 0; i < list.size(); ++i) {
          for (std::size_t j = i + 1; j < list.size(); ++j) {
            if (!same_location(list[i], list[j])) {
              next_other[list[i]] = static_cast<std::int64_t>(list[j]);
              break;
            }
          }
          for (std::size_t j = i; j-- > 0;) {
            if (!same_location(list[i], list[j])) {
              previous_other[list[i]] = static_cast<std::int64_t>(list[j]);
              break;
            }
          }
        }
      }
    }
    auto po = [this](std::size_t x, std::size_t y) {
      return events_[x].thread != GraphEvent::kNoThread && events_[x].thread == events_[y].thread &&
             x < y;
    };
    // scb = po ∪ po|≠loc; hb; po|≠loc ∪ hb|loc ∪ mo ∪ rb.
    BitMatrix scb(n_);
    for (std::size_t x = 0; x < n_; ++x) {
      for (std::size_t y = 0; y < n_; ++y) {
        bool edge =
            po(x, y) || mo(x, y) || rb(x, y) || (same_location(x, y) && happens_before(x, y));
        if (!edge && next_other[x] >= 0 && previous_other[y] >= 0) {
          const auto c = static_cast<std::size_t>(next_other[x]);
          const auto d = static_cast<std::size_t>(previous_other[y]);
          edge = c == d ? false : happens_before(c, d);
        }
        if (edge) scb.set(x, y);
      }
    }
    const std::size_t m = sc.size();
    const std::size_t words = scb.words();
    // left(a) = {a} ∪ (a fence ? hb-successors : ∅); right(b) = {b} ∪ (b fence ? hb-predecessors).
    std::vector<std::uint64_t> reach(m * words, 0);  // (left; scb) per SC event
    std::vector<std::uint64_t> right(m * words, 0);
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t a = sc[i];
      const bool fence = events_[a].kind == Kind::kFence;
      std::uint64_t* row = &reach[i * words];
      std::uint64_t* r = &right[i * words];
      for (std::size_t x = 0; x < n_; ++x) {
        if (x == a || (fence && happens_before(a, x))) {
          const std::uint64_t* s = scb.row(x);
          for (std::size_t k = 0; k < words; ++k) row[k] |= s[k];
        }
        if (x == a || (fence && happens_before(x, a))) r[x / 64] |= std::uint64_t{1} << (x % 64);
      }
    }
    BitMatrix psc(m);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < m; ++j) {
        const std::uint64_t* row = &reach[i * words];
        const std::uint64_t* r = &right[j * words];
        for (std::size_t k = 0; k < words; ++k) {
          if (row[k] & r[k]) {
            psc.set(i, j);
            break;
          }
        }
      }
    }
    // psc_F = [F^sc]; (hb ∪ hb; eco; hb); [F^sc].
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t a = sc[i];
      if (events_[a].kind != Kind::kFence) continue;
      std::vector<char> after_eco(n_, 0);  // hb; eco from a
      for (std::size_t x = 0; x < n_; ++x) {
        if (!happens_before(a, x) || !events_[x].access()) continue;
        for (std::size_t y = 0; y < n_; ++y) after_eco[y] |= eco(x, y);
      }
      for (std::size_t j = 0; j < m; ++j) {
        const std::size_t b = sc[j];
        if (events_[b].kind != Kind::kFence || a == b) continue;
        bool edge = happens_before(a, b);
        for (std::size_t y = 0; y < n_ && !edge; ++y) {
          edge = after_eco[y] && (y == b || happens_before(y, b));
        }
        if (edge) psc.set(i, j);
      }
    }
    // Acyclic: a depth-first search for a back edge.
    std::vector<char> state(m, 0);  // 0 new, 1 on the stack, 2 done
    std::vector<std::size_t> parent(m, m);
    for (std::size_t root = 0; root < m; ++root) {
      if (state[root] != 0) continue;
      std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
      state[root] = 1;
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next == m) {
          state[v] = 2;
          stack.pop_back();
          continue;
        }
        const std::size_t w = next++;
        if (!psc.test(v, w)) continue;
        if (state[w] == 1) {
          return "SC: the seq_cst events " + name(graph_, sc[w]) + " and " + name(graph_, sc[v]) +
                 " lie on a cycle of psc (no single total order of seq_cst events explains the "
                 "reads)";
        }
        if (state[w] == 0) {
          state[w] = 1;
          stack.push_back({w, 0});
        }
      }
    }
    return std::nullopt;
  }

  const ExecutionGraph& graph_;
  const std::vector<GraphEvent>& events_;
  std::size_t n_, t_;
  std::vector<std::uint32_t> mo_position_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> writes_by_location_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> reads_by_location_;
  std::vector<std::uint32_t> clocks_;    // n_ × t_
  std::vector<std::uint32_t> position_;  // per event: its place in its thread, from 1
};

}  // namespace

std::optional<std::string> find_axiom_violation(const ExecutionGraph& graph) {
  return Checker(graph).run();
}

std::vector<std::vector<std::uint32_t>> happens_before_at(
    const ExecutionGraph& graph, std::span<const ClockPoint> points,
    std::optional<std::uint64_t> ignored_object) {
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return points[a].events < points[b].events;
  });
  std::vector<std::vector<std::uint32_t>> out(points.size());
  ClockPass pass(graph, ignored_object);
  std::size_t applied = 0;
  for (const std::size_t i : order) {
    const ClockPoint& point = points[i];
    if (point.events > graph.events.size() || point.thread >= graph.threads) {
      throw std::out_of_range("happens_before_at: a point outside the graph");
    }
    while (applied < point.events) pass.apply(applied++);
    const std::uint32_t* clock = pass.current(point.thread);
    out[i].assign(clock, clock + graph.threads);
  }
  return out;
}

}  // namespace linfault::dpct
