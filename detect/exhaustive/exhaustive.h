// Exhaustive cross-checks: every small history of a model, a brute-force oracle, and the
// comparison of the search (detect/checker.h), the monitors and --algo auto against it.
//
//   for (const Shape& s : shapes(4, 4, ShapeSet::kIntervalOrders))
//     enumerate(domain("stack", {.values = 3}), s, [&](const History& h) { cross.check(h); });
//
// Shapes: the event orders of n operations, operations numbered by call order; any operation
// that no other follows in real time may be pending (no response). kIntervalOrders keeps one
// event order per (real-time order, pending set): every interval order once. kEventOrders keeps
// every event order (swapping two adjacent responses moves the shortest prefix's end), which is
// larger and meant for the bench.
//
// Domains: per model, every method with every argument over `values` values and every result in
// the model's domain, empty/nil included (Domain::complete), and the calls a pending operation
// may make (Domain::pending). enumerate() labels a shape in every way and builds each history,
// skipping labellings that only rename values (or keys) of a symmetric domain, or, for ordered
// values (priority queues), that leave a gap in the values used.
//
// Oracle: tries every order of the operations consistent with real time, with and without each
// pending operation, stepping the sequential model (spec/) -- no memo, no shared code with the
// search. The shortest non-linearizable prefix is found by deciding history.prefix(n) for every n
// from 1 up, exactly as Verdict defines it; the culprit is the operation of event n - 1.
//
// CrossCheck compares, on every history: the search (result, prefix_events, culprit,
// prefix_exact, and that its witness is a legal linearization), the model's monitor where there
// is one (the same fields when it decides; a decline is counted with its reason, never as a
// disagreement), and check_auto (always the oracle's answer, and Verdict::monitor_declined
// naming the monitor's reason exactly when it declined).
//
// Thread-safety: the functions are reentrant; a CrossCheck is used by one thread.
//
// Internal header: test support, not installed and not part of linfault's API.

#ifndef LINFAULT_DETECT_EXHAUSTIVE_EXHAUSTIVE_H_
#define LINFAULT_DETECT_EXHAUSTIVE_EXHAUSTIVE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "detect/verdict.h"
#include "history/history.h"

