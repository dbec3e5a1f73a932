// <linfault/target.h>: make your own concurrent object a linfault target. Public API.
//
// A target is a concurrent class bound to a sequential model (spec/registry.h names: set, bag,
// queue, queue(fifo=per-producer), stack, deque, register, cas-register, kv, priorityqueue,
// counter, snapshot, or a model of your own, <linfault/model.h>) with generators for its
// operations' arguments. With `t.model = "serial"` it needs no model at all: its own serial runs
// are the specification (Line-Up, docs/serial-spec.md), as `--spec serial` makes them for any
// target; a binding that names the object's state (`.state(&Counter::get)`: equal states answer
// every later call alike) lets those checks merge equal states, which long histories need. Register
// it once, in a source of a linfault_add_target() library, and every command of your tool
// (linfault_add_tool), the GoogleTest check (<linfault/gtest.h>) and generated repros know it by
// name:
//
//   #include <linfault/target.h>
//
//   class Counter {                       // written against the instrumentation below
//     linfault::Atomic<std::int64_t> value_{0};
//    public:
//     std::int64_t increment() { return value_.fetch_add(1) + 1; }
//     std::int64_t get() { return value_.load(); }
//   };
//
//   LINFAULT_REGISTER_TARGET([] {
//     linfault::Target t;
//     t.name = "my_counter";
//     t.model = "counter";
//     t.operations = {{"increment", linfault::no_arguments(), "increment() -> value"},
//                     {"get", linfault::no_arguments(), "get() -> value"}};
//     t.factory = linfault::Binding<Counter>()
//                     .method("increment", &Counter::increment)
//                     .method("get", &Counter::get)
//                     .factory();
//     return t;
//   });
//
// Instrumentation: every access to shared memory goes through linfault::Atomic (the interface of
// std::atomic), AtomicFlag, Var, Mutex, SharedMutex, RecursiveMutex or ConditionVariable
// (dpct/shared.h): each is a scheduling point the controlled schedulers can preempt at, with its
// source location. Controlled execution is sequentially consistent (memory orders are recorded,
// not simulated). Outside a controlled run the same code runs natively on std::atomic /
// std::mutex. A source written against the std types can stay as it is:
// linfault_add_target(... INSTRUMENT) compiles instrumented copies (structure_tree/rewriter.h).
//
// The registration's maker runs at the first lookup of a target, not during static
// initialization; a duplicate name, an unknown model, a target without operations or factory, and
// an operation that the bound object or the model cannot take (a method not bound, arguments of
// another count or kind than its generator draws, a method the model does not know) are
// reported then, naming the file and line of the registration. Checking the operations does not
// construct the object.
//
// Thread-safety: registration and lookup are thread-safe. See dpct/shared.h for the
// instrumentation and targets/bind.h for the binding.

#ifndef LINFAULT_PUBLIC_TARGET_H_
#define LINFAULT_PUBLIC_TARGET_H_

#include "dpct/shared.h"
#include "dpct/workload.h"
#include "history/history.h"
#include "history/value.h"
#include "targets/arena.h"
#include "targets/bind.h"
#include "targets/registry.h"

namespace linfault {

// Instrumentation: drop-in replacements of the std types (dpct/shared.h).
using dpct::Atomic;
using dpct::AtomicFlag;
using dpct::ConditionVariable;
using dpct::LockGuard;
using dpct::Mutex;
using dpct::RecursiveMutex;
// How traces show a value; a value type of yours can show itself with a hidden friend
// `std::string linfault_render(const T&)` that calls render_value on its parts (dpct/shared.h).
using dpct::render_value;
using dpct::SharedMutex;
using dpct::spin_hint;
using dpct::Var;

// Targets.
using targets::ArgumentGenerator;
using targets::ArgumentSource;
using targets::Binding;
using targets::cell_and_value;
using targets::distinct_cells;
using targets::key_in;
using targets::KnownScenario;
using targets::no_arguments;
using targets::NodeArena;
using targets::OperationSpec;
using targets::Target;
using targets::unique_value;

// The memory model a target's controlled runs follow by default (Target::memory_model):
// MemoryModel::kSequential, or kC11 for the C++20 model (docs/weak-memory.md).
using dpct::MemoryModel;

// Calls, values and workloads (Ps, Pc, Pr).
using dpct::Workload;
using history::Call;
using history::Value;

}  // namespace linfault

#define LINFAULT_CONCAT_INNER_(a, b) a##b
#define LINFAULT_CONCAT_(a, b) LINFAULT_CONCAT_INNER_(a, b)
#define LINFAULT_STRINGIFY_INNER_(x) #x
#define LINFAULT_STRINGIFY_(x) LINFAULT_STRINGIFY_INNER_(x)

// LINFAULT_REGISTER_TARGET(maker): registers the linfault::Target that `maker` (a function or a
// lambda taking nothing) returns. Use it at namespace scope in a source file of a
// linfault_add_target() library.
#define LINFAULT_REGISTER_TARGET(...)                                                      \
  namespace {                                                                              \
  [[maybe_unused]] const bool LINFAULT_CONCAT_(linfault_registered_target_, __COUNTER__) = \
      ::linfault::targets::register_target(__VA_ARGS__,                                    \
                                           __FILE__ ":" LINFAULT_STRINGIFY_(__LINE__));    \
  }                                                                                        \
  static_assert(true, "")

#endif  // LINFAULT_PUBLIC_TARGET_H_
