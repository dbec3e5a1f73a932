// Unit tests of the built-in sequential models: legal and illegal steps, compile errors, and
// build()/reveal() round trips.

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <type_traits>

#include <gtest/gtest.h>

#include "spec/registry.h"

namespace linfault::spec {
namespace {

using history::Call;
using history::Operation;
using history::Outcome;
using history::Value;

Operation op(std::string method, std::vector<Value> args, Value result = Value(),
             Outcome outcome = Outcome::kOk) {
  Operation o;
  o.call = Call{std::move(method), std::move(args)};
  o.result = std::move(result);
  o.outcome = outcome;
  return o;
}

// Compiles and applies `o`; nullopt when the model leaves it out (NoEffect).
template <class M>
std::optional<bool> apply(const M& model, typename M::State& state, const Operation& o) {
  auto c = model.compile(o);
  if (auto* error = std::get_if<ModelError>(&c)) {
    ADD_FAILURE() << error->message;
    return false;
  }
  if (std::holds_alternative<NoEffect>(c)) return std::nullopt;
  return model.step(state, std::get<typename M::Op>(c));
}

template <class M>
std::string compile_error(const M& model, const Operation& o) {
  auto c = model.compile(o);
  auto* error = std::get_if<ModelError>(&c);
  return error ? error->message : "";
}

// The canonical name of the model `spec` builds.
std::string name_of(const std::string& spec) {
  return visit_model(spec, [](const auto& model) { return std::string(model.name()); });
}

// Each spec of `bad` is refused with one line that holds its message.
void expect_spec_errors(const std::vector<std::pair<std::string, std::string>>& bad) {
  for (const auto& [spec, message] : bad) {
    try {
      name_of(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const ModelSpecError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

// build(state) from initial() reaches `state`; reveal(state) calls are then all legal when given
// the results that a correct object returns (checked by stepping with recorded results).
template <class M>
void expect_build_reaches(const M& model, const typename M::State& state) {
  typename M::State rebuilt = model.initial();
  for (const Call& call : model.build(state)) {
    Operation o;
    o.call = call;
    o.outcome = Outcome::kPending;  // results of build calls are not checked
    auto c = model.compile(o);
    ASSERT_TRUE(std::holds_alternative<typename M::Op>(c)) << call.to_string();
    ASSERT_TRUE(model.step(rebuilt, std::get<typename M::Op>(c)));
  }
  EXPECT_TRUE(rebuilt == state) << model.describe(rebuilt) << " vs " << model.describe(state);
  EXPECT_EQ(model.hash(rebuilt), model.hash(state));
}

TEST(RegisterModel, ReadsSeeTheLastWrite) {
  RegisterModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("read", {}, Value())), true);
  EXPECT_EQ(apply(m, s, op("write", {3})), true);
  EXPECT_EQ(apply(m, s, op("read", {}, 3)), true);
  EXPECT_EQ(apply(m, s, op("read", {}, 4)), false);
  EXPECT_EQ(apply(m, s, op("read", {}, Value(), Outcome::kPending)), std::nullopt);
  EXPECT_EQ(apply(m, s, op("write", {9}, Value(), Outcome::kFail)), std::nullopt);
  EXPECT_EQ(compile_error(m, op("cas", {1, 2})), "register has no method 'cas'");
  EXPECT_EQ(compile_error(m, op("write", {})), "register: write expects 1 argument, got 0");
  expect_build_reaches(m, s);
  EXPECT_EQ(m.reveal(s), (std::vector<Call>{{"read", {}}}));
}

TEST(CasRegisterModel, CasOutcomes) {
  CasRegisterModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("write", {1})), true);
  EXPECT_EQ(apply(m, s, op("cas", {Value::List{1, 2}}, Value::List{1, 2})), true);  // Jepsen echo
  EXPECT_EQ(apply(m, s, op("read", {}, 2)), true);
  auto before = s;
  EXPECT_EQ(apply(m, s, op("cas", {1, 3}, Value(), Outcome::kFail)), true);  // false: 2 != 1
  EXPECT_TRUE(s == before);
  EXPECT_EQ(apply(m, s, op("cas", {2, 3}, Value(), Outcome::kFail)), false);  // should succeed
  s = before;
  EXPECT_EQ(apply(m, s, op("cas", {2, 5}, false)), false);
  s = before;
  EXPECT_EQ(apply(m, s, op("cas", {7, 5}, Value(), Outcome::kPending)), true);  // no effect
  EXPECT_TRUE(s == before);
  EXPECT_EQ(apply(m, s, op("read", {Value()}, Value(), Outcome::kFail)), std::nullopt);
  EXPECT_NE(compile_error(m, op("cas", {1})).find("cas expects"), std::string::npos);
  // An ok cas answers true, false, nothing, or (Jepsen) its own [from to]: 0 used to count as
  // swapped, and so did an echo of another pair.
  EXPECT_EQ(apply(m, s, op("cas", {1, 2}, Value())), false);  // swapped, but the value is 2
  EXPECT_EQ(compile_error(m, op("cas", {Value(), 1}, 0)),
            "cas-register: cas returns true, false or nothing, got 0");
  EXPECT_NE(compile_error(m, op("cas", {Value::List{Value(), 1}}, Value::List{7, 1})), "");
  expect_build_reaches(m, s);
}

TEST(KvModel, GetPutAppendByArgumentOrOperationKey) {
  KvModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("get", {"k"}, "")), true);  // absent reads as ""
  EXPECT_EQ(apply(m, s, op("put", {"k", "ab"})), true);
  EXPECT_EQ(apply(m, s, op("append", {"k", "cd"})), true);
  EXPECT_EQ(apply(m, s, op("get", {"k"}, "abcd")), true);
  EXPECT_EQ(apply(m, s, op("get", {"k"}, "abc")), false);
  Operation keyed = op("append", {"e"});
  keyed.key = Value("k");
  EXPECT_EQ(apply(m, s, keyed), true);
  EXPECT_EQ(apply(m, s, op("get", {"k"}, "abcde")), true);
  EXPECT_EQ(apply(m, s, op("get", {"other"}, Value())), true);
  EXPECT_EQ(m.partition_key(keyed), Value("k"));
  EXPECT_EQ(m.partition_key(op("get", {"z"})), Value("z"));
  EXPECT_NE(compile_error(m, op("put", {"k", "v", "w"})).find("put expects"), std::string::npos);
  EXPECT_EQ(compile_error(m, op("cas", {"k"})), "kv has no method 'cas'");
  // An operation key that contradicts the key argument: partitions would follow the one and the
  // model the other, and a violation within a key could pass.
  Operation contradicted = op("put", {"x", "v"});
  contradicted.key = Value("a");
  EXPECT_EQ(compile_error(m, contradicted), "kv: put's key \"x\" is not its operation key \"a\"");
  Operation agreed = op("put", {"x", "v"});
  agreed.key = Value("x");
  EXPECT_EQ(compile_error(m, agreed), "");
  // Equal strings built differently give equal states.
  auto t = m.initial();
  apply(m, t, op("put", {"k", "abcde"}));
  EXPECT_TRUE(s == t);
  EXPECT_EQ(m.hash(s), m.hash(t));
  expect_build_reaches(m, t);
  EXPECT_EQ(m.reveal(t), (std::vector<Call>{{"get", {"k"}}}));
  auto unseen = t;
  apply(m, unseen, op("append", {"k", "never-seen"}));
  EXPECT_THROW(m.build(unseen), std::invalid_argument);
}

