#include "targets/serial_spec.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "dpct/executor.h"
#include "dpct/random_scheduler.h"
#include "history/value.h"
#include "spec/dynamic_model.h"

namespace linfault::targets {
namespace {

using history::Call;
using history::Value;
using spec::DynamicId;

// A trie this large is dropped and the thread's next checks start a new one (the memory of a
// campaign stays bounded; checks under way keep the old one alive).
constexpr std::size_t kMaxTrieNodes = 1 << 18;
// How many calls a serial run makes past the one it is for, taken from the checked history
// (Trie::extend).
constexpr std::size_t kSpeculatedCalls = 16;
// Only histories of at most this many returned calls are speculated from, unless the trie
// merges states. On long ones the search explores many orders (a serial state is then a call
// sequence: two orders never merge), and the extra nodes mostly go unused: lf_list_buggy at
// 2 x 50 took 2.5 times the memory for the same time.
constexpr std::size_t kSpeculatedHistoryCalls = 64;
// About one serial run in this many is made twice (each target's first among them), and the two
// must agree (NotDeterministic otherwise). Replaying prefixes checks determinism too, but a run
// now adds several nodes and a check may replay none.
constexpr std::uint64_t kDeterminismProbePeriod = 256;
// Those runs are made again without naming states, so that a state function that changes the
// object (UnfaithfulState) is told from an object that is not deterministic. So are a trie's
// first few runs of two calls or more once its object named a state: a state function's effect
// shows only in the calls after it, and a small check may make fewer than kDeterminismProbePeriod
// runs.
constexpr std::uint32_t kStateEffectProbes = 4;
// A serial run from a state that other call sequences reached too (their objects named equal
// states: Binding::state) is made again after the newest of those: the first kProbesPerState
// after each new one, then about one in kStateProbePeriod; the two must agree (UnfaithfulState
// otherwise).
// Every run would double the runs of a trie whose states mostly merge (min_max: 4.1 runs a
// history against 2.1).
constexpr std::uint32_t kProbesPerState = 2;
constexpr std::uint64_t kStateProbePeriod = 8;
// How many of a state's last calls describe() shows.
constexpr std::size_t kDescribedCalls = 8;

struct CallHash {
  std::size_t operator()(const Call& call) const {
    std::size_t h = std::hash<std::string>{}(call.method);
    for (const Value& arg : call.args) h = h * 1'000'003 ^ arg.hash();
    return h;
  }
};

// A distinct call (method and arguments) of a trie, by its index in Trie::calls_.
using CallId = std::uint32_t;

enum class Ending : std::uint8_t { kStart, kReturned, kBlocked };

// Written once, when added under the trie's lock, and never changed: a node's fields may be read
// outside the lock by whoever learnt its id under it.
struct Node {
  DynamicId parent = 0;
  CallId call = 0;
  Ending ending = Ending::kStart;
  Value result;  // when kReturned
  // The first node whose object named the same state (Binding::state), which stands for this one
  // in a search; the node itself when it is the first, or its object names no state.
  DynamicId representative = 0;
  // Its outcome was seen after another call sequence than its path, one that reached the same
  // state as the path's (a serial run goes on from a representative): so a replay of its path
  // that disagrees blames the state function, not the object.
  bool seen_elsewhere = false;
};

// One call's outcome in a serial run: its result, or nullopt when it blocked.
using SerialOutcome = std::optional<Value>;

std::string calls_text(std::span<const Call* const> calls) {
  std::string text;
  for (const Call* call : calls) text += (text.empty() ? "" : "; ") + call->to_string();
  return text.empty() ? "(nothing)" : text;
}

std::string outcome_text(const SerialOutcome& outcome) {
  return outcome ? "returned " + outcome->to_string() : std::string("blocked");
}

// A call the checked history made and saw return `result`: a serial run may go on with it.
struct Upcoming {
  CallId call = 0;
  const Value* result = nullptr;
};

// Which calls of a serial run are made: from `checked_from` on, each call's result is compared
// with what the history says it returned (`expected`; nullptr: anything), and once one differs
// the object is left alone. The calls after it stay in the run, as no-ops that return nil, and
// `made` counts the calls the object got. A search does not go on past a call whose result
// differs from the history's, so the object is not driven into states the search leaves at once,
// where an abort, a signal or a spin without instrumented accesses would end the process and an
// endless instrumented spin would cost the step cap. (For a call the history made several times,
// the result compared may be another of its ops' than the one the search picks: that costs
// nodes, never a verdict, since a node is what the object did.)
struct RunGuard {
  std::size_t checked_from = 0;
  std::vector<const Value*> expected;  // for the calls from checked_from on
  std::size_t made = 0;
  bool stopped = false;
  // The object's state after each call it got and returned from, when it names one and
  // `name_states` asks for it.
  std::vector<std::optional<Value>> states;
  bool name_states = true;
  bool in_state = false;  // the state function is running (it did not return if the run ended)
  std::optional<std::string> state_error;  // what the state function threw, and after which call
};

class GuardedObject final : public dpct::ObjectUnderTest {
 public:
  GuardedObject(std::unique_ptr<dpct::ObjectUnderTest> object, RunGuard& guard)
      : object_(std::move(object)), guard_(guard) {}

