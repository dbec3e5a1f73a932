// Randomized differential test: the search against the brute-force oracle on thousands of small
// histories (<= 7 ops, 2-3 processes, some pending, some failed, some corrupted results).

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <set>

#include "detect/checker.h"
#include "detect/witness.h"
#include "spec/registry.h"

namespace linfault::detect {
namespace {

using history::Call;
using history::Outcome;
using history::Value;

// A reference object: makes a random call and executes calls for real.
struct Reference {
  std::function<Call(std::mt19937&)> random_call;
  std::function<Value(const Call&)> execute;
  std::function<Value(std::mt19937&, const Call&)> random_result;
};

Value small_value(std::mt19937& rng) { return Value(static_cast<std::int64_t>(rng() % 3 + 1)); }

Reference register_reference(Value& state) {
  return {[](std::mt19937& rng) {
            return rng() % 2 ? Call{"read", {}} : Call{"write", {small_value(rng)}};
          },
          [&state](const Call& c) {
            if (c.method == "read") return state;
            state = c.args[0];
            return Value();
          },
          [](std::mt19937& rng, const Call&) { return rng() % 4 ? small_value(rng) : Value(); }};
}

Reference stack_reference(std::vector<Value>& items, bool fifo) {
  return {[fifo](std::mt19937& rng) {
            if (rng() % 2) return Call{fifo ? "enq" : "push", {small_value(rng)}};
            return Call{fifo ? "deq" : "pop", {}};
          },
          [&items, fifo](const Call& c) {
            if (!c.args.empty()) {
              items.push_back(c.args[0]);
              return Value();
            }
            if (items.empty()) return Value();
            Value v = fifo ? items.front() : items.back();
            items.erase(fifo ? items.begin() : items.end() - 1);
            return v;
          },
          [](std::mt19937& rng, const Call&) { return rng() % 4 ? small_value(rng) : Value(); }};
}

Reference set_reference(std::set<Value>& members) {
  return {[](std::mt19937& rng) {
            static const char* kMethods[] = {"add", "remove", "contains"};
            return Call{kMethods[rng() % 3], {small_value(rng)}};
          },
          [&members](const Call& c) {
            const bool present = members.count(c.args[0]) != 0;
            if (c.method == "add") members.insert(c.args[0]);
            if (c.method == "remove") members.erase(c.args[0]);
            return Value(c.method == "add" ? !present : present);
          },
          [](std::mt19937& rng, const Call&) { return Value(rng() % 2 == 0); }};
}

Reference kv_reference(std::map<Value, std::string>& store) {
  return {[](std::mt19937& rng) {
            const Value key = rng() % 2 ? "a" : "b";
            switch (rng() % 3) {
              case 0:
                return Call{"get", {key}};
              case 1:
                return Call{"put", {key, rng() % 2 ? "x" : "y"}};
              default:
                return Call{"append", {key, rng() % 2 ? "x" : "y"}};
            }
          },
          [&store](const Call& c) {
            if (c.method == "get") return Value(store[c.args[0]]);
            if (c.method == "put") store[c.args[0]] = c.args[1].as_string();
            if (c.method == "append") store[c.args[0]] += c.args[1].as_string();
            return Value();
          },
          [](std::mt19937& rng, const Call&) {
            static const char* kTexts[] = {"", "x", "y", "xy", "yx", "xx"};
            return Value(kTexts[rng() % 6]);
          }};
}

// Runs up to `max_ops` calls on 2-3 processes: each call takes effect on the reference object
// at a random point between its invocation and response; some responses are corrupted, some
// calls fail (without effect) and some never respond (pending, with or without effect).
history::History random_history(std::mt19937& rng, const Reference& ref, int max_ops) {
  history::HistoryBuilder builder("random");
  const int processes = 2 + static_cast<int>(rng() % 2);
  const int total = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_ops));
  struct Open {
    Call call;
    bool effected = false;
    Value result;
  };
  std::map<int, Open> open;
  std::set<int> crashed;
  int issued = 0;
  while (issued < total || !open.empty()) {
    const int p = static_cast<int>(rng() % static_cast<unsigned>(processes));
    if (crashed.count(p)) {
      if (crashed.size() == static_cast<std::size_t>(processes) && open.empty()) break;
      if (issued >= total && open.empty()) break;
      continue;
    }
    auto it = open.find(p);
    if (it == open.end()) {
      if (issued >= total) continue;
      Call call = ref.random_call(rng);
      builder.invoke(p, call);
      open[p] = Open{std::move(call), false, Value()};
      ++issued;
      continue;
    }
    Open& o = it->second;
    const unsigned roll = rng() % 20;
    if (!o.effected && roll < 2) {  // fails without effect
      builder.respond(p, Outcome::kFail, Value());
      open.erase(it);
    } else if (!o.effected) {
      o.result = ref.execute(o.call);
      o.effected = true;
    } else if (roll < 1) {  // crashes: stays pending
      crashed.insert(p);
      open.erase(it);
    } else {
      Value result = roll < 4 ? ref.random_result(rng, o.call) : o.result;
      if (o.call.method == "write" || o.call.method == "push" || o.call.method == "enq" ||
          o.call.method == "put" || o.call.method == "append") {
        result = Value();
      }
      builder.respond(p, Outcome::kOk, std::move(result));
      open.erase(it);
    }
    if (issued >= total && open.empty()) break;
  }
  if (!open.empty() && rng() % 2) {
    // Leave the remaining calls pending.
  }
  return std::move(builder).build();
}

