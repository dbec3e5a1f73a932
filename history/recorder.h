// Recorder: records the history of a native multi-threaded stress test, so that linfault can
// check, minimize and triage it afterwards.
//
// Public API: installed as <linfault/recorder.h>.
//
// Wrap every call your test makes on the object under test. Each call gets an invocation stamp
// before it runs and a response stamp after it returns; the stamps give the real-time order of
// the history linfault checks against a sequential model (spec/registry.h).
//
//   linfault::history::Recorder rec("queue");  // the model name, kept in the written JSON
//   // In thread t (any integer id; the ProcessId of the history):
//   auto op = rec.invoke(t, "enq", {3});       // stamps the invocation
//   q.enq(3);
//   op.ok();                                   // stamps the response: ok, result nil
//   auto x = rec.call(t, "deq", {}, [&] { return q.deq(); });  // the same in one line
//   // After joining the threads:
//   rec.write_json("queue-stress.json");       // then: linfault check queue-stress.json
//
// Contract:
//   - One open operation per process id. invoke() opens an operation for `process`; ok(result)
//     or fail(detail) on the returned handle closes it with a response. A second invoke() for a
//     process whose operation is still open throws std::logic_error and records nothing.
//   - A handle destroyed without ok()/fail() (typically because the call threw) leaves its
//     operation PENDING: it has no response event, so linfault lets it take effect at any point
//     after its invocation, or never (docs/formats.md). The process may invoke again at once.
//     call() does this for you: it records the result of `fn` as ok, or lets the exception
//     propagate and leaves the operation pending.
//   - Real-time order is exact: every stamp is a fetch_add on one sequence counter shared by all
//     threads of the recorder, taken (acquire-release) just before the call starts and just after
//     it returns, so "A's response stamp < B's invocation stamp" implies that A returned before B
//     started (A happens-before B). Operations that merely ran close together may appear to
//     overlap; that only loosens the check, it never invents a violation.
//   - Results and arguments are history::Values; call() and ok()/fail() convert common C++ types
//     with to_recorded_value() below (std::optional -> nil when empty, bool, integers, strings,
//     enums, pairs and vectors; void -> nil).
//   - An Op handle must not outlive its Recorder.
//
// Thread-safety: invoke(), call() and the Op handles may be used from any number of threads at
// once; the hot path takes no lock (each thread appends to its own chunked buffer, registered once
// per thread under a mutex, and stamps with one atomic fetch_add per event). A handle may be
// completed on another thread than the one that invoked it. history(), size(), json_text() and
// write_json() read every thread's buffer: call them only when no recording is in progress and
// the recording threads are synchronized with the caller (e.g. joined).
//
// Cost (bench/recorder/README.md, 2-core machine): about 16-25 ns per recorded operation on one
// thread, 64 bytes of memory per operation (strings, lists and calls of more than two arguments
// also use the heap). Threads recording at once share the counter's cache line, so a 2-thread
// stress loop of very cheap operations (3-8 ns each) runs 4-10 times slower when recorded: the
// run takes 20-26 ns longer per operation. Recording changes the timing of the run (fewer
// operations overlap), so a race may show up less, or more, often than without it. reserve()
// moves the page faults of the record memory out of the run.
//
// Writing the history only when a GoogleTest test failed (this library does not depend on
// GoogleTest; the predicate does):
//
//   TEST(MyQueue, Stress) {
//     linfault::history::Recorder rec("queue");
//     linfault::history::WriteJsonOnFailure guard(
//         rec, "artifacts/myqueue-stress.json", [] { return ::testing::Test::HasFailure(); });
//     ... start the threads, record, join them, EXPECT_/ASSERT_ ...
//   }  // the guard writes the file if the test failed (or an exception is unwinding)
//
// Declare the guard after the Recorder and before the threads (std::jthread), so that the threads
// are joined before the guard looks at the history. Or, at the end of the test body:
//   if (::testing::Test::HasFailure()) rec.write_json("artifacts/myqueue-stress.json");

#ifndef LINFAULT_HISTORY_RECORDER_H_
#define LINFAULT_HISTORY_RECORDER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "history/history.h"
#include "history/value.h"
#include "history/value_conversion.h"

namespace linfault::history {

// Converts the result (or an argument) of a recorded call to a Value: history::to_value
// (history/value_conversion.h), the conversion targets::Binding uses too.
template <class T>
Value to_recorded_value(T&& result) {
  return to_value(std::forward<T>(result));
}

class Recorder {
 private:
  struct Impl;
  struct Record;

 public:
  // The handle of one open operation; move-only. ok()/fail() record its response; destroying it
  // while still open leaves the operation pending. Using it after its Recorder is destroyed is
  // undefined.
  class Op {
   public:
    Op() = default;
    Op(Op&& other) noexcept
        : impl_(std::exchange(other.impl_, nullptr)),
          record_(std::exchange(other.record_, nullptr)),
          slot_(std::exchange(other.slot_, nullptr)) {}
    Op& operator=(Op&& other) noexcept {
      if (this != &other) {
        if (record_ != nullptr) abandon();
        impl_ = std::exchange(other.impl_, nullptr);
        record_ = std::exchange(other.record_, nullptr);
        slot_ = std::exchange(other.slot_, nullptr);
      }
      return *this;
    }
    Op(const Op&) = delete;
    Op& operator=(const Op&) = delete;
    ~Op() {
      if (record_ != nullptr) abandon();
    }