  Value invoke(const Call& call) override {
    if (guard_.stopped) return Value();
    const std::size_t index = guard_.made++;
    Value result = object_->invoke(call);
    guard_.states.push_back(guard_.name_states ? state_after(call) : std::nullopt);
    if (index >= guard_.checked_from && index - guard_.checked_from < guard_.expected.size()) {
      const Value* expected = guard_.expected[index - guard_.checked_from];
      if (expected != nullptr && result != *expected) guard_.stopped = true;
    }
    return result;
  }
  std::optional<std::string> call_problem(const Call& call) const override {
    return object_->call_problem(call);
  }

 private:
  std::optional<Value> state_after(const Call& call) {
    try {
      guard_.in_state = true;
      std::optional<Value> state = object_->state();
      guard_.in_state = false;
      return state;
    } catch (const std::exception& e) {
      guard_.state_error = "the state function threw after " + call.to_string() + ": " +
                           history::printable(e.what());
      throw std::runtime_error(*guard_.state_error);  // ends the run
    }
  }

  std::unique_ptr<dpct::ObjectUnderTest> object_;
  RunGuard& guard_;
};

// Runs `calls` one at a time on a fresh instance of `target`, and leaves in `outcomes` one
// outcome per call the object got (RunGuard), up to the first call that did not return
// (nullopt: it blocked, or the run crashed there). The executor, the workload, the outcomes and
// the spent run's buffers are kept per thread: a check of a history makes a serial run for every
// new prefix it tries.
struct SerialRunEnd {
  std::optional<std::string> crash;  // the message, when the run crashed
  bool step_cap = false;             // the run passed kSerialMaxSteps accesses
};
SerialRunEnd run_serially(const Target& target, std::span<const Call* const> calls, RunGuard& guard,
                          std::vector<SerialOutcome>& outcomes) {
  thread_local dpct::Executor executor;
  thread_local dpct::Workload workload;
  dpct::RandomScheduler scheduler(0);   // nothing runs concurrently: no choice to make
  workload.setup.resize(calls.size());  // assigned in place: the calls' buffers are reused
  for (std::size_t i = 0; i < calls.size(); ++i) workload.setup[i] = *calls[i];
  dpct::ExecutionOptions options;
  options.record_points = false;
  options.max_steps = kSerialMaxSteps;
  options.origin = "serial";
  guard.made = 0;
  guard.stopped = false;
  guard.states.clear();
  guard.in_state = false;
  guard.state_error.reset();
  const dpct::ObjectFactory guarded = [&target, &guard] {
    return std::make_unique<GuardedObject>(target.factory(), guard);
  };
  dpct::Run run = executor.execute(guarded, workload, scheduler, options);
  if (guard.in_state && run.outcome != dpct::RunOutcome::kCrash) {
    // A state function that waits would make its call look blocked.
    const bool capped = run.outcome == dpct::RunOutcome::kLivelock;
    const std::string message = std::move(run.message);
    executor.recycle(std::move(run));
    throw StateFunctionFault(
        "target '" + target.name + "': its state function did not return (" + message + "): " +
        (capped ? "the state is asked after every call of a serial run, and its instrumented "
                  "accesses count towards the run's cap of " +
                      std::to_string(kSerialMaxSteps) +
                      "; read the object without them (unsafe_peek())"
                : std::string("it must return without waiting")));
  }
  if (guard.state_error) {
    executor.recycle(std::move(run));
    throw StateFunctionFault("target '" + target.name + "': " + *guard.state_error);
  }
  outcomes.clear();
  for (const history::Operation& op : run.history.operations()) {
    if (outcomes.size() == guard.made) break;  // the rest were not made
    if (!op.completed()) {
      outcomes.emplace_back(std::nullopt);
      break;
    }
    outcomes.emplace_back(op.result);
  }
  SerialRunEnd end;
  if (run.outcome == dpct::RunOutcome::kCrash) end.crash = std::move(run.message);
  end.step_cap = run.outcome == dpct::RunOutcome::kLivelock;
  executor.recycle(std::move(run));
  return end;
}

// A trie's children, by (parent, call), in one array probed linearly: a lookup reads one cache
// line where std::unordered_map reads two (its bucket, then its node), and a check looks a child
// up at every step of its search, in a table of up to a few hundred thousand children. (Boost
// 1.74, the project's Boost, has no flat map.) Not thread-safe: the trie's lock guards it.
class ChildTable {
 public:
  ChildTable() : slots_(kInitialSlots) {}

