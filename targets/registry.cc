#include "targets/registry.h"
#include "targets/serial_spec.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "dpct/executor.h"
#include "dpct/random_scheduler.h"
#include "spec/registry.h"
#include "targets/bind.h"
#include "targets/lists.h"
#include "targets/lock_leak_counter.h"
#include "targets/queues.h"
#include "targets/snapshots.h"
#include "targets/snark_deque.h"
#include "targets/spin_waiting.h"
#include "targets/stacks.h"
#include "targets/weak_memory_objects.h"

namespace linfault::targets {
namespace {

using history::Call;
using history::Value;

constexpr std::int64_t kMaxKey = 4;        // set keys 0..4: collisions and adjacent keys are common
constexpr std::int64_t kMaxCellValue = 2;  // snapshot values 0..2: repeated values allow ABA

Call call(std::string method, std::vector<Value> args = {}) {
  return Call{std::move(method), std::move(args)};
}

std::vector<Call> repeat(const Call& c, std::size_t n) { return std::vector<Call>(n, c); }

std::vector<OperationSpec> set_operations(bool with_size) {
  const std::string range = "(key 0.." + std::to_string(kMaxKey) + ") -> bool";
  std::vector<OperationSpec> ops = {
      {"add", key_in(0, kMaxKey), "add" + range},
      {"remove", key_in(0, kMaxKey), "remove" + range},
      {"contains", key_in(0, kMaxKey), "contains" + range},
  };
  if (with_size) ops.push_back({"size", no_arguments(), "size() -> int"});
  return ops;
}

std::vector<OperationSpec> collection_operations(const std::string& insert,
                                                 const std::string& extract) {
  return {{insert, unique_value(), insert + "(unique value)"},
          {extract, no_arguments(), extract + "() -> value | nil"}};
}

// A list names its state, its nodes' keys (targets/lists.h: ListState), so that `--spec serial`
// merges the orders of calls that leave the same list.
template <class T>
dpct::ObjectFactory set_factory(std::function<std::unique_ptr<T>()> make) {
  return Binding<T>(std::move(make))
      .method("add", &T::add)
      .method("remove", &T::remove)
      .method("contains", &T::contains)
      .state(&T::state)
      .factory();
}

std::vector<KnownScenario> remove_remove_scenario() {
  return {{"Ps = add(3); remove(3) || remove(3): both removes return true",
           1,
           {{call("add", {3})}, {{call("remove", {3})}, {call("remove", {3})}}, {}}}};
}

std::vector<Target> build() {
  std::vector<Target> targets;

  targets.push_back({
      .name = "lf_list_buggy",
      .model = "set",
      .description = "Harris-Michael lock-free list whose remove marks with attemptMark "
                     "(book errata): two removes of one key both succeed",
      .paper_name = "LFList",
      .bug_expected = true,
      .operations = set_operations(false),
      .factory = set_factory<LockFreeList>(
          [] { return std::make_unique<LockFreeList>(LockFreeList::Mark::kBookErrata); }),
      .known_scenarios = remove_remove_scenario(),
  });
  targets.push_back({
      .name = "lf_list",
      .model = "set",
      .description = "Harris-Michael lock-free list with a real CAS to mark (control)",
      .paper_name = "LFList (fixed)",
      .operations = set_operations(false),
      .factory = set_factory<LockFreeList>(
          [] { return std::make_unique<LockFreeList>(LockFreeList::Mark::kCorrect); }),
      .known_scenarios = {},
  });
  targets.push_back({
      .name = "simple_list_buggy",
      .model = "set",
      .description = "coarse list whose add traverses without the lock and links without "
                     "validating its window",
      .paper_name = "CGList / SimpleList",
      .bug_expected = true,
      .operations = set_operations(false),
      .factory = set_factory<SimpleList>([] { return std::make_unique<SimpleList>(); }),
      .known_scenarios =
          {{"Ps = add(3); add(5) || add(5): both adds return true",
            1,
            {{call("add", {3})}, {{call("add", {5})}, {call("add", {5})}}, {}}},
           {"Ps = add(7), add(10); add(8) || add(9) drops 8; Pr = contains(8) -> false",
            2,
            {{call("add", {7}), call("add", {10})},
             {{call("add", {8})}, {call("add", {9})}},
             {call("contains", {8})}}}},
  });
  targets.push_back({
      .name = "unsafe_size_list",
      .model = "set",
      .description = "coarse-grained list whose size() counts nodes without the lock",
      .paper_name = "CGList (add;remove;size) / SimpleList (Size)",
      .bug_expected = true,
      .operations = set_operations(true),
      .factory = Binding<UnsafeSizeList>()
                     .method("add", &UnsafeSizeList::add)
                     .method("remove", &UnsafeSizeList::remove)
                     .method("contains", &UnsafeSizeList::contains)
                     .method("size", &UnsafeSizeList::size)
                     .state(&UnsafeSizeList::state)
                     .factory(),
      .known_scenarios = {{"Ps = add(1), add(5); size() || [add(0); remove(5)]: size returns 1",
                           1,
                           {{call("add", {1}), call("add", {5})},
                            {{call("size")}, {call("add", {0}), call("remove", {5})}},
                            {}}}},
  });
  targets.push_back({
      .name = "bu_list1",
      .model = "set",
      .description = "LFList with attemptMark and a find that never snips: double removes, "
                     "stranded marked nodes, livelocked adds",
      .paper_name = "BUList1",
      .bug_expected = true,
      .may_livelock = true,
      .operations = set_operations(false),
      .factory = set_factory<BugUnknownList1>([] { return std::make_unique<BugUnknownList1>(); }),
      .known_scenarios =
          {remove_remove_scenario()[0],
           {"Ps = add(3), add(5); remove(5) || remove(3) strands 5; Pr = add(5) -> false",
            2,
            {{call("add", {3}), call("add", {5})},
             {{call("remove", {5})}, {call("remove", {3})}},
             {call("add", {5})}}}},
  });
  targets.push_back({
      .name = "bu_list2",
      .model = "set",
      .description = "list with unsynchronized locate and an unvalidated update under the lock "
                     "(intended remove pred.next = curr.next)",
      .paper_name = "BUList2",
      .bug_expected = true,
      .operations = set_operations(false),
      .factory = set_factory<OptimisticUnlockedList>([] {
        return std::make_unique<OptimisticUnlockedList>(OptimisticUnlockedList::Validation::kNone);
      }),
      .known_scenarios =
          {{"Ps = add(3); add(5) || add(5): both adds return true",
            1,
            {{call("add", {3})}, {{call("add", {5})}, {call("add", {5})}}, {}}},
           {"Ps = add(7), add(10); add(8) || add(9) drops 8; Pr = contains(8) -> false",
            2,
            {{call("add", {7}), call("add", {10})},
             {{call("add", {8})}, {call("add", {9})}},
             {call("contains", {8})}}}},
  });
  targets.push_back({
      .name = "bu_list3",
      .model = "set",
      .description = "BUList2 with validation that returns false instead of retrying "
                     "(intended remove pred.next = curr.next)",
      .paper_name = "BUList3",
      .bug_expected = true,
      .operations = set_operations(false),
      .factory = set_factory<OptimisticUnlockedList>([] {
        return std::make_unique<OptimisticUnlockedList>(
            OptimisticUnlockedList::Validation::kReturnFalse);
      }),
      .known_scenarios =
          {{"Ps = add(3); add(5) || add(7): add(7) returns false",
            1,
            {{call("add", {3})}, {{call("add", {5})}, {call("add", {7})}}, {}}},
           {"Ps = add(3); add(5) || remove(3) links 5 after a removed node; Pr = contains(5)",
            2,
            {{call("add", {3})},
             {{call("add", {5})}, {call("remove", {3})}},
             {call("contains", {5})}}}},
  });
  targets.push_back({
      .name = "bu_list4",
      .model = "set",
      .description = "lazy-list variant whose remove marks and reads the successor outside the "
                     "lock: a concurrent insert is lost",
      .paper_name = "BUList4 (prototype only)",
      .bug_expected = true,
      .may_livelock = true,
      .operations = set_operations(false),
      .factory = set_factory<BugUnknownList4>([] { return std::make_unique<BugUnknownList4>(); }),
      .known_scenarios =
          {{"Ps = add(3); add(5) || remove(3) loses 5; Pr = add(5) -> true",
            2,
            {{call("add", {3})}, {{call("add", {5})}, {call("remove", {3})}}, {call("add", {5})}}},
           // Found by the target-level minimizer, not in the prototype's notes: a remove that has
           // marked its node but not unlinked it hides the key from contains but not from add.
           {"Ps = add(3); remove(3) || contains(3); add(3): 3 is marked but still linked, so "
            "contains says absent and add says present",
            1,
            {{call("add", {3})},
             {{call("remove", {3})}, {call("contains", {3}), call("add", {3})}},
             {}}}},
  });

  auto optimistic_queue = [](OptimisticQueue::Poll poll) {
    return Binding<OptimisticQueue>([poll] { return std::make_unique<OptimisticQueue>(poll); })
        .method("offer", &OptimisticQueue::offer)
        .method("poll", &OptimisticQueue::poll)
        .state(&OptimisticQueue::state)
        .factory();
  };
  targets.push_back({
      .name = "optimistic_queue_buggy",
      .model = "queue",
      .description = "Ladan-Mozes & Shavit optimistic queue whose poll returns head.item read "
                     "after its CAS",
      .paper_name = "OPQueue",
      .bug_expected = true,
      .operations = collection_operations("offer", "poll"),
      .factory = optimistic_queue(OptimisticQueue::Poll::kHeadReadAfterCas),
      .known_scenarios =
          {{"Ps = offer(1), offer(2); poll || poll: both return 2",
            1,
            {{call("offer", {1}), call("offer", {2})}, {{call("poll")}, {call("poll")}}, {}}}},
  });
  targets.push_back({
      .name = "optimistic_queue",
      .model = "queue",
      .description = "Ladan-Mozes & Shavit optimistic queue (control)",
      .paper_name = "OPQueue (fixed)",
      .operations = collection_operations("offer", "poll"),
      .factory = optimistic_queue(OptimisticQueue::Poll::kCorrect),
      .known_scenarios = {},
  });

  auto ms_queue = [](MichaelScottQueue::Consistency consistency) {
    return Binding<MichaelScottQueue>(
               [consistency] { return std::make_unique<MichaelScottQueue>(consistency); })
        .method("enq", &MichaelScottQueue::enq)
        .method("deq", &MichaelScottQueue::deq)
        .state(&MichaelScottQueue::state)
        .factory();
  };
  targets.push_back({
      .name = "ms_queue_nocheck",
      .model = "queue",
      .description = "Michael-Scott queue without enq's last == tail re-check; still "
                     "linearizable (control)",
      .paper_name = "BUQueue",
      .operations = collection_operations("enq", "deq"),
      .factory = ms_queue(MichaelScottQueue::Consistency::kWithoutCheck),
      .known_scenarios = {},
  });
  targets.push_back({
      .name = "ms_queue",
      .model = "queue",
      .description = "Michael-Scott queue (control)",
      .paper_name = "",
      .operations = collection_operations("enq", "deq"),
      .factory = ms_queue(MichaelScottQueue::Consistency::kWithCheck),
      .known_scenarios = {},
  });

  targets.push_back({
      .name = "k_stack_buggy",
      .model = "stack",
      .description = "the prototype's KStack: Treiber stack whose push loop ignores its CAS and "
                     "tests top.next; can push twice or build a cycle",
      .paper_name = "KStack",
      .bug_expected = true,
      .operations = collection_operations("push", "pop"),
      .factory = Binding<KStack>()
                     .method("push", &KStack::push)
                     .method("pop", &KStack::pop)
                     .state(&KStack::state)
                     .factory(),
      .known_scenarios =
          {{"Ps = push(1), push(2); push(10) || push(20) builds a cycle; Pr = 4 pops",
            2,
            {{call("push", {1}), call("push", {2})},
             {{call("push", {10})}, {call("push", {20})}},
             repeat(call("pop"), 4)}},
           {"Ps = push(1), push(2); push(10) || pop() pushes 10 twice; Pr = 3 pops",
            2,
            {{call("push", {1}), call("push", {2})},
             {{call("push", {10})}, {call("pop")}},
             repeat(call("pop"), 3)}}},
  });

  auto treiber = [](TreiberStack::Pop pop) {
    return Binding<TreiberStack>([pop] { return std::make_unique<TreiberStack>(pop); })
        .method("push", &TreiberStack::push)
        .method("pop", &TreiberStack::pop)
        .state(&TreiberStack::state)
        .factory();
  };
  targets.push_back({
      .name = "treiber_stack_buggy",
      .model = "stack",
      .description = "Treiber stack whose pop ignores a failed CAS and returns what it read",
      .paper_name = "TBStack",
      .bug_expected = true,
      .operations = collection_operations("push", "pop"),
      .factory = treiber(TreiberStack::Pop::kNoRetry),
      .known_scenarios = {{"Ps = push(1); pop() || pop(): both return 1",
                           1,
                           {{call("push", {1})}, {{call("pop")}, {call("pop")}}, {}}},
                          {"Ps = push(1), push(2); push(10) || pop() leaves 2 in; Pr = 3 pops",
                           2,
                           {{call("push", {1}), call("push", {2})},
                            {{call("push", {10})}, {call("pop")}},
                            repeat(call("pop"), 3)}}},
  });
  targets.push_back({
      .name = "treiber_stack",
      .model = "stack",
      .description = "Treiber stack with CAS retry in push and pop (control)",
      .paper_name = "LFTreiberStack",
      .operations = collection_operations("push", "pop"),
      .factory = treiber(TreiberStack::Pop::kRetry),
      .known_scenarios = {},
  });

  const std::vector<OperationSpec> snapshot_ops = {
      {"write", cell_and_value(2, 0, kMaxCellValue),
       "write(cell 0..1, value 0.." + std::to_string(kMaxCellValue) + ")"},
      {"readpair", distinct_cells(2), "readpair(i, j) -> [d_i d_j]"},
  };
  targets.push_back({
      .name = "pair_snapshot",
      .model = "snapshot",
      .description = "pair snapshot whose double collect compares values (ABA): readpair can "
                     "return a pair that never existed",
      .paper_name = "PairSnapShot (Fig. 1)",
      .bug_expected = true,
      .operations = snapshot_ops,
      .factory = Binding<PairSnapshot>()
                     .method("write", &PairSnapshot::write)
                     .method("readpair", &PairSnapshot::readpair)
                     .factory(),
      .known_scenarios = {{"Ps = write(0,1), write(1,1); [write(0,2); write(1,2); write(1,1); "
                           "write(0,1)] || readpair(0,1): returns [1 2]",
                           1,
                           {{call("write", {0, 1}), call("write", {1, 1})},
                            {{call("write", {0, 2}), call("write", {1, 2}), call("write", {1, 1}),
                              call("write", {0, 1})},
                             {call("readpair", {0, 1})}},
                            {}}}},
  });
  targets.push_back({
      .name = "pair_snapshot_correct",
      .model = "snapshot",
      .description = "pair snapshot whose double collect compares fresh boxes, never reused "
                     "(control)",
      .paper_name = "",
      .operations = snapshot_ops,
      .factory = Binding<VersionedPairSnapshot>()
                     .method("write", &VersionedPairSnapshot::write)
                     .method("readpair", &VersionedPairSnapshot::readpair)
                     .factory(),
      .known_scenarios = {},
  });

  targets.push_back({
      .name = "snark_deque",
      .model = "deque",
      .description = "Snark DCAS deque (DCAS as one atomic step): a pop can report empty while "
                     "the deque is not",
      .paper_name = "Snark",
      .bug_expected = true,
      .operations = {{"push_left", unique_value(), "push_left(unique value)"},
                     {"push_right", unique_value(), "push_right(unique value)"},
                     {"pop_left", no_arguments(), "pop_left() -> value | nil"},
                     {"pop_right", no_arguments(), "pop_right() -> value | nil"}},
      .factory = Binding<SnarkDeque>()
                     .method("push_left", &SnarkDeque::push_left)
                     .method("push_right", &SnarkDeque::push_right)
                     .method("pop_left", &SnarkDeque::pop_left)
                     .method("pop_right", &SnarkDeque::pop_right)
                     .state(&SnarkDeque::state)
                     .factory(),
      .known_scenarios =
          {{"Ps = push_right(1); pop_left() || [push_left(60); pop_right()]: pop_left -> empty",
            1,
            {{call("push_right", {1})},
             {{call("pop_left")}, {call("push_left", {60}), call("pop_right")}},
             {}}},
           {"Ps = push_left(1); pop_right() || [push_right(60); pop_left()]: pop_right -> empty",
            1,
            {{call("push_left", {1})},
             {{call("pop_right")}, {call("push_right", {60}), call("pop_left")}},
             {}}}},
  });
  targets.push_back({
      .name = "ticket_lock_counter",
      .model = "counter",
      .description = "counter under a ticket lock whose waiters spin (control for fair "
                     "scheduling of spin loops)",
      .paper_name = "",
      .operations = {{"inc", no_arguments(), "inc()"}, {"get", no_arguments(), "get() -> n"}},
      .factory = Binding<TicketLockCounter>()
                     .method("inc", &TicketLockCounter::inc)
                     .method("get", &TicketLockCounter::get)
                     .factory(),
      .known_scenarios = {},
  });
  targets.push_back({
      .name = "lock_leak_counter",
      .model = "counter",
      .description = "counter whose get() never releases its (reentrant) lock: another "
                     "thread's next call waits forever; every history passes the classic check",
      .paper_name = "Counter2 (Line-Up)",
      .bug_expected = true,
      .may_livelock = true,
      .operations = {{"inc", no_arguments(), "inc()"}, {"get", no_arguments(), "get() -> n"}},
      .factory = Binding<LockLeakCounter>()
                     .method("inc", &LockLeakCounter::inc)
                     .method("get", &LockLeakCounter::get)
                     .factory(),
      .known_scenarios = {{"get() || inc(): after get, inc waits forever (a stuck history)",
                           3,
                           {{}, {{call("get")}, {call("inc")}}, {}}}},
  });
  targets.push_back({
      .name = "seqlock_register",
      .model = "register",
      .description = "register in two words behind a seqlock: readers retry, writers spin "
                     "(control for fair scheduling of spin loops)",
      .paper_name = "",
      .operations = {{"write", key_in(0, 9), "write(0..9)"},
                     {"read", no_arguments(), "read() -> v"}},
      .factory = Binding<SeqlockRegister>()
                     .method("write", &SeqlockRegister::write)
                     .method("read", &SeqlockRegister::read)
                     .factory(),
      .known_scenarios = {},
  });
  return targets;
}

}  // namespace

std::int64_t ArgumentSource::uniform(std::int64_t low, std::int64_t high) {
  return std::uniform_int_distribution<std::int64_t>(low, high)(rng_);
}

ArgumentGenerator no_arguments() {
  return [](ArgumentSource&) { return std::vector<Value>{}; };
}

ArgumentGenerator key_in(std::int64_t low, std::int64_t high) {
  if (low > high) throw std::invalid_argument("key_in: empty range");
  return
      [low, high](ArgumentSource& source) { return std::vector<Value>{source.uniform(low, high)}; };
}

ArgumentGenerator unique_value() {
  return [](ArgumentSource& source) { return std::vector<Value>{source.unique()}; };
}

ArgumentGenerator cell_and_value(std::int64_t cells, std::int64_t low, std::int64_t high) {
  if (cells < 1 || low > high) throw std::invalid_argument("cell_and_value: empty range");
  return [cells, low, high](ArgumentSource& source) {
    return std::vector<Value>{source.uniform(0, cells - 1), source.uniform(low, high)};
  };
}

ArgumentGenerator distinct_cells(std::int64_t cells) {
  if (cells < 2) throw std::invalid_argument("distinct_cells: needs at least two cells");
  return [cells](ArgumentSource& source) {
    const std::int64_t i = source.uniform(0, cells - 1);
    const std::int64_t j = (i + source.uniform(1, cells - 1)) % cells;
    return std::vector<Value>{i, j};
  };
}

UnknownTarget::UnknownTarget(std::string_view name)
    : std::invalid_argument([name] {
        std::string message = "unknown target '" + std::string(name) + "' (targets:";
        for (const std::string& known : target_names()) message += " " + known;
        return message + ")";
      }()) {}

namespace {

// The model name that says "no model: the target's own serial runs" (targets/serial_spec.h).
constexpr std::string_view kSerialModel = "serial";

// A built-in or registered target whose model is "serial" is checked against its own serial runs.
void resolve_serial_model(Target& target) {
  if (target.model == kSerialModel) target.model = serial_spec_of(target.name);
}

}  // namespace

const std::vector<Target>& all() {
  static const std::vector<Target> targets = [] {
    std::vector<Target> built = build();
    for (Target& target : weak_memory_targets()) built.push_back(std::move(target));
    for (Target& target : built) resolve_serial_model(target);
    return built;
  }();
  return targets;
}

namespace {

// Targets registered by the program. Makers run lazily under the lock, so a registration in a
// static initializer never depends on the initialization order of other translation units.

// What `target`'s factory makes under a CallCheckScope, to ask call_problem() of: a Binding's
// stand-in, which constructs nothing. nullptr when the factory throws: a constructor that throws
// is reported by every run, as the object's problem.
std::unique_ptr<dpct::ObjectUnderTest> call_checker(const Target& target) {
  try {
    const dpct::CallCheckScope checking_calls_only;
    return target.factory();
  } catch (const std::exception&) {
    return nullptr;
  }
}

class UserRegistry {
 public:
  static UserRegistry& instance() {
    static UserRegistry registry;
    return registry;
  }

