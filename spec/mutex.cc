#include "spec/mutex.h"

namespace linfault::spec {

Compiled<MutexModel::Op> MutexModel::compile(const history::Operation& recorded) const {
  return compile_guarded<Op>([&]() -> Compiled<Op> {
    OpShape op(name(), recorded);
    const bool acquire = op.is({"acquire", "lock"});
    if (!acquire && !op.is({"release", "unlock"})) op.unknown_method();
    op.arity(0);
    if (op.failed()) return NoEffect{};
    if (op.ok() && !recorded.result.is_nil() &&
        !(recorded.result.is_bool() && recorded.result.as_bool())) {
      op.fail(op.method() + " returned " + recorded.result.to_string() +
              " (record a call that did not get or give up the lock as a failure)");
    }
    return Op{acquire};
  });
}

std::vector<history::Call> MutexModel::build(const State& held) const {
  if (!held) return {};
  return {history::Call{"acquire", {}}};
}

}  // namespace linfault::spec