  // The child's id, or 0 (node 0, the fresh object, is nobody's child).
  DynamicId find(DynamicId parent, CallId call) const {
    const std::uint64_t key = key_of(parent, call);
    for (std::size_t at = home(key);; at = (at + 1) & mask()) {
      const Slot& slot = slots_[at];
      if (slot.child == 0 || slot.key == key) return slot.child;
    }
  }

  // Adds the child unless (parent, call) has one; returns the child stored.
  DynamicId add(DynamicId parent, CallId call, DynamicId child) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const std::uint64_t key = key_of(parent, call);
    for (std::size_t at = home(key);; at = (at + 1) & mask()) {
      Slot& slot = slots_[at];
      if (slot.child == 0) {
        slot = {key, child};
        ++size_;
        return child;
      }
      if (slot.key == key) return slot.child;
    }
  }

 private:
  static constexpr std::size_t kInitialSlots = 1024;
  struct Slot {
    std::uint64_t key = 0;
    DynamicId child = 0;  // 0: empty
  };

  static std::uint64_t key_of(DynamicId parent, CallId call) {
    return std::uint64_t{parent} << 32 | call;
  }
  std::size_t mask() const { return slots_.size() - 1; }
  // Fibonacci hashing: the high bits of the product, which every bit of the key moves.
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >>
                                    (64 - std::countr_zero(slots_.size())));
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& slot : old) {
      if (slot.child != 0)
        add(static_cast<DynamicId>(slot.key >> 32), static_cast<CallId>(slot.key), slot.child);
    }
  }

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

// What a target's tries have cost, counted across tries: a full trie is replaced by an empty one
// for the next checks while the checks under way keep adding to it.
struct Counters {
  std::atomic<std::uint64_t> nodes{0};
  std::atomic<std::uint64_t> serial_runs{0};
  std::atomic<std::uint64_t> serial_calls{0};
  std::atomic<std::uint64_t> merged{0};
};

// The serial outcomes of call sequences, as a trie: node 0 is the fresh object, and a node's
// child by a call is what that call did after the node's calls. Calls are interned, so that a
// check compiles each operation's call once and steps by number.
class Trie {
 public:
  Trie(const Target& target, std::shared_ptr<Counters> counters)
      : target_(target), call_checker_(target), counters_(std::move(counters)) {
    nodes_.emplace_back();
  }

  // The call's id, or what keeps the target from taking it (the end of a sentence naming the
  // call: CallChecker): a run of it would only report a crash.
  std::variant<CallId, std::string> intern(const Call& call) {
    std::lock_guard lock(mutex_);
    if (const auto it = call_ids_.find(call); it != call_ids_.end()) return it->second;
    if (std::optional<std::string> problem = call_checker_.problem(call)) return *problem;
    const auto id = static_cast<CallId>(calls_.size());
    call_ids_.emplace(call, id);
    calls_.push_back(call);
    return id;
  }

  const Call& call(CallId id) const {
    std::lock_guard lock(mutex_);
    return calls_[id];
  }

  // The node reached by running `call` after `parent`'s calls, if the trie has it, and its id in
  // `id`. Nodes never move or change once added: the caller reads the one returned without the
  // lock.
  enum class Found : std::uint8_t { kNode, kNotYet, kParentBlocked };
  Found find(DynamicId parent, CallId call, DynamicId& id, const Node*& node) const {
    std::lock_guard lock(mutex_);
    if (nodes_[parent].ending == Ending::kBlocked) return Found::kParentBlocked;  // nothing runs
    id = children_.find(parent, call);
    if (id == 0) return Found::kNotYet;
    node = &nodes_[id];
    return Found::kNode;
  }