  void add(std::function<Target()> make, std::string origin) {
    std::lock_guard lock(mutex_);
    pending_.push_back({std::move(make), std::move(origin)});
  }

  std::vector<const Target*> targets() {
    std::lock_guard lock(mutex_);
    // A maker that looks targets up (find() from inside a maker) sees the built-in ones and
    // those already built; building the others from inside it would let their errors escape
    // through the wrong maker.
    if (!building_) {
      building_ = true;
      try {
        build_pending();
      } catch (...) {
        building_ = false;
        throw;
      }
      building_ = false;
    }
    std::vector<const Target*> list;
    for (const Target& target : built_) list.push_back(&target);
    return list;
  }

  // Why the registration of a target named `name` was refused, when it was.
  std::optional<std::string> failure_of(const std::string& name) {
    std::lock_guard lock(mutex_);
    const auto it = failed_.find(name);
    if (it == failed_.end()) return std::nullopt;
    return it->second;
  }

 private:
  struct Pending {
    std::function<Target()> make;
    std::string origin;
  };

  void build_pending() {
    while (!pending_.empty()) {
      Pending next = std::move(pending_.front());
      pending_.pop_front();
      Target target;
      try {
        target = next.make();
      } catch (const std::exception& e) {
        // The user's maker (a method bound twice, a generator's bad range): said with its place.
        throw std::invalid_argument(next.origin +
                                    ": LINFAULT_REGISTER_TARGET: the maker threw: " + e.what());
      }
      try {
        validate(target, next.origin);
      } catch (const std::invalid_argument& e) {
        // Reported once, here; a later lookup of the name says why it is missing.
        if (!target.name.empty()) failed_.emplace(target.name, e.what());
        throw;
      }
      resolve_serial_model(target);
      if (target.thread_identity) target.factory = with_thread_identity(std::move(target.factory));
      built_.push_back(std::move(target));
    }
  }