TEST(SetModel, BooleanResultsAndSize) {
  SetModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("add", {1}, true)), true);
  EXPECT_EQ(apply(m, s, op("add", {1}, true)), false);
  EXPECT_EQ(apply(m, s, op("insert", {2}, 1)), true);
  EXPECT_EQ(apply(m, s, op("contains", {2}, true)), true);
  EXPECT_EQ(apply(m, s, op("size", {}, 2)), true);
  EXPECT_EQ(apply(m, s, op("remove", {3}, true)), false);
  EXPECT_EQ(apply(m, s, op("contains", {3}, Value(), Outcome::kPending)), std::nullopt);
  EXPECT_EQ(m.partition_key(op("size", {})), std::nullopt);
  EXPECT_EQ(m.partition_key(op("add", {7})), Value(7));
  EXPECT_NE(compile_error(m, op("add", {1}, "yes")).find("must return a boolean"),
            std::string::npos);
  expect_build_reaches(m, s);
  EXPECT_EQ(m.reveal(s).size(), 3u);
}

TEST(StackQueueDeque, OrderAndEmptiness) {
  StackModel st;
  auto s = st.initial();
  EXPECT_EQ(apply(st, s, op("pop", {}, Value())), true);  // empty
  apply(st, s, op("push", {1}));
  apply(st, s, op("push", {2}));
  EXPECT_EQ(apply(st, s, op("peek", {}, 2)), true);
  auto copy = s;
  EXPECT_EQ(apply(st, copy, op("pop", {}, 1)), false);
  expect_build_reaches(st, s);
  EXPECT_EQ(st.reveal(s).size(), 3u);
  EXPECT_EQ(apply(st, s, op("pop", {}, Value(), Outcome::kPending)), true);  // pops 2
  EXPECT_EQ(apply(st, s, op("pop", {}, 1)), true);
  EXPECT_EQ(compile_error(st, op("enq", {1})), "stack has no method 'enq'");
  EXPECT_NE(compile_error(st, op("push", {Value()})).find("must not be nil"), std::string::npos);

  QueueModel q;
  auto qs = q.initial();
  apply(q, qs, op("enq", {1}));
  apply(q, qs, op("offer", {2}));
  expect_build_reaches(q, qs);
  EXPECT_EQ(apply(q, qs, op("deq", {}, 2)), false);
  qs = q.initial();
  apply(q, qs, op("enq", {1}));
  EXPECT_EQ(apply(q, qs, op("poll", {}, 1)), true);
  EXPECT_EQ(apply(q, qs, op("deq", {}, Value())), true);

  DequeModel d;
  auto ds = d.initial();
  apply(d, ds, op("push_left", {1}));
  apply(d, ds, op("push_right", {2}));
  apply(d, ds, op("push_left", {0}));
  expect_build_reaches(d, ds);
  EXPECT_EQ(apply(d, ds, op("pop_right", {}, 2)), true);
  EXPECT_EQ(apply(d, ds, op("pop_left", {}, 0)), true);
  EXPECT_EQ(apply(d, ds, op("peek_left", {}, 2)), false);
}

TEST(PriorityQueueModel, LargestFirst) {
  PriorityQueueModel m;
  auto s = m.initial();
  apply(m, s, op("insert", {2}));
  apply(m, s, op("insert", {5}));
  apply(m, s, op("insert", {3}));
  expect_build_reaches(m, s);
  EXPECT_EQ(m.describe(s), "[5 3 2]");
  EXPECT_EQ(apply(m, s, op("peek", {}, 5)), true);
  auto copy = s;
  EXPECT_EQ(apply(m, copy, op("poll", {}, 3)), false);
  EXPECT_EQ(apply(m, s, op("poll", {}, 5)), true);
  EXPECT_EQ(apply(m, s, op("poll", {}, 3)), true);
  EXPECT_NE(compile_error(m, op("insert", {"x"})).find("must be an integer"), std::string::npos);
}