  // Adds the node of `call` after `parent`'s calls by a serial run. When `call` returned
  // `expected` in the checked history (nullptr: it may take any outcome), the run goes on past it
  // with the calls of `upcoming` (the history's, in its order) that are not on the path yet, at
  // most kSpeculatedCalls of them, while each returns what the history says (RunGuard), and adds
  // the node of each it makes: a search that goes on down that path then finds its nodes made.
  // Those calls never change what `call`'s node says (a serial run is sequential: nothing after
  // a call changes its outcome); a run that crashes in them is run again without them, so that a
  // crash means what it meant before. One that reaches the step cap in them turns them off for
  // this trie: that costs a million steps a time.
  // With `after_call` (the trie merges states: names_states()), `upcoming` are instead the calls
  // after `call`'s op in the history, and the run goes on with the first kSpeculatedCalls: the
  // path is then a representative's, not the calls the search took.
  const Node* extend(DynamicId parent, CallId call, const Value* expected,
                     std::span<const Upcoming> upcoming, bool after_call, DynamicId& id) {
    // The path's calls and nodes, collected under the lock and read after it.
    thread_local std::vector<const Call*> calls;
    thread_local std::vector<const Node*> path;
    thread_local std::vector<Upcoming> speculated;
    thread_local std::vector<SerialOutcome> outcomes;
    thread_local RunGuard guard;
    {
      std::lock_guard lock(mutex_);
      if (const DynamicId known = children_.find(parent, call); known != 0) {
        id = known;  // another check on this trie made it meanwhile
        return &nodes_[id];
      }
      path_locked(parent, path);
      speculated.clear();
      if (speculate_ && expected != nullptr) {
        if (after_call) {
          speculated.assign(upcoming.begin(),
                            upcoming.begin() + std::min(upcoming.size(), kSpeculatedCalls));
        } else {
          speculate_locked(path, call, upcoming, speculated);
        }
      }
      calls.clear();
      for (const Node* node : path) calls.push_back(&calls_[node->call]);
      calls.push_back(&calls_[call]);
      for (const Upcoming& next : speculated) calls.push_back(&calls_[next.call]);
    }
    const std::size_t at = path.size();  // `call`'s index in the run
    guard.checked_from = at;
    guard.expected.assign(1, expected);
    for (const Upcoming& next : speculated) guard.expected.push_back(next.result);
    std::uint64_t run_index = 0;
    SerialRunEnd end = counted_run(calls, guard, outcomes, run_index);
    if (!speculated.empty() && outcomes.size() > at + 1) {
      // What ended the run happened in the speculated calls (or after them).
      if (end.step_cap) speculate_ = false;
      if (end.crash) {  // run as if they were not there
        speculated.clear();
        calls.resize(at + 1);
        guard.expected.resize(1);
        end = counted_run(calls, guard, outcomes, run_index);
      }
    }
    if (end.crash) {
      throw std::invalid_argument("target '" + target_.name + "': the serial run of " +
                                  calls_text(calls) + " failed: " + *end.crash);
    }
    if (run_index % kDeterminismProbePeriod == 0 ||
        (outcomes.size() >= 2 && names_states_ && state_effect_probes_ < kStateEffectProbes &&
         state_effect_probes_++ < kStateEffectProbes)) {
      probe_determinism(calls, guard, outcomes);
    }
    for (std::size_t i = 0; i < at; ++i) {
      if (i >= outcomes.size() || !same_outcome(*path[i], outcomes[i])) {
        outcomes_differ(calls, i, outcome_of(*path[i]),
                        i < outcomes.size() ? outcomes[i] : std::nullopt, path[i]->seen_elsewhere);
      }
    }
    SerialOutcome outcome;  // `call` blocked when the run stopped before it
    if (at < outcomes.size()) outcome = std::move(outcomes[at]);
    probe_state(parent, calls, at, expected, outcome, run_index);

    std::lock_guard lock(mutex_);
    const Node* node = add_locked(parent, call, std::move(outcome), state_at(guard, at),
                                  /*seen_elsewhere=*/false, calls, at, id);
    // The run's further calls go on from the state each call reached: under its representative,
    // which may have been reached by other calls than this run's.
    DynamicId last = id;
    bool elsewhere = false;
    for (std::size_t i = at + 1; i < outcomes.size() && outcomes[i]; ++i) {
      const DynamicId from = nodes_[last].representative;
      elsewhere = elsewhere || from != last;
      add_locked(from, speculated[i - at - 1].call, std::move(outcomes[i]), state_at(guard, i),
                 elsewhere, calls, i, last);
    }
    return node;
  }

  // Whether objects of this trie named a state: its nodes then stand for states, not paths.
  bool names_states() const { return names_states_; }

  Ending ending(DynamicId id) const {
    std::lock_guard lock(mutex_);
    return nodes_[id].ending;
  }
  std::vector<Call> calls(DynamicId id) const {
    std::lock_guard lock(mutex_);
    std::vector<const Node*> path;
    path_locked(id, path);
    std::vector<Call> calls;
    for (const Node* node : path) calls.push_back(calls_[node->call]);
    return calls;
  }
  std::string describe(DynamicId id) const {
    std::lock_guard lock(mutex_);
    std::vector<const Node*> path;
    path_locked(id, path);
    if (path.empty()) return "a fresh " + target_.name;
    if (auto it = state_of_.find(id); it != state_of_.end()) {
      return describe_path_locked(path) + " (state " + it->second->to_string() + ")";
    }
    return describe_path_locked(path);
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return nodes_.size();
  }

 private:
  // Requires mutex_: the last calls of a non-empty path, with their outcomes.
  std::string describe_path_locked(const std::vector<const Node*>& path) const {
    std::string text;
    const std::size_t first = path.size() > kDescribedCalls ? path.size() - kDescribedCalls : 0;
    if (first > 0) text = "... ";
    for (std::size_t i = first; i < path.size(); ++i) {
      if (i > first) text += "; ";
      const SerialOutcome outcome = outcome_of(*path[i]);
      text +=
          calls_[path[i]->call].to_string() + (outcome ? " -> " + outcome->to_string() : " blocks");
    }
    return text;
  }