  void validate(const Target& target, const std::string& origin) const {
    const auto fail = [&](const std::string& problem) {
      throw std::invalid_argument(origin + ": LINFAULT_REGISTER_TARGET: " + problem);
    };
    if (target.name.empty()) fail("the target has no name");
    // Names and drawn arguments end up in JSON (saved runs, test cases), whose text is UTF-8.
    if (history::invalid_utf8_at(target.name) != std::string_view::npos) {
      fail("target name '" + history::printable(target.name) + "' is not valid UTF-8");
    }
    for (const Target& other : built_) {
      if (other.name == target.name) fail("target '" + target.name + "' is registered twice");
    }
    for (const Target& builtin : all()) {
      if (builtin.name == target.name) {
        fail("target '" + target.name + "' has the name of a built-in target");
      }
    }
    if (target.model.empty()) {
      fail("target '" + target.name +
           "' names no model: give one (\"stack\", \"queue\", ...: docs/models.md, or your own: "
           "docs/own-model.md), or \"serial\" to check it against its own serial runs");
    }
    try {
      // "serial": no model, the target's own serial runs are its specification.
      if (target.model != kSerialModel) spec::canonical_model_spec(target.model);
    } catch (const std::invalid_argument& e) {  // a bad spec, or serial(target=UNKNOWN)
      fail("target '" + target.name + "': " + e.what());
    }
    if (target.operations.empty()) fail("target '" + target.name + "' has no operations");
    for (std::size_t i = 0; i < target.operations.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (target.operations[i].method == target.operations[j].method) {
          fail("target '" + target.name + "' lists operation '" + target.operations[i].method +
               "' twice");
        }
      }
    }
    if (!target.factory) fail("target '" + target.name + "' has no factory");
    for (const ThreadRole& role : target.roles) {
      if (role.methods.empty()) {
        fail("target '" + target.name + "': role '" + role.name + "' has no methods");
      }
      for (const std::string& method : role.methods) {
        const bool known =
            std::any_of(target.operations.begin(), target.operations.end(),
                        [&](const OperationSpec& op) { return op.method == method; });
        if (!known) {
          fail("target '" + target.name + "': role '" + role.name + "' names method '" + method +
               "', which is not one of its operations");
        }
      }
    }
    check_operations(target, fail);
  }

