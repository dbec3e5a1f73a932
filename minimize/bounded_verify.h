// Bounded verification of a target: every workload of N threads x M calls over a small value
// domain, each explored in every interleaving (dpct::explore_exhaustively, optionally within a
// preemption bound), every history checked against the target's model. Either every run of every
// workload is linearizable — a proof bounded by N, M, the value domain and the preemption bound —
// or the first failing run is returned for the minimizer (`linfault verify --target`).
//
// The workloads:
//   - the call domain: each of the target's operations with every argument tuple whose values are
//     among the V smallest its generator produces at that position (call_domain()): key_in(0, 4)
//     gives keys 0..V-1, unique values 1..V, a method without arguments is one call. The
//     generator is sampled (kDomainSamples draws), so for generators over huge ranges the "V
//     smallest" are the smallest drawn; argument tuples the generator never produces (two equal
//     cells of distinct_cells) are never used;
//   - each thread runs a sequence of M calls of the domain; workloads that differ only by a
//     permutation of the threads are counted once (canonical: the threads' sequences in
//     non-decreasing order), so there are C(K^M + N - 1, N) of them for K calls. This symmetry is
//     exact for objects that do not look at thread ids: every interleaving of one is an
//     interleaving of the other with the threads renamed;
//   - a fixed Ps (`setup`) and Pr (`reveal`) around every concurrent part; none by default.
// A run fails when its history is not linearizable, or it deadlocks, crashes or reaches the
// executor's step cap (a livelock: a finding, although an explorer without fairness may also
// starve a spin-waiting thread; the message says so).
//
// Thread-safety: verify_bounded() runs on the calling thread with its own executor; the other
// functions are pure. Internal header: not part of linfault's public API.

#ifndef LINFAULT_MINIMIZE_BOUNDED_VERIFY_H_
#define LINFAULT_MINIMIZE_BOUNDED_VERIFY_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "detect/saved_run.h"
#include "detect/verdict.h"
#include "dpct/executor.h"
#include "dpct/workload.h"
#include "history/history.h"
#include "targets/registry.h"

namespace linfault::minimize {

// Draws of each operation's argument generator from which its domain is read.
inline constexpr std::size_t kDomainSamples = 4096;

// The calls a thread may make: the target's operations in registry order, each with its argument
// tuples over the `values` smallest values per position, in increasing order. Throws
// std::invalid_argument when `values` is 0.
std::vector<history::Call> call_domain(const targets::Target& target, std::size_t values);

// C(calls^ops + threads - 1, threads): the canonical workloads; nullopt past 2^64 - 1.
std::optional<std::uint64_t> count_workloads(std::size_t calls, std::size_t threads,
                                             std::size_t ops);

// The canonical workloads in order: thread t's sequence is the base-|domain| number seq[t]
// (first call most significant), seq[0] <= seq[1] <= ... . Only Pc is filled.
class WorkloadEnumerator {
 public:
  // Throws std::invalid_argument for an empty domain, no threads or no calls per thread.
  WorkloadEnumerator(std::vector<history::Call> domain, std::size_t threads, std::size_t ops);
  // The next workload's threads, or false when all were produced.
  bool next(std::vector<std::vector<history::Call>>& threads);

 private:
  std::vector<history::Call> domain_;
  std::size_t ops_;
  std::vector<std::vector<std::size_t>> digits_;  // per thread, per call: an index in domain_
  bool started_ = false;
  bool done_ = false;
};

struct BoundedVerifyOptions {
  std::size_t threads = 2;
  std::size_t ops_per_thread = 2;
  std::size_t values = 2;
  std::optional<unsigned> max_preemptions;  // nullopt: every interleaving
  // c11: every read decision of every interleaving too (dpct/memory_model.h), without the
  // partial-order reduction, which does not cover reads yet.
  dpct::MemoryModel memory_model = dpct::MemoryModel::kSequential;
  std::vector<history::Call> setup;   // Ps of every workload
  std::vector<history::Call> reveal;  // Pr of every workload
  std::uint64_t max_steps = 20'000;   // the executor's livelock cap per run
  double timeout_seconds = 0;         // the whole verification; 0: none
  double check_timeout_seconds = 10;  // per history check; 0: none
  // Called after each workload (and before the first): workloads done, executions so far.
  std::function<void(std::uint64_t workloads, std::uint64_t executions)> progress;
};

// kFails: a run crashed, deadlocked or livelocked (`failure` says which), whatever its history.
enum class BoundedVerdict { kLinearizable, kNotLinearizable, kInconclusive, kFails };
// "linearizable", "not linearizable", "inconclusive", "fails".
const char* bounded_verdict_name(BoundedVerdict verdict);

struct BoundedVerifyResult {
  BoundedVerdict verdict = BoundedVerdict::kInconclusive;
  std::size_t calls = 0;                         // |call_domain()|
  std::optional<std::uint64_t> total_workloads;  // count_workloads(); nullopt: too many to count
  std::uint64_t workloads = 0;                   // workloads explored (the failing one included)
  std::uint64_t executions = 0;                  // runs in all
  double seconds = 0;
  // kInconclusive: why ("time limit", or a check that ended with unknown).
  std::string inconclusive_reason;
  // kNotLinearizable, kFails: the first failing run, as `linfault detect` saves runs, for the
  // minimizer.
  std::optional<detect::SavedRun> failing;
  std::string failure;  // kNotLinearizable, kFails: one line, why the run fails
  // dpct::Executor::weak_order_sites of every run: what a verdict that finds nothing says it did
  // not explore (detect::weak_order_note).
  std::vector<std::string> weak_order_sites;
};

// Throws std::invalid_argument for options that cannot work (no threads, no calls per thread, no
// values, a setup or reveal call that is not an operation of the target).
BoundedVerifyResult verify_bounded(const targets::Target& target,
                                   const BoundedVerifyOptions& options);

// "2 threads x 3 ops, 2 values per argument, preemptions <= 2" (or "unbounded").
std::string describe_bound(const BoundedVerifyOptions& options);

}  // namespace linfault::minimize

#endif  // LINFAULT_MINIMIZE_BOUNDED_VERIFY_H_
