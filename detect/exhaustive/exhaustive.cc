#include "detect/exhaustive/exhaustive.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <set>
#include <stdexcept>
#include <utility>
#include <variant>

#include "detect/checker.h"
#include "detect/monitors/monitor.h"
#include "spec/registry.h"

namespace linfault::detect::exhaustive {
namespace {

using history::Call;
using history::Event;
using history::History;
using history::OpIndex;
using history::Outcome;
using history::Value;

constexpr int kMaxOps = 16;

// ---------------------------------------------------------------------------------------------
// Shapes

class ShapeWalk {
 public:
  ShapeWalk(int ops, int max_pending, ShapeSet set)
      : ops_(ops), max_pending_(max_pending), set_(set) {}

  std::vector<Shape> run() {
    walk(0, 0);
    return std::move(out_);
  }

 private:
  void walk(int next_call, std::uint32_t open) {
    if (next_call == ops_ && std::popcount(open) <= max_pending_) record(open);
    if (next_call < ops_) {
      events_.push_back({Event::Kind::kCall, next_call});
      walk(next_call + 1, open | (1u << next_call));
      events_.pop_back();
    }
    for (int op = 0; op < next_call; ++op) {
      if ((open & (1u << op)) == 0) continue;
      events_.push_back({Event::Kind::kReturn, op});
      walk(next_call, open & ~(1u << op));
      events_.pop_back();
    }
  }

  void record(std::uint32_t pending) {
    if (set_ == ShapeSet::kIntervalOrders) {
      // The real-time order: i precedes j iff i's return comes before j's call.
      std::vector<int> call_at(static_cast<std::size_t>(ops_));
      std::vector<int> return_at(static_cast<std::size_t>(ops_), -1);
      for (std::size_t e = 0; e < events_.size(); ++e) {
        const auto op = static_cast<std::size_t>(events_[e].op);
        (events_[e].kind == Event::Kind::kCall ? call_at : return_at)[op] = static_cast<int>(e);
      }
      std::vector<bool> key(static_cast<std::size_t>(ops_ * ops_) + 32);
      for (int i = 0; i < ops_; ++i) {
        for (int j = 0; j < ops_; ++j) {
          const auto ui = static_cast<std::size_t>(i), uj = static_cast<std::size_t>(j);
          key[ui * static_cast<std::size_t>(ops_) + uj] =
              return_at[ui] >= 0 && return_at[ui] < call_at[uj];
        }
      }
      for (int b = 0; b < 32; ++b) {
        key[static_cast<std::size_t>(ops_ * ops_ + b)] = (pending >> b) & 1u;
      }
      if (!seen_.insert(std::move(key)).second) return;
    }
    out_.push_back(Shape{events_, ops_, pending});
  }