  static SerialOutcome outcome_of(const Node& node) {
    return node.ending == Ending::kBlocked ? std::nullopt : SerialOutcome(node.result);
  }
  static bool same_outcome(const Node& node, const SerialOutcome& outcome) {
    return outcome ? node.ending == Ending::kReturned && node.result == *outcome
                   : node.ending == Ending::kBlocked;
  }

  // The state the object named after calls[index] of the last run, if it returned and named one.
  static const std::optional<Value>* state_at(const RunGuard& guard, std::size_t index) {
    return index < guard.states.size() && guard.states[index] ? &guard.states[index] : nullptr;
  }

  // Requires mutex_: adds the node of `call` after `parent` with the outcome a serial run of
  // `calls` gave it (calls[index] is `call`) and the state its object named then (nullptr:
  // none), and leaves its id in `id`. `seen_elsewhere`: the run's calls before it are not
  // `parent`'s path (see Node). A node already there (a run that went on past its call, or
  // another check's on this trie) must have the same outcome.
  const Node* add_locked(DynamicId parent, CallId call, SerialOutcome outcome,
                         const std::optional<Value>* state, bool seen_elsewhere,
                         std::span<const Call* const> calls, std::size_t index, DynamicId& id) {
    if (const DynamicId known = children_.find(parent, call); known != 0) {
      id = known;
      if (!same_outcome(nodes_[id], outcome)) {
        outcomes_differ(calls, index, outcome_of(nodes_[id]), outcome,
                        seen_elsewhere || nodes_[id].seen_elsewhere);
      }
      return &nodes_[id];
    }
    // The node first: if the table cannot grow (std::bad_alloc), no entry names a missing node.
    id = static_cast<DynamicId>(nodes_.size());
    Node& node = nodes_.emplace_back();
    node.parent = parent;
    node.call = call;
    node.ending = outcome ? Ending::kReturned : Ending::kBlocked;
    if (outcome) node.result = std::move(*outcome);
    node.representative = id;
    node.seen_elsewhere = seen_elsewhere;
    if (outcome && state != nullptr) {
      auto [it, first] = by_state_.try_emplace(**state, id);
      names_states_ = true;
      if (first) {
        state_of_.emplace(id, &it->first);
      } else {
        node.representative = it->second;
        // The newest call sequence of the state is the one probe_state() compares next.
        aliases_.insert_or_assign(it->second, Alias{id, 0});
        ++counters_->merged;
      }
    }
    children_.add(parent, call, id);
    ++counters_->nodes;
    return &node;
  }

  // When other call sequences reached the state `parent` stands for, runs the newest and then
  // calls[at] (`parent`'s path, then `call`, is calls[0..at]), and throws UnfaithfulState if
  // that call's outcome differs from `outcome`, the one after `parent`'s own path; for the
  // first kProbesPerState runs from the state since its newest other call sequence reached it,
  // then about one run in kStateProbePeriod (`run_index`: the run's number).
  void probe_state(DynamicId parent, std::span<const Call* const> calls, std::size_t at,
                   const Value* expected, const SerialOutcome& outcome, std::uint64_t run_index) {
    if (!names_states_) return;  // no state named, so none merged: no lock to take
    thread_local std::vector<const Call*> other;
    thread_local std::vector<const Node*> path;
    thread_local std::vector<SerialOutcome> outcomes;
    thread_local RunGuard guard;
    {
      std::lock_guard lock(mutex_);
      auto alias = aliases_.find(parent);
      if (alias == aliases_.end()) return;
      Alias& other_path = alias->second;
      if (other_path.probes >= kProbesPerState && run_index % kStateProbePeriod != 0) return;
      ++other_path.probes;
      path_locked(other_path.node, path);
      other.clear();
      for (const Node* node : path) other.push_back(&calls_[node->call]);
      other.push_back(calls[at]);
    }
    guard.checked_from = path.size();
    guard.expected.assign(1, expected);
    std::uint64_t probe_index = 0;
    const SerialRunEnd end = counted_run(other, guard, outcomes, probe_index);
    const SerialOutcome there =
        !end.crash && path.size() < outcomes.size() ? outcomes[path.size()] : std::nullopt;
    if (there != outcome || end.crash) {
      std::lock_guard lock(mutex_);
      const auto state = state_of_.find(parent);
      throw UnfaithfulState(
          "target '" + target_.name + "': its state function tells apart too little: after " +
          calls_text(calls.first(at)) + " and after " +
          calls_text(std::span<const Call* const>(other).first(path.size())) + " the state is " +
          (state != state_of_.end() ? state->second->to_string() : std::string("the same")) +
          ", but then " + calls[at]->to_string() + " " + outcome_text(outcome) +
          " after the first and " +
          (end.crash ? "crashed (" + *end.crash + ")" : outcome_text(there)) + " after the second");
    }
  }