  static bool has_malformed_string(const history::Value& value) {
    if (value.is_string()) {
      return history::invalid_utf8_at(value.as_string()) != std::string_view::npos;
    }
    if (value.is_list()) {
      const history::Value::List& items = value.as_list();
      return std::any_of(items.begin(), items.end(), has_malformed_string);
    }
    return false;
  }

  // Every operation, with arguments its generator draws, must be a call the bound object takes
  // and an operation the model knows: otherwise each such call would be reported at run time as
  // a crash of the object (a bug that is not one), or as a history the model cannot read.
  template <class Fail>
  static void check_operations(const Target& target, const Fail& fail) {
    const std::unique_ptr<dpct::ObjectUnderTest> object = call_checker(target);
    const bool serial = target.model.empty() || target.model == kSerialModel;
    constexpr std::uint64_t kDraws = 4;  // different seeds: arguments of different kinds show
    for (const OperationSpec& op : target.operations) {
      const std::string which =
          "target '" + target.name + "', operation '" + history::printable(op.method) + "'";
      if (history::invalid_utf8_at(op.method) != std::string_view::npos) {
        fail(which + ": the method's name is not valid UTF-8");
      }
      if (!op.arguments) fail(which + " has no argument generator (no_arguments() for none)");
      for (std::uint64_t seed = 1; seed <= kDraws; ++seed) {
        ArgumentSource source(seed);
        history::Call call{op.method, {}};
        try {
          call.args = op.arguments(source);
        } catch (const std::exception& e) {
          fail(which + ": its argument generator threw: " + e.what());
        }
        if (std::any_of(call.args.begin(), call.args.end(), has_malformed_string)) {
          fail(which + ": its argument generator drew " + call.to_string() +
               ", with a string that is not valid UTF-8");
        }
        if (object) {
          if (std::optional<std::string> problem = object->call_problem(call)) {
            fail(which + ": the bound object cannot take " + call.to_string() + ": " + *problem);
          }
        }
        if (!serial) {
          std::optional<std::string> problem;
          try {
            problem = spec::call_problem(target.model, call);
          } catch (const std::exception&) {
            // The model's own fault, not this target's: checking reports it.
          }
          if (problem) {
            fail(which + ": model '" + target.model + "' does not take " + call.to_string() + ": " +
                 *problem);
          }
        }
      }
    }
  }