  int ops_;
  int max_pending_;
  ShapeSet set_;
  std::vector<Event> events_;
  std::set<std::vector<bool>> seen_;
  std::vector<Shape> out_;
};

// ---------------------------------------------------------------------------------------------
// Domains

Label label(std::string method, std::vector<Value> args, Value result,
            std::vector<Mention> mentions, Outcome outcome = Outcome::kOk) {
  return Label{Call{std::move(method), std::move(args)}, outcome, std::move(result),
               std::move(mentions)};
}

std::vector<int> symbols(int count) {
  std::vector<int> out;
  for (int v = 1; v <= count; ++v) out.push_back(v);
  return out;
}

// A mutator: completed ok (result nil), failed when asked for, and pending.
void add_mutator(Domain& d, const DomainOptions& options, const std::string& method,
                 std::vector<Value> args, std::vector<Mention> mentions) {
  d.complete.push_back(label(method, args, Value(), mentions));
  if (options.failures)
    d.complete.push_back(label(method, args, Value(), mentions, Outcome::kFail));
  d.pending.push_back(
      label(method, std::move(args), Value(), std::move(mentions), Outcome::kPending));
}

// An observer returning nil or one of the values; pending too.
void add_value_observer(Domain& d, const std::string& method, int values) {
  d.complete.push_back(label(method, {}, Value(), {}));
  for (int v : symbols(values)) d.complete.push_back(label(method, {}, Value(v), {{0, v}}));
  d.pending.push_back(label(method, {}, Value(), {}, Outcome::kPending));
}

// stack, queue, priority queue: one adding method and two observers returning nil or a value.
Domain container(std::string model, const DomainOptions& options, const std::string& add,
                 const std::string& remove, Symmetry symmetry) {
  Domain d{std::move(model), {}, {}, symmetry, Symmetry::kNone, options.distinct_adds};
  for (int v : symbols(options.values)) add_mutator(d, options, add, {Value(v)}, {{0, v}});
  for (std::vector<Label>* labels : {&d.complete, &d.pending}) {
    for (Label& l : *labels) l.adds_value = l.call.method == add;
  }
  add_value_observer(d, remove, options.values);
  add_value_observer(d, "peek", options.values);
  return d;
}

Domain register_domain(const DomainOptions& options, bool cas) {
  Domain d{cas ? "cas-register" : "register", {}, {}, Symmetry::kRenamable, Symmetry::kNone};
  for (int v : symbols(options.values)) add_mutator(d, options, "write", {Value(v)}, {{0, v}});
  add_value_observer(d, "read", options.values);
  if (!cas) return d;
  for (int from : symbols(options.values)) {
    for (int to : symbols(options.values)) {
      const std::vector<Mention> mentions{{0, from}, {0, to}};
      const std::vector<Value> args{Value(from), Value(to)};
      d.complete.push_back(label("cas", args, Value(true), mentions));
      d.complete.push_back(label("cas", args, Value(false), mentions));
      // A failed cas is one that returned false (the etcd reading), not one without effect.
      d.complete.push_back(label("cas", args, Value(), mentions, Outcome::kFail));
      d.pending.push_back(label("cas", args, Value(), mentions, Outcome::kPending));
    }
  }
  return d;
}

Domain counter_domain(const DomainOptions& options) {
  Domain d{"counter", {}, {}, Symmetry::kNone, Symmetry::kNone};
  add_mutator(d, options, "inc", {}, {});
  add_mutator(d, options, "dec", {}, {});
  for (int v = -1; v <= options.values; ++v) d.complete.push_back(label("get", {}, Value(v), {}));
  d.pending.push_back(label("get", {}, Value(), {}, Outcome::kPending));
  return d;
}

// kv: keys k1..kK (K = values), values "a" and "b"; get returns "", "a", "b" or "ab".
Domain kv_domain(const DomainOptions& options) {
  Domain d{"kv", {}, {}, Symmetry::kNone, Symmetry::kRenamable};
  for (int k : symbols(options.values)) {
    const Value key("k" + std::to_string(k));
    for (const char* v : {"a", "b"}) {
      add_mutator(d, options, "put", {key, Value(v)}, {{1, k}});
      add_mutator(d, options, "append", {key, Value(v)}, {{1, k}});
    }
    for (const char* r : {"", "a", "b", "ab"}) {
      d.complete.push_back(label("get", {key}, Value(r), {{1, k}}));
    }
    d.pending.push_back(label("get", {key}, Value(), {{1, k}}, Outcome::kPending));
  }
  return d;
}

Domain set_domain(const DomainOptions& options) {
  Domain d{"set", {}, {}, Symmetry::kRenamable, Symmetry::kNone};
  for (int v : symbols(options.values)) {
    for (const char* method : {"add", "remove", "contains"}) {
      for (bool result : {true, false}) {
        d.complete.push_back(label(method, {Value(v)}, Value(result), {{0, v}}));
      }
      if (options.failures && std::string_view(method) != "contains") {
        d.complete.push_back(label(method, {Value(v)}, Value(), {{0, v}}, Outcome::kFail));
      }
      d.pending.push_back(label(method, {Value(v)}, Value(), {{0, v}}, Outcome::kPending));
    }
  }
  for (int n = 0; n <= options.values; ++n) d.complete.push_back(label("size", {}, Value(n), {}));
  d.pending.push_back(label("size", {}, Value(), {}, Outcome::kPending));
  return d;
}

Domain deque_domain(const DomainOptions& options) {
  Domain d{"deque", {}, {}, Symmetry::kRenamable, Symmetry::kNone};
  for (const char* end : {"left", "right"}) {
    for (int v : symbols(options.values)) {
      add_mutator(d, options, std::string("push_") + end, {Value(v)}, {{0, v}});
    }
    add_value_observer(d, std::string("pop_") + end, options.values);
    add_value_observer(d, std::string("peek_") + end, options.values);
  }
  return d;
}

// snapshot: segments 0 and 1, values 0..values-1 (0 is every segment's initial value).
Domain snapshot_domain(const DomainOptions& options) {
  Domain d{"snapshot", {}, {}, Symmetry::kNone, Symmetry::kNone};
  const int values = std::max(options.values, 2);
  for (int segment : {0, 1}) {
    for (int v = 0; v < values; ++v)
      add_mutator(d, options, "update", {Value(segment), Value(v)}, {});
  }
  for (int a = 0; a < values; ++a) {
    for (int b = 0; b < values; ++b) {
      const Value pair(Value::List{Value(a), Value(b)});
      d.complete.push_back(label("scan", {}, pair, {}));
      d.complete.push_back(label("readpair", {Value(0), Value(1)}, pair, {}));
    }
  }
  d.pending.push_back(label("scan", {}, Value(), {}, Outcome::kPending));
  d.pending.push_back(label("readpair", {Value(0), Value(1)}, Value(), {}, Outcome::kPending));
  return d;
}

// mutex: acquire and release, completed, failed when asked for, and pending.
Domain mutex_domain(const DomainOptions& options) {
  Domain d{"mutex", {}, {}, Symmetry::kNone, Symmetry::kNone};
  add_mutator(d, options, "acquire", {}, {});
  add_mutator(d, options, "release", {}, {});
  return d;
}

// multi-register: registers :x and :y (keys 1 and 2), values 1..values. Transactions: a write or a
// read of one register, reads of both, writes of both. Reads are asked with nil and answered
// filled in, as Jepsen records them.
Domain multi_register_domain(const DomainOptions& options) {
  Domain d{"multi-register", {}, {}, Symmetry::kRenamable, Symmetry::kRenamable};
  const std::array<Value, 2> keys{Value(":x"), Value(":y")};
  const auto micro = [](const char* f, const Value& key, const Value& v) {
    return Value(Value::List{Value(f), key, v});
  };
  const auto txn = [](std::vector<Value> micros) { return Value(Value::List(std::move(micros))); };
  std::vector<Value> results{Value()};
  for (int v : symbols(options.values)) results.emplace_back(v);
  const auto mention = [](const Value& v) {
    return v.is_nil() ? std::vector<Mention>{}
                      : std::vector<Mention>{{0, static_cast<int>(v.as_int())}};
  };
  const auto join = [](std::vector<Mention> a, const std::vector<Mention>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  for (int k : {1, 2}) {
    const Value& key = keys[static_cast<std::size_t>(k - 1)];
    for (int v : symbols(options.values)) {
      add_mutator(d, options, "txn", {txn({micro(":w", key, Value(v))})}, {{1, k}, {0, v}});
    }
    for (const Value& r : results) {
      d.complete.push_back(label("txn", {txn({micro(":r", key, Value())})},
                                 txn({micro(":r", key, r)}), join({{1, k}}, mention(r))));
    }
    d.pending.push_back(
        label("txn", {txn({micro(":r", key, Value())})}, Value(), {{1, k}}, Outcome::kPending));
  }
  const std::vector<Value> both_read{micro(":r", keys[0], Value()), micro(":r", keys[1], Value())};
  for (const Value& a : results) {
    for (const Value& b : results) {
      d.complete.push_back(label("txn", {txn(both_read)},
                                 txn({micro(":r", keys[0], a), micro(":r", keys[1], b)}),
                                 join(join({{1, 1}, {1, 2}}, mention(a)), mention(b))));
    }
  }
  d.pending.push_back(label("txn", {txn(both_read)}, Value(), {{1, 1}, {1, 2}}, Outcome::kPending));
  for (int a : symbols(options.values)) {
    for (int b : symbols(options.values)) {
      add_mutator(d, options, "txn",
                  {txn({micro(":w", keys[0], Value(a)), micro(":w", keys[1], Value(b))})},
                  {{1, 1}, {1, 2}, {0, a}, {0, b}});
    }
  }
  return d;
}

Domain full_domain(std::string_view model_spec, const DomainOptions& options) {
  if (options.values < 1 || options.values > 8) {
    throw std::invalid_argument("domain: 1 to 8 values");
  }
  // A model with parameters: its base model's domain, the values no longer renamable (an init
  // value is one of them).
  const spec::ModelSpec spec = spec::parse_model_spec(model_spec);
  if (!spec.params.empty()) {
    Domain d = full_domain(spec.name, options);
    d.model = spec::canonical_model_spec(model_spec);
    d.values = Symmetry::kNone;
    return d;
  }
  const std::string_view model = spec.name;
  if (model == "register") return register_domain(options, false);
  if (model == "cas-register") return register_domain(options, true);
  if (model == "counter") return counter_domain(options);
  if (model == "kv") return kv_domain(options);
  if (model == "set") return set_domain(options);
  if (model == "stack") return container("stack", options, "push", "pop", Symmetry::kRenamable);
  if (model == "queue") return container("queue", options, "enq", "deq", Symmetry::kRenamable);
  if (model == "priorityqueue") {
    return container("priorityqueue", options, "insert", "poll", Symmetry::kOrdered);
  }
  if (model == "deque") return deque_domain(options);
  if (model == "snapshot") return snapshot_domain(options);
  if (model == "mutex") return mutex_domain(options);
  if (model == "multi-register") return multi_register_domain(options);
  throw std::invalid_argument("no exhaustive domain for the model '" + std::string(model) + "'");
}

// ---------------------------------------------------------------------------------------------
// Enumeration

class Labelling {
 public:
  Labelling(const Domain& d, const Shape& shape, const std::function<void(const History&)>& visit)
      : domain_(d), shape_(shape), visit_(visit), chosen_(static_cast<std::size_t>(shape.ops)) {}

  std::uint64_t run() {
    assign(0, {1, 1}, 0);
    return visited_;
  }

 private:
  static Symmetry symmetry_of(const Domain& d, int symbol_class) {
    return symbol_class == 0 ? d.values : d.keys;
  }

  // next[c]: for a renamable class, the smallest symbol not used yet (symbols must appear in
  // order); for an ordered one, unused (its check needs the whole labelling). `added`: the values
  // added so far, when each may be added once.
  void assign(int op, std::array<int, 2> next, std::uint64_t added) {
    if (op == shape_.ops) {
      if (!gapless()) return;
      ++visited_;
      visit_(build());
      return;
    }
    const bool pending = (shape_.pending >> op) & 1u;
    for (const Label& l : pending ? domain_.pending : domain_.complete) {
      std::array<int, 2> after = next;
      bool canonical = true;
      for (const Mention& m : l.mentions) {
        if (symmetry_of(domain_, m.symbol_class) != Symmetry::kRenamable) continue;
        int& expected = after[static_cast<std::size_t>(m.symbol_class)];
        if (m.symbol > expected) {
          canonical = false;
          break;
        }
        if (m.symbol == expected) ++expected;
      }
      if (!canonical) continue;
      std::uint64_t now_added = added;
      if (domain_.distinct_adds && l.adds_value) {
        const std::uint64_t bit = std::uint64_t{1} << l.mentions[0].symbol;
        if (added & bit) continue;
        now_added |= bit;
      }
      chosen_[static_cast<std::size_t>(op)] = &l;
      assign(op + 1, after, now_added);
    }
  }

  bool gapless() const {
    for (int c : {0, 1}) {
      if (symmetry_of(domain_, c) != Symmetry::kOrdered) continue;
      std::uint64_t used = 0;
      for (const Label* l : chosen_) {
        for (const Mention& m : l->mentions) {
          if (m.symbol_class == c) used |= std::uint64_t{1} << (m.symbol - 1);
        }
      }
      if ((used & (used + 1)) != 0) return false;
    }
    return true;
  }

  History build() const {
    history::HistoryBuilder b("exhaustive");
    for (const Event& e : shape_.events) {
      const Label& l = *chosen_[static_cast<std::size_t>(e.op)];
      if (e.kind == Event::Kind::kCall) {
        b.invoke(e.op, l.call);
      } else {
        b.respond(e.op, l.outcome, l.result);
      }
    }
    return std::move(b).build();
  }

  const Domain& domain_;
  const Shape& shape_;
  const std::function<void(const History&)>& visit_;
  std::vector<const Label*> chosen_;
  std::uint64_t visited_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Oracle

template <spec::SequentialModel M>
class BruteForce {
 public:
  using Op = typename M::Op;

  BruteForce(const M& model, const History& h) : model_(model) {
    if (h.size() > kMaxOps) throw std::invalid_argument("the oracle takes at most 16 operations");
    for (OpIndex i = 0; i < static_cast<OpIndex>(h.size()); ++i) {
      auto compiled = model.compile(h.op(i));
      if (auto* error = std::get_if<spec::ModelError>(&compiled)) {
        throw std::invalid_argument("op " + std::to_string(i) + ": " + error->message);
      }
      if (std::holds_alternative<spec::NoEffect>(compiled)) continue;
      ops_.push_back({std::get<Op>(std::move(compiled)), h.op(i).call_event, h.op(i).return_event});
    }
    for (std::size_t e = 0; e < ops_.size(); ++e) {
      if (ops_[e].ret != history::kNoEvent) required_ |= 1u << e;
      for (std::size_t p = 0; p < ops_.size(); ++p) {
        if (ops_[p].ret != history::kNoEvent && ops_[p].ret < ops_[e].call) {
          ops_[e].predecessors |= 1u << p;
        }
      }
    }
  }

  bool linearizable() const { return extend(model_.initial(), 0); }

 private:
  struct Entry {
    Op op;
    history::EventIndex call;
    history::EventIndex ret;
    std::uint32_t predecessors = 0;  // completed entries that respond before this one's call
  };

  // Tries every entry that may come next: one whose real-time predecessors are all placed.
  bool extend(const typename M::State& state, std::uint32_t placed) const {
    if ((placed & required_) == required_) return true;
    for (std::size_t e = 0; e < ops_.size(); ++e) {
      if (placed & (1u << e)) continue;
      if ((ops_[e].predecessors & ~placed) != 0) continue;
      typename M::State next = state;
      if (model_.step(next, ops_[e].op) && extend(next, placed | (1u << e))) return true;
    }
    return false;
  }

  const M& model_;
  std::vector<Entry> ops_;
  std::uint32_t required_ = 0;
};

std::string normalized_reason(const std::string& reason) {
  std::string out;
  for (char c : reason) {
    const bool digit = c >= '0' && c <= '9';
    if (digit && !out.empty() && out.back() == '#') continue;
    out += digit ? '#' : c;
  }
  return out;
}

std::string describe_verdict(const Verdict& v) {
  std::string out = result_name(v.result);
  if (v.result == Result::kViolation) {
    out += " prefix " + std::to_string(v.prefix_events) + " culprit " + std::to_string(v.culprit);
    if (!v.prefix_exact) out += " (inexact: " + v.reason + ")";
  }
  if (v.result == Result::kUnknown) out += " (" + v.reason + ")";
  return out;
}

std::string describe_oracle(const OracleVerdict& o) {
  std::string out = result_name(o.result);
  if (o.result == Result::kViolation) {
    out += " prefix " + std::to_string(o.prefix_events) + " culprit " + std::to_string(o.culprit);
  }
  return out;
}

}  // namespace

std::vector<Shape> shapes(int ops, int max_pending, ShapeSet set) {
  if (ops < 1 || ops > kMaxOps) throw std::invalid_argument("shapes: 1 to 16 operations");
  return ShapeWalk(ops, max_pending, set).run();
}

Domain domain(std::string_view model, const DomainOptions& options) {
  Domain d = full_domain(model, options);
  auto left_out = [&](const Label& l) {
    return std::find(options.without.begin(), options.without.end(), l.call.method) !=
           options.without.end();
  };
  std::erase_if(d.complete, left_out);
  std::erase_if(d.pending, left_out);
  if (d.complete.empty()) throw std::invalid_argument("domain: every method left out");
  return d;
}

std::uint64_t enumerate(const Domain& d, const Shape& shape,
                        const std::function<void(const History&)>& visit) {
  return Labelling(d, shape, visit).run();
}

History random_history(const Domain& d, int ops, std::mt19937_64& rng,
                       const RandomOptions& options) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const auto n = static_cast<std::size_t>(ops);
  std::vector<const Label*> labels(n);
  for (const Label*& l : labels) l = &d.complete[pick(d.complete.size())];
  std::vector<bool> pending(n, false);
  if (options.pending_one_in > 0) {
    for (std::size_t i = 0; i < n; ++i) {
      pending[i] = pick(static_cast<std::size_t>(options.pending_one_in)) == 0;
    }
  }
  auto same_call = [](const std::vector<Label>& from, const Label& l) {
    std::vector<const Label*> out;
    for (const Label& c : from) {
      if (c.call == l.call) out.push_back(&c);
    }
    return out;
  };
  if (options.legal_results) {
    // Run the ops in index order on the model; each takes a result the model accepts there.
    spec::visit_model(d.model, [&](const auto& model) {
      auto state = model.initial();
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<const Label*> legal;
        decltype(state) legal_next = state;
        for (const Label* c : same_call(d.complete, *labels[i])) {
          history::Operation op;
          op.call = c->call;
          op.outcome = c->outcome;
          op.result = c->result;
          op.call_event = 0;
          op.return_event = c->outcome == Outcome::kPending ? history::kNoEvent : 1;
          auto compiled = model.compile(op);
          auto next = state;
          if (auto* o = std::get_if<typename std::decay_t<decltype(model)>::Op>(&compiled)) {
            if (!model.step(next, *o)) continue;
          }
          if (legal.empty() || pick(legal.size() + 1) == 0) legal_next = next;
          legal.push_back(c);
        }
        if (legal.empty()) continue;  // no result in the domain fits: keep the random one
        labels[i] = legal[pick(legal.size())];
        state = legal_next;
      }
    });
    if (pick(2) == 0) {
      const std::size_t victim = pick(n);
      const std::vector<const Label*> others = same_call(d.complete, *labels[victim]);
      labels[victim] = others[pick(others.size())];
    }
  }
  struct Stamp {
    long time;
    bool call;
    std::size_t op;
  };
  std::vector<Stamp> stamps;
  const auto width = static_cast<std::size_t>(std::max(1, options.max_width));
  for (std::size_t i = 0; i < n; ++i) {
    const long at = 10L * static_cast<long>(i);
    stamps.push_back({2 * (at - static_cast<long>(pick(width))) - 1, true, i});
    if (!pending[i]) stamps.push_back({2 * (at + static_cast<long>(pick(width))) + 1, false, i});
  }
  std::sort(stamps.begin(), stamps.end(),
            [](const Stamp& a, const Stamp& b) { return a.time < b.time; });
  history::HistoryBuilder b("random");
  for (const Stamp& s : stamps) {
    const Label& l = *labels[s.op];
    const auto process = static_cast<history::ProcessId>(s.op);
    if (s.call) {
      b.invoke(process, l.call);
    } else {
      b.respond(process, l.outcome, l.result);
    }
  }
  return std::move(b).build();
}

bool oracle_linearizable(std::string_view model, const History& history) {
  return spec::visit_model(model,
                           [&](const auto& m) { return BruteForce(m, history).linearizable(); });
}

OracleVerdict oracle(std::string_view model, const History& history) {
  OracleVerdict out;
  if (oracle_linearizable(model, history)) return out;
  out.result = Result::kViolation;
  // Every n, not only response events: the definition, not a property of it.
  for (std::size_t n = 1; n <= history.events().size(); ++n) {
    if (!oracle_linearizable(model, history.prefix(n))) {
      out.prefix_events = n;
      out.culprit = history.events()[n - 1].op;
      return out;
    }
  }
  throw std::logic_error("oracle: the whole history is a prefix of itself");
}

bool is_linearization(std::string_view model, const History& history,
                      const std::vector<OpIndex>& order) {
  return spec::visit_model(model, [&](const auto& m) {
    using M = std::decay_t<decltype(m)>;
    std::vector<bool> placed(history.size(), false);
    typename M::State state = m.initial();
    for (OpIndex i : order) {
      if (i < 0 || static_cast<std::size_t>(i) >= history.size() ||
          placed[static_cast<std::size_t>(i)]) {
        return false;
      }
      for (OpIndex p = 0; p < static_cast<OpIndex>(history.size()); ++p) {
        if (history.precedes(p, i) && !placed[static_cast<std::size_t>(p)]) {
          // A predecessor without effect (a failed call) need not be placed.
          if (!std::holds_alternative<spec::NoEffect>(m.compile(history.op(p)))) return false;
        }
      }
      auto compiled = m.compile(history.op(i));
      if (!std::holds_alternative<typename M::Op>(compiled)) return false;
      if (!m.step(state, std::get<typename M::Op>(compiled))) return false;
      placed[static_cast<std::size_t>(i)] = true;
    }
    for (OpIndex i = 0; i < static_cast<OpIndex>(history.size()); ++i) {
      if (placed[static_cast<std::size_t>(i)] || !history.op(i).completed()) continue;
      if (!std::holds_alternative<spec::NoEffect>(m.compile(history.op(i)))) return false;
    }
    return true;
  });
}

std::string describe(const History& history) {
  std::string out;
  for (const history::Operation& op : history.operations()) {
    out += "  " + op.to_string() + " [" + std::to_string(op.call_event) + ", " +
           (op.return_event == history::kNoEvent ? std::string("pending")
                                                 : std::to_string(op.return_event)) +
           "]\n";
  }
  return out;
}

std::uint64_t Tally::total_disagreements() const {
  std::uint64_t n = 0;
  for (const auto& [what, count] : disagreements) n += count;
  return n;
}

std::string Tally::summary() const {
  std::string out = std::to_string(histories) + " histories (" + std::to_string(violations) +
                    " violations), monitor decided " + std::to_string(monitor_decided) +
                    ", declined " + std::to_string(monitor_declined) + ", " +
                    std::to_string(total_disagreements()) + " disagreements";
  for (const auto& [what, count] : disagreements) {
    out += " [" + what + ": " + std::to_string(count) + "]";
  }
  return out;
}

void Tally::add(const Tally& other) {
  histories += other.histories;
  violations += other.violations;
  monitor_decided += other.monitor_decided;
  monitor_declined += other.monitor_declined;
  for (const auto& [reason, count] : other.decline_reasons) decline_reasons[reason] += count;
  for (const auto& [what, count] : other.disagreements) disagreements[what] += count;
  for (const Disagreement& d : other.first) {
    if (first.size() < 5) first.push_back(d);
  }
  seconds += other.seconds;
}

CrossCheck::CrossCheck(std::string model, bool monitor, std::size_t keep_first)
    : model_(std::move(model)), monitor_(monitor && has_monitor(model_)), keep_first_(keep_first) {}

void CrossCheck::disagree(std::string checker, std::string what, std::string detail) {
  ++tally_.disagreements[checker + " " + what];
  if (tally_.first.size() < keep_first_) {
    tally_.first.push_back({std::move(checker), std::move(what), std::move(detail)});
  }
}

void CrossCheck::check(const History& h) {
  ++tally_.histories;
  const OracleVerdict expected = oracle(model_, h);
  if (expected.result == Result::kViolation) ++tally_.violations;
  CheckOptions options;
  options.threads = 1;
  options.want_witness = true;
  auto compare = [&](const std::string& checker, const Verdict& v, bool with_witness) {
    const auto detail = [&] {
      return checker + ": " + describe_verdict(v) + "; oracle: " + describe_oracle(expected) +
             "\n" + describe(h);
    };
    if (v.result != expected.result) return disagree(checker, "verdict", detail());
    if (v.result == Result::kLinearizable) {
      if (with_witness && !is_linearization(model_, h, v.witness)) {
        disagree(checker, "witness", detail());
      }
      return;
    }
    if (!v.prefix_exact) return disagree(checker, "inexact prefix", detail());
    if (v.prefix_events != expected.prefix_events) return disagree(checker, "prefix", detail());
    if (v.culprit != expected.culprit) disagree(checker, "culprit", detail());
  };
  compare("search", check_history(model_, h, options), true);
  if (!monitor_) return;
  const MonitorResult m = run_monitor(model_, h, options);
  if (m.verdict) {
    ++tally_.monitor_decided;
    compare("monitor", *m.verdict, false);
  } else {
    ++tally_.monitor_declined;
    ++tally_.decline_reasons[normalized_reason(m.unsupported)];
  }
  const Verdict automatic = check_auto(model_, h, options, Algo::kAuto);
  compare("auto", automatic, automatic.algorithm == "search");
  if (automatic.monitor_declined != m.unsupported) {
    disagree(
        "auto", "decline not reported",
        "monitor: " + m.unsupported + "; auto: " + automatic.monitor_declined + "\n" + describe(h));
  }
}

Tally sweep(std::string_view model, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Domain d = domain(model, options.domain);
  CrossCheck cross{std::string(model), options.monitor};
  const std::vector<Shape> all = shapes(options.ops, options.max_pending, options.set);
  for (std::size_t i = static_cast<std::size_t>(options.shard); i < all.size();
       i += static_cast<std::size_t>(options.shards)) {
    enumerate(d, all[i], [&](const History& h) { cross.check(h); });
  }
  Tally t = cross.tally();
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

}  // namespace linfault::detect::exhaustive