namespace linfault::detect::exhaustive {

struct Shape {
  std::vector<history::Event> events;  // calls in op order; pending ops have no return event
  int ops = 0;
  std::uint32_t pending = 0;  // bit i: op i is pending
};

enum class ShapeSet { kIntervalOrders, kEventOrders };

// Every shape of `ops` operations (1..16) with at most `max_pending` pending ones.
std::vector<Shape> shapes(int ops, int max_pending, ShapeSet set);

// A symbol a label mentions: a value or a key, 1-based within its class.
struct Mention {
  int symbol_class;  // 0: values, 1: keys
  int symbol;
};

struct Label {
  history::Call call;
  history::Outcome outcome = history::Outcome::kOk;
  history::Value result;
  std::vector<Mention> mentions;
  bool adds_value = false;  // a container's push/enq/insert of the value mentioned
};

// How symbols of a class may be renamed without changing any verdict.
enum class Symmetry : std::uint8_t {
  kNone,       // no reduction
  kRenamable,  // any renaming: symbols are used in first-mention order
  kOrdered,    // order-preserving renaming: the symbols used are 1..k
};

struct Domain {
  std::string model;
  std::vector<Label> complete;
  std::vector<Label> pending;
  Symmetry values = Symmetry::kNone;
  Symmetry keys = Symmetry::kNone;
  bool distinct_adds = false;
};

struct DomainOptions {
  int values = 2;                    // the values (and kv's keys) used, 1..values
  bool failures = false;             // also failed calls (Outcome::kFail) of mutating methods
  std::vector<std::string> without;  // methods left out (e.g. a set's "size")
  // Containers: each value added at most once (the monitors' precondition), so that larger
  // sizes go to histories the monitors decide.
  bool distinct_adds = false;
};

// The domain of a built-in model (spec/registry.h names, or a model spec with parameters such as
// "cas-register(init=1)": the base model's domain without value symmetry); throws
// std::invalid_argument for a model without one. multi-register: registers :x and :y, single- and
// two-register transactions.
Domain domain(std::string_view model, const DomainOptions& options);

// Builds every history of `shape` labelled from `d`, symmetric duplicates left out, and calls
// `visit` on each. Returns how many were visited.
std::uint64_t enumerate(const Domain& d, const Shape& shape,
                        const std::function<void(const history::History&)>& visit);

struct OracleVerdict {
  Result result = Result::kLinearizable;  // never kUnknown
  std::size_t prefix_events = 0;          // kViolation: the shortest non-linearizable prefix
  history::OpIndex culprit = -1;          // kViolation: the op of event prefix_events - 1
};

// Brute force: whether some real-time-respecting order of the ops is legal for the model.
bool oracle_linearizable(std::string_view model, const history::History& history);
OracleVerdict oracle(std::string_view model, const history::History& history);

// Whether `order` (op indices) is a linearization of `history`: real-time order respected, every
// completed op that takes effect present, each pending op at most once, every step legal.
bool is_linearization(std::string_view model, const history::History& history,
                      const std::vector<history::OpIndex>& order);

// A random history of `ops` operations labelled from `d` (no symmetry reduction): op i takes
// effect at time 10 i inside an interval of random width, and responds unless it is drawn pending
// (probability 1/pending_one_in; 0: never). With `legal_results`, every result is one a
// sequential run in that order gives (a pending op takes effect), then in half the histories one
// result is redrawn; otherwise results are drawn at random.
struct RandomOptions {
  bool legal_results = true;
  int pending_one_in = 8;
  int max_width = 40;
};
history::History random_history(const Domain& d, int ops, std::mt19937_64& rng,
                                const RandomOptions& options);

// One line per op: "  p0 push(1) -> nil [0, 3]" (call and return events, or "pending").
std::string describe(const history::History& history);

struct Disagreement {
  std::string checker;  // "search", "monitor", "auto"
  std::string what;     // "verdict", "prefix", "culprit", "inexact prefix", "witness"
  std::string detail;   // both answers and the history
};

struct Tally {
  std::uint64_t histories = 0;
  std::uint64_t violations = 0;        // by the oracle
  std::uint64_t monitor_decided = 0;   // histories the monitor decided
  std::uint64_t monitor_declined = 0;  // unsupported (auto fell back to the search)
  std::map<std::string, std::uint64_t> decline_reasons;
  std::map<std::string, std::uint64_t> disagreements;  // by "checker what"
  std::vector<Disagreement> first;                     // the first few, smallest first
  double seconds = 0;

  std::uint64_t total_disagreements() const;
  std::string summary() const;  // one line
  void add(const Tally& other);
};

class CrossCheck {
 public:
  // `monitor`: also run the model's monitor (when it has one) and check_auto.
  explicit CrossCheck(std::string model, bool monitor = true, std::size_t keep_first = 5);
  void check(const history::History& history);
  const Tally& tally() const { return tally_; }
  Tally& tally() { return tally_; }

 private:
  void disagree(std::string checker, std::string what, std::string detail);

  std::string model_;
  bool monitor_;
  std::size_t keep_first_;
  Tally tally_;
};

// Every history of `ops` operations (ShapeSet, at most `max_pending` pending) over `options`,
// cross-checked; the tally's `seconds` is the wall time. Shards split the shapes: shard k of m
// takes shapes k, k + m, k + 2m, ...
struct SweepOptions {
  int ops = 3;
  int max_pending = 3;
  ShapeSet set = ShapeSet::kIntervalOrders;
  DomainOptions domain;
  bool monitor = true;
  int shard = 0;
  int shards = 1;
};
Tally sweep(std::string_view model, const SweepOptions& options);

}  // namespace linfault::detect::exhaustive

#endif  // LINFAULT_DETECT_EXHAUSTIVE_EXHAUSTIVE_H_
