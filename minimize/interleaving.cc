#include "minimize/interleaving.h"

#include <algorithm>
#include <map>

#include "minimize/test_case.h"

namespace linfault::minimize {
namespace {

using history::OpIndex;
using Kind = InterleavingRow::Kind;

constexpr const char* kCulpritMark = "  <== not linearizable";
constexpr const char* kBlockedCulpritMark = "  <== never returns, though no serial order blocks";

constexpr const char* kUnsynchronizedMark =
    "  <== unsynchronized: took an element whose insertion does not happen-before it";
constexpr const char* kSourceMark = "  <== put in the element taken without synchronisation";

const char* mark_of(const InterleavingRow& row) {
  if (row.source) return kSourceMark;
  if (!row.culprit) return "";
  if (row.unsynchronized) return kUnsynchronizedMark;
  return row.blocked ? kBlockedCulpritMark : kCulpritMark;
}

const history::Call* call_at(const dpct::Workload& workload, const CallPosition& position) {
  const std::vector<history::Call>* calls = &workload.setup;
  if (position.phase == dpct::Phase::kConcurrent) {
    if (position.thread >= workload.threads.size()) return nullptr;
    calls = &workload.threads[position.thread];
  } else if (position.phase == dpct::Phase::kReveal) {
    calls = &workload.reveal;
  }
  return position.index < calls->size() ? &(*calls)[position.index] : nullptr;
}

std::string result_text(const history::Operation& op) {
  switch (op.outcome) {
    case history::Outcome::kOk:
      return op.call.to_string() + " -> " + op.result.to_string();
    case history::Outcome::kFail:
      return op.call.to_string() + " -> fail" +
             (op.result.is_nil() ? "" : " " + op.result.to_string());
    case history::Outcome::kPending:
      break;
  }
  return op.call.to_string() + " never returned (pending)";
}

std::string who(const InterleavingRow& row) {
  switch (row.phase) {
    case dpct::Phase::kSetup:
      return "Ps";
    case dpct::Phase::kReveal:
      return "Pr";
    case dpct::Phase::kConcurrent:
      break;
  }
  return "t" + std::to_string(row.thread);
}

// The old one-line-per-access value column: what the access read and wrote.
std::string read_and_written(const dpct::TraceStep& step) {
  const bool reads = step.kind != dpct::AccessKind::kStore;
  const bool writes =
      step.kind != dpct::AccessKind::kLoad && step.kind != dpct::AccessKind::kWait && step.success;
  std::string value;
  if (reads && !step.read.empty()) value += "read " + step.read;
  if (writes && !step.written.empty()) {
    value += (value.empty() ? "" : ", ") + ("wrote " + step.written);
  }
  if (!step.success) value += value.empty() ? "failed" : " (failed)";
  if (!step.stale.empty()) value += " (stale: " + step.stale + ")";
  return value;
}

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string cell_of(const InterleavingRow& row) {
  switch (row.kind) {
    case Kind::kStart:
      return row.operation;
    case Kind::kAccess:
      return "  " + row.text;
    case Kind::kReturn:
      break;
  }
  return row.text + mark_of(row);
}

void sequential_section(std::string& out, const std::string& title,
                        const std::vector<const InterleavingRow*>& rows) {
  out += title + (rows.empty() ? " (none)\n" : "\n");
  for (const InterleavingRow* row : rows) {
    out += right(row->kind == Kind::kAccess ? std::to_string(row->step) : "", 6) + "  " +
           cell_of(*row) + "\n";
  }
}

// What the access did, without its memory order.
std::string describe_value_access(const dpct::TraceStep& step) {
  const std::string kind = dpct::access_kind_name(step.kind);
  switch (step.kind) {
    case dpct::AccessKind::kLoad:
      return kind + " " + step.read;
    case dpct::AccessKind::kWait:
      return step.read.empty() ? kind : kind + " (saw " + step.read + ")";
    case dpct::AccessKind::kStore:
      return kind + " " + step.written;
    case dpct::AccessKind::kExchange:
    case dpct::AccessKind::kFetchAdd:
    case dpct::AccessKind::kFetchSub:
    case dpct::AccessKind::kFetchAnd:
    case dpct::AccessKind::kFetchOr:
    case dpct::AccessKind::kFetchXor:
      return kind + " " + step.read + " -> " + step.written;
    case dpct::AccessKind::kCompareExchange:
      return step.success ? kind + " " + step.read + " -> " + step.written
                          : kind + " failed (found " + step.read + ")";
    case dpct::AccessKind::kTryLock:
    case dpct::AccessKind::kTryLockShared:
      return step.success ? kind : kind + " failed";
    case dpct::AccessKind::kLock:
    case dpct::AccessKind::kUnlock:
    case dpct::AccessKind::kYield:
    case dpct::AccessKind::kNotifyOne:
    case dpct::AccessKind::kNotifyAll:
    case dpct::AccessKind::kLockShared:
    case dpct::AccessKind::kUnlockShared:
      break;
  }
  return kind;
}

// " [acquire]", " [acq_rel/relaxed]" for a compare-exchange; nothing for seq_cst, the default.
std::string describe_order(const dpct::TraceStep& step) {
  const bool cas = step.kind == dpct::AccessKind::kCompareExchange;
  if (step.order == std::memory_order_seq_cst &&
      (!cas || step.failure_order == std::memory_order_seq_cst)) {
    return "";
  }
  std::string text = std::string(" [") + dpct::memory_order_name(step.order);
  if (cas) text += std::string("/") + dpct::memory_order_name(step.failure_order);
  return text + "]";
}

}  // namespace

std::string describe_access(const dpct::TraceStep& step) {
  return describe_value_access(step) + describe_order(step) +
         (step.stale.empty() ? "" : " (stale: " + step.stale + ")");
}

std::vector<InterleavingRow> interleaving_rows(const dpct::Workload& workload, const dpct::Run& run,
                                               std::optional<OpIndex> culprit,
                                               std::optional<OpIndex> source) {
  const history::History& history = run.history;
  const std::vector<CallPosition> positions = call_positions(workload, history);
  std::map<CallPosition, OpIndex> op_at;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    op_at[positions[i]] = static_cast<OpIndex>(i);
  }

  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> first_access(history.size(), kNone);
  std::vector<std::size_t> last_access(history.size(), kNone);
  std::vector<OpIndex> op_of_step(run.trace.size(), -1);
  for (std::size_t t = 0; t < run.trace.size(); ++t) {
    const dpct::TraceStep& step = run.trace[t];
    auto it = op_at.find(CallPosition{step.phase, step.thread, step.op_index});
    if (it == op_at.end()) continue;
    const auto i = static_cast<std::size_t>(it->second);
    op_of_step[t] = it->second;
    if (first_access[i] == kNone) first_access[i] = t;
    last_access[i] = t;
  }

