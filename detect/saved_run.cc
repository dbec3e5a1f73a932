#include "detect/saved_run.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "history/atomic_file.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "spec/registry.h"

namespace linfault::detect {
namespace {

using nlohmann::json;

constexpr const char* kKind = "saved-run";
constexpr int kVersion = 1;

json calls_to_json(const std::vector<history::Call>& calls) {
  json out = json::array();
  for (const history::Call& call : calls) {
    json args = json::array();
    for (const history::Value& arg : call.args) args.push_back(history::value_to_json(arg));
    out.push_back({{"method", call.method}, {"args", args}});
  }
  return out;
}

// Reads documents with a path of field names for error messages ("workload.threads[1][0]").
class Reader {
 public:
  explicit Reader(const std::string& origin, std::string what = "saved run")
      : origin_(origin), what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw history::InputError(origin_, 0, what_ + ": " + where + ": " + problem);
  }

  // Fails on a member of `object` that is not one of `known`.
  void only(const json& object, std::initializer_list<std::string_view> known,
            const std::string& where) const {
    if (const auto name = history::unknown_field(object, known)) {
      fail(where, "unknown field \"" + *name + "\"");
    }
  }

  const json& field(const json& object, const char* name, const std::string& where) const {
    if (!object.is_object()) fail(where, "expected an object");
    auto it = object.find(name);
    if (it == object.end()) fail(where, std::string("missing field \"") + name + "\"");
    return *it;
  }

  std::string string(const json& object, const char* name, const std::string& where) const {
    const json& value = field(object, name, where);
    if (!value.is_string()) fail(where + "." + name, "expected a string");
    return value.get<std::string>();
  }

  std::uint64_t unsigned_number(const json& object, const char* name,
                                const std::string& where) const {
    const json& value = field(object, name, where);
    const bool negative =
        value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0;
    if (!value.is_number_integer() || negative) {
      fail(where + "." + name, "expected a non-negative integer");
    }
    return value.get<std::uint64_t>();
  }

  std::vector<history::Call> calls(const json& list, const std::string& where) const {
    if (!list.is_array()) fail(where, "expected an array of calls");
    std::vector<history::Call> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      history::Call call;
      call.method = string(list[i], "method", at);
      only(list[i], {"method", "args"}, at);
      const json& args = field(list[i], "args", at);
      if (!args.is_array()) fail(at + ".args", "expected an array");
      for (const json& arg : args) {
        try {
          call.args.push_back(history::value_from_json(arg));
        } catch (const std::invalid_argument& e) {
          fail(at + ".args", e.what());
        }
      }
      out.push_back(std::move(call));
    }
    return out;
  }

 private:
  const std::string& origin_;
  std::string what_;
};

dpct::Workload read_workload(const Reader& reader, const json& workload, const std::string& at) {
  dpct::Workload out;
  const std::string prefix = at.empty() ? "" : at + ".";
  if (!workload.is_object()) reader.fail(at.empty() ? "document" : at, "expected an object");
  reader.only(workload, {"setup", "threads", "reveal"}, at.empty() ? "document" : at);
  out.setup =
      reader.calls(reader.field(workload, "setup", at.empty() ? "document" : at), prefix + "setup");
  const json& threads = reader.field(workload, "threads", at.empty() ? "document" : at);
  if (!threads.is_array()) reader.fail(prefix + "threads", "expected an array of call lists");
  for (std::size_t i = 0; i < threads.size(); ++i) {
    out.threads.push_back(reader.calls(threads[i], prefix + "threads[" + std::to_string(i) + "]"));
  }
  out.reveal = reader.calls(reader.field(workload, "reveal", at.empty() ? "document" : at),
                            prefix + "reveal");
  return out;
}

Result parse_result(const Reader& reader, const std::string& name) {
  for (Result r : {Result::kLinearizable, Result::kViolation, Result::kUnknown}) {
    if (name == result_name(r)) return r;
  }
  reader.fail("verdict.result", "unknown result \"" + name + "\"");
}

dpct::RunOutcome parse_outcome(const Reader& reader, const std::string& name) {
  for (dpct::RunOutcome o : {dpct::RunOutcome::kOk, dpct::RunOutcome::kDeadlock,
                             dpct::RunOutcome::kLivelock, dpct::RunOutcome::kCrash}) {
    if (name == dpct::run_outcome_name(o)) return o;
  }
  reader.fail("outcome", "unknown outcome \"" + name + "\"");
}

bool same_workload(const dpct::Workload& a, const dpct::Workload& b) {
  return a.setup == b.setup && a.threads == b.threads && a.reveal == b.reveal;
}

}  // namespace

