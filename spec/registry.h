// The built-in sequential models by command-line name, with static dispatch.
//
//   spec::visit_model("stack", [&](const auto& model) { return detect::check(model, h, opts); });
//
// visit_model constructs a fresh model object for each call (models carry per-object interning
// tables), calls f(model) and returns its result; every branch's result must have the same type.
// Names: register cas-register kv set stack queue priorityqueue deque counter snapshot (see each
// model's header for its methods and aliases).
//
// Thread-safety: stateless; callable from several threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_REGISTRY_H_
#define LINFAULT_SPEC_REGISTRY_H_

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/cas_register.h"
#include "spec/counter.h"
#include "spec/deque.h"
#include "spec/kv.h"
#include "spec/priority_queue.h"
#include "spec/queue.h"
#include "spec/register.h"
#include "spec/set.h"
#include "spec/snapshot.h"
#include "spec/stack.h"

namespace linfault::spec {

// Thrown for a model name that is not built in; what() lists the valid names.
class UnknownModel : public std::invalid_argument {
 public:
  explicit UnknownModel(std::string_view name);
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

std::vector<std::string_view> model_names();

template <class F>
decltype(auto) visit_model(std::string_view name, F&& f) {
  if (name == "register") return std::forward<F>(f)(RegisterModel{});
  if (name == "cas-register") return std::forward<F>(f)(CasRegisterModel{});
  if (name == "kv") return std::forward<F>(f)(KvModel{});
  if (name == "set") return std::forward<F>(f)(SetModel{});
  if (name == "stack") return std::forward<F>(f)(StackModel{});
  if (name == "queue") return std::forward<F>(f)(QueueModel{});
  if (name == "priorityqueue") return std::forward<F>(f)(PriorityQueueModel{});
  if (name == "deque") return std::forward<F>(f)(DequeModel{});
  if (name == "counter") return std::forward<F>(f)(CounterModel{});
  if (name == "snapshot") return std::forward<F>(f)(SnapshotModel{});
  throw UnknownModel(name);
}

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_REGISTRY_H_
