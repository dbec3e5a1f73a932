// Models known at run time: users' own models (<linfault/model.h>) and the serial specification
// of a target (targets/serial_spec.h, `--spec serial`), behind one type the templated checkers
// take like any built-in model.
//
// A DynamicModel is a model behind a virtual interface. Its states and operations are small ids
// it hands out itself: an implementation interns each distinct state, so two ids are equal iff
// the states are (what the checkers' caches need), and hashing an id is free. ErasedModel wraps a
// shared DynamicModel and satisfies SequentialModel (and PartitionableModel, BuildableModel and
// RevealableModel; can_build()/can_reveal() say whether the model really has them).
// DynamicAdapter<M> turns a model type written against spec/model.h's SequentialModel concept
// into a DynamicModel.
//
// Registration: register_dynamic_model(name, maker, origin) makes `name` a model spec name that
// spec::visit_model accepts (after the built-in names, which cannot be taken). The maker is
// called with the spec's parameters for every model construction; it take()s the parameters it
// knows and anything left over is an error, as for built-in models.
//
// Blocking (Line-Up's stuck histories): a model that knows which calls block, as a target's own
// serial runs do, says so with tells_blocking() and compiles an operation that must block with
// compile_blocked(); detect::check_history uses them for histories that ended stuck.
//
// Errors: a model may throw std::invalid_argument from compile() or step() for something that is
// not a property of the history (the serial specification does for an object whose serial runs
// are not deterministic); the message is one line and the checkers let it through.
//
// Thread-safety: a DynamicModel may be used from several threads at once; implementations lock
// what they intern (DynamicAdapter does). The registry is thread-safe.
//
// Internal header: not part of linfault's public API (<linfault/model.h> is); it may change
// between versions.

#ifndef LINFAULT_SPEC_DYNAMIC_MODEL_H_
#define LINFAULT_SPEC_DYNAMIC_MODEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "history/history.h"
#include "spec/model.h"
#include "spec/model_params.h"

namespace linfault::spec {

using DynamicId = std::uint32_t;

class DynamicModel {
 public:
  virtual ~DynamicModel() = default;

  virtual DynamicId initial() = 0;
  // As SequentialModel::compile, with the operation interned as an id.
  virtual Compiled<DynamicId> compile(const history::Operation& op) = 0;
  // As SequentialModel::step: on true, `state` is the id of the state after `op`.
  virtual bool step(DynamicId& state, DynamicId op) = 0;
  virtual std::string describe(DynamicId state) = 0;
  virtual std::string describe_op(DynamicId op) = 0;

  virtual std::optional<history::Value> partition_key(const history::Operation&) {
    return std::nullopt;
  }
  // nullopt: the model cannot build (or reveal) states.
  virtual std::optional<std::vector<history::Call>> build(DynamicId) { return std::nullopt; }
  virtual std::optional<std::vector<history::Call>> reveal(DynamicId) { return std::nullopt; }

  // True when the model knows which calls block forever (compile_blocked() works).
  virtual bool tells_blocking() const { return false; }
  // `op` as an operation that never returns: step() accepts it only in a state where the call
  // blocks forever, and no operation steps after it.
  virtual Compiled<DynamicId> compile_blocked(const history::Operation&) {
    return ModelError{"this model cannot tell whether a call blocks"};
  }
};

// The model type the checkers instantiate for every DynamicModel.
class ErasedModel {
 public:
  using State = DynamicId;
  using Op = DynamicId;

  ErasedModel(std::shared_ptr<DynamicModel> model, std::string name)
      : model_(std::move(model)), name_(std::move(name)) {}

  std::string_view name() const { return name_; }
  State initial() const { return model_->initial(); }
  Compiled<Op> compile(const history::Operation& op) const { return model_->compile(op); }
  bool step(State& state, const Op& op) const { return model_->step(state, op); }
  std::size_t hash(const State& state) const { return state; }
  std::string describe(const State& state) const { return model_->describe(state); }
  std::string describe_op(const Op& op) const { return model_->describe_op(op); }
  std::optional<history::Value> partition_key(const history::Operation& op) const {
    return model_->partition_key(op);
  }
  bool can_build() const { return model_->build(initial()).has_value(); }
  bool can_reveal() const { return model_->reveal(initial()).has_value(); }
  // Empty when the model has none (can_build(), can_reveal()).
  std::vector<history::Call> build(const State& state) const {
    return model_->build(state).value_or(std::vector<history::Call>{});
  }
  std::vector<history::Call> reveal(const State& state) const {
    return model_->reveal(state).value_or(std::vector<history::Call>{});
  }
  bool tells_blocking() const { return model_->tells_blocking(); }
  Compiled<Op> compile_blocked(const history::Operation& op) const {
    return model_->compile_blocked(op);
  }

 private:
  std::shared_ptr<DynamicModel> model_;
  std::string name_;  // the canonical model spec
};

// A model type written against the SequentialModel concept, as a DynamicModel: states and
// operations are interned (a model instance lives for one check, as built-in ones do).
template <SequentialModel M>
class DynamicAdapter final : public DynamicModel {
 public:
  explicit DynamicAdapter(M model) : model_(std::move(model)) {}

