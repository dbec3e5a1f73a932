#include "spec/generator.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <ostream>
#include <queue>
#include <random>
#include <unordered_map>

namespace linfault::spec {
namespace {

using history::Call;
using history::Value;

// One generated operation: who, what, the result, and where it lies in time.
struct GenOp {
  std::int32_t thread = 0;
  Call call;
  Value result;
  std::int64_t inv = 0;
  std::int64_t res = 0;
  bool pending = false;
};

enum class Role : std::uint8_t { kAdd, kRemove, kPeek, kContains, kUpdate, kScan };

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : engine_() % n; }
  double unit() { return std::uniform_real_distribution<double>(0, 1)(engine_); }

 private:
  std::mt19937_64 engine_;
};

// The sequential simulation: picks each next operation from the current state.
class Simulator {
 public:
  Simulator(const std::string& model, Rng& rng, std::size_t operations)
      : model_(model), rng_(rng), operations_(operations) {}

  // Appends the operation of step `step` by `thread` to `ops` and its role to `roles`.
  void step(std::int32_t thread, std::vector<GenOp>& ops, std::vector<Role>& roles) {
    if (phase_left_ == 0) {
      static constexpr double kAddBias[] = {0.3, 0.5, 0.5, 0.7};
      add_bias_ = kAddBias[rng_.below(4)];
      phase_left_ = 20 + rng_.below(200);
    }
    --phase_left_;
    GenOp op;
    op.thread = thread;
    Role role;
    if (model_ == "set") {
      role = set_step(op);
    } else if (model_ == "snapshot") {
      role = snapshot_step(thread, op);
    } else {
      role = container_step(op);
    }
    ops.push_back(std::move(op));
    roles.push_back(role);
  }

 private:
  Role container_step(GenOp& op) {
    const double r = rng_.unit();
    const bool stack = model_ == "stack", queue = model_ == "queue";
    if (r < 0.1) {
      op.call.method = "peek";
      op.result = size() == 0 ? Value() : Value(top());
      return Role::kPeek;
    }
    if (r < 0.1 + 0.9 * add_bias_) {
      std::int64_t v;
      if (stack || queue) {
        v = ++counter_;
      } else {  // random high bits, distinct low bits
        v = static_cast<std::int64_t>((rng_.next() >> 34) << 32) |
            static_cast<std::int64_t>(++counter_);
      }
      op.call = Call{stack ? "push" : queue ? "enq" : "insert", {Value(v)}};
      if (stack) stack_.push_back(v);
      if (queue) queue_.push_back(v);
      if (!stack && !queue) pq_.push(v);
      return Role::kAdd;
    }
    op.call.method = stack ? "pop" : queue ? "deq" : "poll";
    if (size() == 0) {
      op.result = Value();
    } else {
      op.result = Value(top());
      if (stack) stack_.pop_back();
      if (queue) queue_.pop_front();
      if (!stack && !queue) pq_.pop();
    }
    return Role::kRemove;
  }

  std::size_t size() const { return stack_.size() + queue_.size() + pq_.size(); }
  std::int64_t top() const {
    if (!stack_.empty()) return stack_.back();
    if (!queue_.empty()) return queue_.front();
    return pq_.top();
  }

  std::int64_t random_absent_key() {
    if (!removed_.empty() && rng_.below(2) == 0) return removed_[rng_.below(removed_.size())];
    return ++counter_;  // never added (and, being fresh, it may still be added later)
  }

