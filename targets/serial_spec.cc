#include "targets/serial_spec.h"

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dpct/executor.h"
#include "dpct/random_scheduler.h"
#include "spec/dynamic_model.h"

namespace linfault::targets {
namespace {

using history::Call;
using history::Value;
using spec::DynamicId;

// A trie this large is dropped and the next checks start a new one (the memory of a campaign
// stays bounded; checks under way keep the old one alive).
constexpr std::size_t kMaxTrieNodes = 1 << 18;
// How many of a state's last calls describe() shows.
constexpr std::size_t kDescribedCalls = 8;

struct CallHash {
  std::size_t operator()(const Call& call) const {
    std::size_t h = std::hash<std::string>{}(call.method);
    for (const Value& arg : call.args) h = h * 1'000'003 ^ arg.hash();
    return h;
  }
};

enum class Ending : std::uint8_t { kStart, kReturned, kBlocked };

struct Node {
  DynamicId parent = 0;
  Call call;
  Ending ending = Ending::kStart;
  Value result;  // when kReturned
  std::unordered_map<Call, DynamicId, CallHash> children;
};

// One call's outcome in a serial run: its result, or nullopt when it blocked.
using SerialOutcome = std::optional<Value>;

std::string calls_text(const std::vector<Call>& calls) {
  std::string text;
  for (const Call& call : calls) text += (text.empty() ? "" : "; ") + call.to_string();
  return text.empty() ? "(nothing)" : text;
}

std::string outcome_text(const SerialOutcome& outcome) {
  return outcome ? "returned " + outcome->to_string() : std::string("blocked");
}

// Runs `calls` one at a time on a fresh instance of `target`; one outcome per call, up to the
// first call that blocks. The executor, the workload and the spent run's buffers are kept per
// thread: a check of a history makes a serial run for every new prefix it tries.
std::vector<SerialOutcome> run_serially(const Target& target, const std::vector<Call>& calls) {
  thread_local dpct::Executor executor;
  thread_local dpct::Workload workload;
  dpct::RandomScheduler scheduler(0);  // nothing runs concurrently: no choice to make
  workload.setup.assign(calls.begin(), calls.end());
  dpct::ExecutionOptions options;
  options.record_points = false;
  options.max_steps = kSerialMaxSteps;
  options.origin = "serial";
  dpct::Run run = executor.execute(target.factory, workload, scheduler, options);
  if (run.outcome == dpct::RunOutcome::kCrash) {
    throw std::invalid_argument("target '" + target.name + "': the serial run of " +
                                calls_text(calls) + " failed: " + run.message);
  }
  std::vector<SerialOutcome> outcomes;
  for (const history::Operation& op : run.history.operations()) {
    if (!op.completed()) {
      outcomes.emplace_back(std::nullopt);
      break;
    }
    outcomes.emplace_back(op.result);
  }
  executor.recycle(std::move(run));
  return outcomes;
}

class Trie {
 public:
  explicit Trie(const Target& target) : target_(target) { nodes_.emplace_back(); }

  const Target& target() const { return target_; }

  // The node reached by running `call` after `parent`'s calls (a serial run when it is new).
  DynamicId child(DynamicId parent, const Call& call) {
    std::vector<Call> calls;
    std::vector<SerialOutcome> expected;
    {
      std::lock_guard lock(mutex_);
      const Node& node = nodes_[parent];
      if (auto it = node.children.find(call); it != node.children.end()) return it->second;
      path_locked(parent, calls, expected);
    }
    calls.push_back(call);
    std::vector<SerialOutcome> outcomes = run_serially(target_, calls);
    for (std::size_t i = 0; i + 1 < calls.size(); ++i) {
      if (i >= outcomes.size() || outcomes[i] != expected[i]) {
        not_deterministic(calls, i, expected[i], i < outcomes.size() ? outcomes[i] : std::nullopt);
      }
    }
    const SerialOutcome outcome = outcomes.size() == calls.size() ? outcomes.back() : std::nullopt;

    std::lock_guard lock(mutex_);
    ++stats_.serial_runs;
    stats_.serial_calls += calls.size();
    Node& node = nodes_[parent];
    if (auto it = node.children.find(call); it != node.children.end()) {
      // Another thread ran the same calls meanwhile: the two runs must agree.
      const Node& other = nodes_[it->second];
      const SerialOutcome recorded =
          other.ending == Ending::kBlocked ? std::nullopt : SerialOutcome(other.result);
      if (recorded != outcome) not_deterministic(calls, calls.size() - 1, recorded, outcome);
      return it->second;
    }
    const auto id = static_cast<DynamicId>(nodes_.size());
    Node& added = nodes_.emplace_back();
    added.parent = parent;
    added.call = call;
    added.ending = outcome ? Ending::kReturned : Ending::kBlocked;
    if (outcome) added.result = *outcome;
    nodes_[parent].children.emplace(call, id);
    return id;
  }

