// The serial specification of a target (Line-Up, ../shared/docs/lineup-and-pat.md Part A): no
// model is written; the object's own serial runs are the specification.
//
// The model spec "serial(target=NAME)" (`--spec serial` on the commands, CheckOptions::spec in
// the GoogleTest check) names a spec::ErasedModel whose state is a sequence of calls run on a
// fresh instance of the target, one at a time, and whose step(state, op) runs state's calls and
// then op's call serially on a fresh object (under the controlled executor, so blocking is seen)
// and accepts op when the call returned op's result there. The checkers (WGL search, the
// minimizer) then find a serial witness of a concurrent history exactly as with a written model:
// a history passes iff some serial execution of its operations that keeps real-time order gives
// every operation its recorded result. A failure therefore shows that the object is linearizable
// with respect to no deterministic, thread-agnostic specification at all (Line-Up's Theorem 5,
// for the specifications this one can express; see below).
//
// Thread-agnostic: every serial run executes all its calls on one thread, whatever thread made
// them in the concurrent history. Line-Up's serial runs keep each call on its own thread; ours
// say that what a call returns, and whether it blocks, does not depend on the calling thread,
// which is what a data structure's specification says. An object whose correct behaviour depends
// on the calling thread (a reentrant or owner-checked lock as part of its interface, per-thread
// state that results expose) is outside this specification: a lock taken by one thread and
// requested by another blocks concurrently but not serially, and is reported (this is how
// lock_leak_counter, whose get() leaks a reentrant lock, is caught; Line-Up's thread-aware serial
// runs would block too, and pass it).
//
// Serial outcomes are memoized in a trie per target and thread, shared by every check the thread
// makes, so workloads that share prefixes share serial runs. A node the trie lacks costs one
// serial run of its whole call sequence, which goes on with the checked history's other returned
// calls (up to 16, in histories of up to 64 returned calls; when states merge, see below, the 16
// after the call's own in any history) while each returns what the history says, and adds their
// nodes too, since a search mostly goes on down that path; a crash in those
// extra calls is no failure (the run is made again without them). A run re-checks the outcomes
// of the prefix recorded in the trie, about one run in 256 (each target's first) is made twice,
// and a different outcome for the same prefix and call (the object is not deterministic) throws
// NotDeterministic, a one-line std::invalid_argument naming the calls and both outcomes: such an
// object has no serial specification, and its verdicts would mean nothing.
//
// States: when the target's binding names the object's abstract state (Binding::state, e.g. a
// set's keys), two call sequences whose objects end in equal states are one state of the model:
// the node reached second stands for the first (its representative), a search steps from the
// representative, and its memo merges them, as a written model's equal states merge. Without
// that, every order of the same calls is a state of its own, and a long history's search is
// exponential in its overlapping calls. The binding promises that equal states answer every
// later call sequence alike. That promise is checked where it is cheap: the first two serial
// runs from a merged state after each new call sequence reached it, and about one in eight
// after, are made again after the newest such sequence, and a run that goes on past a merged
// call continues from the representative, whose nodes it then re-checks;
// UnfaithfulState reports the two call sequences and the call that told them apart. A state
// function can still tell apart too little where no run compares (another of a state's call
// sequences, a call never made from it); then a verdict can be wrong, as with a wrong model.
//
// Blocking: a serial call that deadlocks (waits for a lock nobody will release, or a notify) or
// makes more than kSerialMaxSteps accesses, its state function's included (a spin that never
// ends: Line-Up counts divergence as blocking) blocks. No call runs after it. The model
// tells_blocking(), so histories of deadlocked runs get Line-Up's rule
// (detect::CheckOptions::stuck).
//
// Pending operations may take any outcome. build(state) is the state's own call sequence (a valid
// Ps, not necessarily the shortest; for a merged state, the call sequence that first reached
// it); there is no reveal(). The state function is asked between calls, and must return without
// waiting (one that blocks is a one-line std::invalid_argument) and leave the object as it is:
// the runs made twice (above), and a trie's first four runs of two calls or more once states are
// named, are made the second time without asking for the state, and a different outcome that a
// third run asking for it repeats throws UnfaithfulState (the state function changes the object).
//
// Thread-safety: every thread checks against its own trie of the target (a model made on one
// thread and used on another still works: the trie is locked); serial runs happen outside the
// lock on a per-thread executor. The counts of serial_spec_stats() are shared.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_TARGETS_SERIAL_SPEC_H_
#define LINFAULT_TARGETS_SERIAL_SPEC_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "targets/registry.h"

namespace linfault::targets {

// Accesses one serial call may make (dpct::ExecutionOptions::max_steps, per call of a sequential
// part); one that passes them counts as blocking (a spin that never ends).
inline constexpr std::uint64_t kSerialMaxSteps = 1'000'000;

class NotDeterministic : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Two call sequences whose objects named equal states (Binding::state) answered a call
// differently: the state function tells apart too little. A NotDeterministic, since it too means
// that the serial specification as bound cannot be trusted; caught where that is.
// The binding's state function waited, passed the serial run's step cap, or threw: the serial
// specification as bound cannot be used (a NotDeterministic for that reason).
class StateFunctionFault : public NotDeterministic {
 public:
  using NotDeterministic::NotDeterministic;
};

// Also thrown when a run that asks for the state after each call and one that does not answer
// differently: the state function changes the object.
class UnfaithfulState : public NotDeterministic {
 public:
  using NotDeterministic::NotDeterministic;
};

// Registers the model name "serial" (spec/dynamic_model.h). Idempotent; done at static
// initialization, and again (harmlessly) by find().
void register_serial_spec();

// "serial(target=NAME)".
std::string serial_spec_of(std::string_view target_name);
// True for a model spec made by serial_spec_of().
bool is_serial_spec(std::string_view model_spec);

// `target` with its model replaced by its serial specification.
Target with_serial_spec(const Target& target);

// What the serial specification of a target has cost in this process, over all its tries (a full
// trie is replaced by an empty one, and each thread has its own): nodes (each a call sequence,
// counted once per trie that has it), serial runs (each adds one or more nodes) and the calls
// they made, and the nodes whose state an earlier node had reached (Binding::state).
struct SerialSpecStats {
  std::uint64_t nodes = 0;
  std::uint64_t serial_runs = 0;
  std::uint64_t serial_calls = 0;  // calls the object got in those runs
  std::uint64_t merged_nodes = 0;
};
SerialSpecStats serial_spec_stats(std::string_view target_name);
// Forgets the target's trie (the next check starts from nothing); for benches.
void reset_serial_spec(std::string_view target_name);

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_SERIAL_SPEC_H_