  Role set_step(GenOp& op) {
    const double r = rng_.unit();
    if (r < 0.1 + 0.35 * add_bias_ || present_.empty()) {
      if (r < 0.05 && !present_.empty()) {
        op.call = Call{"add", {Value(present_[rng_.below(present_.size())])}};
        op.result = Value(false);
        return Role::kContains;
      }
      const std::int64_t key = ++counter_;
      op.call = Call{"add", {Value(key)}};
      op.result = Value(true);
      present_index_[key] = present_.size();
      present_.push_back(key);
      return Role::kAdd;
    }
    const std::size_t at = rng_.below(present_.size());
    const std::int64_t key = present_[at];
    if (r < 0.45 + 0.3 * (1 - add_bias_)) {
      op.call = Call{"remove", {Value(key)}};
      op.result = Value(true);
      present_index_[present_.back()] = at;
      present_[at] = present_.back();
      present_.pop_back();
      present_index_.erase(key);
      removed_.push_back(key);
      return Role::kRemove;
    }
    if (r < 0.85) {
      op.call = Call{"contains", {Value(key)}};
      op.result = Value(true);
      return Role::kContains;
    }
    const std::int64_t absent = random_absent_key();
    op.call = Call{rng_.below(2) ? "contains" : "remove", {Value(absent)}};
    op.result = Value(false);
    return Role::kContains;
  }

  Role snapshot_step(std::int32_t thread, GenOp& op) {
    if (rng_.below(2) == 0) {
      op.call = Call{"scan", {}};
      op.result = Value(Value::List{Value(segments_[0]), Value(segments_[1])});
      return Role::kScan;
    }
    std::int64_t value = 0;
    if (thread < 2) {
      const auto t = static_cast<std::size_t>(thread);
      // Switch 0 -> 1 once, on average a fifth of the way through this thread's updates.
      if (segments_[t] == 1 || rng_.below(1 + operations_ / 20) == 0) value = 1;
      segments_[t] = value;
    }
    op.call = Call{"update", {Value(static_cast<std::int64_t>(thread)), Value(value)}};
    return Role::kUpdate;
  }

  const std::string& model_;
  Rng& rng_;
  std::size_t operations_;
  double add_bias_ = 0.5;
  std::size_t phase_left_ = 0;
  std::int64_t counter_ = 0;
  std::vector<std::int64_t> stack_;
  std::deque<std::int64_t> queue_;
  std::priority_queue<std::int64_t> pq_;
  std::vector<std::int64_t> present_, removed_;
  std::unordered_map<std::int64_t, std::size_t> present_index_;
  std::int64_t segments_[2] = {0, 0};
};

// Stretches op k (linearized at time (k + 1) * kSlot) into an interval that stays clear of the
// same thread's neighbours.
constexpr std::int64_t kSlot = 1 << 20;

void assign_intervals(std::vector<GenOp>& ops, std::size_t threads, Rng& rng) {
  std::vector<std::int64_t> boundary(threads, 0);  // the previous op's response bound per thread
  std::vector<std::int64_t> last_op(threads, -1);
  auto lin = [](std::size_t k) { return static_cast<std::int64_t>(k + 1) * kSlot; };
  auto between = [&](std::int64_t lo, std::int64_t hi) {  // strictly inside (lo, hi)
    return lo + 1 + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo - 1)));
  };
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const auto t = static_cast<std::size_t>(ops[k].thread);
    std::int64_t lower = 0;
    if (last_op[t] >= 0) {
      const auto prev = static_cast<std::size_t>(last_op[t]);
      const std::int64_t cut = between(lin(prev), lin(k));
      ops[prev].res = between(lin(prev), cut);
      lower = cut;
    }
    ops[k].inv = between(lower, lin(k));
    last_op[t] = static_cast<std::int64_t>(k);
  }
  const std::int64_t horizon = lin(ops.size()) + kSlot * static_cast<std::int64_t>(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    if (last_op[t] < 0) continue;
    const auto k = static_cast<std::size_t>(last_op[t]);
    ops[k].res = between(lin(k), horizon);
  }
}

// --- violation injection -------------------------------------------------------------------

struct Injector {
  std::vector<GenOp>& ops;
  const std::vector<Role>& roles;
  const std::string& model;
  Rng& rng;

  bool complete(std::size_t k) const { return !ops[k].pending; }

  std::string describe(std::size_t k, const Value& was, const std::string& why) const {
    return "operation " + ops[k].call.to_string() + " by thread " + std::to_string(ops[k].thread) +
           " now returns " + ops[k].result.to_string() + " (was " + was.to_string() + "): " + why;
  }

  std::string set_result(std::size_t k, Value v, const std::string& why) {
    Value was = ops[k].result;
    ops[k].result = std::move(v);
    return describe(k, was, why);
  }