    // Records the response: outcome ok with a nil result / with `result` (to_recorded_value).
    // Throws std::logic_error when the handle is not open (already finished, or moved from), and
    // what to_recorded_value throws (an integer beyond 64 bits, a string that is not UTF-8), the
    // operation then left pending.
    void ok() { finish(Outcome::kOk, response_stamp(), Value()); }
    template <class T>
    void ok(T&& result) {
      respond(Outcome::kOk, std::forward<T>(result));
    }
    // Records the response: outcome fail (the call did not take effect), with a nil detail / with
    // `detail` (e.g. "timeout"). Same errors as ok().
    void fail() { finish(Outcome::kFail, response_stamp(), Value()); }
    template <class T>
    void fail(T&& detail) {
      respond(Outcome::kFail, std::forward<T>(detail));
    }

    // True until ok(), fail() or a move away.
    bool open() const { return record_ != nullptr; }
    // Leaves the operation pending now, as the destructor would. No-op on a closed handle.
    void abandon() noexcept;

   private:
    friend class Recorder;
    Op(Impl* impl, Record* record, std::atomic<Record*>* slot)
        : impl_(impl), record_(record), slot_(slot) {}

    template <class T>
    void respond(Outcome outcome, T&& result) {
      const std::uint64_t stamp = response_stamp();  // as soon as the call has returned
      Value value;
      try {
        value = to_recorded_value(std::forward<T>(result));
      } catch (...) {
        abandon();
        throw;
      }
      finish(outcome, stamp, std::move(value));
    }
    // Checks that the handle is open and takes the response stamp.
    std::uint64_t response_stamp();
    void finish(Outcome outcome, std::uint64_t stamp, Value result);

    Impl* impl_ = nullptr;
    Record* record_ = nullptr;
    std::atomic<Record*>* slot_ = nullptr;  // the open-operation slot of the op's process
  };

  // `model`: the spec/registry.h name of the sequential model ("queue", "stack", ...) written in
  // the JSON; empty for none (then `linfault check` needs --model).
  explicit Recorder(std::string model = {});
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Opens an operation of `process` and stamps its invocation. Call it just before the call on
  // the object under test. Throws std::logic_error if `process` already has an open operation.
  [[nodiscard]] Op invoke(ProcessId process, std::string_view method,
                          std::initializer_list<Value> args = {}) {
    return invoke(process, method, std::span<const Value>(args.begin(), args.size()));
  }
  [[nodiscard]] Op invoke(ProcessId process, std::string_view method, std::span<const Value> args);

  // invoke(), run `fn()`, record its result as ok (converted by to_recorded_value; void -> nil)
  // and return it. If `fn` throws, the operation stays pending and the exception propagates.
  template <class F>
  std::invoke_result_t<F&> call(ProcessId process, std::string_view method,
                                std::initializer_list<Value> args, F&& fn) {
    return call(process, method, std::span<const Value>(args.begin(), args.size()),
                std::forward<F>(fn));
  }
  template <class F>
  std::invoke_result_t<F&> call(ProcessId process, std::string_view method,
                                std::span<const Value> args, F&& fn) {
    using R = std::invoke_result_t<F&>;
    Op op = invoke(process, method, args);
    if constexpr (std::is_void_v<R>) {
      std::invoke(fn);
      op.ok();
    } else if constexpr (std::is_reference_v<R>) {
      R result = std::invoke(fn);
      op.ok(static_cast<const std::remove_reference_t<R>&>(result));
      return static_cast<R>(result);
    } else {
      R result = std::invoke(fn);
      op.ok(static_cast<const R&>(result));
      return result;
    }
  }

  const std::string& model() const;

  // Optional: allocates and touches memory for `operations` more operations now (rounded up to
  // 2 MiB chunks of 32,768), so that the recording threads take it instead of page-faulting fresh
  // memory during the run (a third of the cost of recording one operation; see
  // bench/recorder/README.md). Call it before starting the threads. 64 bytes per operation, plus
  // the heap for string or list values and for calls of more than two arguments.
  void reserve(std::size_t operations);

  // The number of operations recorded (open and pending ones included). Not during recording.
  std::size_t size() const;

  // The recorded history: events in stamp order; operations whose handle was abandoned, or is
  // still open, are pending. Not during recording (see Thread-safety).
  History history() const;

  // The history in linfault's JSON form (history/json_format.h), with the model when non-empty.
  std::string json_text() const;

  // Writes json_text() to `path` crash-safely: to a temporary file in the same directory (created
  // if missing), flushed to disk, then renamed over `path`; a reader never sees a partial file.
  // Throws std::runtime_error naming the path when the file cannot be written.
  void write_json(const std::filesystem::path& path) const;

 private:
  std::unique_ptr<Impl> impl_;
};

// Writes the recorder's history to `path` when it goes out of scope if `failed()` returns true or
// the scope is being left by an exception (e.g. failed = [] { return
// ::testing::Test::HasFailure(); }). Reports the file written, or why it could not be written, on
// stderr; never throws. See the header comment for where to declare it.
class WriteJsonOnFailure {
 public:
  WriteJsonOnFailure(const Recorder& recorder, std::filesystem::path path,
                     std::function<bool()> failed);
  ~WriteJsonOnFailure();
  WriteJsonOnFailure(const WriteJsonOnFailure&) = delete;
  WriteJsonOnFailure& operator=(const WriteJsonOnFailure&) = delete;

  // Writes nothing at scope exit.
  void dismiss() { dismissed_ = true; }
  const std::filesystem::path& path() const { return path_; }

 private:
  const Recorder& recorder_;
  std::filesystem::path path_;
  std::function<bool()> failed_;
  int uncaught_at_start_;
  bool dismissed_ = false;
};

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_RECORDER_H_
