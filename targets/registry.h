// The target registry: every benchmark object of ../shared/docs/benchmark-objects.md under its
// project name, bound to its sequential model (spec/registry.h names), with operation generators
// and, for buggy targets, the page's known minimal failing scenarios.
//
// A Target is everything the pipeline needs to test an object without knowing its C++ type:
//   - `factory` makes a fresh instance per execution (dpct::ObjectFactory);
//   - `operations` say which calls to generate and how to draw their arguments: keys and values
//     from small ranges, and values unique within a run where the model needs them to tell
//     operations apart (push/enq/offer values);
//   - `known_scenarios` are the minimal (Ps, Pc, Pr) of the page, as dpct::Workloads, for tests
//     and demonstrations.
// Users register their own targets with LINFAULT_REGISTER_TARGET (public header
// <linfault/target.h>, docs/adding-a-target.md): find(), target_names() and registered() see them
// beside the built-in ones, so every command of a tool built with linfault_add_tool() and the
// GoogleTest check work on them exactly as on the objects shipped here.
//
// Internal header: include <linfault/target.h> instead.
//
// Thread-safety: all() returns a reference to the immutable built-in list, built on first use.
// register_target() may run during static initialization or later, from any thread; find() and
// registered() may run concurrently with it, and the references they return stay valid for the
// life of the program. ArgumentSource is not thread-safe (one per generated workload).

#ifndef LINFAULT_TARGETS_REGISTRY_H_
#define LINFAULT_TARGETS_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dpct/memory_model.h"
#include "dpct/workload.h"
#include "history/history.h"
#include "targets/lazy_mt19937.h"

namespace linfault::targets {

// Randomness and a run-wide counter for argument generators.
class ArgumentSource {
 public:
  explicit ArgumentSource(std::uint64_t seed) : rng_(seed) {}
  // Uniform in [low, high].
  std::int64_t uniform(std::int64_t low, std::int64_t high);
  // 1, 2, 3, ... : distinct within one workload.
  std::int64_t unique() { return next_unique_++; }