  // A serial run of `calls`, counted in the target's counters; `run_index` is its number among
  // the target's runs.
  SerialRunEnd counted_run(std::span<const Call* const> calls, RunGuard& guard,
                           std::vector<SerialOutcome>& outcomes, std::uint64_t& run_index) {
    SerialRunEnd end = run_serially(target_, calls, guard, outcomes);
    run_index = counters_->serial_runs++;
    counters_->serial_calls += guard.made;
    return end;
  }

  // Runs `calls` again, guarded as before but naming no state, and throws where an outcome
  // differs from `outcomes`, those of `guard`'s run: UnfaithfulState when that run named states
  // and a third run that names them gives `outcomes` again (the state function changes the
  // object), NotDeterministic otherwise.
  void probe_determinism(std::span<const Call* const> calls, const RunGuard& guard,
                         const std::vector<SerialOutcome>& outcomes) {
    thread_local RunGuard probe;
    thread_local std::vector<SerialOutcome> unnamed;
    thread_local std::vector<SerialOutcome> named;
    probe.checked_from = guard.checked_from;
    probe.expected = guard.expected;
    probe.name_states = false;
    std::uint64_t run_index = 0;
    const SerialRunEnd end = counted_run(calls, probe, unnamed, run_index);
    const std::optional<std::size_t> differs = first_difference(outcomes, unnamed);
    if (!differs && !end.crash) return;
    const bool named_states =
        std::any_of(guard.states.begin(), guard.states.end(),
                    [](const std::optional<Value>& s) { return s.has_value(); });
    if (named_states) {
      probe.name_states = true;
      const SerialRunEnd again = counted_run(calls, probe, named, run_index);
      if (!again.crash && !first_difference(outcomes, named)) {
        throw UnfaithfulState(
            "target '" + target_.name + "': its state function changes the object: " +
            (differs ? "after " + calls_text(calls.first(*differs)) + ", " +
                           calls[*differs]->to_string() + " " + outcome_text(outcomes[*differs]) +
                           " with the state named after each call and " +
                           outcome_text(at_or_blocked(unnamed, *differs)) + " without"
                     : "the serial run of " + calls_text(calls) +
                           " crashed without the state named after each call (" + *end.crash +
                           "), not with it"));
      }
    }
    if (differs) {
      not_deterministic(calls, *differs, outcomes[*differs], at_or_blocked(unnamed, *differs));
    }
    throw NotDeterministic("target '" + target_.name +
                           "' is not deterministic: the serial run of " + calls_text(calls) +
                           " crashed once and not another time: " + *end.crash);
  }

  static SerialOutcome at_or_blocked(const std::vector<SerialOutcome>& outcomes, std::size_t i) {
    return i < outcomes.size() ? outcomes[i] : std::nullopt;
  }

  // The first call whose outcome differs between two runs of the same calls (a call one run
  // did not get counts as blocked).
  static std::optional<std::size_t> first_difference(const std::vector<SerialOutcome>& first,
                                                     const std::vector<SerialOutcome>& second) {
    for (std::size_t i = 0; i < std::max(first.size(), second.size()); ++i) {
      if (at_or_blocked(first, i) != at_or_blocked(second, i)) return i;
    }
    return std::nullopt;
  }

  // Requires mutex_: the calls of `upcoming`, in order, less one occurrence of each call of the
  // path and of `call`, at most kSpeculatedCalls of them.
  void speculate_locked(const std::vector<const Node*>& path, CallId call,
                        std::span<const Upcoming> upcoming,
                        std::vector<Upcoming>& speculated) const {
    thread_local std::vector<CallId> taken;
    taken.clear();
    for (const Node* node : path) taken.push_back(node->call);
    taken.push_back(call);
    speculated.clear();
    for (const Upcoming& next : upcoming) {
      if (speculated.size() == kSpeculatedCalls) break;
      if (auto it = std::find(taken.begin(), taken.end(), next.call); it != taken.end()) {
        *it = taken.back();
        taken.pop_back();
      } else {
        speculated.push_back(next);
      }
    }
  }

  // Requires mutex_: the nodes from the first call to `id`, in order.
  void path_locked(DynamicId id, std::vector<const Node*>& path) const {
    path.clear();
    for (DynamicId at = id; at != 0; at = nodes_[at].parent) path.push_back(&nodes_[at]);
    std::reverse(path.begin(), path.end());
  }

  // calls[index] gave `before` in one serial run and `now` in this one, after calls[0..index]:
  // UnfaithfulState when one of the two was seen after another call sequence of the same state
  // (`elsewhere`: Node::seen_elsewhere), NotDeterministic otherwise.
  [[noreturn]] void outcomes_differ(std::span<const Call* const> calls, std::size_t index,
                                    const SerialOutcome& before, const SerialOutcome& now,
                                    bool elsewhere) const {
    if (!elsewhere) not_deterministic(calls, index, before, now);
    throw UnfaithfulState("target '" + target_.name +
                          "': its state function tells apart too little, or the object is not "
                          "deterministic: after " +
                          calls_text(calls.first(index)) + ", " + calls[index]->to_string() + " " +
                          outcome_text(now) + ", but " + outcome_text(before) +
                          " after other calls that reached the same state");
  }