TEST(CounterAndSnapshot, Semantics) {
  CounterModel c;
  auto cs = c.initial();
  apply(c, cs, op("inc", {}));
  apply(c, cs, op("add", {5}));
  apply(c, cs, op("dec", {}));
  EXPECT_EQ(apply(c, cs, op("get", {}, 5)), true);
  EXPECT_EQ(apply(c, cs, op("read", {}, 4)), false);
  expect_build_reaches(c, cs);

  SnapshotModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("scan", {}, Value::List{0, 0})), true);
  apply(m, s, op("update", {1, 1}));
  EXPECT_EQ(apply(m, s, op("scan", {}, Value::List{0, 1})), true);
  EXPECT_EQ(apply(m, s, op("scan", {}, Value::List{1, 1})), false);
  EXPECT_EQ(apply(m, s, op("readpair", {1, 3}, Value::List{1, 0})), true);
  apply(m, s, op("write", {1, 0}));
  EXPECT_TRUE(s == m.initial());
  apply(m, s, op("update", {4, 7}));
  expect_build_reaches(m, s);
  EXPECT_NE(compile_error(m, op("scan", {}, 3)).find("list of integers"), std::string::npos);
}

// The counter's arithmetic is exact: amounts whose sum leaves int64 do not wrap around.
TEST(CounterAndSnapshot, CounterSumsDoNotWrapAtInt64) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  CounterModel c;
  auto s = c.initial();
  apply(c, s, op("add", {kMax}));
  apply(c, s, op("add", {kMax}));
  apply(c, s, op("add", {2}));
  EXPECT_EQ(apply(c, s, op("get", {}, 0)), false);  // 2^64, which wrapping would make 0
  EXPECT_EQ(c.describe(s), "18446744073709551616");
  expect_build_reaches(c, s);
  apply(c, s, op("add", {kMin}));
  apply(c, s, op("add", {kMin}));
  EXPECT_EQ(apply(c, s, op("get", {}, 0)), true);
  apply(c, s, op("add", {kMin}));
  apply(c, s, op("dec", {}));
  EXPECT_EQ(apply(c, s, op("get", {}, kMax)), false);  // kMin - 1, which wrapping makes kMax
  EXPECT_EQ(c.describe(s), "-9223372036854775809");
  expect_build_reaches(c, s);
}

TEST(Registry, MethodAliasesAreTheModelsSpellingsOfOneMethod) {
  const std::vector<std::string> enq = method_aliases("queue", "enq");
  EXPECT_NE(std::find(enq.begin(), enq.end(), "enqueue"), enq.end());
  EXPECT_NE(std::find(enq.begin(), enq.end(), "offer"), enq.end());
  const std::vector<std::string> dequeue = method_aliases("queue", "dequeue");
  EXPECT_NE(std::find(dequeue.begin(), dequeue.end(), "deq"), dequeue.end());
  EXPECT_EQ(std::find(dequeue.begin(), dequeue.end(), "enq"), dequeue.end());
  EXPECT_EQ(method_aliases("queue", "frobnicate"), std::vector<std::string>{"frobnicate"});
  EXPECT_EQ(method_aliases("counter", "inc").front(), "inc");
}

TEST(Registry, NamesAndDispatch) {
  for (std::string_view name : model_names()) {
    EXPECT_EQ(visit_model(name, [](const auto& model) { return std::string(model.name()); }), name);
  }
  try {
    visit_model("stak", [](const auto&) { return 0; });
    FAIL();
  } catch (const UnknownModel& e) {
    EXPECT_NE(std::string(e.what()).find("cas-register"), std::string::npos);
    EXPECT_EQ(e.name(), "stak");
  }
}

TEST(RegisterModel, InitParameterIsTheInitialValue) {
  ModelParams params;
  params.add("init", 0);
  const RegisterModel m(params);
  EXPECT_TRUE(params.empty());  // taken
  EXPECT_EQ(m.name(), "register(init=0)");
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("read", {}, 0)), true);
  s = m.initial();
  EXPECT_EQ(apply(m, s, op("read", {}, Value())), false);
  EXPECT_TRUE(m.build(m.initial()).empty());
  EXPECT_EQ(apply(m, s, op("write", {Value()})), true);  // nil written back is not the initial 0
  expect_build_reaches(m, s);
}

TEST(CasRegisterModel, InitParameterStartsACasChainAtZero) {
  const auto check = [](const std::string& spec, const std::vector<Operation>& ops) {
    return visit_model(spec, [&](const auto& m) {
      auto s = m.initial();
      for (const Operation& o : ops) {
        if (apply(m, s, o) == false) return false;
      }
      return true;
    });
  };
  const std::vector<Operation> from_zero{op("cas", {0, 1}, true), op("read", {}, 1)};
  EXPECT_FALSE(check("cas-register", from_zero));
  EXPECT_TRUE(check("cas-register(init=0)", from_zero));
  EXPECT_FALSE(check("cas-register(init=\"0\")", from_zero));  // the string "0" is not 0
  EXPECT_TRUE(check("cas-register(init=:a)", {op("read", {}, ":a")}));
}

TEST(MutexModel, AcquireAndReleaseAlternate) {
  MutexModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("release", {})), false);  // not held
  s = m.initial();
  EXPECT_EQ(apply(m, s, op("acquire", {})), true);
  auto held = s;
  EXPECT_EQ(apply(m, s, op("lock", {})), false);  // double acquire
  s = held;
  EXPECT_EQ(apply(m, s, op("acquire", {}, Value(), Outcome::kFail)), std::nullopt);
  EXPECT_EQ(apply(m, s, op("unlock", {Value()})), true);  // Jepsen's :value nil
  EXPECT_EQ(s, m.initial());
  // A refused release takes no effect; a pending one may take effect under the same rules.
  EXPECT_EQ(apply(m, s, op("release", {}, ":not-held", Outcome::kFail)), std::nullopt);
  EXPECT_EQ(apply(m, s, op("release", {}, Value(), Outcome::kPending)), false);
  s = held;
  EXPECT_EQ(apply(m, s, op("release", {}, Value(), Outcome::kPending)), true);
  EXPECT_EQ(apply(m, s, op("acquire", {}, true)), true);
  EXPECT_NE(compile_error(m, op("acquire", {}, false)).find("mutex: acquire returned false"),
            std::string::npos);
  EXPECT_EQ(compile_error(m, op("read", {})), "mutex has no method 'read'");
  EXPECT_EQ(compile_error(m, op("acquire", {1})), "mutex: acquire expects 0 arguments, got 1");
  expect_build_reaches(m, held);
  expect_build_reaches(m, m.initial());
}

