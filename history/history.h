// History: what a concurrent run did, as a totally ordered list of invocation and response events.
//
// This is the vocabulary every stage speaks (docs/formats.md documents its JSON form):
//   - an Operation is one call: who (process), what (method, args), what came back (result), and
//     how it ended (Outcome);
//   - an Event is the invocation or the response of one operation; History::events() is their
//     total order, which defines real-time order: o1 precedes o2 iff o1's response comes before
//     o2's invocation.
//
// Outcomes:
//   kOk      completed with `result`.
//   kFail    the response says the call failed. By default it did not take effect (Jepsen's
//            :fail); a sequential model may instead give failed calls a meaning of its own (the
//            etcd cas-register reads a failed cas as "cas returned false"). `result` may hold a
//            failure detail (e.g. :timed-out), or nil.
//   kPending no response (a crashed or timed-out call, Jepsen's :info, or a history cut short):
//            it may take effect at any point after its invocation, or never. A pending operation
//            has no response event, even when a response saying "outcome unknown" was read
//            (Jepsen :info): such a response does not bound the operation in real time.
//
// Construction goes through HistoryBuilder, which enforces well-formedness (one open call per
// process, responses match an open call) and reports violations as errors with the caller's
// source position, so readers can say "file:line: problem".
//
// Thread-safety: a finished History is immutable and may be shared between threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_HISTORY_H_
#define LINFAULT_HISTORY_HISTORY_H_

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "history/value.h"

namespace linfault::history {

using ProcessId = std::int64_t;
using OpIndex = std::int32_t;
using EventIndex = std::int32_t;
inline constexpr EventIndex kNoEvent = -1;

enum class Outcome : std::uint8_t { kOk, kFail, kPending };
const char* outcome_name(Outcome o);

// Where an operation came from in its input file (1-based lines; 0 = unknown).
struct SourceLines {
  std::uint32_t call_line = 0;
  std::uint32_t return_line = 0;
};

// A call: a method name and its arguments. Used on its own for programs (Ps/Pc/Pr) that are not
// yet executed.
struct Call {
  std::string method;
  std::vector<Value> args;

  std::string to_string() const;  // "push(3)", "cas(1, 2)", "size()"
  friend bool operator==(const Call&, const Call&) = default;
};

struct Operation {
  ProcessId process = 0;
  Call call;
  Value result;  // meaningful for kOk; a failure detail or nil for kFail; nil for kPending
  Outcome outcome = Outcome::kPending;
  EventIndex call_event = kNoEvent;
  EventIndex return_event = kNoEvent;  // kNoEvent when no response was ever seen
  std::optional<Value> key;            // the partition key a reader found (Jepsen :key), if any
  SourceLines source;

  // True when the operation has a response that bounds it in real time.
  bool completed() const { return outcome != Outcome::kPending; }
  // "p2 push(3) -> ok" / "p0 read() -> 1" / "p4 write(2) -> pending"
  std::string to_string() const;
};

// Happens-before between operations, which a controlled run under the C++20 memory model knows
// (dpct, memory model c11) and a recorded history does not: the logical thread that ran the
// operation, the entry of that thread's happens-before clock at its call, and the thread's whole
// clock at its return (empty while it is pending). Operation a's call happens-before b's return
// when b's clock at return has reached a's call entry.
struct OperationClock {
  std::uint32_t thread = 0;
  std::uint32_t call = 0;
  std::vector<std::uint32_t> at_return;
  friend bool operator==(const OperationClock&, const OperationClock&) = default;
};

struct Event {
  enum class Kind : std::uint8_t { kCall, kReturn };
  Kind kind;
  OpIndex op;
  friend bool operator==(const Event&, const Event&) = default;
};

class History {
 public:
  History() = default;

  const std::vector<Operation>& operations() const { return ops_; }
  const std::vector<Event>& events() const { return events_; }
  const Operation& op(OpIndex i) const { return ops_.at(static_cast<std::size_t>(i)); }
  std::size_t size() const { return ops_.size(); }
  bool empty() const { return ops_.empty(); }

  // Free-form description of where the history came from (a file name), for messages.
  const std::string& origin() const { return origin_; }
  void set_origin(std::string origin) { origin_ = std::move(origin); }

  // o1 precedes o2 in real time: o1 completed and its response comes before o2's invocation.
  bool precedes(OpIndex o1, OpIndex o2) const;