  // Per value: the op that added it and the op that removed it (containers); keys for sets.
  std::unordered_map<std::int64_t, std::size_t> adds, removals;
  void index() {
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (roles[k] == Role::kAdd) adds[ops[k].call.args[0].as_int()] = k;
      if (roles[k] == Role::kRemove) {
        const Value& v = model == "set" ? ops[k].call.args[0] : ops[k].result;
        if (!v.is_nil()) removals[v.as_int()] = k;
      }
    }
  }

  std::vector<std::size_t> with_role(std::initializer_list<Role> wanted) const {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (complete(k) && std::find(wanted.begin(), wanted.end(), roles[k]) != wanted.end())
        out.push_back(k);
    }
    return out;
  }

  // A value certainly present during the whole of op k (added before k's call, not removed
  // before k's response), other than `except`.
  std::optional<std::int64_t> certainly_present(std::size_t k, std::optional<std::int64_t> except) {
    for (const auto& [v, a] : adds) {
      if (except && v == *except) continue;
      if (ops[a].pending || ops[a].res >= ops[k].inv) continue;
      auto r = removals.find(v);
      if (r == removals.end() || ops[r->second].inv > ops[k].res) return v;
    }
    return std::nullopt;
  }

  std::string container() {
    index();
    const std::vector<std::size_t> removes = with_role({Role::kRemove});
    const std::vector<std::size_t> observers = with_role({Role::kRemove, Role::kPeek});
    for (int attempt = 0; attempt < 64; ++attempt) {
      switch (rng.below(3)) {
        case 0: {  // order inversion between two sequential removals
          if (removes.size() < 2) break;
          const std::size_t i = rng.below(removes.size());
          const std::size_t p1 = removes[i];
          if (ops[p1].result.is_nil()) break;
          const std::int64_t x = ops[p1].result.as_int();
          for (std::size_t j = i + 1; j < removes.size() && j < i + 64; ++j) {
            const std::size_t p2 = removes[j];
            if (ops[p2].result.is_nil() || ops[p1].res >= ops[p2].inv) continue;
            const std::int64_t y = ops[p2].result.as_int();
            const GenOp& add_x = ops[adds.at(x)];
            const GenOp& add_y = ops[adds.at(y)];
            if (add_x.pending || add_y.pending || add_x.res >= ops[p1].inv) continue;
            const bool certain = model == "stack"   ? add_y.res < add_x.inv
                                 : model == "queue" ? add_x.res < add_y.inv
                                                    : x > y;
            if (!certain) continue;
            set_result(p2, Value(x), "");
            return set_result(p1, Value(y),
                              std::string("swapped with a later removal: ") +
                                  (model == "stack"   ? "LIFO"
                                   : model == "queue" ? "FIFO"
                                                      : "priority") +
                                  " order inverted");
          }
          break;
        }
        case 1: {  // false empty
          if (observers.empty()) break;
          const std::size_t k = observers[rng.below(observers.size())];
          if (ops[k].result.is_nil()) break;
          const std::optional<std::int64_t> own =
              roles[k] == Role::kRemove ? std::optional<std::int64_t>(ops[k].result.as_int())
                                        : std::nullopt;
          if (!certainly_present(k, own)) break;
          return set_result(k, Value(), "empty while a value is certainly present");
        }
        default: {  // a value removed twice
          if (removes.size() < 2) break;
          const std::size_t a = removes[rng.below(removes.size())];
          const std::size_t b = removes[rng.below(removes.size())];
          if (a == b || ops[a].result.is_nil() || ops[b].result.is_nil()) break;
          return set_result(b, ops[a].result, "the value is removed twice");
        }
      }
    }
    if (observers.empty())
      throw GeneratorError("no operation to falsify: generate more operations");
    const std::size_t k = observers[rng.below(observers.size())];
    return set_result(k, Value(std::int64_t{1} << 62), "a value that was never added");
  }

  std::string set() {
    index();
    const std::vector<std::size_t> queries = with_role({Role::kContains, Role::kRemove});
    for (int attempt = 0; attempt < 64 && !queries.empty(); ++attempt) {
      const std::size_t k = queries[rng.below(queries.size())];
      const std::int64_t key = ops[k].call.args[0].as_int();
      auto a = adds.find(key);
      auto r = removals.find(key);
      if (a == adds.end() || ops[a->second].pending || a->second == k) continue;
      const bool removed_before = r != removals.end() && !ops[r->second].pending &&
                                  r->second != k && ops[r->second].res < ops[k].inv;
      const bool present_throughout =
          ops[a->second].res < ops[k].inv &&
          (r == removals.end() || (r->second != k && ops[r->second].inv > ops[k].res));
      if (ops[k].call.method == "contains" && present_throughout) {
        return set_result(k, Value(false), "reported absent while certainly present");
      }
      if (ops[k].call.method == "contains" && removed_before) {
        return set_result(k, Value(true), "reported present after its removal");
      }
      if (ops[k].call.method == "remove" && ops[k].result == Value(false) && removed_before) {
        return set_result(k, Value(true), "removed a second time");
      }
    }
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (complete(k) && ops[k].call.method == "contains") {
        ops[k].call.args[0] = Value(std::int64_t{1} << 62);
        return set_result(k, Value(true), "a key that was never added is reported present");
      }
    }
    throw GeneratorError("no contains() to falsify: generate more operations");
  }

  std::string snapshot() {
    // The first write of 1 to segments 0 and 1.
    std::optional<std::size_t> first[2];
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (roles[k] != Role::kUpdate || ops[k].call.args[1].as_int() != 1) continue;
      const auto seg = static_cast<std::size_t>(ops[k].call.args[0].as_int());
      if (!first[seg]) first[seg] = k;
    }
    const std::vector<std::size_t> scans = with_role({Role::kScan});
    for (int attempt = 0; attempt < 64 && !scans.empty(); ++attempt) {
      const std::size_t k = scans[rng.below(scans.size())];
      const std::size_t seg = rng.below(2);
      Value::List values = ops[k].result.as_list();
      if (first[seg] && !ops[*first[seg]].pending && ops[*first[seg]].res < ops[k].inv &&
          values[seg] == Value(1)) {
        values[seg] = Value(0);
        return set_result(k, Value(values), "segment read as 0 after it was set to 1");
      }
      if ((!first[seg] || ops[*first[seg]].inv > ops[k].res) && values[seg] == Value(0)) {
        values[seg] = Value(1);
        return set_result(k, Value(values), "segment read as 1 before it was written 1");
      }
    }
    if (scans.empty()) throw GeneratorError("no scan to falsify: generate more operations");
    const std::size_t k = scans.front();
    return set_result(k, Value(Value::List{Value(2), Value(0)}), "a value that was never written");
  }
};

}  // namespace