Value txn(std::initializer_list<Value> micros) { return Value(Value::List(micros)); }
Value micro(const char* f, Value key, Value v = Value()) { return Value::List{f, key, v}; }

TEST(MultiRegisterModel, TransactionsApplyAtomicallyInOrder) {
  MultiRegisterModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":r", ":x"), micro(":r", ":y")})})), true);
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":w", ":x", 1), micro(":w", ":y", 2)})})), true);
  // The completion fills in the reads; a read after a write in the same txn sees it.
  const Value asked = txn({micro(":r", ":x"), micro(":w", ":x", 5), micro("r", ":x")});
  const Value answered = txn({micro(":r", ":x", 1), micro(":w", ":x", 5), micro("r", ":x", 5)});
  auto before = s;
  EXPECT_EQ(apply(m, s, op("txn", {asked}, answered)), true);
  s = before;
  const Value stale = txn({micro(":r", ":x", 1), micro(":w", ":x", 5), micro("r", ":x", 1)});
  EXPECT_EQ(apply(m, s, op("txn", {asked}, stale)), false);
  s = before;
  // A nil result means the argument itself: its nil read read nil.
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":read", ":z")})})), true);
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":read", ":x")})})), false);
  s = before;
  // Failed: no effect; pending: writes may take effect, reads are unknown.
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":w", ":x", 9)})}, Value(), Outcome::kFail)),
            std::nullopt);
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":r", ":x")})}, Value(), Outcome::kPending)),
            std::nullopt);
  EXPECT_EQ(apply(m, s,
                  op("txn", {txn({micro(":r", ":x"), micro(":w", ":x", 9)})}, Value(),
                     Outcome::kPending)),
            true);
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":r", ":x", 9)})}, txn({micro(":r", ":x", 9)}))),
            true);
  expect_build_reaches(m, s);
  expect_build_reaches(m, m.initial());
  EXPECT_EQ(m.describe(s), "{\":x\" 9, \":y\" 2}");
}

TEST(MultiRegisterModel, WritingTheInitialValueBackGivesTheInitialState) {
  ModelParams params;
  params.add("init", 0);
  MultiRegisterModel m(params);
  EXPECT_EQ(m.name(), "multi-register(init=0)");
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":r", 1, 0), micro(":r", 2, 0)})})), true);
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":w", 2, 3)})})), true);
  EXPECT_FALSE(s == m.initial());
  EXPECT_EQ(apply(m, s, op("txn", {txn({micro(":w", 2, 0)})})), true);
  EXPECT_TRUE(s == m.initial());
  EXPECT_EQ(m.hash(s), m.hash(m.initial()));
}

TEST(MultiRegisterModel, MalformedTransactionsAreModelErrors) {
  MultiRegisterModel m;
  const std::vector<std::pair<Operation, std::string>> cases{
      {op("read", {}), "multi-register has no method 'read'"},
      {op("txn", {1}), "txn expects one list of micro-operations"},
      {op("txn", {txn({Value::List{":r"}})}), "is not [f key] or [f key value]"},
      {op("txn", {txn({micro(":cas", ":x", 1)})}), "f must be :r or :w"},
      {op("txn", {txn({micro(":r", Value())})}), "the key must not be nil"},
      {op("txn", {txn({Value::List{":w", ":x"}})}), "a write needs a value"},
      {op("txn", {txn({micro(":r", ":x")})}, txn({})), "is not its micro-operations"},
      {op("txn", {txn({micro(":r", ":x")})}, txn({micro(":r", ":y", 1)})), "does not answer"},
      {op("txn", {txn({micro(":w", ":x", 2)})}, txn({micro(":w", ":x", 3)})), "does not answer"},
  };
  for (const auto& [o, expected] : cases) {
    EXPECT_NE(compile_error(m, o).find(expected), std::string::npos)
        << o.to_string() << ": " << compile_error(m, o);
  }
}

TEST(MultiRegisterModel, PartitionKeyOnlyForSingleKeyTransactions) {
  MultiRegisterModel m;
  EXPECT_EQ(m.partition_key(op("txn", {txn({micro(":r", ":x"), micro(":w", ":x", 1)})})),
            Value(":x"));
  EXPECT_EQ(m.partition_key(op("txn", {txn({micro(":r", ":x"), micro(":w", ":y", 1)})})),
            std::nullopt);
  EXPECT_EQ(m.partition_key(op("txn", {txn({})})), std::nullopt);
  EXPECT_EQ(m.partition_key(op("txn", {1})), std::nullopt);
}