  Ending ending(DynamicId id) const {
    std::lock_guard lock(mutex_);
    return nodes_[id].ending;
  }
  // Whether the call that led to `id` returned `expected`.
  bool returned(DynamicId id, const Value& expected) const {
    std::lock_guard lock(mutex_);
    const Node& node = nodes_[id];
    return node.ending == Ending::kReturned && node.result == expected;
  }
  std::vector<Call> calls(DynamicId id) const {
    std::lock_guard lock(mutex_);
    std::vector<Call> calls;
    std::vector<SerialOutcome> outcomes;
    path_locked(id, calls, outcomes);
    return calls;
  }
  std::string describe(DynamicId id) const {
    std::lock_guard lock(mutex_);
    std::vector<Call> calls;
    std::vector<SerialOutcome> outcomes;
    path_locked(id, calls, outcomes);
    if (calls.empty()) return "a fresh " + target_.name;
    std::string text;
    const std::size_t first = calls.size() > kDescribedCalls ? calls.size() - kDescribedCalls : 0;
    if (first > 0) text = "... ";
    for (std::size_t i = first; i < calls.size(); ++i) {
      if (i > first) text += "; ";
      text += calls[i].to_string() + (outcomes[i] ? " -> " + outcomes[i]->to_string() : " blocks");
    }
    return text;
  }
  SerialSpecStats stats() const {
    std::lock_guard lock(mutex_);
    SerialSpecStats stats = stats_;
    stats.nodes = nodes_.size() - 1;
    return stats;
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return nodes_.size();
  }

 private:
  // Requires mutex_: the calls from the start to `id`, with their outcomes.
  void path_locked(DynamicId id, std::vector<Call>& calls,
                   std::vector<SerialOutcome>& outcomes) const {
    for (DynamicId at = id; at != 0; at = nodes_[at].parent) {
      const Node& node = nodes_[at];
      calls.push_back(node.call);
      outcomes.push_back(node.ending == Ending::kBlocked ? std::nullopt
                                                         : SerialOutcome(node.result));
    }
    std::reverse(calls.begin(), calls.end());
    std::reverse(outcomes.begin(), outcomes.end());
  }

  [[noreturn]] void not_deterministic(const std::vector<Call>& calls, std::size_t index,
                                      const SerialOutcome& before, const SerialOutcome& now) const {
    const std::vector<Call> prefix(calls.begin(), calls.begin() + static_cast<long>(index));
    throw NotDeterministic("target '" + target_.name +
                           "' is not deterministic, so it has no serial specification: after " +
                           calls_text(prefix) + ", " + calls[index].to_string() + " " +
                           outcome_text(before) + " in one serial run and " + outcome_text(now) +
                           " in another");
  }

  const Target& target_;
  mutable std::mutex mutex_;
  std::deque<Node> nodes_;  // node 0: nothing run yet
  SerialSpecStats stats_;
};

// The tries of the targets, by name.
struct Tries {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Trie>, std::less<>> by_target;
};

Tries& tries() {
  static Tries* instance = new Tries;  // never destroyed: checks may run during exit
  return *instance;
}

std::shared_ptr<Trie> trie_for(const Target& target) {
  Tries& t = tries();
  std::lock_guard lock(t.mutex);
  std::shared_ptr<Trie>& trie = t.by_target[target.name];
  if (!trie || trie->size() > kMaxTrieNodes) trie = std::make_shared<Trie>(target);
  return trie;
}

// An operation of a checked history, as the serial specification reads it.
struct SerialOp {
  enum class Expect : std::uint8_t { kAnything, kResult, kBlocking };
  Call call;
  Expect expect = Expect::kAnything;
  Value result;
};

class SerialModel final : public spec::DynamicModel {
 public:
  explicit SerialModel(std::shared_ptr<Trie> trie) : trie_(std::move(trie)) {}

  DynamicId initial() override { return 0; }

  spec::Compiled<DynamicId> compile(const history::Operation& op) override {
    if (op.outcome == history::Outcome::kFail) return spec::NoEffect{};
    SerialOp compiled{op.call,
                      op.completed() ? SerialOp::Expect::kResult : SerialOp::Expect::kAnything,
                      op.result};
    return add(std::move(compiled));
  }