  DynamicId initial() override {
    std::lock_guard lock(mutex_);
    return intern(model_.initial());
  }
  Compiled<DynamicId> compile(const history::Operation& op) override {
    Compiled<typename M::Op> compiled = model_.compile(op);
    if (auto* error = std::get_if<ModelError>(&compiled)) return std::move(*error);
    if (std::holds_alternative<NoEffect>(compiled)) return NoEffect{};
    std::lock_guard lock(mutex_);
    ops_.push_back(std::move(std::get<typename M::Op>(compiled)));
    return static_cast<DynamicId>(ops_.size() - 1);
  }
  bool step(DynamicId& state, DynamicId op) override {
    std::unique_lock lock(mutex_);
    if (!ops_[op]) return false;  // a call that blocks: none does in this model
    typename M::State next = states_[state];
    const typename M::Op operation = *ops_[op];
    lock.unlock();
    if (!model_.step(next, operation)) return false;
    lock.lock();
    state = intern(std::move(next));
    return true;
  }
  std::string describe(DynamicId state) override {
    std::lock_guard lock(mutex_);
    return model_.describe(states_[state]);
  }
  std::string describe_op(DynamicId op) override {
    if constexpr (requires(const M& m, const typename M::Op& o) {
                    { m.describe_op(o) } -> std::convertible_to<std::string>;
                  }) {
      std::lock_guard lock(mutex_);
      return ops_[op] ? model_.describe_op(*ops_[op]) : std::string("a call that blocks");
    } else {
      return "op " + std::to_string(op);
    }
  }
  std::optional<history::Value> partition_key(const history::Operation& op) override {
    if constexpr (PartitionableModel<M>) {
      return model_.partition_key(op);
    } else {
      return std::nullopt;
    }
  }
  std::optional<std::vector<history::Call>> build(DynamicId state) override {
    if constexpr (BuildableModel<M>) {
      std::unique_lock lock(mutex_);
      typename M::State copy = states_[state];
      lock.unlock();
      return model_.build(copy);
    } else {
      return std::nullopt;
    }
  }
  std::optional<std::vector<history::Call>> reveal(DynamicId state) override {
    if constexpr (RevealableModel<M>) {
      std::unique_lock lock(mutex_);
      typename M::State copy = states_[state];
      lock.unlock();
      return model_.reveal(copy);
    } else {
      return std::nullopt;
    }
  }
  bool tells_blocking() const override { return NeverBlockingModel<M>; }
  Compiled<DynamicId> compile_blocked(const history::Operation& op) override {
    if constexpr (NeverBlockingModel<M>) {
      std::lock_guard lock(mutex_);
      ops_.emplace_back(std::nullopt);
      return static_cast<DynamicId>(ops_.size() - 1);
    } else {
      return DynamicModel::compile_blocked(op);
    }
  }

 private:
  struct Hash {
    const M* model;
    std::size_t operator()(const typename M::State& s) const { return model->hash(s); }
  };

  // Requires mutex_.
  DynamicId intern(typename M::State state) {
    auto [it, inserted] = ids_.try_emplace(state, static_cast<DynamicId>(states_.size()));
    if (inserted) states_.push_back(std::move(state));
    return it->second;
  }

  const M model_;
  std::mutex mutex_;
  // Indexed only under the lock and copied out before the model runs, so they may grow freely.
  std::vector<typename M::State> states_;
  std::unordered_map<typename M::State, DynamicId, Hash> ids_{16, Hash{&model_}};
  std::vector<std::optional<typename M::Op>> ops_;  // nullopt: a call that must block
};

// Makes a fresh DynamicModel from a spec's parameters (taking the ones it knows).
using DynamicModelMaker = std::function<std::shared_ptr<DynamicModel>(ModelParams&)>;

// Registers `name` (letters, digits, '-', '_'; not a built-in model's name). A second
// registration of a name with the same origin replaces the first (a maker registered again by the
// same code); with another origin, like a bad name, it is an error. Registrations run in static
// initializers, so errors are not thrown here: the first find_dynamic_model() after a bad
// registration throws std::invalid_argument with its message ("file:line: model 'x' is already
// registered at file:line"). `origin` is where the registration is (file:line).
void register_dynamic_model(std::string name, DynamicModelMaker maker, std::string origin);

// Throws std::invalid_argument with the first bad registration's message, if there was one.
// visit_model() calls it first: a bad registration is reported even when the spec names a
// built-in model (a user's model registered under "counter" must not silently yield to it).
void throw_bad_model_registration();

// The maker registered under `name`; nullptr when none. Throws std::invalid_argument when a
// registration was bad (see above).
const DynamicModelMaker* find_dynamic_model(std::string_view name);

// Registered names, in registration order; the views stay valid for the life of the program
// (a registration is never removed).
std::vector<std::string_view> dynamic_model_names();

// The ErasedModel for a parsed spec whose name is registered (nullopt when it is not): the maker
// takes its parameters, leftovers are a ModelSpecError, and the model's name is the canonical
// spec.
std::optional<ErasedModel> make_dynamic_model(const ModelSpec& spec);

// The ErasedModel for a SequentialModel type M, for tests and for callers that hold a model
// object rather than a registered name.
template <SequentialModel M>
ErasedModel erase_model(M model) {
  std::string name(model.name());
  return ErasedModel(std::make_shared<DynamicAdapter<M>>(std::move(model)), std::move(name));
}

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_DYNAMIC_MODEL_H_
