// Unit tests of the built-in sequential models: legal and illegal steps, compile errors, and
// build()/reveal() round trips.

#include <limits>

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
  const auto name_of = [](const std::string& spec) {
    return visit_model(spec, [](const auto& model) { return std::string(model.name()); });
  };
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
  for (const auto& [spec, message] : bad) {
    try {
      name_of(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const ModelSpecError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  EXPECT_THROW(model_spec_with_init("queue", Value(0)), ModelSpecError);
  EXPECT_THROW(name_of("regster(init=0)"), UnknownModel);
}

}  // namespace
}  // namespace linfault::spec
