// Every target, run by one thread in native mode (no execution context installed), must behave
// exactly like its sequential specification: the buggy ones only misbehave under concurrency.
// The expected results come from a small independent reference per model kind.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "spec/registry.h"
#include "targets/registry.h"
#include "targets/serial_spec.h"

namespace linfault::targets {
namespace {

using history::Call;
using history::Value;

// The sequential specification of each model kind, as plain containers.
class Reference {
 public:
  explicit Reference(std::string model) : model_(std::move(model)) {
    if (model_ == "register(init=0)") {  // the wm_ registers
      model_ = "register";
      value_ = std::int64_t{0};
    }
  }

  Value apply(const Call& call) {
    const std::string& m = call.method;
    auto arg = [&](std::size_t i) { return call.args.at(i).as_int(); };
    if (model_ == "set") {
      if (m == "add") return set_.insert(arg(0)).second;
      if (m == "remove") return set_.erase(arg(0)) == 1;
      if (m == "contains") return set_.count(arg(0)) == 1;
      if (m == "size") return static_cast<std::int64_t>(set_.size());
    } else if (model_ == "queue" || model_ == "stack" || model_ == "deque") {
      if (m == "offer" || m == "enq" || m == "push" || m == "push_right" || m == "push_back") {
        items_.push_back(arg(0));
        return Value();
      }
      if (m == "push_left") {
        items_.push_front(arg(0));
        return Value();
      }
      if (items_.empty()) return Value();
      const bool from_front = m == "poll" || m == "deq" || m == "pop_left" || m == "pop_front";
      const std::int64_t v = from_front ? items_.front() : items_.back();
      from_front ? items_.pop_front() : items_.pop_back();
      return v;
    } else if (model_ == "snapshot") {
      if (m == "write") {
        cells_.at(static_cast<std::size_t>(arg(0))) = arg(1);
        return Value();
      }
      if (m == "readpair") {
        return Value(Value::List{cells_.at(static_cast<std::size_t>(arg(0))),
                                 cells_.at(static_cast<std::size_t>(arg(1)))});
      }
    } else if (model_ == "counter") {
      if (m == "inc") {
        ++count_;
        return Value();
      }
      if (m == "get") return count_;
    } else if (model_ == "register") {
      if (m == "write") {
        value_ = arg(0);
        return Value();
      }
      if (m == "read") return value_;
    }
    throw std::logic_error("reference has no " + model_ + " method " + m);
  }

 private:
  std::string model_;
  std::set<std::int64_t> set_;
  std::deque<std::int64_t> items_;
  std::array<std::int64_t, 2> cells_{0, 0};
  std::int64_t count_ = 0;
  Value value_;  // nil until written
};

class SequentialTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SequentialTest, RandomSequencesAgreeWithTheModel) {
  const Target& target = find(GetParam());
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto object = target.factory();
    Reference reference(target.model);
    ArgumentSource source(seed);
    for (int step = 0; step < 60; ++step) {
      const Call call = random_call(target, source);
      ASSERT_EQ(object->invoke(call), reference.apply(call))
          << "seed " << seed << " step " << step << ": " << call.to_string();
    }
  }
}

// The same runs, recorded as sequential histories, are legal step by step for the project's own
// model of the target (spec/registry.h): method names and result encodings agree with spec/.
TEST_P(SequentialTest, RandomSequencesAreLegalForTheSpecModel) {
  const Target& target = find(GetParam());
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto object = target.factory();
    history::HistoryBuilder builder("sequential");
    ArgumentSource source(seed);
    for (int step = 0; step < 60; ++step) {
      const Call call = random_call(target, source);
      builder.call(0, call, object->invoke(call));
    }
    const history::History h = std::move(builder).build();
    spec::visit_model(target.model, [&](const auto& model) {
      using Op = typename std::decay_t<decltype(model)>::Op;
      auto state = model.initial();
      for (const auto& op : h.operations()) {
        auto compiled = model.compile(op);
        ASSERT_TRUE(std::holds_alternative<Op>(compiled)) << op.to_string();
        ASSERT_TRUE(model.step(state, std::get<Op>(compiled)))
            << "seed " << seed << ": " << op.to_string() << " in state " << model.describe(state);
      }
    });
  }
}

TEST_P(SequentialTest, KnownScenariosRunSeriallyAreCorrect) {
  const Target& target = find(GetParam());
  for (const KnownScenario& scenario : target.known_scenarios) {
    auto object = target.factory();
    Reference reference(target.model);
    std::vector<Call> serial = scenario.workload.setup;
    for (const auto& thread : scenario.workload.threads) {
      serial.insert(serial.end(), thread.begin(), thread.end());
    }
    serial.insert(serial.end(), scenario.workload.reveal.begin(), scenario.workload.reveal.end());
    for (const Call& call : serial) {
      ASSERT_EQ(object->invoke(call), reference.apply(call))
          << scenario.description << ": " << call.to_string();
    }
  }
}

TEST_P(SequentialTest, RejectsUnknownMethods) {
  auto object = find(GetParam()).factory();
  EXPECT_THROW(object->invoke(Call{"no_such_method", {}}), std::invalid_argument);
}

// Targets with a built-in model. One whose own serial runs are its specification
// (targets/serial_spec.h: a blocking queue, whose deq of an empty queue waits forever) has no
// reference here; its sequential behaviour is checked below.
std::vector<std::string> modelled_target_names() {
  std::vector<std::string> out;
  for (const std::string& name : target_names()) {
    if (!is_serial_spec(find(name).model)) out.push_back(name);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllTargets, SequentialTest, ::testing::ValuesIn(modelled_target_names()),
                         [](const auto& info) { return info.param; });

// The blocking SPSC queues, run by one thread: a FIFO queue whenever deq finds an element (the
// random sequences never deq an empty queue, which would wait forever).
TEST(SequentialBlockingQueueTest, RandomSequencesAreFifo) {
  for (const char* name : {"wm_spsc_eventcount", "wm_spsc_eventcount_buggy"}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      auto object = find(name).factory();
      std::deque<std::int64_t> reference;
      ArgumentSource source(seed);
      for (std::int64_t step = 0; step < 60; ++step) {
        if (!reference.empty() && source.uniform(0, 1) == 0) {
          ASSERT_EQ(object->invoke(Call{"deq", {}}), Value(reference.front()))
              << name << " seed " << seed << " step " << step;
          reference.pop_front();
        } else {
          ASSERT_EQ(object->invoke(Call{"enq", {step}}), Value()) << name;
          reference.push_back(step);
        }
      }
    }
    EXPECT_THROW(find(name).factory()->invoke(Call{"no_such_method", {}}), std::invalid_argument);
  }
}

}  // namespace
}  // namespace linfault::targets