  // Recursive: a maker may look up other targets (find() re-enters targets()).
  std::recursive_mutex mutex_;
  bool building_ = false;  // a maker is running (under mutex_)
  std::deque<Pending> pending_;
  std::deque<Target> built_;  // a deque: references stay valid as targets are added
  std::map<std::string, std::string> failed_;  // refused registrations: name -> the error
};

}  // namespace

namespace {
// An object that answers as `inner` does and asks for threads of its own.
class ThreadIdentityObject final : public dpct::ObjectUnderTest {
 public:
  explicit ThreadIdentityObject(std::unique_ptr<dpct::ObjectUnderTest> inner)
      : inner_(std::move(inner)) {}
  history::Value invoke(const history::Call& call) override { return inner_->invoke(call); }
  std::optional<std::string> call_problem(const history::Call& call) const override {
    return inner_->call_problem(call);
  }
  std::optional<history::Value> state() override { return inner_->state(); }
  bool needs_thread_identity() const override { return true; }

 private:
  std::unique_ptr<dpct::ObjectUnderTest> inner_;
};
}  // namespace

dpct::ObjectFactory with_thread_identity(dpct::ObjectFactory factory) {
  return [factory = std::move(factory)]() -> std::unique_ptr<dpct::ObjectUnderTest> {
    std::unique_ptr<dpct::ObjectUnderTest> inner = factory();
    if (!inner) return nullptr;
    return std::make_unique<ThreadIdentityObject>(std::move(inner));
  };
}

