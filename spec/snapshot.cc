#include "spec/snapshot.h"

namespace linfault::spec {
namespace {

std::vector<std::int64_t> int_list(const OpShape& op, const history::Value& v) {
  if (!v.is_list()) op.fail(op.method() + " must return a list of integers, got " + v.to_string());
  std::vector<std::int64_t> out;
  for (const history::Value& item : v.as_list()) {
    if (!item.is_int()) {
      op.fail(op.method() + " must return a list of integers, got " + v.to_string());
    }
    out.push_back(item.as_int());
  }
  return out;
}

std::int64_t segment_arg(const OpShape& op, std::size_t i) {
  const std::int64_t segment = op.int_arg(i);
  if (segment < 0 || segment >= SnapshotModel::kMaxSegments) {
    op.fail(op.method() + " segment " + std::to_string(segment) + " is out of range");
  }
  return segment;
}

}  // namespace

Compiled<SnapshotModel::Op> SnapshotModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"update", "write"})) {
      op.arity(2);
      const std::int64_t segment = segment_arg(op, 0);
      const std::int64_t value = op.int_arg(1);
      if (op.failed()) return NoEffect{};
      return Op{Op::Kind::kUpdate, {segment}, {value}};
    }
    if (op.is({"scan"})) {
      op.arity(0);
      if (!op.ok()) return NoEffect{};
      return Op{Op::Kind::kScan, {}, int_list(op, recorded.result)};
    }
    if (op.is({"readpair", "read_pair"})) {
      op.arity(2);
      std::vector<std::int64_t> segments{segment_arg(op, 0), segment_arg(op, 1)};
      if (!op.ok()) return NoEffect{};
      std::vector<std::int64_t> values = int_list(op, recorded.result);
      if (values.size() != 2)
        op.fail("readpair must return two values, got " + recorded.result.to_string());
      return Op{Op::Kind::kReadPair, std::move(segments), std::move(values)};
    }
    op.unknown_method();
  });
}

std::string SnapshotModel::describe(const State& state) const {
  std::string out = "[";
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(state[i]);
  }
  return out + "]";
}

std::vector<history::Call> SnapshotModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::size_t i = 0; i < state.size(); ++i) {
    if (state[i] != 0) {
      calls.push_back(history::Call{"update", {static_cast<std::int64_t>(i), state[i]}});
    }
  }
  return calls;
}

std::vector<history::Call> SnapshotModel::reveal(const State&) const {
  return {history::Call{"scan", {}}};
}

}  // namespace linfault::spec
