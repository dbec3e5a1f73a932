// Litmus programs: straight-line multi-threaded programs over a few atomic locations, and the
// outcomes they can reach, computed two independent ways:
//   - axiomatic_outcomes: by brute force over every reads-from and modification order, keeping
//     the executions the C++20 memory model allows: RC11's axioms (Lahav et al., PLDI 2017) with
//     C++20's release sequences, which continue through read-modify-writes only. Like RC11 it
//     forbids load buffering (po ∪ rf acyclic), which the C++20 text allows and no tool
//     produces;
//   - weak_memory_outcomes: by running the program on WeakMemory (dpct/weak_memory.h) under
//     every interleaving and every read choice.
// The second must be a subset of the first (WeakMemory never shows a forbidden outcome); where
// it is smaller, docs/weak-memory.md says why.
//
// The axioms, over events E (an initial write per location first, then each thread's events in
// program order po), reads-from rf, modification order mo (per location, the initial write
// first), from-reads rb = rf⁻¹;mo minus identity and eco = (rf ∪ mo ∪ rb)⁺:
//   - sw = [E ⊒ rel]; ([F]; po)?; rs; rf; [R]; (po; [F])?; [E ⊒ acq], rs = [W]; (rf; rmw)*;
//     hb = (po ∪ sw)⁺;
//   - coherence: hb; eco? is irreflexive;
//   - atomicity: no write lies between a read-modify-write and the write it read (rb; mo ∩ rmw
//     is empty);
//   - SC: psc = psc_base ∪ psc_F is acyclic, with scb = po ∪ po|≠loc; hb; po|≠loc ∪ hb|loc ∪ mo ∪
//     rb, psc_base = ([E^sc] ∪ [F^sc]; hb?); scb; ([E^sc] ∪ hb?; [F^sc]) and
//     psc_F = [F^sc]; (hb ∪ hb; eco; hb); [F^sc];
//   - no thin air: po ∪ rf is acyclic.
// consume counts as acquire.
//
// Thread-safety: functions of their arguments only.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_LITMUS_H_
#define LINFAULT_DPCT_LITMUS_H_

#include <atomic>
#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "dpct/memory_model.h"

namespace linfault::dpct {

struct LitmusOp {
  enum Kind : std::uint8_t { kLoad, kStore, kFetchAdd, kFence } kind = kLoad;
  int location = 0;        // 0 .. 7; every location starts at 0
  std::int64_t value = 0;  // kStore: the value written; kFetchAdd: the addend
  std::memory_order order = std::memory_order_seq_cst;
  int reg = -1;  // kLoad, kFetchAdd: the register (0 .. 15) that receives the value read, if any
};

struct LitmusProgram {
  std::vector<std::vector<LitmusOp>> threads;
  // "x.relaxed=1; r0=y.acquire || ..." text, for messages.
  std::string describe() const;
};

// The registers (each 0 unless a load set it) and each location's final value (its
// modification order's last write).
struct LitmusOutcome {
  std::vector<std::int64_t> registers;
  std::vector<std::int64_t> finals;
  auto operator<=>(const LitmusOutcome&) const = default;
  // "r0=1 r1=0 | x=1 y=1" (locations x, y, z, w, then l4 ..).
  std::string to_string() const;
};

// One test of the bundled suite: a shape ("SB", "MP", ...) in one variant of its orders
// ("relaxed", "rel-acq", "seq_cst", "sc-fences", ...).
struct NamedLitmus {
  std::string name;
  std::string variant;
  LitmusProgram program;
};

// The classic shapes (SB, MP, LB, IRIW, 2+2W, R, S, WRC, CoRR, CoWR, CoRW, CoWW, RMW atomicity
// and two release sequences), each with relaxed, release/acquire, seq_cst and fence variants
// where they differ.
std::vector<NamedLitmus> litmus_suite();

// Every order variant of the classic shapes (SB, MP, R, S, 2+2W, LB, WRC, RWC, SB with RMWs,
// and two shapes that mix SC accesses with weaker ones): each access in each of its orders
// (relaxed, acquire/release/acq_rel, seq_cst) and, in up to two threads of two or more
// operations, no fence or a release, acquire or seq_cst fence after the first one. About 31,000
// programs; `stride` keeps every stride-th.
std::vector<NamedLitmus> litmus_order_sweep(std::size_t stride = 1);

// A random program for differential testing, a function of `seed`: 2 or 3 threads of 1 to 3
// operations (loads, stores, fetch-adds and fences, in orders valid for each) over 2 locations.
// With `seq_cst_only`, only seq_cst loads, stores and fetch-adds.
LitmusProgram random_litmus_program(std::uint64_t seed, bool seq_cst_only);

// Both throw std::invalid_argument for a program out of the bounds above, with more than 16
// events or 4 threads, or with a register that two operations set.
std::set<LitmusOutcome> axiomatic_outcomes(const LitmusProgram& program);
std::set<LitmusOutcome> weak_memory_outcomes(const LitmusProgram& program);

// The outcomes of running the program as an object under test: each thread a call on
// dpct::Atomic<std::int64_t> locations and dpct::atomic_thread_fence, through the Executor,
// under every interleaving and (c11) every read decision (explore_exhaustively). So this checks
// the executor's wiring of the model (dpct/executor.h, dpct/shared.h), not only the model.
// Every run's memory events are also checked against the axioms (ExecutionOptions::
// check_memory_model). `executions` receives the runs made. Throws as the two above, and
// std::logic_error if a run fails or breaks an axiom.
std::set<LitmusOutcome> executed_outcomes(const LitmusProgram& program, MemoryModel model,
                                          std::uint64_t* executions = nullptr);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_LITMUS_H_