template <class M>
void check_partitioned_partial(const M& model, const history::History& h, const Verdict& v,
                               std::size_t shortest) {
  if (!v.partition_key) {
    EXPECT_EQ(validate_witness(model, h, v.longest_partial, shortest - 1), std::nullopt);
    return;
  }
  // Partitioned: the partial linearizes the failing key's sub-history up to the culprit.
  std::vector<history::OpIndex> keep;
  for (history::OpIndex i = 0; i < static_cast<history::OpIndex>(h.size()); ++i) {
    if (model.partition_key(h.op(i)) == v.partition_key) keep.push_back(i);
  }
  const history::History sub = h.subhistory(keep);
  std::map<history::OpIndex, history::OpIndex> to_sub;
  for (std::size_t k = 0; k < keep.size(); ++k) to_sub[keep[k]] = static_cast<history::OpIndex>(k);
  std::vector<history::OpIndex> partial;
  for (history::OpIndex i : v.longest_partial) partial.push_back(to_sub.at(i));
  std::size_t sub_events = 0;
  for (std::size_t e = 0; e + 1 < shortest; ++e) sub_events += to_sub.count(h.events()[e].op);
  EXPECT_EQ(validate_witness(model, sub, partial, sub_events), std::nullopt);
}

template <class M>
void differential(const M& model, const std::function<Reference()>& make_reference,
                  const std::function<void()>& reset, unsigned seed, int histories) {
  std::mt19937 rng(seed);
  int violations = 0;
  int with_pending = 0;
  for (int n = 0; n < histories; ++n) {
    reset();
    const Reference ref = make_reference();
    const history::History h = random_history(rng, ref, 7);
    CheckOptions options;
    options.partition = rng() % 2;
    options.threads = 2;
    const Verdict v = check(model, h, options);
    std::vector<history::OpIndex> oracle_witness;
    const bool linearizable = brute_force_linearizable(model, h, &oracle_witness);
    std::string text;
    for (const auto& op : h.operations()) text += "\n  " + op.to_string();
    SCOPED_TRACE("history #" + std::to_string(n) + ":" + text);
    for (const auto& op : h.operations()) with_pending += !op.completed();
    ASSERT_EQ(v.result, linearizable ? Result::kLinearizable : Result::kViolation);
    if (linearizable) {
      EXPECT_EQ(validate_witness(model, h, v.witness), std::nullopt);
      EXPECT_EQ(validate_witness(model, h, oracle_witness), std::nullopt);
      continue;
    }
    ++violations;
    EXPECT_TRUE(v.prefix_exact);
    const std::size_t shortest = brute_force_shortest_prefix(model, h);
    ASSERT_EQ(v.prefix_events, shortest);
    EXPECT_EQ(v.culprit, h.events()[shortest - 1].op);
    EXPECT_EQ(h.events()[shortest - 1].kind, history::Event::Kind::kReturn);
    if constexpr (!spec::PartitionableModel<M>) {
      EXPECT_EQ(validate_witness(model, h, v.longest_partial, shortest - 1), std::nullopt);
    } else {
      check_partitioned_partial(model, h, v, shortest);
    }
  }
  // The generator must produce both answers and pending ops, or the test proves little.
  EXPECT_GT(violations, histories / 10);
  EXPECT_LT(violations, histories * 9 / 10);
  EXPECT_GT(with_pending, histories / 20);
}

TEST(Differential, Register) {
  Value state;
  differential(
      spec::RegisterModel{}, [&] { return register_reference(state); }, [&] { state = Value(); }, 1,
      1500);
}

TEST(Differential, Stack) {
  std::vector<Value> items;
  differential(
      spec::StackModel{}, [&] { return stack_reference(items, false); }, [&] { items.clear(); }, 2,
      1500);
}

TEST(Differential, Queue) {
  std::vector<Value> items;
  differential(
      spec::QueueModel{}, [&] { return stack_reference(items, true); }, [&] { items.clear(); }, 3,
      1500);
}

TEST(Differential, SetPartitionedAndNot) {
  std::set<Value> members;
  differential(
      spec::SetModel{}, [&] { return set_reference(members); }, [&] { members.clear(); }, 4, 1500);
}

TEST(Differential, KvPartitionedAndNot) {
  std::map<Value, std::string> store;
  differential(
      spec::KvModel{}, [&] { return kv_reference(store); }, [&] { store.clear(); }, 5, 1500);
}

}  // namespace
}  // namespace linfault::detect