  std::vector<InterleavingRow> rows;
  auto operation_row = [&](Kind kind, OpIndex op) {
    const CallPosition& at = positions[static_cast<std::size_t>(op)];
    InterleavingRow row;
    row.kind = kind;
    row.phase = at.phase;
    row.thread = at.thread;
    row.op_index = at.index;
    row.op = op;
    row.operation = history.op(op).call.to_string();
    if (kind == Kind::kReturn) {
      row.text = result_text(history.op(op));
      row.culprit = culprit && *culprit == op;
      row.unsynchronized = row.culprit && source.has_value();
      row.source = source && *source == op;
      if (!history.op(op).completed() && dpct::ended_stuck(run.outcome)) {
        row.blocked = true;
        row.text = row.operation + " blocks forever (the run ended in a " +
                   dpct::run_outcome_name(run.outcome) + ")";
      }
    }
    rows.push_back(std::move(row));
  };
  // Emits the history's events up to the point just before access `t`: an invocation once its
  // first access is due, a response once its last access is done (atomic operations at once).
  std::size_t next_event = 0;
  auto flush_events = [&](std::size_t t) {
    for (; next_event < history.events().size(); ++next_event) {
      const history::Event& event = history.events()[next_event];
      const auto i = static_cast<std::size_t>(event.op);
      const bool due = event.kind == history::Event::Kind::kCall
                           ? first_access[i] == kNone || first_access[i] <= t
                           : last_access[i] == kNone || last_access[i] < t;
      if (!due) return;
      operation_row(event.kind == history::Event::Kind::kCall ? Kind::kStart : Kind::kReturn,
                    event.op);
    }
  };

  for (std::size_t t = 0; t < run.trace.size(); ++t) {
    flush_events(t);
    const dpct::TraceStep& step = run.trace[t];
    InterleavingRow row;
    row.kind = Kind::kAccess;
    row.phase = step.phase;
    row.thread = step.thread;
    row.op_index = step.op_index;
    row.op = op_of_step[t];
    row.step = t + 1;
    const history::Call* call =
        call_at(workload, CallPosition{step.phase, step.thread, step.op_index});
    row.operation = call ? call->to_string() : "?";
    row.text = describe_access(step) + " (" + step.file + ":" + std::to_string(step.line) + ")";
    rows.push_back(std::move(row));
  }
  flush_events(run.trace.size());
  for (std::size_t i = 0; i < history.size(); ++i) {
    if (!history.op(static_cast<OpIndex>(i)).completed()) {
      operation_row(Kind::kReturn, static_cast<OpIndex>(i));
    }
  }
  return rows;
}