std::vector<std::string_view> generator_models() {
  return {"set", "stack", "queue", "priorityqueue", "snapshot"};
}

GeneratedHistory generate_history(const GeneratorOptions& options) {
  const auto models = generator_models();
  if (std::find(models.begin(), models.end(), options.model) == models.end()) {
    throw GeneratorError("cannot generate histories for model '" + options.model +
                         "' (choose set, stack, queue, priorityqueue or snapshot)");
  }
  if (options.threads == 0) throw GeneratorError("need at least one thread");
  if (options.threads > (std::size_t{1} << 20)) throw GeneratorError("too many threads");
  if (options.operations > (std::size_t{1} << 30)) throw GeneratorError("too many operations");
  if (options.model == "snapshot" && options.threads < 2 && options.violation) {
    // Still fine: segment 1 then never switches; violations use segment 0.
  }
  if (!(options.pending_fraction >= 0 && options.pending_fraction <= 1)) {
    throw GeneratorError("pending_fraction must lie in [0, 1]");
  }
  Rng rng(options.seed);
  std::vector<GenOp> ops;
  std::vector<Role> roles;
  ops.reserve(options.operations);
  roles.reserve(options.operations);
  Simulator simulator(options.model, rng, options.operations);
  for (std::size_t k = 0; k < options.operations; ++k) {
    simulator.step(static_cast<std::int32_t>(rng.below(options.threads)), ops, roles);
  }
  assign_intervals(ops, options.threads, rng);
  if (options.pending_fraction > 0) {
    std::vector<std::int64_t> last(options.threads, -1);
    for (std::size_t k = 0; k < ops.size(); ++k)
      last[static_cast<std::size_t>(ops[k].thread)] = static_cast<std::int64_t>(k);
    for (std::int64_t k : last) {
      if (k >= 0 && rng.unit() < options.pending_fraction)
        ops[static_cast<std::size_t>(k)].pending = true;
    }
  }
  GeneratedHistory out;
  if (options.violation) {
    if (ops.empty()) throw GeneratorError("cannot inject a violation into an empty history");
    Injector injector{ops, roles, options.model, rng, {}, {}};
    out.injected = options.model == "set"        ? injector.set()
                   : options.model == "snapshot" ? injector.snapshot()
                                                 : injector.container();
  }

  struct Stamp {
    std::int64_t time;
    std::uint32_t op;
    bool call;
  };
  std::vector<Stamp> stamps;
  stamps.reserve(2 * ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) {
    stamps.push_back({ops[k].inv, static_cast<std::uint32_t>(k), true});
    if (!ops[k].pending) stamps.push_back({ops[k].res, static_cast<std::uint32_t>(k), false});
  }
  std::sort(stamps.begin(), stamps.end(), [](const Stamp& a, const Stamp& b) {
    return a.time != b.time ? a.time < b.time : a.op < b.op;
  });
  history::HistoryBuilder builder("generated:" + options.model);
  for (const Stamp& s : stamps) {
    GenOp& op = ops[s.op];
    if (s.call) {
      builder.invoke(op.thread, std::move(op.call));
    } else {
      builder.respond(op.thread, history::Outcome::kOk, std::move(op.result));
    }
  }
  out.history = std::move(builder).build();
  return out;
}

