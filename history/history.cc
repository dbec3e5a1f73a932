#include "history/history.h"

#include <algorithm>
#include <stdexcept>

namespace linfault::history {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kFail:
      return "fail";
    case Outcome::kPending:
      return "pending";
  }
  return "?";
}

std::string Call::to_string() const {
  std::string out = printable(method) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += args[i].to_string();
  }
  return out + ")";
}

std::string Operation::to_string() const {
  std::string out = "p" + std::to_string(process) + " " + call.to_string() + " -> ";
  switch (outcome) {
    case Outcome::kOk:
      out += result.to_string();
      break;
    case Outcome::kFail:
      out += result.is_nil() ? "fail" : "fail " + result.to_string();
      break;
    case Outcome::kPending:
      out += "pending";
      break;
  }
  return out;
}

bool History::precedes(OpIndex o1, OpIndex o2) const {
  const Operation& a = op(o1);
  const Operation& b = op(o2);
  return a.return_event != kNoEvent && a.return_event < b.call_event;
}

void History::set_clocks(std::vector<OperationClock> clocks) {
  if (!clocks.empty() && clocks.size() != ops_.size()) {
    throw std::invalid_argument("History::set_clocks: " + std::to_string(clocks.size()) +
                                " clocks for " + std::to_string(ops_.size()) + " operations");
  }
  clocks_ = std::move(clocks);
}

bool History::call_happens_before_return(OpIndex o1, OpIndex o2) const {
  const Operation& a = op(o1);
  const Operation& b = op(o2);
  if (b.return_event == kNoEvent) return false;
  if (a.process == b.process && a.call_event < b.return_event) return true;
  if (clocks_.empty()) return false;
  const OperationClock& x = clocks_[static_cast<std::size_t>(o1)];
  const OperationClock& y = clocks_[static_cast<std::size_t>(o2)];
  return x.thread < y.at_return.size() && y.at_return[x.thread] >= x.call;
}

History History::prefix(std::size_t n_events) const {
  n_events = std::min(n_events, events_.size());
  History out;
  out.origin_ = origin_;
  std::vector<OpIndex> new_index(ops_.size(), -1);
  for (std::size_t e = 0; e < n_events; ++e) {
    const Event& ev = events_[e];
    const Operation& original = op(ev.op);
    if (ev.kind == Event::Kind::kCall) {
      new_index[ev.op] = static_cast<OpIndex>(out.ops_.size());
      Operation o = original;
      o.call_event = static_cast<EventIndex>(e);
      o.return_event = kNoEvent;
      if (original.outcome != Outcome::kPending) {  // its response may lie beyond the cut
        o.outcome = Outcome::kPending;
        o.result = Value();
      }
      out.ops_.push_back(std::move(o));
    } else {
      Operation& o = out.ops_[new_index[ev.op]];
      o.return_event = static_cast<EventIndex>(e);
      o.outcome = original.outcome;
      o.result = original.result;
    }
    out.events_.push_back({ev.kind, new_index[ev.op]});
  }
  if (!clocks_.empty()) {
    out.clocks_.resize(out.ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      if (new_index[i] < 0) continue;
      OperationClock& clock = out.clocks_[static_cast<std::size_t>(new_index[i])];
      clock = clocks_[i];
      if (out.ops_[static_cast<std::size_t>(new_index[i])].return_event == kNoEvent) {
        clock.at_return.clear();
      }
    }
  }
  return out;
}

History History::subhistory(const std::vector<OpIndex>& keep) const {
  std::vector<OpIndex> sorted = keep;
  std::sort(sorted.begin(), sorted.end(),
            [&](OpIndex a, OpIndex b) { return op(a).call_event < op(b).call_event; });
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<OpIndex> new_index(ops_.size(), -1);
  History out;
  out.origin_ = origin_;
  for (OpIndex i : sorted) {
    new_index[i] = static_cast<OpIndex>(out.ops_.size());
    out.ops_.push_back(op(i));
  }
  for (const Event& ev : events_) {
    OpIndex ni = new_index[ev.op];
    if (ni < 0) continue;
    const auto e = static_cast<EventIndex>(out.events_.size());
    out.events_.push_back({ev.kind, ni});
    if (ev.kind == Event::Kind::kCall) {
      out.ops_[ni].call_event = e;
    } else {
      out.ops_[ni].return_event = e;
    }
  }
  if (!clocks_.empty()) {
    for (OpIndex i : sorted) out.clocks_.push_back(clocks_[static_cast<std::size_t>(i)]);
  }
  return out;
}

bool operator==(const History& a, const History& b) {
  if (a.events_ != b.events_ || a.ops_.size() != b.ops_.size()) return false;
  for (std::size_t i = 0; i < a.ops_.size(); ++i) {
    const Operation& x = a.ops_[i];
    const Operation& y = b.ops_[i];
    if (x.process != y.process || !(x.call == y.call) || !(x.result == y.result) ||
        x.outcome != y.outcome || x.call_event != y.call_event ||
        x.return_event != y.return_event || x.key != y.key) {
      return false;
    }
  }
  return true;
}

namespace {
std::string format_error(const std::string& file, std::uint32_t line, const std::string& problem) {
  std::string where = file.empty() ? "<input>" : file;
  if (line > 0) where += ":" + std::to_string(line);
  return where + ": " + problem;
}
}  // namespace

InputError::InputError(const std::string& file, std::uint32_t line, const std::string& problem)
    : std::runtime_error(format_error(printable(file), line, printable(problem))),
      file_(file),
      line_(line),
      problem_(problem) {}

