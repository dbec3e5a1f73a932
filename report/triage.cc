#include "report/triage.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "detect/checker.h"
#include "detect/saved_run.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "minimize/history_minimizer.h"
#include "minimize/target_minimizer.h"
#include "spec/registry.h"
#include "targets/registry.h"

namespace linfault::report {
namespace {

using history::Value;
using minimize::Step;
using minimize::TestCase;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// ---- canonical form ------------------------------------------------------------------------

bool is_count_method(const std::string& method) {
  return method == "size" || method == "count" || method == "length" || method == "len";
}

// Names values by first appearance. Values first met in Ps are not named (`_`) unless Pc or Pr
// use them too, which is why Ps is rendered last.
class Renamer {
 public:
  std::string name(const Value& v, bool introduce) {
    if (v.is_list()) {
      std::string out = "[";
      for (std::size_t i = 0; i < v.as_list().size(); ++i) {
        out += (i ? " " : "") + name(v.as_list()[i], introduce);
      }
      return out + "]";
    }
    if (!v.is_int() && !v.is_string()) return v.to_string();
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    if (!introduce) return "_";
    return names_.emplace(v, "v" + std::to_string(names_.size() + 1)).first->second;
  }

  std::string result(const Step& step, bool introduce) {
    switch (step.outcome) {
      case history::Outcome::kFail:
        return "fail";
      case history::Outcome::kPending:
        return "pending";
      case history::Outcome::kOk:
        break;
    }
    // A wrong count is one symptom whatever its value, which depends on Ps and on where the
    // traversal was overtaken (unsafe_size_list answers 1 or 3 for the same race).
    if (is_count_method(step.call.method)) return "#";
    return name(step.result, introduce);
  }

  std::string step(const Step& step, bool introduce) {
    std::string out = step.call.method + "(";
    for (std::size_t i = 0; i < step.call.args.size(); ++i) {
      out += (i ? "," : "") + name(step.call.args[i], introduce);
    }
    out += ")->" + result(step, introduce);
    return step.culprit ? out + "!" : out;
  }