  // Happens-before between operations (OperationClock), one per operation, when the run that
  // made the history knew it; empty otherwise. prefix() and subhistory() keep it; == ignores it.
  const std::vector<OperationClock>& clocks() const { return clocks_; }
  // Throws std::invalid_argument unless there is one per operation (or none).
  void set_clocks(std::vector<OperationClock> clocks);
  // o1's call happens-before o2's return: o1 comes first in the same process, or the clocks say
  // so. False when the history has no clocks or o2 has not returned.
  bool call_happens_before_return(OpIndex o1, OpIndex o2) const;

  // The history made of the first `n_events` events: operations whose response lies beyond the
  // cut become pending, operations invoked beyond it disappear. Operation indices are kept in
  // invocation order, so the result's op i corresponds to the i-th invocation.
  History prefix(std::size_t n_events) const;

  // The sub-history made of the operations in `keep` (indices into operations()), events in the
  // same relative order.
  History subhistory(const std::vector<OpIndex>& keep) const;

  friend bool operator==(const History&, const History&);

 private:
  friend class HistoryBuilder;
  std::vector<Operation> ops_;
  std::vector<Event> events_;
  std::string origin_;
  std::vector<OperationClock> clocks_;
};

// Thrown by readers and by HistoryBuilder for malformed input. what() is one line:
// "file:line: problem" when the position is known.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, std::uint32_t line, const std::string& problem);
  const std::string& file() const { return file_; }
  std::uint32_t line() const { return line_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::uint32_t line_;
  std::string problem_;
};

// Builds a well-formed History event by event.
class HistoryBuilder {
 public:
  explicit HistoryBuilder(std::string origin = "") : origin_(std::move(origin)) {
    history_.origin_ = origin_;
  }

  // Room for this many operations and events (readers call it with an estimate; optional).
  void reserve(std::size_t operations, std::size_t events);
  // Records into the buffers of `spent`, a history no longer needed (call before the first
  // event, and before reserve(), whose room it would drop): a caller recording history after
  // history allocates them once. Its operations are kept as slots: the i-th invocation is copied
  // into the i-th spent operation's call, whose method and argument buffers it reuses; every other
  // field starts fresh. build() drops the slots left over.
  void reuse(History&& spent);

  // Appends an invocation. Fails if `process` already has an open call. Returns the op index.
  OpIndex invoke(ProcessId process, const Call& call, std::uint32_t line = 0,
                 std::optional<Value> key = std::nullopt);
  OpIndex invoke(ProcessId process, Call&& call, std::uint32_t line = 0,
                 std::optional<Value> key = std::nullopt);
  // Appends the response of `process`'s open call. Fails if it has none. For kPending (an
  // outcome reported as unknown) no event is appended: the call is closed for its process but the
  // operation stays pending (return_event == kNoEvent; source.return_line records the line).
  OpIndex respond(ProcessId process, Outcome outcome, Value result, std::uint32_t line = 0);

  // Appends a complete call and response in one go (sequential programs, tests).
  OpIndex call(ProcessId process, Call call, Value result);

  bool has_open_call(ProcessId process) const { return open_.find(process) != nullptr; }
  // The open call of `process`, if any.
  std::optional<OpIndex> open_call(ProcessId process) const;

  // Finishes the history; calls still open stay pending with no response event.
  History build() &&;

 private:
  [[noreturn]] void fail(std::uint32_t line, const std::string& problem) const;
  // Opens the next operation for `process` (its call left for the caller to assign) and returns
  // it; `call` only names it in the error when the process already has a call open.
  Operation& open_operation(ProcessId process, const Call& call, std::uint32_t line,
                            std::optional<Value> key);

  // The open call of each process. Histories have a few processes with a call open at once
  // (a controlled run's threads, a test's clients): they are searched in a small array without
  // allocating; past kInline at once the table moves to a hash map until they are all closed.
  class OpenCalls {
   public:
    const OpIndex* find(ProcessId process) const;
    void insert(ProcessId process, OpIndex index);  // `process` has no open call
    // Removes and returns `process`'s open call; nullopt (and no change) if it has none.
    std::optional<OpIndex> take(ProcessId process);
    void clear();

   private:
    static constexpr std::size_t kInline = 16;
    std::array<std::pair<ProcessId, OpIndex>, kInline> inline_{};
    std::size_t inline_size_ = 0;
    std::unordered_map<ProcessId, OpIndex> map_;  // in use while it is not empty
  };

  std::string origin_;
  History history_;
  // history_.ops_[0, recorded_) are this history's operations; the rest are slots from reuse().
  std::size_t recorded_ = 0;
  OpenCalls open_;
};

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_HISTORY_H_