void HistoryBuilder::fail(std::uint32_t line, const std::string& problem) const {
  throw InputError(origin_, line, problem);
}

void HistoryBuilder::reuse(History&& spent) {
  if (recorded_ != 0 || !history_.events_.empty()) {
    throw std::logic_error("HistoryBuilder::reuse after the first event");
  }
  history_.ops_ = std::move(spent.ops_);
  history_.events_ = std::move(spent.events_);
  history_.events_.clear();
  history_.clocks_.clear();
}

void HistoryBuilder::reserve(std::size_t operations, std::size_t events) {
  history_.ops_.reserve(operations);
  history_.events_.reserve(events);
}

Operation& HistoryBuilder::open_operation(ProcessId process, const Call& call, std::uint32_t line,
                                          std::optional<Value> key) {
  if (const OpIndex* open = open_.find(process)) {
    const Operation& o = history_.ops_[*open];
    fail(line,
         "process " + std::to_string(process) + " invokes " + call.to_string() +
             " while its call " + o.call.to_string() +
             (o.source.call_line ? " (line " + std::to_string(o.source.call_line) + ")" : "") +
             " has no response");
  }
  const auto index = static_cast<OpIndex>(recorded_);
  if (recorded_ == history_.ops_.size()) {
    history_.ops_.emplace_back();
  }
  ++recorded_;
  // A slot of a spent history starts fresh but for its call, whose buffers the caller assigns
  // into: every other field of Operation is set here (BuilderReusingSlotsBuildsWhatAFreshBuilder-
  // Builds in history_test.cc compares them with a fresh builder's).
  Operation& op = history_.ops_[index];
  op.process = process;
  if (!op.result.is_nil()) op.result = Value();
  op.outcome = Outcome::kPending;
  op.call_event = static_cast<EventIndex>(history_.events_.size());
  op.return_event = kNoEvent;
  op.key = std::move(key);
  op.source = SourceLines{.call_line = line, .return_line = 0};
  history_.events_.push_back({Event::Kind::kCall, index});
  open_.insert(process, index);
  return op;
}

OpIndex HistoryBuilder::invoke(ProcessId process, const Call& call, std::uint32_t line,
                               std::optional<Value> key) {
  Operation& op = open_operation(process, call, line, std::move(key));
  op.call = call;  // a copy assignment: into the slot's buffers when they are large enough
  return static_cast<OpIndex>(recorded_ - 1);
}

OpIndex HistoryBuilder::invoke(ProcessId process, Call&& call, std::uint32_t line,
                               std::optional<Value> key) {
  Operation& op = open_operation(process, call, line, std::move(key));
  op.call = std::move(call);
  return static_cast<OpIndex>(recorded_ - 1);
}

OpIndex HistoryBuilder::respond(ProcessId process, Outcome outcome, Value result,
                                std::uint32_t line) {
  const std::optional<OpIndex> open = open_.take(process);
  if (!open) {
    fail(line, "response for process " + std::to_string(process) + " which has no open call");
  }
  const OpIndex index = *open;
  Operation& op = history_.ops_[index];
  op.outcome = outcome;
  op.result = std::move(result);
  op.source.return_line = line;
  if (outcome != Outcome::kPending) {
    op.return_event = static_cast<EventIndex>(history_.events_.size());
    history_.events_.push_back({Event::Kind::kReturn, index});
  }
  return index;
}

OpIndex HistoryBuilder::call(ProcessId process, Call call, Value result) {
  invoke(process, std::move(call));
  return respond(process, Outcome::kOk, std::move(result));
}

std::optional<OpIndex> HistoryBuilder::open_call(ProcessId process) const {
  const OpIndex* open = open_.find(process);
  if (open == nullptr) return std::nullopt;
  return *open;
}

const OpIndex* HistoryBuilder::OpenCalls::find(ProcessId process) const {
  if (!map_.empty()) {
    const auto it = map_.find(process);
    return it == map_.end() ? nullptr : &it->second;
  }
  for (std::size_t i = 0; i < inline_size_; ++i) {
    if (inline_[i].first == process) return &inline_[i].second;
  }
  return nullptr;
}

void HistoryBuilder::OpenCalls::insert(ProcessId process, OpIndex index) {
  if (map_.empty() && inline_size_ < kInline) {
    inline_[inline_size_++] = {process, index};
    return;
  }
  if (map_.empty()) {
    map_.insert(inline_.begin(), inline_.begin() + static_cast<std::ptrdiff_t>(inline_size_));
    inline_size_ = 0;
  }
  map_.emplace(process, index);
}

std::optional<OpIndex> HistoryBuilder::OpenCalls::take(ProcessId process) {
  if (!map_.empty()) {
    const auto it = map_.find(process);
    if (it == map_.end()) return std::nullopt;
    const OpIndex index = it->second;
    map_.erase(it);
    return index;
  }
  for (std::size_t i = 0; i < inline_size_; ++i) {
    if (inline_[i].first == process) {
      const OpIndex index = inline_[i].second;
      inline_[i] = inline_[--inline_size_];
      return index;
    }
  }
  return std::nullopt;
}

void HistoryBuilder::OpenCalls::clear() {
  inline_size_ = 0;
  map_.clear();
}

History HistoryBuilder::build() && {
  open_.clear();
  history_.ops_.resize(recorded_);  // drops the spent history's slots left over
  return std::move(history_);
}

}  // namespace linfault::history
