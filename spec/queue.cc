#include "spec/queue.h"

namespace linfault::spec {

Compiled<QueueModel::Op> QueueModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    if (op.is({"enq", "offer", "enqueue"})) {
      op.arity(1);
      if (op.failed()) return NoEffect{};
      return Op{.kind = Op::Kind::kEnq, .value = values_->intern(op.non_nil_arg(0))};
    }
    const bool deq = op.is({"deq", "poll", "dequeue"});
    if (!deq && !op.is({"peek"})) op.unknown_method();
    op.arity(0);
    if (op.failed() || (!deq && op.pending())) return NoEffect{};
    return Op{.kind = deq ? Op::Kind::kDeq : Op::Kind::kPeek,
              .constrained = op.ok(),
              .value = op.ok() ? values_->intern(recorded.result) : ValueInterner::kNil};
  });
}

QueueFifo take_queue_fifo(ModelParams& params) {
  const std::optional<history::Value> fifo = params.take("fifo");
  if (!fifo) return QueueFifo::kGlobal;
  if (fifo->is_string() && fifo->as_string() == "global") return QueueFifo::kGlobal;
  if (fifo->is_string() && fifo->as_string() == "per-producer") return QueueFifo::kPerProducer;
  throw ModelSpecError("model 'queue': fifo must be global or per-producer, got " +
                       fifo->to_string());
}

std::vector<history::Call> QueueModel::build(const State& state) const {
  std::vector<history::Call> calls;
  for (std::int32_t id : state) calls.push_back(history::Call{"enq", {values_->value(id)}});
  return calls;
}

std::vector<history::Call> QueueModel::reveal(const State& state) const {
  return std::vector<history::Call>(state.size() + 1, history::Call{"deq", {}});
}

}  // namespace linfault::spec