 private:
  LazyMt19937_64 rng_;  // std::mt19937_64's numbers, drawn without seeding 312 words
  std::int64_t next_unique_ = 1;
};

using ArgumentGenerator = std::function<std::vector<history::Value>(ArgumentSource&)>;

struct OperationSpec {
  std::string method;
  ArgumentGenerator arguments;
  std::string signature;  // for listings: "add(key 0..4) -> bool"
};

// Ready-made generators.
ArgumentGenerator no_arguments();
ArgumentGenerator key_in(std::int64_t low, std::int64_t high);  // one argument
ArgumentGenerator unique_value();                               // one argument
// (cell, value): cell in [0, cells), value in [low, high].
ArgumentGenerator cell_and_value(std::int64_t cells, std::int64_t low, std::int64_t high);
// (i, j): two distinct cells in [0, cells).
ArgumentGenerator distinct_cells(std::int64_t cells);

// What the threads of a workload may call, for an object whose contract restricts its callers:
// a single-producer single-consumer queue is {{"producer", {"enq"}, 1}, {"consumer", {"deq"}, 1}};
// a single-consumer queue {{"consumer", {"deq"}, 1}, {"producer", {"enq"}, 0}}.
struct ThreadRole {
  std::string name;
  std::vector<std::string> methods;  // the operations a thread of this role may call
  std::size_t threads = 1;           // at most this many threads take it; 0: any number
};

// A known failing scenario of a buggy target (benchmark-objects.md).
struct KnownScenario {
  std::string description;
  // 1: revealed inside Pc; 2: revealed only by the reveal part (Pr); 3: revealed only as a stuck
  // history: some schedule deadlocks with a call pending that the model says cannot block, while
  // every history, the deadlocked run's included, passes the classic check.
  int type = 1;
  dpct::Workload workload;
};

struct Target {
  std::string name;
  // A model spec (spec/registry.h names, or one registered with <linfault/model.h>). A registered
  // target may say "serial" instead: it has no model, its own serial runs are its specification
  // (targets/serial_spec.h); registration turns that into "serial(target=NAME)".
  std::string model;
  std::string description;
  std::string paper_name;  // the CGVT / prototype name, or "" when not from the paper
  bool bug_expected = false;
  // Some schedules make an operation retry forever (a livelock, itself a bug) or wait forever (a
  // deadlock: lock_leak_counter). Controlled runs end at the executor's step cap or at the
  // deadlock; native threads cannot be stopped, so `detect --scheduler native` refuses such a
  // target and native stress runs must use workloads that cannot strand an operation (see
  // targets_native_test.cc).
  bool may_livelock = false;
  // The object tells its callers' threads apart: thread_local state, std::this_thread::get_id,
  // pthread_self (moodycamel::ConcurrentQueue's implicit producers). Controlled runs then give
  // each logical thread an OS thread of its own instead of a fiber: same identities as real
  // threads, at a few microseconds per thread switch instead of nanoseconds.
  bool thread_identity = false;
  // The memory model its controlled runs follow unless a command says otherwise
  // (`--memory-model`): c11 for an object whose bugs are memory orders (the wm_ targets).
  dpct::MemoryModel memory_model = dpct::MemoryModel::kSequential;
  std::vector<OperationSpec> operations;
  // The roles the concurrent threads take, when the object's contract restricts who calls what
  // (empty: any thread calls any operation). Every workload a command draws, enumerates or
  // shrinks gives each thread one role, at most `threads` threads each; Ps and Pr, which run
  // alone, may call any operation.
  std::vector<ThreadRole> roles = {};
  dpct::ObjectFactory factory;
  std::vector<KnownScenario> known_scenarios;  // empty for controls
};

// `factory`'s objects, asking for threads of their own (Target::thread_identity); registration
// applies it to a target that sets thread_identity.
dpct::ObjectFactory with_thread_identity(dpct::ObjectFactory factory);

// Thrown by find() for a name not in the registry; the message lists the valid names.
class UnknownTarget : public std::invalid_argument {
 public:
  explicit UnknownTarget(std::string_view name);
};

// The objects shipped in targets/ (the benchmark objects).
const std::vector<Target>& all();
// The targets registered by the program (LINFAULT_REGISTER_TARGET), in registration order. A
// registered target is built by its maker on the first call that needs it.
std::vector<const Target*> registered();
// A registered target first, then a built-in one; throws UnknownTarget.
const Target& find(std::string_view name);
// Registered targets' names, then the built-in ones'.
std::vector<std::string> target_names();
// True when `name` is a target registered by the program rather than a built-in one.
bool is_registered(std::string_view name);

// Registers the target `make` returns. `make` runs once, at the first lookup (not during static
// initialization; it may itself look up the built-in targets and those already built), and a
// duplicate or empty name, an unknown model, a target without operations or factory, or an
// operation whose drawn calls the bound object (dpct::ObjectUnderTest::call_problem) or the model
// (spec::call_problem) cannot take throws std::invalid_argument from that lookup naming `origin`
// (file:line of the registration). Returns true, for use in a static initializer.
bool register_target(std::function<Target()> make, std::string origin);

// The known scenario of `target` whose concurrent part runs the same methods as `threads`: each
// thread the same methods in the same order, arguments ignored, threads in any order. nullptr
// when none does (a minimal failing scenario the target does not list).
const KnownScenario* matching_known_scenario(
    const Target& target, const std::vector<std::vector<history::Call>>& threads);

// The shape of a random workload: `setup` and `reveal` calls on thread 0, and `threads` threads
// of `ops_per_thread` calls each.
struct WorkloadShape {
  std::size_t setup = 0;
  std::size_t threads = 2;
  std::size_t ops_per_thread = 2;
  std::size_t reveal = 0;
  // Uneven shapes: when not empty, thread i runs thread_ops[i] calls, and `threads` and
  // `ops_per_thread` are ignored.
  std::vector<std::size_t> thread_ops = {};
  // Operation mixes: thread i draws operation k of `target.operations` with probability
  // thread_weights[i][k] / (sum of thread_weights[i]). A thread with no entry, or an empty one,
  // draws uniformly. A non-empty entry must have one weight per operation, not all zero.
  std::vector<std::vector<unsigned>> thread_weights = {};
};

// Draws each call among `target.operations` (uniformly unless the shape weights them),
// arguments from their generators; the same seed gives the same workload. Unique values are
// unique across the whole workload. Throws std::invalid_argument for weights that do not fit
// the target.
dpct::Workload random_workload(const Target& target, const WorkloadShape& shape,
                               std::uint64_t seed);
// The same workload, drawn into `workload` over whatever it held: its lists and calls keep their
// buffers, so a campaign that draws one workload per history allocates little after the first.
void random_workload_into(const Target& target, const WorkloadShape& shape, std::uint64_t seed,
                          dpct::Workload& workload);

// For a target with roles: the role of each of `threads` threads of a drawn workload (fixed-count
// roles first, in order, then the others in turn), or a one-line reason there is none ("the
// roles of spsc allow at most 2 threads"). Empty for a target without roles.
std::vector<const ThreadRole*> thread_roles(const Target& target, std::size_t threads);
// Why `workload`'s concurrent threads break the target's roles (no assignment of threads to roles
// in which every thread calls only its role's methods and no role has too many threads), or
// nullopt when they do not (always for a target without roles).
std::optional<std::string> roles_problem(const Target& target, const dpct::Workload& workload);
// True when `workload`'s Ps alone waits forever (a blocking queue's deq of an empty queue; only a
// target marked may_livelock can): a run of it ends before Pc, and tests nothing of Pc. Runs Ps
// once under the controlled executor; false for every other target without running anything.
bool setup_waits_forever(const Target& target, const dpct::Workload& workload);

// Tells whether a target can take a call, without making it: whether the call names one of the
// target's methods, with the number of arguments the method's generator draws (checked where it
// always draws the same number), and that its bound object accepts (dpct::ObjectUnderTest::
// call_problem, asked of a stand-in that constructs nothing). Not thread-safe: guard a shared one.
class CallChecker {
 public:
  explicit CallChecker(const Target& target);
  ~CallChecker();
  CallChecker(const CallChecker&) = delete;
  CallChecker& operator=(const CallChecker&) = delete;