TEST(Registry, ModelSpecsCarryParameters) {
  EXPECT_EQ(name_of("cas-register(init=0)"), "cas-register(init=0)");
  EXPECT_EQ(name_of(" register ( init = \"a b\" ) "), "register(init=\"a b\")");
  EXPECT_EQ(name_of("multi-register(init=nil)"), "multi-register(init=nil)");
  EXPECT_EQ(name_of("stack()"), "stack");
  EXPECT_EQ(canonical_model_spec("cas-register( init=:x )"), "cas-register(init=\":x\")");
  EXPECT_EQ(model_spec_with_init("cas-register(init=1)", Value(0)), "cas-register(init=0)");
  EXPECT_EQ(model_spec_with_init("register", Value("0")), "register(init=\"0\")");
  const std::vector<std::pair<std::string, std::string>> bad{
      {"stack(init=0)", "model 'stack' takes no parameter 'init'"},
      {"mutex(init=0)", "model 'mutex' takes no parameter 'init'"},
      {"register(size=2)", "model 'register' takes no parameter 'size'"},
      {"register(init=0,init=1)", "parameter 'init' given twice"},
      {"register(init=)", "expected a value at column 15"},
      {"register(init=0", "expected ',' or ')'"},
      {"register(init=\"0)", "unterminated string"},
  };
  expect_spec_errors(bad);
  EXPECT_THROW(model_spec_with_init("queue", Value(0)), ModelSpecError);
  EXPECT_THROW(name_of("regster(init=0)"), UnknownModel);
}

// ---------------------------------------------------------------------------------------------
// bag and queue(fifo=per-producer)

Operation by(history::ProcessId process, Operation o) {
  o.process = process;
  return o;
}

TEST(BagModel, TakeReturnsAnyElementAndNilOnlyWhenEmpty) {
  BagModel m;
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("take", {}, Value())), true);
  EXPECT_EQ(apply(m, s, op("add", {1})), true);
  EXPECT_EQ(apply(m, s, op("put", {2}, true)), true);  // a result is ignored
  EXPECT_EQ(apply(m, s, op("insert", {1})), true);
  EXPECT_EQ(m.describe(s), "[1 1 2]");
  expect_build_reaches(m, s);
  EXPECT_EQ(m.reveal(s), std::vector<Call>(4, Call{"take", {}}));
  auto copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, Value())), false);  // not empty: strict
  copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, 3)), false);  // never added
  EXPECT_EQ(apply(m, s, op("take", {}, 2)), true);      // no order: any element
  EXPECT_EQ(apply(m, s, op("remove", {}, 1)), true);
  EXPECT_EQ(apply(m, s, op("poll", {}, 1)), true);  // the second copy
  copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, 1)), false);  // no third copy
  EXPECT_EQ(apply(m, s, op("take", {}, Value())), true);
  EXPECT_EQ(s, m.initial());
  EXPECT_EQ(apply(m, s, op("take", {}, 7, Outcome::kFail)), std::nullopt);
  EXPECT_EQ(apply(m, s, op("add", {7}, Value(), Outcome::kFail)), std::nullopt);
  EXPECT_EQ(s, m.initial());
  EXPECT_EQ(compile_error(m, op("size", {}, 0)), "bag has no method 'size'");
  EXPECT_EQ(compile_error(m, op("take", {1})), "bag: take expects 0 arguments, got 1");
  EXPECT_EQ(compile_error(m, op("add", {Value()})), "bag: add argument 1 must not be nil");
}

TEST(BagModel, APendingTakeRemovesAnyElementLaterOrNothing) {
  BagModel m;
  const Operation pending = op("take", {}, Value(), Outcome::kPending);
  auto s = m.initial();
  apply(m, s, op("add", {1}));
  apply(m, s, op("add", {2}));
  EXPECT_EQ(apply(m, s, pending), true);
  EXPECT_EQ(m.describe(s), "[1 2] less up to 1 element (pending take)");
  auto copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, Value())), false);  // it removed one at most
  copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, 2)), true);  // it took 1 ...
  EXPECT_EQ(apply(m, copy, op("take", {}, Value())), true);
  copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, 1)), true);  // ... or 2 ...
  EXPECT_EQ(apply(m, copy, op("take", {}, Value())), true);
  EXPECT_EQ(apply(m, copy, op("add", {3})), true);  // (and it is spent)
  EXPECT_EQ(apply(m, copy, op("take", {}, Value())), false);
  copy = s;
  EXPECT_EQ(apply(m, copy, op("take", {}, 1)), true);  // ... or nothing
  EXPECT_EQ(apply(m, copy, op("take", {}, 2)), true);
  // On an empty bag it may still take effect later, on an element added since.
  s = m.initial();
  apply(m, s, pending);
  apply(m, s, op("add", {5}));
  EXPECT_EQ(apply(m, s, op("take", {}, Value())), true);
  // build() builds the fullest bag the state allows.
  s = m.initial();
  apply(m, s, op("add", {4}));
  apply(m, s, pending);
  EXPECT_EQ(m.build(s), (std::vector<Call>{{"add", {4}}}));
}

TEST(PerProducerQueueModel, FifoAmongOneProducersElementsOnly) {
  PerProducerQueueModel m;
  EXPECT_EQ(m.name(), "queue(fifo=\"per-producer\")");
  auto s = m.initial();
  EXPECT_EQ(apply(m, s, op("deq", {}, Value())), true);
  apply(m, s, by(1, op("enq", {1})));
  apply(m, s, by(1, op("enqueue", {2})));
  apply(m, s, by(2, op("offer", {3})));
  EXPECT_EQ(m.describe(s), "{p1 [1 2], p2 [3]}");
  auto copy = s;
  EXPECT_EQ(apply(m, copy, op("deq", {}, 2)), false);  // behind 1, of the same producer
  copy = s;
  EXPECT_EQ(apply(m, copy, op("deq", {}, Value())), false);  // deq's nil means empty
  copy = s;
  EXPECT_EQ(apply(m, copy, op("deq", {}, 4)), false);
  EXPECT_EQ(apply(m, s, by(1, op("deq", {}, 3))), true);  // enqueued last, dequeued first
  EXPECT_EQ(apply(m, s, op("poll", {}, 1)), true);
  EXPECT_EQ(apply(m, s, op("dequeue", {}, 2)), true);
  EXPECT_EQ(apply(m, s, op("deq", {}, Value())), true);
  EXPECT_EQ(s, m.initial());
  EXPECT_EQ(compile_error(m, op("peek", {})), "queue(fifo=\"per-producer\") has no method 'peek'");
  EXPECT_EQ(compile_error(m, op("push", {1})), "queue(fifo=\"per-producer\") has no method 'push'");
  EXPECT_EQ(compile_error(m, op("try_dequeue", {1})),
            "queue(fifo=\"per-producer\"): try_dequeue expects 0 arguments, got 1");
  EXPECT_EQ(compile_error(m, op("enq", {Value()})),
            "queue(fifo=\"per-producer\"): enq argument 1 must not be nil");
}