bool register_target(std::function<Target()> make, std::string origin) {
  UserRegistry::instance().add(std::move(make), std::move(origin));
  return true;
}

std::vector<const Target*> registered() { return UserRegistry::instance().targets(); }

bool is_registered(std::string_view name) {
  for (const Target* target : registered()) {
    if (target->name == name) return true;
  }
  return false;
}

const Target& find(std::string_view name) {
  register_serial_spec();  // so that "serial(target=...)" is a model name wherever targets are
  for (const Target* target : registered()) {
    if (target->name == name) return *target;
  }
  for (const Target& target : all()) {
    if (target.name == name) return target;
  }
  if (std::optional<std::string> refused = UserRegistry::instance().failure_of(std::string(name))) {
    throw std::invalid_argument(*refused);
  }
  throw UnknownTarget(name);
}

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const Target* target : registered()) names.push_back(target->name);
  for (const Target& target : all()) names.push_back(target.name);
  return names;
}

namespace {
// Each thread's method names joined, sorted across threads: equal for workloads that run the
// same methods per thread up to argument values and thread order.
std::vector<std::string> method_shape(const std::vector<std::vector<history::Call>>& threads) {
  std::vector<std::string> shape;
  for (const std::vector<history::Call>& calls : threads) {
    std::string methods;
    for (const history::Call& call : calls) methods += call.method + ";";
    shape.push_back(std::move(methods));
  }
  std::sort(shape.begin(), shape.end());
  return shape;
}
}  // namespace

const KnownScenario* matching_known_scenario(
    const Target& target, const std::vector<std::vector<history::Call>>& threads) {
  const std::vector<std::string> shape = method_shape(threads);
  for (const KnownScenario& scenario : target.known_scenarios) {
    if (method_shape(scenario.workload.threads) == shape) return &scenario;
  }
  return nullptr;
}

CallChecker::CallChecker(const Target& target) : target_(target), stand_in_(call_checker(target)) {}

CallChecker::~CallChecker() = default;

