#include "detect/quick_check.h"

#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "spec/registry.h"

namespace linfault::detect {

class QuickChecker::Engine {
 public:
  virtual ~Engine() = default;
  virtual QuickChecker::Answer check(const history::History& history, std::uint64_t budget,
                                     bool& over_budget) = 0;
};

namespace {

constexpr std::size_t kMaxOperations = 64;

template <spec::SequentialModel M>
class ModelEngine final : public QuickChecker::Engine {
 public:
  explicit ModelEngine(const M& model) : model_(model) {}

  QuickChecker::Answer check(const history::History& history, std::uint64_t budget,
                             bool& over_budget) override {
    over_budget = false;
    if (history.size() > kMaxOperations) return QuickChecker::Answer::kUndecided;
    compiled_.clear();
    effective_ = 0;
    for (const history::Operation& op : history.operations()) {
      auto c = model_.compile(op);
      if (std::holds_alternative<spec::ModelError>(c)) return QuickChecker::Answer::kUndecided;
      if (auto* compiled = std::get_if<typename M::Op>(&c)) {
        effective_ |= bit(compiled_.size());
        compiled_.push_back(std::move(*compiled));
      } else {
        compiled_.emplace_back();  // NoEffect: never linearized; its slot stays unused
      }
    }
    events_ = &history.events();
    if (states_.size() < history.size() + 1) states_.resize(history.size() + 1);
    states_[0].state = model_.initial();
    steps_left_ = budget;
    over_budget_ = false;
    const bool found = search(0, 0, 0, 0);
    over_budget = over_budget_;
    if (found) return QuickChecker::Answer::kLinearizable;
    return over_budget_ ? QuickChecker::Answer::kUndecided : QuickChecker::Answer::kNotLinearizable;
  }

 private:
  static std::uint64_t bit(std::size_t op) { return std::uint64_t{1} << op; }

  // Events from `event` on, with the ops in `called` invoked and those in `linearized` taken
  // effect (in states_[depth]). True when the rest of the history can be linearized.
  bool search(std::size_t event, std::uint64_t called, std::uint64_t linearized,
              std::size_t depth) {
    const std::vector<history::Event>& events = *events_;
    for (;; ++event) {
      if (event == events.size()) return true;  // pending ops left over never took effect
      const history::Event& e = events[event];
      const std::size_t op = static_cast<std::size_t>(e.op);
      if (e.kind == history::Event::Kind::kCall) {
        called |= bit(op);
      } else if ((linearized & bit(op)) == 0 && (effective_ & bit(op)) != 0) {
        break;  // this op must take effect before its return
      }
    }
    // Linearize one more op now: any called, effective op not yet linearized (the returning one
    // among them); the return event is looked at again after it.
    std::uint64_t candidates = called & effective_ & ~linearized;
    while (candidates != 0) {
      const std::size_t op = static_cast<std::size_t>(__builtin_ctzll(candidates));
      candidates &= candidates - 1;
      if (steps_left_ == 0) {
        over_budget_ = true;
        return false;
      }
      --steps_left_;
      states_[depth + 1].state = states_[depth].state;
      if (!model_.step(states_[depth + 1].state, *compiled_[op])) continue;
      if (search(event, called, linearized | bit(op), depth + 1)) return true;
      if (over_budget_) return false;
    }
    return false;
  }

  M model_;
  std::vector<std::optional<typename M::Op>> compiled_;
  std::uint64_t effective_ = 0;  // ops with a compiled Op (not NoEffect)
  const std::vector<history::Event>* events_ = nullptr;
  // A State in a struct, so that a bool State is not packed into std::vector<bool>.
  struct Slot {
    typename M::State state;
  };
  std::vector<Slot> states_;  // states_[d]: after d linearized ops
  std::uint64_t steps_left_ = 0;
  bool over_budget_ = false;
};

}  // namespace

QuickChecker::QuickChecker(std::string_view model_spec, std::uint64_t budget)
    : model_spec_(model_spec), budget_(budget) {
  make_engine();
}

QuickChecker::~QuickChecker() = default;

void QuickChecker::make_engine() {
  spec::visit_model(model_spec_, [&](const auto& model) {
    using M = std::decay_t<decltype(model)>;
    engine_ = std::make_unique<ModelEngine<M>>(model);
  });
  histories_since_fresh_model_ = 0;
}

QuickChecker::Answer QuickChecker::check(const history::History& history) {
  if (++histories_since_fresh_model_ > kHistoriesPerModel) make_engine();
  return engine_->check(history, budget_, over_budget_);
}

}  // namespace linfault::detect