TEST(PerProducerQueueModel, TryDequeueMayFindNothingInAnyState) {
  PerProducerQueueModel m;
  auto s = m.initial();
  apply(m, s, by(1, op("enq", {1})));
  apply(m, s, by(1, op("enq", {2})));
  const auto before = s;
  // try_dequeue -> nil: legal in every state, removes nothing (left out of the check).
  EXPECT_EQ(apply(m, s, op("try_dequeue", {}, Value())), std::nullopt);
  EXPECT_EQ(apply(m, s, op("try_deq", {}, Value())), std::nullopt);
  EXPECT_EQ(s, before);
  // A value it returns must still be a producer's head.
  auto copy = s;
  EXPECT_EQ(apply(m, copy, op("try_dequeue", {}, 2)), false);
  EXPECT_EQ(apply(m, s, op("try_dequeue", {}, 1)), true);
  EXPECT_EQ(apply(m, s, op("try_deq", {}, 2)), true);
  EXPECT_EQ(s, m.initial());
  EXPECT_EQ(apply(m, s, op("try_dequeue", {}, 9)), false);
  EXPECT_EQ(apply(m, s, op("deq", {}, 1, Outcome::kFail)), std::nullopt);
}

TEST(PerProducerQueueModel, APendingDequeueTakesAnyHeadLaterOrNothing) {
  PerProducerQueueModel m;
  auto s = m.initial();
  apply(m, s, by(1, op("enq", {1})));
  apply(m, s, by(1, op("enq", {2})));
  apply(m, s, by(2, op("enq", {3})));
  EXPECT_EQ(apply(m, s, op("try_dequeue", {}, Value(), Outcome::kPending)), true);
  EXPECT_EQ(m.describe(s), "{p1 [1 2], p2 [3]} less up to 1 head (pending dequeue)");
  auto copy = s;
  EXPECT_EQ(apply(m, copy, op("deq", {}, 2)), true);         // it took 1
  EXPECT_EQ(apply(m, copy, op("deq", {}, Value())), false);  // and not 3 too
  EXPECT_EQ(apply(m, copy, op("deq", {}, 3)), true);
  copy = s;
  EXPECT_EQ(apply(m, copy, op("deq", {}, 1)), true);  // it took 3, or nothing
  EXPECT_EQ(apply(m, copy, op("deq", {}, Value())), false);
  copy = s;
  apply(m, copy, op("deq", {}, Value(), Outcome::kPending));
  EXPECT_EQ(apply(m, copy, op("deq", {}, Value())), false);  // two of three at most
  apply(m, copy, op("deq", {}, Value(), Outcome::kPending));
  EXPECT_EQ(apply(m, copy, op("deq", {}, Value())), true);
  // Owed removals may take elements enqueued after the pending call (it took effect later).
  apply(m, copy, by(3, op("enq", {4})));
  EXPECT_EQ(apply(m, copy, op("deq", {}, Value())), false);
  s = m.initial();
  apply(m, s, op("deq", {}, Value(), Outcome::kPending));
  apply(m, s, by(3, op("enq", {4})));
  EXPECT_EQ(apply(m, s, op("deq", {}, Value())), true);
}

TEST(PerProducerQueueModel, AValueTwoProducersEnqueuedKeepsBothOutcomes) {
  PerProducerQueueModel m;
  auto s = m.initial();
  apply(m, s, by(1, op("enq", {5})));
  apply(m, s, by(1, op("enq", {6})));
  apply(m, s, by(2, op("enq", {5})));
  apply(m, s, by(2, op("enq", {7})));
  EXPECT_EQ(apply(m, s, op("deq", {}, 5)), true);
  EXPECT_EQ(m.describe(s), "one of {p1 [6], p2 [5 7]} | {p1 [5 6], p2 [7]}");
  EXPECT_EQ(m.build(s).size(), 3u);
  EXPECT_EQ(m.reveal(s).size(), 8u);  // 3 + 1 deq(), 3 + 1 try_dequeue()
  auto either = s;
  EXPECT_EQ(apply(m, either, op("deq", {}, 7)), true);  // the 5 was p2's
  EXPECT_EQ(apply(m, either, op("deq", {}, 6)), false);
  EXPECT_EQ(apply(m, either, op("deq", {}, 5)), true);
  EXPECT_EQ(apply(m, either, op("deq", {}, 6)), true);
  either = s;
  EXPECT_EQ(apply(m, either, op("deq", {}, 6)), true);  // the 5 was p1's
  EXPECT_EQ(apply(m, either, op("deq", {}, 7)), false);
  either = s;
  EXPECT_EQ(apply(m, either, op("deq", {}, Value())), false);
  // Both ways lead to the same state: one alternative again.
  EXPECT_EQ(apply(m, either, op("deq", {}, 5)), true);
  EXPECT_EQ(m.describe(either), "{p1 [6], p2 [7]}");
  EXPECT_EQ(either.size(), std::size_t(either[0]) + 1);
}