std::optional<std::string> CallChecker::problem(const history::Call& call) const {
  const auto op =
      std::find_if(target_.operations.begin(), target_.operations.end(),
                   [&](const OperationSpec& spec) { return spec.method == call.method; });
  if (op == target_.operations.end()) return ", which is not a method of target " + target_.name;
  // Two draws of different seeds: a generator whose count varies is not checked.
  ArgumentSource first(1), second(2);
  const std::size_t arguments = op->arguments(first).size();
  if (op->arguments(second).size() == arguments && call.args.size() != arguments) {
    return ", but " + target_.name + "'s " + call.method + " takes " + std::to_string(arguments) +
           " argument" + (arguments == 1 ? "" : "s") +
           (op->signature.empty() ? "" : ": " + op->signature);
  }
  if (stand_in_) {
    if (std::optional<std::string> problem = stand_in_->call_problem(call)) {
      return ", which " + target_.name + " cannot take: " + *problem;
    }
  }
  return std::nullopt;
}

std::optional<std::string> workload_problem(const Target& target, const dpct::Workload& workload) {
  if (workload.threads.empty()) return "the workload has no concurrent threads";
  if (std::all_of(workload.threads.begin(), workload.threads.end(),
                  [](const std::vector<history::Call>& thread) { return thread.empty(); })) {
    return "the workload's concurrent threads make no calls";
  }
  const CallChecker checker(target);
  auto calls_problem = [&](const std::vector<history::Call>& calls) -> std::optional<std::string> {
    for (const history::Call& call : calls) {
      if (std::optional<std::string> problem = checker.problem(call)) {
        return "the workload calls " + call.to_string() + *problem;
      }
    }
    return std::nullopt;
  };
  if (std::optional<std::string> problem = calls_problem(workload.setup)) return problem;
  for (const std::vector<history::Call>& thread : workload.threads) {
    if (std::optional<std::string> problem = calls_problem(thread)) return problem;
  }
  if (std::optional<std::string> problem = calls_problem(workload.reveal)) return problem;
  return roles_problem(target, workload);
}

std::optional<std::string> workload_calls_failing_alone(const Target& target,
                                                        const dpct::Workload& workload) {
  // A call that spins alone ends at this cap as a livelock, which is not a refusal.
  constexpr std::uint64_t kAloneMaxSteps = 100'000;
  dpct::ExecutionOptions options;
  options.record_points = false;
  options.record_history = false;
  options.max_steps = kAloneMaxSteps;
  options.origin = "alone";
  dpct::Executor executor;
  dpct::RandomScheduler scheduler(0);  // nothing runs concurrently: no choice to make
  dpct::Workload alone;
  alone.setup = workload.setup;
  const dpct::Run setup = executor.execute(target.factory, alone, scheduler, options);
  if (setup.outcome == dpct::RunOutcome::kCrash) {
    return "the workload's setup fails on its own: " + setup.message;
  }
  std::vector<std::string> tried;
  auto failing = [&](const history::Call& call) -> std::optional<std::string> {
    const std::string text = call.to_string();
    if (std::find(tried.begin(), tried.end(), text) != tried.end()) return std::nullopt;
    tried.push_back(text);
    alone.setup = workload.setup;
    alone.setup.push_back(call);
    const dpct::Run run = executor.execute(target.factory, alone, scheduler, options);
    if (run.outcome != dpct::RunOutcome::kCrash) return std::nullopt;
    // The executor's message names the call as the setup's last ("setup call K CALL: what").
    const std::string named = text + ": ";
    const std::size_t at = run.message.find(named);
    const std::string what =
        at == std::string::npos ? run.message : run.message.substr(at + named.size());
    return "the workload calls " + text + ", which fails on a fresh " + target.name +
           " even alone after the setup (" + what + "): every run would crash";
  };
  for (const std::vector<history::Call>& thread : workload.threads) {
    for (const history::Call& call : thread) {
      if (std::optional<std::string> problem = failing(call)) return problem;
    }
  }
  for (const history::Call& call : workload.reveal) {
    if (std::optional<std::string> problem = failing(call)) return problem;
  }
  return std::nullopt;
}

namespace {
// random_call into `call`, whose method buffer is reused (the arguments are the generator's).
void draw_call_into(const Target& target, ArgumentSource& source, std::span<const unsigned> weights,
                    history::Call& call) {
  if (target.operations.empty()) {
    throw std::invalid_argument("target '" + target.name + "' has no operations");
  }
  std::size_t chosen = 0;
  if (weights.empty()) {
    const auto last = static_cast<std::int64_t>(target.operations.size()) - 1;
    chosen = static_cast<std::size_t>(source.uniform(0, last));
  } else {
    if (weights.size() != target.operations.size()) {
      throw std::invalid_argument(
          "target '" + target.name + "' has " + std::to_string(target.operations.size()) +
          " operations, but the mix gives " + std::to_string(weights.size()) + " weights");
    }
    std::int64_t total = 0;
    for (unsigned w : weights) total += w;
    if (total == 0) {
      throw std::invalid_argument("the operation mix of target '" + target.name +
                                  "' weighs every operation 0");
    }
    std::int64_t draw = source.uniform(0, total - 1);
    while (draw >= static_cast<std::int64_t>(weights[chosen])) draw -= weights[chosen++];
  }
  const OperationSpec& op = target.operations[chosen];
  call.method.assign(op.method);
  call.args = op.arguments(source);
}

void draw_calls_into(const Target& target, ArgumentSource& source, std::size_t count,
                     std::span<const unsigned> weights, std::vector<history::Call>& calls) {
  calls.resize(count);
  for (history::Call& call : calls) draw_call_into(target, source, weights, call);
}
}  // namespace