 private:
  std::map<Value, std::string> names_;
};

// Pc split for the canonical form: the culprit's thread as it ran, and every other call of Pc.
struct PcParts {
  std::vector<const Step*> culprit_thread;
  std::vector<const Step*> others;
};

PcParts split_pc(const TestCase& tc) {
  PcParts parts;
  for (const auto& thread : tc.pc) {
    const bool has_culprit =
        std::any_of(thread.begin(), thread.end(), [](const Step& s) { return s.culprit; });
    for (const Step& s : thread) (has_culprit ? parts.culprit_thread : parts.others).push_back(&s);
  }
  return parts;
}

// Renders with values named in the order: the culprit's thread, the other calls of Pc in
// `others_order`, Pr, then Ps (whose values only get names Pc or Pr gave them).
std::string render(const TestCase& tc, const PcParts& pc,
                   const std::vector<std::size_t>& others_order) {
  Renamer renamer;
  std::string culprit_thread;
  for (const Step* s : pc.culprit_thread) {
    culprit_thread += (culprit_thread.empty() ? "" : " ") + renamer.step(*s, true);
  }
  std::vector<std::string> others;
  for (std::size_t i : others_order) others.push_back(renamer.step(*pc.others[i], true));
  std::sort(others.begin(), others.end());
  std::string others_text;
  for (const std::string& o : others) others_text += (others_text.empty() ? "" : " ") + o;
  std::string pr;
  for (const Step& step : tc.pr) pr += (pr.empty() ? "" : " ") + renamer.step(step, true);
  std::vector<std::string> ps;
  for (const Step& step : tc.ps) ps.push_back(renamer.step(step, false));
  std::sort(ps.begin(), ps.end());
  std::string ps_text;
  for (const std::string& s : ps) ps_text += (ps_text.empty() ? "" : " ") + s;
  return "pc: " + culprit_thread + " || {" + others_text + "} ; ps: {" + ps_text + "} ; pr: " + pr;
}

// A step without its values, to order the other calls when there are too many to permute.
std::string value_free(const Step& s) {
  return s.call.method + "/" + std::to_string(s.call.args.size()) + "/" +
         history::outcome_name(s.outcome);
}

std::string culprit_of(const TestCase& tc) {
  for (const Step& s : tc.ps) {
    if (s.culprit) return "Ps " + s.call.method;
  }
  for (const auto& thread : tc.pc) {
    for (const Step& s : thread) {
      if (s.culprit) return "Pc " + s.call.method;
    }
  }
  for (const Step& s : tc.pr) {
    if (s.culprit) return "Pr " + s.call.method;
  }
  return "none";
}

// ---- loading -------------------------------------------------------------------------------

bool is_saved_run_file(const std::string& file) {
  std::ifstream in(file);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return history::is_document_kind(doc, "saved-run");
}

struct LoadedInput {
  history::History history;
  std::string model;
  std::optional<detect::SavedRun> saved_run;
  const targets::Target* target = nullptr;
};

const targets::Target& target_named(const std::string& file, const std::string& name) {
  try {
    return targets::find(name);
  } catch (const targets::UnknownTarget& e) {
    throw history::InputError(file, 0, e.what());
  }
}

LoadedInput load(const std::string& file, const TriageOptions& options) {
  LoadedInput in;
  std::optional<std::string> implied;
  try {
    history::LoadedHistory loaded = history::load_history_file(file, history::Format::kAuto);
    in.history = std::move(loaded.history);
    implied = loaded.model;
  } catch (const history::OpenError&) {
    throw;
  } catch (const history::InputError&) {
    if (!is_saved_run_file(file)) throw;
    in.saved_run = detect::read_saved_run(file);
  }
  if (in.saved_run) {
    if (!options.target.empty() && options.target != in.saved_run->target) {
      throw history::InputError(
          file, 0,
          "the run was saved from target " + in.saved_run->target + ", not " + options.target);
    }
    in.target = &target_named(file, in.saved_run->target);
    in.history = in.saved_run->history;
    in.model = in.saved_run->model;
    return in;
  }
  if (!options.target.empty()) in.target = &target_named(file, options.target);
  if (!options.model.empty()) {
    in.model = options.model;
  } else if (in.target) {
    in.model = in.target->model;
  } else if (implied) {
    in.model = *implied;
  } else {
    throw history::InputError(file, 0,
                              "the file does not say which object it records; pass --model or "
                              "--target");
  }
  if (in.target && in.target->model != in.model) {
    throw history::InputError(file, 0,
                              "target " + in.target->name + " is checked against model " +
                                  in.target->model + ", not " + in.model);
  }
  return in;
}

// ---- minimization --------------------------------------------------------------------------

minimize::TargetMinimizerOptions target_options(const TriageOptions& options) {
  minimize::TargetMinimizerOptions out;
  out.check.timeout_seconds = options.timeout_seconds;
  out.check.threads = 1;
  out.timeout_seconds = options.timeout_seconds;
  out.sampled_schedules = options.sampled_schedules;
  out.exhaustive_executions = options.exhaustive_executions;
  out.step_estimator = options.step_estimator;
  return out;
}

void minimize_history_level(const LoadedInput& in, const TriageOptions& options,
                            TriageEntry& entry) {
  minimize::HistoryMinimizerOptions hm;
  hm.check.timeout_seconds = options.timeout_seconds;
  hm.check.threads = 1;
  hm.timeout_seconds = options.timeout_seconds;
  const minimize::HistoryMinimization m = minimize::minimize_history(in.model, in.history, hm);
  if (m.original.result != detect::Result::kViolation) {
    entry.status = TriageStatus::kUnknown;
    entry.message = "history-level minimization found no violation: " + m.note;
    return;
  }
  TestCase tc = minimize::test_case_from_history(in.model, m.minimal, m.culprit);
  tc.guarantee = m.one_minimal ? "history-level, 1-minimal" : "history-level, " + m.note;
  entry.level = "history";
  entry.test_case = std::move(tc);
}

}  // namespace

const char* triage_status_name(TriageStatus status) {
  switch (status) {
    case TriageStatus::kPassing:
      return "passing";
    case TriageStatus::kFailing:
      return "failing";
    case TriageStatus::kUnknown:
      return "unknown";
    case TriageStatus::kUnreadable:
      break;
  }
  return "unreadable";
}

int TriageResult::exit_code() const {
  if (failing) return 1;
  if (unknown) return 2;
  if (unreadable) return 65;
  return 0;
}

std::vector<std::string> collect_inputs(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!std::filesystem::is_directory(path, error)) {
      out.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    auto it = std::filesystem::recursive_directory_iterator(
        path, std::filesystem::directory_options::skip_permission_denied, error);
    for (; !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (!name.empty() && name[0] == '.') {
        if (it->is_directory(error)) it.disable_recursion_pending();
        continue;
      }
      // A campaign's summary (`detect --out`, docs/scale-out.md) is not an input.
      if (name == "summary.json") continue;
      if (it->is_regular_file(error)) found.push_back(it->path().string());
    }
    if (error) out.push_back(path);  // reported as unreadable when opened
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string signature(const TestCase& tc, dpct::RunOutcome outcome) {
  const PcParts pc = split_pc(tc);
  std::vector<std::size_t> order(pc.others.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&pc](std::size_t a, std::size_t b) {
    return value_free(*pc.others[a]) < value_free(*pc.others[b]);
  });
  // Which value gets which name depends on the order the other calls are met in: the form is
  // the smallest over their orders (Pc is tiny; past 7 calls, the order by method).
  std::string best = render(tc, pc, order);
  if (order.size() <= 7) {
    std::sort(order.begin(), order.end());
    do {
      std::string form = render(tc, pc, order);
      if (form < best) best = std::move(form);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  std::string out = tc.model + " ; " + best + " ; culprit: " + culprit_of(tc);
  if (outcome != dpct::RunOutcome::kOk) out += std::string(" ; ") + dpct::run_outcome_name(outcome);
  return out;
}

TriageEntry triage_file(const std::string& file, const TriageOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  TriageEntry entry;
  entry.file = file;
  try {
    const LoadedInput in = load(file, options);
    entry.model = in.model;
    entry.operations = in.history.size();
    if (in.target) entry.target = in.target->name;

    detect::CheckOptions check;
    check.timeout_seconds = options.timeout_seconds;
    check.threads = 1;
    const detect::Verdict verdict = detect::check_history(in.model, in.history, check);
    const bool outcome_failure = in.saved_run && in.saved_run->outcome != dpct::RunOutcome::kOk;
    if (verdict.result == detect::Result::kLinearizable && !outcome_failure) {
      entry.status = TriageStatus::kPassing;
      entry.message = "linearizable";
    } else if (verdict.result == detect::Result::kUnknown && !outcome_failure) {
      entry.status = TriageStatus::kUnknown;
      entry.message = verdict.reason;
    } else {
      entry.status = TriageStatus::kFailing;
      if (in.target) {
        try {
          minimize::TargetMinimization m =
              in.saved_run
                  ? minimize::minimize_saved_run(*in.target, *in.saved_run, target_options(options))
                  : minimize::minimize_history_on_target(*in.target, in.history, std::nullopt,
                                                         target_options(options));
          entry.level = "target";
          entry.outcome = m.failing_run.outcome;
          entry.test_case = std::move(m.test_case);
        } catch (const std::invalid_argument& e) {
          // Does not fail when re-executed (e.g. a native run): the recorded history still does.
          entry.message = std::string("target-level minimization impossible (") + e.what() +
                          "); minimized the recorded history";
        }
      }
      if (!entry.test_case) {
        if (verdict.result != detect::Result::kViolation) {
          entry.status = TriageStatus::kUnknown;
          entry.message = "the run failed (" +
                          std::string(dpct::run_outcome_name(in.saved_run->outcome)) +
                          ") but cannot be re-executed, and its history is " +
                          detect::result_name(verdict.result);
        } else {
          minimize_history_level(in, options, entry);
        }
      }
      if (entry.test_case) {
        entry.signature = signature(*entry.test_case, entry.outcome);
        if (entry.message.empty()) entry.message = entry.test_case->violation;
      }
    }
  } catch (const history::InputError& e) {
    entry.status = TriageStatus::kUnreadable;
    entry.message = e.what();
  } catch (const spec::ModelSpecError& e) {
    entry.status = TriageStatus::kUnreadable;
    entry.message = file + ": " + e.what();
  } catch (const std::exception& e) {
    entry.status = TriageStatus::kUnknown;
    entry.message = std::string("internal error: ") + e.what();
  }
  entry.elapsed_ms = ms_since(start);
  return entry;
}

TriageResult triage(const std::vector<std::string>& files, const TriageOptions& options,
                    const TriageProgressFn& progress) {
  const auto start = std::chrono::steady_clock::now();
  TriageResult result;
  result.entries.resize(files.size());
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  TriageProgress state;
  state.total = files.size();
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < files.size();) {
      TriageEntry entry = triage_file(files[i], options);
      std::lock_guard<std::mutex> lock(mutex);
      ++state.done;
      state.failing += entry.status == TriageStatus::kFailing;
      state.passing += entry.status == TriageStatus::kPassing;
      state.unreadable += entry.status == TriageStatus::kUnreadable;
      state.last_file = entry.file;
      result.entries[i] = std::move(entry);
      if (progress) progress(state);
    }
  };
  unsigned jobs = options.jobs ? options.jobs : std::thread::hardware_concurrency();
  jobs =
      std::clamp<unsigned>(jobs, 1, static_cast<unsigned>(std::max<std::size_t>(files.size(), 1)));
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned j = 0; j < jobs; ++j) pool.emplace_back(worker);
    for (std::thread& t : pool) t.join();
  }

  std::map<std::string, std::vector<std::size_t>> by_signature;
  for (std::size_t i = 0; i < result.entries.size(); ++i) {
    const TriageEntry& e = result.entries[i];
    switch (e.status) {
      case TriageStatus::kPassing:
        ++result.passing;
        break;
      case TriageStatus::kFailing:
        ++result.failing;
        by_signature[e.signature].push_back(i);
        break;
      case TriageStatus::kUnknown:
        ++result.unknown;
        break;
      case TriageStatus::kUnreadable:
        ++result.unreadable;
        break;
    }
  }
  for (auto& [sig, members] : by_signature) {
    std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      const TriageEntry& x = result.entries[a];
      const TriageEntry& y = result.entries[b];
      return x.operations != y.operations ? x.operations < y.operations : x.file < y.file;
    });
    result.groups.push_back(TriageGroup{sig, std::move(members)});
  }
  std::stable_sort(result.groups.begin(), result.groups.end(),
                   [](const TriageGroup& a, const TriageGroup& b) {
                     return a.members.size() > b.members.size();
                   });
  result.elapsed_ms = ms_since(start);
  return result;
}

}  // namespace linfault::report