SavedVerdict summarize(const Verdict& verdict) {
  SavedVerdict out;
  out.result = verdict.result;
  if (verdict.result == Result::kViolation) {
    out.prefix_events = verdict.prefix_events;
    out.culprit = verdict.culprit;
    out.unsynchronized = verdict.unsynchronized;
  }
  out.reason = verdict.reason;
  return out;
}

bool operator==(const SavedRun& a, const SavedRun& b) {
  return a.target == b.target && a.model == b.model && a.seed == b.seed &&
         a.scheduling == b.scheduling && same_workload(a.workload, b.workload) &&
         a.schedule == b.schedule && a.outcome == b.outcome && a.message == b.message &&
         a.verdict == b.verdict && a.history == b.history;
}

nlohmann::json workload_to_json(const dpct::Workload& workload) {
  json threads = json::array();
  for (const auto& thread : workload.threads) threads.push_back(calls_to_json(thread));
  return {{"setup", calls_to_json(workload.setup)},
          {"threads", threads},
          {"reveal", calls_to_json(workload.reveal)}};
}

dpct::Workload workload_from_json(const nlohmann::json& doc, const std::string& origin) {
  const Reader reader(origin, "workload");
  if (doc.is_object() && doc.contains("workload")) {
    return read_workload(reader, doc["workload"], "workload");  // a saved run's
  }
  return read_workload(reader, doc, "");
}

nlohmann::json saved_run_to_json(const SavedRun& run) {
  json verdict = {{"result", result_name(run.verdict.result)}, {"reason", run.verdict.reason}};
  if (run.verdict.result == Result::kViolation) {
    verdict["prefix_events"] = run.verdict.prefix_events;
    verdict["culprit"] = run.verdict.culprit;
    if (run.verdict.unsynchronized) verdict["unsynchronized"] = true;
  }
  json out = {{"linfault", kKind},
              {"version", kVersion},
              {"target", run.target},
              {"model", run.model},
              {"seed", run.seed},
              {"scheduler",
               {{"kind", run.scheduling.kind},
                {"heuristic", run.scheduling.heuristic},
                {"round_ops", run.scheduling.round_ops},
                {"depth", run.scheduling.depth},
                {"k", run.scheduling.k},
                {"max_steps", run.scheduling.max_steps},
                {"description", run.scheduling.description}}},
              {"workload", workload_to_json(run.workload)},
              {"schedule", run.schedule.to_text()},
              {"outcome", dpct::run_outcome_name(run.outcome)},
              {"message", run.message},
              {"verdict", verdict},
              {"history", history::history_to_json(run.history, run.model)}};
  // A C++20-model run's happens-before between operations, which its verdict may rest on
  // (detect::CheckOptions::synchronization): per operation [thread, call, clock at return].
  if (!run.history.clocks().empty()) {
    json clocks = json::array();
    for (const history::OperationClock& clock : run.history.clocks()) {
      clocks.push_back(json::array({clock.thread, clock.call, clock.at_return}));
    }
    out["happens_before"] = std::move(clocks);
  }
  return out;
}

// The kinds of the runs a schedule replays: the driver's controlled schedulers (a portfolio
// records its member; a new scheduler of detect/driver.h's SchedulerKind belongs here too) and
// bounded verification's exploration.
constexpr std::string_view kControlledKinds[] = {"random", "pct",    "dpct",      "pos",
                                                 "surw",   "window", "exhaustive"};