TEST(PerProducerQueueModel, BuildAndRevealRoundTrips) {
  PerProducerQueueModel m;
  auto s = m.initial();
  // A Ps runs on thread 0: its elements are one producer's, which build() recreates exactly.
  apply(m, s, op("enq", {1}));
  apply(m, s, op("enq", {2}));
  apply(m, s, op("enq", {1}));
  expect_build_reaches(m, s);
  EXPECT_EQ(m.build(s), (std::vector<Call>{{"enq", {1}}, {"enq", {2}}, {"enq", {1}}}));
  std::vector<Call> reveal(4, Call{"deq", {}});
  reveal.insert(reveal.end(), 4, Call{"try_dequeue", {}});
  EXPECT_EQ(m.reveal(s), reveal);
  expect_build_reaches(m, m.initial());
  // Several producers: one order of their elements, from one producer.
  apply(m, s, by(4, op("enq", {3})));
  EXPECT_EQ(m.build(s).size(), 4u);
  EXPECT_EQ(m.reveal(s).size(), 10u);
}

// Brute force: whether some linearization of `ops` (completed ones between call and return,
// pending ones after their call or never) is accepted, by trying every order and, through
// `accepts`, every way the reference semantics allows.
struct TimedOp {
  Operation op;
  int call = 0;
  int ret = -1;  // -1: pending
};

template <class State>
bool some_linearization(
    const std::vector<TimedOp>& ops, std::uint32_t placed, const std::vector<State>& states,
    const std::function<std::vector<State>(const State&, const Operation&)>& successors) {
  if (states.empty()) return false;
  bool all_completed_placed = true;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!(placed >> i & 1) && ops[i].ret >= 0) all_completed_placed = false;
  }
  if (all_completed_placed) return true;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (placed >> i & 1) continue;
    bool ready = true;
    for (std::size_t j = 0; j < ops.size(); ++j) {
      if (!(placed >> j & 1) && ops[j].ret >= 0 && ops[j].ret < ops[i].call) ready = false;
    }
    if (!ready) continue;
    std::vector<State> next;
    for (const State& state : states) {
      for (State& n : successors(state, ops[i].op)) {
        if (std::find(next.begin(), next.end(), n) == next.end()) next.push_back(std::move(n));
      }
    }
    if (some_linearization(ops, placed | 1u << i, next, successors)) return true;
  }
  return false;
}

// The model under test as successors: its one state, or none.
template <class M>
std::function<std::vector<typename M::State>(const typename M::State&, const Operation&)>
model_successors(const M& m) {
  return [&m](const typename M::State& state, const Operation& o) {
    auto c = m.compile(o);
    if (std::holds_alternative<NoEffect>(c)) return std::vector<typename M::State>{state};
    auto next = state;
    if (!m.step(next, std::get<typename M::Op>(c))) return std::vector<typename M::State>{};
    return std::vector<typename M::State>{next};
  };
}

// Random histories of `processes` processes and `n` operations drawn by `draw` (which sees the
// values enqueued so far), some of them pending.
template <class Draw>
std::vector<TimedOp> random_history(std::mt19937& rng, int processes, int n, Draw&& draw) {
  std::vector<TimedOp> ops;
  std::vector<int> open(static_cast<std::size_t>(processes), -1);
  std::vector<Value> added;
  int time = 0;
  while (static_cast<int>(ops.size()) < n ||
         std::any_of(open.begin(), open.end(), [](int o) { return o >= 0; })) {
    const auto p = static_cast<std::size_t>(rng() % static_cast<unsigned>(processes));
    if (open[p] >= 0) {
      TimedOp& t = ops[static_cast<std::size_t>(open[p])];
      if (rng() % 5 == 0) {
        t.op.outcome = Outcome::kPending;  // no return
        t.op.result = Value();
      } else {
        t.ret = time++;
      }
      open[p] = -1;
    } else if (static_cast<int>(ops.size()) < n) {
      TimedOp t;
      t.op = draw(rng, added);
      t.op.process = static_cast<history::ProcessId>(p);
      if (t.op.call.args.size() == 1) added.push_back(t.op.call.args[0]);
      t.call = time++;
      open[p] = static_cast<int>(ops.size());
      ops.push_back(std::move(t));
    }
  }
  return ops;
}

Value result_among(std::mt19937& rng, const std::vector<Value>& added) {
  if (added.empty() || rng() % 4 == 0) return Value();
  return added[rng() % added.size()];
}

TEST(BagModel, AgreesWithTryingEveryElementForPendingTakes) {
  using Bag = std::vector<std::int64_t>;  // sorted
  const std::function<std::vector<Bag>(const Bag&, const Operation&)> reference =
      [](const Bag& bag, const Operation& o) -> std::vector<Bag> {
    if (o.call.method == "add") {
      Bag next = bag;
      next.insert(std::upper_bound(next.begin(), next.end(), o.call.args[0].as_int()),
                  o.call.args[0].as_int());
      return {next};
    }
    if (o.outcome == Outcome::kPending) {  // any one element, or none if it is empty
      if (bag.empty()) return {bag};
      std::vector<Bag> out;
      for (std::size_t i = 0; i < bag.size(); ++i) {
        out.push_back(bag);
        out.back().erase(out.back().begin() + static_cast<std::ptrdiff_t>(i));
      }
      return out;
    }
    if (o.result.is_nil()) return bag.empty() ? std::vector<Bag>{bag} : std::vector<Bag>{};
    const auto it = std::find(bag.begin(), bag.end(), o.result.as_int());
    if (it == bag.end()) return {};
    Bag next = bag;
    next.erase(next.begin() + (it - bag.begin()));
    return {next};
  };
  std::mt19937 rng(7);
  int agreed_linearizable = 0, agreed_violation = 0;
  for (int round = 0; round < 3000; ++round) {
    const auto ops = random_history(rng, 3, 2 + round % 7, [](std::mt19937& r, auto& added) {
      if (r() % 2 == 0) return op("add", {static_cast<int>(r() % 3)});
      return op("take", {}, result_among(r, added));
    });
    BagModel m;
    const bool expected = some_linearization<Bag>(ops, 0, {Bag{}}, reference);
    const bool actual =
        some_linearization<BagModel::State>(ops, 0, {m.initial()}, model_successors(m));
    std::string text;
    for (const TimedOp& t : ops) {
      text +=
          t.op.to_string() + " [" + std::to_string(t.call) + ", " + std::to_string(t.ret) + "]\n";
    }
    ASSERT_EQ(actual, expected) << text;
    (expected ? agreed_linearizable : agreed_violation)++;
  }
  EXPECT_GT(agreed_linearizable, 500);
  EXPECT_GT(agreed_violation, 500);
}