void write_fastlin(std::ostream& out, const history::History& history, std::string_view model) {
  const auto models = generator_models();
  if (model == "snapshot" || std::find(models.begin(), models.end(), model) == models.end()) {
    throw GeneratorError("the fastlin format has no '" + std::string(model) + "' histories");
  }
  out << "# " << model << "\n";
  for (const history::Operation& op : history.operations()) {
    if (!op.completed() || op.outcome != history::Outcome::kOk) {
      throw GeneratorError("the fastlin format cannot express " + op.to_string());
    }
    auto int_of = [&](const Value& v) -> std::int64_t {
      if (v.is_nil()) return -1;
      if (!v.is_int() || v.as_int() < 0) {
        throw GeneratorError("the fastlin format cannot express the value in " + op.to_string());
      }
      return v.as_int();
    };
    std::string method = op.call.method;
    std::int64_t value;
    if (model == "set") {
      const bool result = op.result == Value(true);
      value = int_of(op.call.args.at(0));
      if (method == "add")
        method = result ? "insert" : "contains_true";
      else if (method == "remove")
        method = result ? "remove" : "contains_false";
      else
        method = result ? "contains_true" : "contains_false";
    } else {
      value = op.call.args.empty() ? int_of(op.result) : int_of(op.call.args[0]);
    }
    out << method << ' ' << value << ' ' << op.call_event << ' ' << op.return_event << '\n';
  }
}

void write_snapshot_actions(std::ostream& out, const history::History& history) {
  bool first = true;
  for (const history::Event& ev : history.events()) {
    const history::Operation& op = history.op(ev.op);
    if (!first) out << ';';
    first = false;
    const bool call = ev.kind == history::Event::Kind::kCall;
    if (op.call.method == "update") {
      out << (call ? "startUpdate!" : "endUpdate!") << op.process << ','
          << op.call.args.at(1).to_string();
    } else if (call) {
      out << "startScan!" << op.process;
    } else {
      out << "endScan!" << op.process;
      for (const Value& v : op.result.as_list()) out << ',' << v.to_string();
    }
  }
  out << '\n';
}

}  // namespace linfault::spec