  bool step(DynamicId& state, DynamicId op_id) override {
    if (trie_->ending(state) == Ending::kBlocked) return false;  // nothing runs after a block
    const SerialOp& op = op_at(op_id);
    const DynamicId next = trie_->child(state, op.call);
    switch (op.expect) {
      case SerialOp::Expect::kAnything:
        break;
      case SerialOp::Expect::kResult:
        if (!trie_->returned(next, op.result)) return false;
        break;
      case SerialOp::Expect::kBlocking:
        if (trie_->ending(next) != Ending::kBlocked) return false;
        break;
    }
    state = next;
    return true;
  }

  std::string describe(DynamicId state) override { return trie_->describe(state); }

  std::string describe_op(DynamicId op_id) override {
    const SerialOp& op = op_at(op_id);
    switch (op.expect) {
      case SerialOp::Expect::kAnything:
        return op.call.to_string() + " -> pending";
      case SerialOp::Expect::kResult:
        return op.call.to_string() + " -> " + op.result.to_string();
      case SerialOp::Expect::kBlocking:
        break;
    }
    return op.call.to_string() + " blocks";
  }

  std::optional<std::vector<Call>> build(DynamicId state) override {
    if (trie_->ending(state) == Ending::kBlocked) return std::nullopt;
    return trie_->calls(state);
  }

  bool tells_blocking() const override { return true; }

  spec::Compiled<DynamicId> compile_blocked(const history::Operation& op) override {
    return add(SerialOp{op.call, SerialOp::Expect::kBlocking, Value()});
  }

 private:
  DynamicId add(SerialOp op) {
    std::lock_guard lock(mutex_);
    ops_.push_back(std::move(op));
    return static_cast<DynamicId>(ops_.size() - 1);
  }
  // The reference stays valid while more are added (a deque's elements do not move).
  const SerialOp& op_at(DynamicId id) {
    std::lock_guard lock(mutex_);
    return ops_[id];
  }

  std::shared_ptr<Trie> trie_;
  std::mutex mutex_;
  std::deque<SerialOp> ops_;
};

constexpr std::string_view kSerialModelName = "serial";

}  // namespace

void register_serial_spec() {
  static std::once_flag once;
  std::call_once(once, [] {
    spec::register_dynamic_model(
        std::string(kSerialModelName),
        [](spec::ModelParams& params) -> std::shared_ptr<spec::DynamicModel> {
          std::optional<Value> target = params.take("target");
          if (!target || !target->is_string()) {
            throw spec::ModelSpecError(
                "model 'serial' needs target=NAME, the target whose serial runs are the "
                "specification");
          }
          // An unknown target is a wrong model spec (a usage error), not an internal one.
          try {
            return std::make_shared<SerialModel>(trie_for(find(target->as_string())));
          } catch (const UnknownTarget& e) {
            throw spec::ModelSpecError(std::string("model 'serial': ") + e.what());
          }
        },
        "targets/serial_spec.cc");
  });
}

namespace {
// Every program that links the target registry links this file (registry.cc calls
// register_serial_spec()), so "serial" is a model name from the start, even for a check of a
// history file that looks no target up first.
[[maybe_unused]] const bool serial_spec_registered = (register_serial_spec(), true);
}  // namespace

std::string serial_spec_of(std::string_view target_name) {
  spec::ModelSpec spec;
  spec.name = kSerialModelName;
  spec.params.add("target", Value(std::string(target_name)));
  return spec.canonical();
}

bool is_serial_spec(std::string_view model_spec) {
  try {
    return spec::parse_model_spec(model_spec).name == kSerialModelName;
  } catch (const spec::ModelSpecError&) {
    return false;
  }
}

Target with_serial_spec(const Target& target) {
  register_serial_spec();
  Target copy = target;
  copy.model = serial_spec_of(target.name);
  return copy;
}

SerialSpecStats serial_spec_stats(std::string_view target_name) {
  Tries& t = tries();
  std::lock_guard lock(t.mutex);
  auto it = t.by_target.find(target_name);
  return it == t.by_target.end() ? SerialSpecStats{} : it->second->stats();
}

void reset_serial_spec(std::string_view target_name) {
  Tries& t = tries();
  std::lock_guard lock(t.mutex);
  if (auto it = t.by_target.find(target_name); it != t.by_target.end()) t.by_target.erase(it);
}

}  // namespace linfault::targets