history::Call random_call(const Target& target, ArgumentSource& source,
                          std::span<const unsigned> weights) {
  history::Call call;
  draw_call_into(target, source, weights, call);
  return call;
}

dpct::Workload random_workload(const Target& target, const WorkloadShape& shape,
                               std::uint64_t seed) {
  dpct::Workload workload;
  random_workload_into(target, shape, seed, workload);
  return workload;
}

void random_workload_into(const Target& target, const WorkloadShape& shape, std::uint64_t seed,
                          dpct::Workload& workload) {
  ArgumentSource source(seed);
  draw_calls_into(target, source, shape.setup, {}, workload.setup);
  const std::size_t threads = shape.thread_ops.empty() ? shape.threads : shape.thread_ops.size();
  workload.threads.resize(threads);
  const std::vector<const ThreadRole*> roles = thread_roles(target, threads);
  std::vector<unsigned> masked;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t calls = shape.thread_ops.empty() ? shape.ops_per_thread : shape.thread_ops[t];
    std::span<const unsigned> weights = t < shape.thread_weights.size()
                                            ? std::span<const unsigned>(shape.thread_weights[t])
                                            : std::span<const unsigned>();
    if (!roles.empty()) {
      // The role's methods only, as the shape weighs them; evenly when that leaves none.
      masked.assign(target.operations.size(), 0);
      for (std::size_t k = 0; k < masked.size(); ++k) {
        const std::vector<std::string>& allowed = roles[t]->methods;
        if (std::find(allowed.begin(), allowed.end(), target.operations[k].method) ==
            allowed.end()) {
          continue;
        }
        masked[k] = weights.empty() ? 1 : weights[k];
      }
      if (std::all_of(masked.begin(), masked.end(), [](unsigned w) { return w == 0; })) {
        for (std::size_t k = 0; k < masked.size(); ++k) {
          const std::vector<std::string>& allowed = roles[t]->methods;
          masked[k] = std::find(allowed.begin(), allowed.end(), target.operations[k].method) !=
                      allowed.end();
        }
      }
      weights = masked;
    }
    draw_calls_into(target, source, calls, weights, workload.threads[t]);
  }
  draw_calls_into(target, source, shape.reveal, {}, workload.reveal);
}

std::vector<const ThreadRole*> thread_roles(const Target& target, std::size_t threads) {
  if (target.roles.empty()) return {};
  std::vector<const ThreadRole*> out;
  std::size_t bounded = 0;
  std::vector<const ThreadRole*> open;
  for (const ThreadRole& role : target.roles) {
    if (role.threads == 0) {
      open.push_back(&role);
      continue;
    }
    bounded += role.threads;
    for (std::size_t i = 0; i < role.threads && out.size() < threads; ++i) out.push_back(&role);
  }
  if (threads > bounded && open.empty()) {
    std::string roles;
    for (const ThreadRole& role : target.roles) {
      roles += (roles.empty() ? "" : ", ") + role.name + " x" + std::to_string(role.threads);
    }
    throw std::invalid_argument("the roles of target " + target.name + " (" + roles +
                                ") allow at most " + std::to_string(bounded) + " threads, not " +
                                std::to_string(threads));
  }
  for (std::size_t i = 0; out.size() < threads; ++i) out.push_back(open[i % open.size()]);
  return out;
}

std::optional<std::string> roles_problem(const Target& target, const dpct::Workload& workload) {
  if (target.roles.empty()) return std::nullopt;
  // Which roles each thread could take, then a search for an assignment within the counts.
  const std::size_t n = workload.threads.size();
  std::vector<std::vector<std::size_t>> fits(n);
  for (std::size_t t = 0; t < n; ++t) {
    for (std::size_t r = 0; r < target.roles.size(); ++r) {
      const std::vector<std::string>& allowed = target.roles[r].methods;
      const bool fits_role = std::all_of(
          workload.threads[t].begin(), workload.threads[t].end(), [&](const history::Call& call) {
            return std::find(allowed.begin(), allowed.end(), call.method) != allowed.end();
          });
      if (fits_role) fits[t].push_back(r);
    }
    if (fits[t].empty()) {
      return "thread " + std::to_string(t) + " calls methods no single role of target " +
             target.name + " may call together";
    }
  }
  std::vector<std::size_t> taken(target.roles.size(), 0);
  const std::function<bool(std::size_t)> assign = [&](std::size_t t) {
    if (t == n) return true;
    for (std::size_t r : fits[t]) {
      const std::size_t limit = target.roles[r].threads;
      if (limit != 0 && taken[r] >= limit) continue;
      ++taken[r];
      if (assign(t + 1)) return true;
      --taken[r];
    }
    return false;
  };
  if (assign(0)) return std::nullopt;
  return "the threads of the workload need more threads of a role than target " + target.name +
         " allows";
}

bool setup_waits_forever(const Target& target, const dpct::Workload& workload) {
  if (!target.may_livelock) return false;
  dpct::RandomScheduler scheduler(1);
  const dpct::Workload setup_only{workload.setup, {{}, {}}, {}};
  return dpct::ended_stuck(dpct::execute(target.factory, setup_only, scheduler).outcome);
}

}  // namespace linfault::targets
