// The built-in sequential models by model spec (spec/model_params.h), with static dispatch.
//
//   spec::visit_model("stack", [&](const auto& model) { return detect::check(model, h, opts); });
//   spec::visit_model("cas-register(init=0)", ...);
//
// visit_model parses the spec, constructs a fresh model object from its parameters for each call
// (models carry per-object interning tables), calls f(model) and returns its result; every
// branch's result must have the same type. An unknown name throws UnknownModel; a spec that does
// not parse, a parameter the model does not take or a bad value throws ModelSpecError (UnknownModel
// is one). Both are one-line std::invalid_argument messages.
// Names: register cas-register kv set stack queue priorityqueue deque counter snapshot mutex
// multi-register bag (see each model's header for its methods, aliases and parameters). register,
// cas-register and multi-register take `init` (the initial value; default nil); queue takes
// `fifo`, global (QueueModel, named "queue") or per-producer (PerProducerQueueModel, named
// queue(fifo="per-producer")), which are different model types. Then the names
// registered at run time (spec/dynamic_model.h: users' own models, a target's serial spec),
// which f receives as an ErasedModel.
//
// Thread-safety: stateless; callable from several threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_REGISTRY_H_
#define LINFAULT_SPEC_REGISTRY_H_

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/bag.h"
#include "spec/cas_register.h"
#include "spec/counter.h"
#include "spec/deque.h"
#include "spec/dynamic_model.h"
#include "spec/kv.h"
#include "spec/model_params.h"
#include "spec/multi_register.h"
#include "spec/mutex.h"
#include "spec/per_producer_queue.h"
#include "spec/priority_queue.h"
#include "spec/queue.h"
#include "spec/register.h"
#include "spec/set.h"
#include "spec/snapshot.h"
#include "spec/stack.h"

namespace linfault::spec {

// Thrown for a model name that is not built in; what() lists the valid names.
class UnknownModel : public ModelSpecError {
 public:
  explicit UnknownModel(std::string_view name);
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// Built-in names, then registered ones.
std::vector<std::string_view> model_names();
std::vector<std::string_view> model_names_built_in();

template <class F>
decltype(auto) visit_model(std::string_view spec_text, F&& f) {
  throw_bad_model_registration();
  ModelSpec spec = parse_model_spec(spec_text);
  const std::string_view name = spec.name;
  ModelParams& params = spec.params;
  if (name == "register") return std::forward<F>(f)(make_model<RegisterModel>(params));
  if (name == "cas-register") return std::forward<F>(f)(make_model<CasRegisterModel>(params));
  if (name == "kv") return std::forward<F>(f)(make_model<KvModel>(params));
  if (name == "set") return std::forward<F>(f)(make_model<SetModel>(params));
  if (name == "stack") return std::forward<F>(f)(make_model<StackModel>(params));
  if (name == "queue") {
    if (take_queue_fifo(params) == QueueFifo::kPerProducer) {
      return std::forward<F>(f)(make_model<PerProducerQueueModel>(params));
    }
    return std::forward<F>(f)(make_model<QueueModel>(params));
  }
  if (name == "priorityqueue") return std::forward<F>(f)(make_model<PriorityQueueModel>(params));
  if (name == "deque") return std::forward<F>(f)(make_model<DequeModel>(params));
  if (name == "counter") return std::forward<F>(f)(make_model<CounterModel>(params));
  if (name == "snapshot") return std::forward<F>(f)(make_model<SnapshotModel>(params));
  if (name == "mutex") return std::forward<F>(f)(make_model<MutexModel>(params));
  if (name == "multi-register") return std::forward<F>(f)(make_model<MultiRegisterModel>(params));
  if (name == "bag") return std::forward<F>(f)(make_model<BagModel>(params));
  if (std::optional<ErasedModel> dynamic = make_dynamic_model(spec)) {
    return std::forward<F>(f)(*dynamic);
  }
  throw UnknownModel(name);
}

// The canonical form of a model spec (ModelSpec::canonical(), the name verdicts carry): "stack",
// "cas-register(init=0)". Throws what visit_model throws, so it also validates a spec.
std::string canonical_model_spec(std::string_view spec_text);

// Whether two model specs name the same model (their canonical forms are equal); false when
// either is not a valid spec. For documents that name their model twice (a test case and the
// history inside it), which must agree.
bool same_model(std::string_view a, std::string_view b);

// Why the model of `spec_text` does not take `call` (its ModelError: "queue has no method
// 'push'", a wrong argument count or kind), judged as a pending operation, whose result is
// unknown; nullopt when it does. Throws what visit_model throws.
std::optional<std::string> call_problem(std::string_view spec_text, const history::Call& call);

// The spellings the model `spec_text` accepts for the method `method` ("enq": enq, enqueue, ...;
// `method` among them), so that calls a model makes up (build, reveal) can take a target's own
// name for the method. Just {method} for a method it does not know or a model that lists none.
std::vector<std::string> method_aliases(std::string_view spec_text, const std::string& method);

// `spec_text` with `init` set to `value` (replacing an init it gives), canonical; for --init.
// Throws what visit_model throws (e.g. for a model that takes no init).
std::string model_spec_with_init(std::string_view spec_text, const history::Value& value);

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_REGISTRY_H_