TEST(PerProducerQueueModel, AgreesWithTryingEveryHeadForPendingDequeues) {
  using Fifos = std::map<history::ProcessId, std::vector<std::int64_t>>;  // non-empty ones
  const std::function<std::vector<Fifos>(const Fifos&, const Operation&)> reference =
      [](const Fifos& fifos, const Operation& o) -> std::vector<Fifos> {
    if (o.call.method == "enq") {
      Fifos next = fifos;
      next[o.process].push_back(o.call.args[0].as_int());
      return {next};
    }
    const bool may_fail = o.call.method == "try_dequeue";
    std::vector<Fifos> out;
    if (o.outcome == Outcome::kPending) {  // any head, or none if all are empty
      if (fifos.empty() || may_fail) out.push_back(fifos);
    } else if (o.result.is_nil()) {
      if (fifos.empty() || may_fail) out.push_back(fifos);
      return out;
    }
    for (const auto& [producer, fifo] : fifos) {
      if (o.outcome != Outcome::kPending && fifo.front() != o.result.as_int()) continue;
      Fifos next = fifos;
      next[producer].erase(next[producer].begin());
      if (next[producer].empty()) next.erase(producer);
      out.push_back(std::move(next));
    }
    return out;
  };
  std::mt19937 rng(11);
  int agreed_linearizable = 0, agreed_violation = 0;
  for (int round = 0; round < 6000; ++round) {
    const auto ops = random_history(rng, 3, 2 + round % 7, [](std::mt19937& r, auto& added) {
      if (r() % 2 == 0) return op("enq", {static_cast<int>(r() % 3)});
      return op(r() % 2 ? "deq" : "try_dequeue", {}, result_among(r, added));
    });
    PerProducerQueueModel m;
    const bool expected = some_linearization<Fifos>(ops, 0, {Fifos{}}, reference);
    const bool actual = some_linearization<PerProducerQueueModel::State>(ops, 0, {m.initial()},
                                                                         model_successors(m));
    std::string text;
    for (const TimedOp& t : ops) {
      text +=
          t.op.to_string() + " [" + std::to_string(t.call) + ", " + std::to_string(t.ret) + "]\n";
    }
    ASSERT_EQ(actual, expected) << text;
    (expected ? agreed_linearizable : agreed_violation)++;
  }
  EXPECT_GT(agreed_linearizable, 500);
  EXPECT_GT(agreed_violation, 500);
}

TEST(Registry, QueueFifoParameterAndBag) {
  EXPECT_EQ(name_of("queue(fifo=per-producer)"), "queue(fifo=\"per-producer\")");
  EXPECT_EQ(name_of("queue(fifo=\"per-producer\")"), "queue(fifo=\"per-producer\")");
  EXPECT_EQ(canonical_model_spec("queue( fifo = per-producer )"), "queue(fifo=\"per-producer\")");
  EXPECT_EQ(canonical_model_spec("queue(fifo=global)"), "queue");  // the default
  EXPECT_TRUE(same_model("queue(fifo=global)", "queue"));
  EXPECT_FALSE(same_model("queue(fifo=per-producer)", "queue"));
  EXPECT_EQ(name_of("bag"), "bag");
  EXPECT_TRUE(visit_model("queue(fifo=per-producer)", [](const auto& model) {
    return std::is_same_v<std::decay_t<decltype(model)>, PerProducerQueueModel>;
  }));
  EXPECT_TRUE(visit_model("queue(fifo=global)", [](const auto& model) {
    return std::is_same_v<std::decay_t<decltype(model)>, QueueModel>;
  }));
  EXPECT_EQ(call_problem("queue(fifo=per-producer)", Call{"peek", {}}),
            "queue(fifo=\"per-producer\") has no method 'peek'");
  EXPECT_EQ(call_problem("queue(fifo=per-producer)", Call{"try_dequeue", {}}), std::nullopt);
  EXPECT_EQ(call_problem("queue", Call{"try_dequeue", {}}), "queue has no method 'try_dequeue'");
  const std::vector<std::pair<std::string, std::string>> bad{
      {"queue(fifo=sideways)",
       "model 'queue': fifo must be global or per-producer, got \"sideways\""},
      {"queue(fifo=1)", "model 'queue': fifo must be global or per-producer, got 1"},
      {"queue(fifo=:per-producer)", "fifo must be global or per-producer, got \":per-producer\""},
      {"queue(fifo=per-producer,init=0)", "model 'queue' takes no parameter 'init'"},
      {"queue(fifo=global,init=0)", "model 'queue' takes no parameter 'init'"},
      {"queue(fifo=global,fifo=global)", "parameter 'fifo' given twice"},
      {"bag(init=0)", "model 'bag' takes no parameter 'init'"},
      {"stack(fifo=per-producer)", "model 'stack' takes no parameter 'fifo'"},
  };
  expect_spec_errors(bad);
  EXPECT_THROW(model_spec_with_init("queue(fifo=per-producer)", Value(0)), ModelSpecError);
}

}  // namespace
}  // namespace linfault::spec