  [[noreturn]] void not_deterministic(std::span<const Call* const> calls, std::size_t index,
                                      const SerialOutcome& before, const SerialOutcome& now) const {
    throw NotDeterministic("target '" + target_.name +
                           "' is not deterministic, so it has no serial specification: after " +
                           calls_text(calls.first(index)) + ", " + calls[index]->to_string() + " " +
                           outcome_text(before) + " in one serial run and " + outcome_text(now) +
                           " in another");
  }

  const Target& target_;
  const CallChecker call_checker_;
  mutable std::mutex mutex_;
  std::atomic<bool> speculate_{true};
  std::atomic<bool> names_states_{false};
  std::atomic<std::uint32_t> state_effect_probes_{0};  // made so far, up to kStateEffectProbes
  std::unordered_map<Call, CallId, CallHash> call_ids_;
  std::deque<Call> calls_;  // by CallId
  std::deque<Node> nodes_;  // node 0: nothing run yet
  ChildTable children_;
  // The states objects named (Binding::state), each with the first node that reached it; the
  // reverse (keys of by_state_ stay put); and, for a state reached more than once, the newest
  // node that reached it other than its representative, for probe_state().
  std::unordered_map<Value, DynamicId, history::ValueHash> by_state_;
  std::unordered_map<DynamicId, const Value*> state_of_;
  struct Alias {
    DynamicId node = 0;
    std::uint32_t probes = 0;  // runs from the state made again after `node`'s calls
  };
  std::unordered_map<DynamicId, Alias> aliases_;
  std::shared_ptr<Counters> counters_;
};

// What each target's serial specification has cost, by target name, and the generation of its
// tries: reset_serial_spec() drops the entry, and every thread's trie of the target with it.
struct TargetEntry {
  std::shared_ptr<Counters> counters = std::make_shared<Counters>();
  std::uint64_t generation = 0;
};
struct Targets {
  std::mutex mutex;
  std::map<std::string, TargetEntry, std::less<>> by_name;
  std::uint64_t next_generation = 1;
};

Targets& targets_seen() {
  static Targets* instance = new Targets;  // never destroyed: checks may run during exit
  return *instance;
}

// This thread's trie of `target`. Each thread has its own, so that checks on several threads
// (`detect --jobs`) never wait for each other: one trie shared by two jobs, locked at every
// step, made them slower than one job (twice the wall time on min_max, a third of it in futex
// calls). What two threads could have shared is a few prefixes; the counts stay shared.
std::shared_ptr<Trie> trie_for(const Target& target) {
  std::shared_ptr<Counters> counters;
  std::uint64_t generation = 0;
  {
    Targets& t = targets_seen();
    std::lock_guard lock(t.mutex);
    TargetEntry& entry = t.by_name[target.name];
    if (entry.generation == 0) entry.generation = t.next_generation++;
    counters = entry.counters;
    generation = entry.generation;
  }
  struct Mine {
    std::shared_ptr<Trie> trie;
    std::uint64_t generation = 0;
  };
  thread_local std::map<std::string, Mine, std::less<>> mine;
  Mine& trie = mine[target.name];
  if (!trie.trie || trie.generation != generation || trie.trie->size() > kMaxTrieNodes) {
    trie = {std::make_shared<Trie>(target, std::move(counters)), generation};
  }
  return trie.trie;
}

// An operation of a checked history, as the serial specification reads it.
struct SerialOp {
  enum class Expect : std::uint8_t { kAnything, kResult, kBlocking };
  CallId call = 0;  // in the model's trie
  Expect expect = Expect::kAnything;
  Value result;
  // Where the calls after it start in its history's returned calls (SerialModel::history_calls_).
  std::size_t position = 0;
};

class SerialModel final : public spec::DynamicModel {
 public:
  explicit SerialModel(std::shared_ptr<Trie> trie) : trie_(std::move(trie)) {}

  DynamicId initial() override { return 0; }

  spec::Compiled<DynamicId> compile(const history::Operation& op) override {
    if (op.outcome == history::Outcome::kFail) return spec::NoEffect{};
    const std::variant<CallId, std::string> call = trie_->intern(op.call);
    if (const std::string* problem = std::get_if<std::string>(&call))
      return call_error(op, *problem);
    SerialOp compiled{std::get<CallId>(call),
                      op.completed() ? SerialOp::Expect::kResult : SerialOp::Expect::kAnything,
                      op.result};
    return add(std::move(compiled));
  }