  // What keeps the target from taking `call`, as the end of a sentence that names the call
  // (", which is not a method of target T"), or nullopt.
  std::optional<std::string> problem(const history::Call& call) const;

 private:
  const Target& target_;
  std::unique_ptr<dpct::ObjectUnderTest> stand_in_;  // null when the factory throws
};

// What makes `workload` unfit to run on `target`, or nullopt: no concurrent thread or call, a call
// of a method the target does not have, or a call with another number of arguments than the
// method's generator draws (checked where the generator always draws the same number). For
// workloads read from files (--workload, saved runs, test cases): the object would otherwise report
// each such call as a crash of its own.
std::optional<std::string> workload_problem(const Target& target, const dpct::Workload& workload);

// For a workload written by hand (--workload): the first of its calls that `target` fails with
// when it runs alone, right after the workload's setup, on a fresh object (a sequential run: an
// exception, such as an argument the method refuses), or its setup's own failure, as one line;
// nullopt when none fails. Such a call would otherwise make every run crash, and be reported as
// the object's bug. Runs one short sequential run per distinct call.
std::optional<std::string> workload_calls_failing_alone(const Target& target,
                                                        const dpct::Workload& workload);

// One call drawn from `target.operations`: uniformly, or by `weights` (one per operation) when
// not empty.
history::Call random_call(const Target& target, ArgumentSource& source,
                          std::span<const unsigned> weights = {});

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_REGISTRY_H_