std::string format_interleaving_columns(const dpct::Workload& workload, const dpct::Run& run,
                                        std::optional<OpIndex> culprit,
                                        std::optional<OpIndex> source) {
  const std::vector<InterleavingRow> rows = interleaving_rows(workload, run, culprit, source);
  std::vector<const InterleavingRow*> setup, concurrent, reveal;
  for (const InterleavingRow& row : rows) {
    (row.phase == dpct::Phase::kSetup        ? setup
     : row.phase == dpct::Phase::kConcurrent ? concurrent
                                             : reveal)
        .push_back(&row);
  }

  std::string out = "interleaving (" + std::to_string(run.trace.size()) + " shared accesses):\n";
  // Ps and Pr run on the executor's own thread, not on Pc's thread 0 (a lock Ps leaves held is
  // not thread 0's), though the history records their calls under process 0.
  sequential_section(out, "Ps, sequential, before Pc:", setup);

  const std::size_t threads = workload.threads.size();
  out += "Pc, concurrent:" + std::string(threads == 0 ? " (none)\n" : "\n");
  if (threads > 0) {
    std::vector<std::string> headers;
    std::vector<std::size_t> widths;
    for (std::size_t t = 0; t < threads; ++t) {
      headers.push_back("thread " + std::to_string(t));
      widths.push_back(headers.back().size());
    }
    for (const InterleavingRow* row : concurrent) {
      if (row->thread < threads) {
        widths[row->thread] = std::max(widths[row->thread], cell_of(*row).size());
      }
    }
    auto line = [&](const std::string& step, std::size_t column, const std::string& cell) {
      std::string text = right(step, 6) + "  ";
      for (std::size_t t = 0; t < threads; ++t) {
        const std::string& content = t == column ? cell : std::string();
        text += (t ? " | " : "") + pad(content, t + 1 == threads ? 0 : widths[t]);
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      return text + "\n";
    };
    std::string header = right("step", 6) + "  ";
    for (std::size_t t = 0; t < threads; ++t) {
      header += (t ? " | " : "") + pad(headers[t], t + 1 == threads ? 0 : widths[t]);
    }
    out += header + "\n";
    for (const InterleavingRow* row : concurrent) {
      out += line(row->kind == Kind::kAccess ? std::to_string(row->step) : "", row->thread,
                  cell_of(*row));
    }
  }
  sequential_section(out, "Pr, sequential, after every Pc thread returned:", reveal);
  return out;
}

std::string format_interleaving_compact(const dpct::Workload& workload, const dpct::Run& run,
                                        std::optional<OpIndex> culprit,
                                        std::optional<OpIndex> source) {
  const std::vector<InterleavingRow> rows = interleaving_rows(workload, run, culprit, source);
  std::string out = "interleaving (" + std::to_string(run.trace.size()) + " shared accesses):\n";
  auto line = [](const std::string& step, const std::string& who, const std::string& operation,
                 const std::string& access, const std::string& at, const std::string& value) {
    std::string text = right(step, 6) + "  " + pad(who, 4) + " " + pad(operation, 22) + " " +
                       pad(access, 10) + " " + pad(at, 24) + " " + value;
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  out += line("step", "who", "operation", "access", "at", "value");
  for (const InterleavingRow& row : rows) {
    const std::string operation = "#" + std::to_string(row.op_index) + " " + row.operation;
    std::string step, access, at, value;
    switch (row.kind) {
      case Kind::kStart:
        access = "call";
        break;
      case Kind::kReturn:
        access = "return";
        value = row.text + mark_of(row);
        break;
      case Kind::kAccess: {
        const dpct::TraceStep& trace_step = run.trace[row.step - 1];
        step = std::to_string(row.step);
        access = dpct::access_kind_name(trace_step.kind);
        at = trace_step.file + ":" + std::to_string(trace_step.line);
        value = read_and_written(trace_step);
        break;
      }
    }
    out += line(step, who(row), operation, access, at, value);
  }
  return out;
}

std::string format_interleaving(const dpct::Workload& workload, const dpct::Run& run,
                                const InterleavingOptions& options) {
  if (options.compact) {
    return format_interleaving_compact(workload, run, options.culprit, options.source);
  }
  std::string columns = format_interleaving_columns(workload, run, options.culprit, options.source);
  if (options.max_width > 0) {
    std::size_t start = 0;
    while (start < columns.size()) {
      std::size_t end = columns.find('\n', start);
      if (end == std::string::npos) end = columns.size();
      if (end - start > options.max_width) {
        return format_interleaving_compact(workload, run, options.culprit, options.source);
      }
      start = end + 1;
    }
  }
  return columns;
}

}  // namespace linfault::minimize
