// <linfault/model.h>: a sequential model of your own, for a class no built-in model fits. Public
// API. docs/own-model.md works through a complete example (a bounded queue with try_push).
//
// A model says what the object should do when its operations run one at a time. Write it as a
// plain type with the members below (the SequentialModel concept), register it under a name, and
// use that name as a target's `model`, in `linfault check --model NAME`, or in check_history():
//
//   struct BoundedQueueModel {
//     using State = std::vector<std::int64_t>;           // copyable, ==, hashed below
//     struct Op { bool push; std::int64_t value; linfault::Value result; bool pending; };
//     std::size_t capacity = 2;
//     explicit BoundedQueueModel(linfault::ModelParams& p) {    // optional: parameters
//       if (auto c = p.take("capacity")) capacity = static_cast<std::size_t>(c->as_int());
//     }
//     std::string_view name() const { return "bounded-queue"; }
//     State initial() const { return {}; }
//     linfault::Compiled<Op> compile(const linfault::Operation& op) const;  // or ModelError
//     bool step(State& s, const Op& op) const;    // applies op; false if its result is illegal
//     std::size_t hash(const State& s) const;
//     std::string describe(const State& s) const;
//     // optional: describe_op, partition_key, build(state) -> calls, reveal(state) -> calls
//   };
//   LINFAULT_REGISTER_MODEL("bounded-queue", BoundedQueueModel);
//
// The contract of each member (pending operations, NoEffect, ModelError, build and reveal) is
// spec/model.h's. A model with a ModelParams& constructor takes parameters from the model spec
// ("bounded-queue(capacity=3)"); any parameter it does not take is an error, as for built-ins.
// A parameter value the model cannot use is reported by throwing linfault::ModelSpecError (one
// line) from the constructor: the tools turn it into a usage error (exit 64), as for built-ins.
//
// Registration: at namespace scope in a source of a library your tool or test links (a
// linfault_add_target() library keeps it; in another static library, reference something of the
// file or link it whole). The name must not be a built-in model's, and a name registered twice
// from two places is an error at registration.
//
// The checkers call a registered model through one indirection per step and intern its states
// (each distinct state is stored once per check), so it is slower than a built-in model, which
// the checkers inline; in return it needs no change to linfault.
//
// Thread-safety: model members must be const and deterministic (the same model may be used by
// several threads); registration is thread-safe.

#ifndef LINFAULT_PUBLIC_MODEL_H_
#define LINFAULT_PUBLIC_MODEL_H_

#include <string>

#include "history/history.h"
#include "history/value.h"
#include "spec/dynamic_model.h"
#include "spec/model.h"
#include "spec/model_params.h"

namespace linfault {

using history::Call;
using history::Operation;
using history::Outcome;
using history::Value;
using spec::Compiled;
using spec::ModelError;
using spec::ModelParams;
using spec::ModelSpecError;
using spec::NoEffect;
using spec::SequentialModel;

// Registers model type M under `name` (see above); `origin` is file:line for messages. Returns
// true, for use in a static initializer.
template <spec::SequentialModel M>
bool register_model(std::string name, std::string origin) {
  spec::register_dynamic_model(
      std::move(name),
      [](spec::ModelParams& params) -> std::shared_ptr<spec::DynamicModel> {
        if constexpr (std::is_constructible_v<M, spec::ModelParams&>) {
          return std::make_shared<spec::DynamicAdapter<M>>(M(params));
        } else {
          return std::make_shared<spec::DynamicAdapter<M>>(M{});
        }
      },
      std::move(origin));
  return true;
}

}  // namespace linfault

#define LINFAULT_MODEL_CONCAT_INNER_(a, b) a##b
#define LINFAULT_MODEL_CONCAT_(a, b) LINFAULT_MODEL_CONCAT_INNER_(a, b)
#define LINFAULT_MODEL_STRINGIFY_INNER_(x) #x
#define LINFAULT_MODEL_STRINGIFY_(x) LINFAULT_MODEL_STRINGIFY_INNER_(x)

// LINFAULT_REGISTER_MODEL("name", ModelType): registers ModelType under "name".
#define LINFAULT_REGISTER_MODEL(name, ...)                                                       \
  namespace {                                                                                    \
  [[maybe_unused]] const bool LINFAULT_MODEL_CONCAT_(linfault_registered_model_, __COUNTER__) =  \
      ::linfault::register_model<__VA_ARGS__>(name,                                              \
                                              __FILE__ ":" LINFAULT_MODEL_STRINGIFY_(__LINE__)); \
  }                                                                                              \
  static_assert(true, "")

#endif  // LINFAULT_PUBLIC_MODEL_H_