  bool step(DynamicId& state, DynamicId op_id) override {
    const SerialOp& op = op_at(op_id);
    DynamicId next = 0;
    const Node* node = nullptr;
    switch (trie_->find(state, op.call, next, node)) {
      case Trie::Found::kNode:
        break;
      case Trie::Found::kParentBlocked:
        return false;
      case Trie::Found::kNotYet: {
        thread_local std::vector<Upcoming> upcoming;
        const bool after_call = trie_->names_states();
        {
          std::lock_guard lock(mutex_);
          upcoming.clear();
          if (after_call) {
            // States merge, so long histories no longer multiply the orders: the calls after
            // this op's in the history, whatever its length.
            const std::size_t after = std::min(op.position, history_calls_.size());
            const std::size_t end = std::min(after + kSpeculatedCalls, history_calls_.size());
            upcoming.assign(history_calls_.begin() + static_cast<std::ptrdiff_t>(after),
                            history_calls_.begin() + static_cast<std::ptrdiff_t>(end));
          } else if (history_calls_.size() <= kSpeculatedHistoryCalls) {
            upcoming = history_calls_;
          }
        }
        const Value* expected = op.expect == SerialOp::Expect::kResult ? &op.result : nullptr;
        node = trie_->extend(state, op.call, expected, upcoming, after_call, next);
        break;
      }
    }
    switch (op.expect) {
      case SerialOp::Expect::kAnything:
        break;
      case SerialOp::Expect::kResult:
        if (node->ending != Ending::kReturned || node->result != op.result) return false;
        break;
      case SerialOp::Expect::kBlocking:
        if (node->ending != Ending::kBlocked) return false;
        break;
    }
    state = node->representative;  // equal states are one state (Binding::state)
    return true;
  }

  std::string describe(DynamicId state) override { return trie_->describe(state); }

  std::string describe_op(DynamicId op_id) override {
    const SerialOp& op = op_at(op_id);
    const std::string call = trie_->call(op.call).to_string();
    switch (op.expect) {
      case SerialOp::Expect::kAnything:
        return call + " -> pending";
      case SerialOp::Expect::kResult:
        return call + " -> " + op.result.to_string();
      case SerialOp::Expect::kBlocking:
        break;
    }
    return call + " blocks";
  }

  std::optional<std::vector<Call>> build(DynamicId state) override {
    if (trie_->ending(state) == Ending::kBlocked) return std::nullopt;
    return trie_->calls(state);
  }

  bool tells_blocking() const override { return true; }

  spec::Compiled<DynamicId> compile_blocked(const history::Operation& op) override {
    const std::variant<CallId, std::string> call = trie_->intern(op.call);
    if (const std::string* problem = std::get_if<std::string>(&call))
      return call_error(op, *problem);
    return add(SerialOp{std::get<CallId>(call), SerialOp::Expect::kBlocking, Value()});
  }

 private:
  static spec::ModelError call_error(const history::Operation& op, const std::string& problem) {
    return spec::ModelError{"the history calls " + op.call.to_string() + problem};
  }

  DynamicId add(SerialOp op) {
    std::lock_guard lock(mutex_);
    if (searching_) {  // the first op of the next history
      history_calls_.clear();
      searching_ = false;
    }
    // Speculated calls are those that returned concurrently: a pending or blocked call may
    // block serially too, and a run would wait for it at every new node.
    ops_.push_back(std::move(op));
    SerialOp& added = ops_.back();  // never moves: a deque's elements stay put
    if (added.expect == SerialOp::Expect::kResult) {
      history_calls_.push_back({added.call, &added.result});
    }
    added.position = history_calls_.size();
    return static_cast<DynamicId>(ops_.size() - 1);
  }
  // The reference stays valid while more are added (a deque's elements do not move).
  const SerialOp& op_at(DynamicId id) {
    std::lock_guard lock(mutex_);
    searching_ = true;
    return ops_[id];
  }

  std::shared_ptr<Trie> trie_;
  std::mutex mutex_;
  std::deque<SerialOp> ops_;
  // The calls of the history being checked that returned, in its order: a checker compiles a
  // history's ops, then searches (steps); serial runs go on with these calls (Trie::extend).
  // Only a guess of what the search tries next, which never changes an outcome.
  std::vector<Upcoming> history_calls_;
  bool searching_ = false;
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
  Targets& t = targets_seen();
  std::lock_guard lock(t.mutex);
  auto it = t.by_name.find(target_name);
  if (it == t.by_name.end()) return {};
  const Counters& counters = *it->second.counters;
  return {counters.nodes.load(), counters.serial_runs.load(), counters.serial_calls.load(),
          counters.merged.load()};
}

void reset_serial_spec(std::string_view target_name) {
  Targets& t = targets_seen();
  std::lock_guard lock(t.mutex);
  if (auto it = t.by_name.find(target_name); it != t.by_name.end()) t.by_name.erase(it);
}

}  // namespace linfault::targets