SavedRun saved_run_from_json(const nlohmann::json& doc, const std::string& origin) {
  const Reader reader(origin);
  if (!history::is_document_kind(doc, kKind)) {
    reader.fail("document", "not a saved run (expected \"linfault\": \"saved-run\")");
  }
  if (reader.unsigned_number(doc, "version", "document") != kVersion) {
    reader.fail("version", "unsupported version (this linfault reads version 1)");
  }
  reader.only(doc,
              {"linfault", "version", "target", "model", "seed", "scheduler", "workload",
               "schedule", "outcome", "message", "verdict", "history", "happens_before"},
              "document");
  SavedRun run;
  run.target = reader.string(doc, "target", "document");
  run.model = reader.string(doc, "model", "document");
  run.seed = reader.unsigned_number(doc, "seed", "document");

  const json& scheduler = reader.field(doc, "scheduler", "document");
  run.scheduling.kind = reader.string(scheduler, "kind", "scheduler");
  reader.only(scheduler,
              {"kind", "heuristic", "round_ops", "depth", "k", "max_steps", "description"},
              "scheduler");
  const json& heuristic = reader.field(scheduler, "heuristic", "scheduler");
  if (!heuristic.is_boolean()) reader.fail("scheduler.heuristic", "expected true or false");
  run.scheduling.heuristic = heuristic.get<bool>();
  run.scheduling.round_ops = reader.unsigned_number(scheduler, "round_ops", "scheduler");
  const std::uint64_t depth = reader.unsigned_number(scheduler, "depth", "scheduler");
  if (depth > std::numeric_limits<unsigned>::max()) reader.fail("scheduler.depth", "out of range");
  run.scheduling.depth = static_cast<unsigned>(depth);
  run.scheduling.k = reader.unsigned_number(scheduler, "k", "scheduler");
  run.scheduling.max_steps = reader.unsigned_number(scheduler, "max_steps", "scheduler");
  // The kind decides how the run is replayed (a native run has no schedule to follow), so a
  // misspelt one must not pass as a controlled run; only a native run goes without a step cap.
  const bool native = run.scheduling.kind == "native";
  if (!native && std::find(std::begin(kControlledKinds), std::end(kControlledKinds),
                           run.scheduling.kind) == std::end(kControlledKinds)) {
    reader.fail("scheduler.kind", "unknown scheduler kind \"" + run.scheduling.kind +
                                      "\" (expected native, random, pct, dpct, pos, surw, window "
                                      "or exhaustive)");
  }
  if (!native && run.scheduling.max_steps == 0) {
    reader.fail("scheduler.max_steps", "must be positive for a controlled run");
  }
  run.scheduling.description = reader.string(scheduler, "description", "scheduler");

  run.workload = read_workload(reader, reader.field(doc, "workload", "document"), "workload");

  try {
    run.schedule = dpct::Schedule::from_text(reader.string(doc, "schedule", "document"));
  } catch (const dpct::ScheduleFormatError& e) {
    reader.fail("schedule", e.what());
  }
  run.outcome = parse_outcome(reader, reader.string(doc, "outcome", "document"));
  run.message = reader.string(doc, "message", "document");

  const json& verdict = reader.field(doc, "verdict", "document");
  run.verdict.result = parse_result(reader, reader.string(verdict, "result", "verdict"));
  reader.only(verdict, {"result", "reason", "prefix_events", "culprit", "unsynchronized"},
              "verdict");
  run.verdict.reason = reader.string(verdict, "reason", "verdict");
  if (run.verdict.result == Result::kViolation) {
    run.verdict.prefix_events = reader.unsigned_number(verdict, "prefix_events", "verdict");
    const std::uint64_t culprit = reader.unsigned_number(verdict, "culprit", "verdict");
    if (culprit > static_cast<std::uint64_t>(std::numeric_limits<history::OpIndex>::max())) {
      reader.fail("verdict.culprit", "out of range");
    }
    run.verdict.culprit = static_cast<history::OpIndex>(culprit);
    if (const auto flag = verdict.find("unsynchronized"); flag != verdict.end()) {
      if (!flag->is_boolean()) reader.fail("verdict.unsynchronized", "expected true or false");
      run.verdict.unsynchronized = flag->get<bool>();
    }
  }
  const json& history = reader.field(doc, "history", "document");
  run.history = history::history_from_json(history, origin);
  if (const auto model = history.find("model");
      model != history.end() && model->is_string() &&
      !spec::same_model(model->get<std::string>(), run.model)) {
    reader.fail("history.model", "\"" + model->get<std::string>() +
                                     "\" is not the saved run's model \"" + run.model + "\"");
  }
  if (const auto clocks = doc.find("happens_before"); clocks != doc.end()) {
    if (!clocks->is_array() || clocks->size() != run.history.size()) {
      reader.fail("happens_before", "expected one [thread, call, clock] per operation");
    }
    std::vector<history::OperationClock> read;
    for (const json& entry : *clocks) {
      const bool well_formed = entry.is_array() && entry.size() == 3 &&
                               entry[0].is_number_unsigned() && entry[1].is_number_unsigned() &&
                               entry[2].is_array() &&
                               std::all_of(entry[2].begin(), entry[2].end(),
                                           [](const json& x) { return x.is_number_unsigned(); });
      if (!well_formed) {
        reader.fail("happens_before",
                    "expected [thread, call, [clock entries]] of unsigned numbers");
      }
      history::OperationClock clock;
      clock.thread = entry[0].get<std::uint32_t>();
      clock.call = entry[1].get<std::uint32_t>();
      clock.at_return = entry[2].get<std::vector<std::uint32_t>>();
      read.push_back(std::move(clock));
    }
    run.history.set_clocks(std::move(read));
  }
  return run;
}

void write_saved_run(const SavedRun& run, const std::string& path, history::Durability durability) {
  history::write_file_atomically(path, history::json_text(saved_run_to_json(run), 1) + "\n",
                                 durability);
}

SavedRun read_saved_run(const std::string& path) {
  const json doc = history::read_json_file(path);
  return saved_run_from_json(doc, path);
}

}  // namespace linfault::detect
