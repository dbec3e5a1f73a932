// `linfault merge --out OUT DIR...`: combines the directories written by the N shards of one
// `detect --out`, `run --out` or `verify --out` campaign (`--shard i/N`, tool/campaign.h) into the
// directory the unsharded run writes: the same summary.json, byte for byte, and the same saved
// runs.
//
// Every shard must be present once, finished, and of the same campaign; anything else is a data
// error naming the file. docs/scale-out.md shows it behind CI matrices, Kubernetes and Slurm.

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/driver.h"
#include "detect/saved_run.h"
#include "history/atomic_file.h"
#include "history/formats.h"
#include "tool/campaign.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct MergeArguments {
  std::vector<std::string> inputs;
  std::string out;
};

struct ShardInput {
  fs::path dir;
  fs::path file;  // its summary.json
  json summary;
  Shard shard;
};

[[noreturn]] void fail(const fs::path& file, const std::string& problem) {
  throw history::InputError(file.string(), 0, problem);
}

std::uint64_t unsigned_field(const ShardInput& in, const json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_number_unsigned()) {
    fail(in.file, std::string("field \"") + name + "\": expected a non-negative integer");
  }
  return it->get<std::uint64_t>();
}

ShardInput read_shard(const std::string& path) {
  ShardInput in;
  in.dir = path;
  if (fs::is_regular_file(in.dir)) {  // the summary itself was named
    in.file = in.dir;
    in.dir = in.dir.parent_path().empty() ? fs::path(".") : in.dir.parent_path();
  } else {
    in.file = in.dir / kSummaryFile;
  }
  in.summary = read_summary(in.file);
  if (!in.summary.contains("campaign") || !in.summary["campaign"].is_object()) {
    fail(in.file, "field \"campaign\": expected an object");
  }
  const json& shard = in.summary.value("shard", json());
  if (!shard.is_object()) fail(in.file, "field \"shard\": expected an object");
  in.shard.index = unsigned_field(in, shard, "index");
  in.shard.count = unsigned_field(in, shard, "count");
  if (in.shard.count == 0 || in.shard.index >= in.shard.count) {
    fail(in.file, "field \"shard\": " + in.shard.text() + " is not a shard i/N with i < N");
  }
  if (in.summary.value("complete", false) != true) {
    fail(in.file, "shard " + in.shard.text() +
                      " did not finish (\"complete\": false): rerun it before merging");
  }
  return in;
}

// The first field where two campaigns differ, for the message.
std::string first_difference(const json& a, const json& b) {
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key)) return "\"" + key + "\" is missing there";
    if (b[key] != value) {
      return "\"" + key + "\" is " + value.dump() + ", there " + b[key].dump();
    }
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) return "\"" + key + "\" is only there";
  }
  return "they differ";
}

// Every shard once, of one campaign, ordered by index.
std::vector<ShardInput> check_shards(std::vector<ShardInput> shards) {
  const ShardInput& first = shards.front();
  const std::string kind = first.summary["linfault"];
  std::map<std::uint64_t, const ShardInput*> by_index;
  for (const ShardInput& in : shards) {
    if (in.summary["linfault"] != kind) {
      fail(in.file, "a " + in.summary["linfault"].get<std::string>() + ", but " +
                        first.file.string() + " is a " + kind + ": not one campaign");
    }
    if (in.summary["campaign"] != first.summary["campaign"]) {
      fail(in.file, "another campaign than " + first.file.string() + "'s: " +
                        first_difference(in.summary["campaign"], first.summary["campaign"]));
    }
    if (in.shard.count != first.shard.count) {
      fail(in.file, "shard " + in.shard.text() + ", but " + first.file.string() + " is shard " +
                        first.shard.text() + ": the campaign was split differently");
    }
    const auto [it, inserted] = by_index.emplace(in.shard.index, &in);
    if (!inserted) {
      fail(in.file, "shard " + in.shard.text() + " again (also " + it->second->file.string() + ")");
    }
  }
  if (by_index.size() != first.shard.count) {
    std::string missing;
    for (std::uint64_t i = 0; i < first.shard.count && missing.size() < 60; ++i) {
      if (!by_index.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    }
    fail(first.file, "shards of " + std::to_string(first.shard.count) + " are missing (" + missing +
                         (missing.size() >= 60 ? ", ..." : "") + "): give one " +
                         "directory per shard");
  }
  std::sort(shards.begin(), shards.end(),
            [](const ShardInput& a, const ShardInput& b) { return a.shard.index < b.shard.index; });
  return shards;
}

// The saved runs of a detect shard, checked against its summary, by history index.
std::map<std::uint64_t, fs::path> saved_runs(const ShardInput& in) {
  std::map<std::uint64_t, fs::path> found;
  const json& campaign = in.summary["campaign"];
  const std::string target = campaign.value("target", "");
  const std::uint64_t seed = campaign.value("seed", std::uint64_t{0});
  const std::uint64_t histories = campaign.value("histories", std::uint64_t{0});
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(in.dir)) {
    const std::string name = entry.path().filename().string();
    if (name == kSummaryFile || name.empty() || name[0] == '.') continue;  // temporaries too
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  const std::string prefix = target + "-";
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    const std::string digits = name.size() > prefix.size() + 5 && name.rfind(prefix, 0) == 0 &&
                                       name.compare(name.size() - 5, 5, ".json") == 0
                                   ? name.substr(prefix.size(), name.size() - prefix.size() - 5)
                                   : "";
    std::optional<std::uint64_t> run_seed;
    if (!digits.empty() && digits.size() <= 20 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      try {
        run_seed = std::stoull(digits);
      } catch (const std::out_of_range&) {
      }
    }
    const std::uint64_t index = run_seed ? detect::history_index(seed, *run_seed) : histories;
    if (index >= histories || !in.shard.selects(index)) {
      fail(file, "not a run saved by shard " + in.shard.text() + " of this campaign (expected " +
                     prefix + "<seed>.json for a seed of its histories)");
    }
    const detect::SavedRun run = detect::read_saved_run(file.string());
    if (run.seed != *run_seed || run.target != target) {
      fail(file, "its content is seed " + std::to_string(run.seed) + " of " + run.target +
                     ", not what its name says");
    }
    found.emplace(index, file);
  }
  const std::uint64_t said = unsigned_field(in, in.summary, "saved");
  if (files.size() != said) {
    fail(in.file, "says " + std::to_string(said) + " saved runs, but " + in.dir.string() +
                      " holds " + std::to_string(files.size()));
  }
  return found;
}

json merge_detect(const std::vector<ShardInput>& shards, const fs::path& out) {
  json merged = shards.front().summary;
  const std::uint64_t seed = merged["campaign"].value("seed", std::uint64_t{0});
  std::uint64_t histories = 0, violations = 0, unknown = 0;
  std::map<std::string, std::uint64_t> outcomes;
  std::map<std::uint64_t, fs::path> runs;  // by history index
  std::optional<std::uint64_t> first_index;
  for (const ShardInput& in : shards) {
    histories += unsigned_field(in, in.summary, "histories");
    violations += unsigned_field(in, in.summary, "violations");
    unknown += unsigned_field(in, in.summary, "unknown");
    if (!in.summary.contains("outcomes") || !in.summary["outcomes"].is_object()) {
      fail(in.file, "field \"outcomes\": expected an object");
    }
    for (const auto& [name, count] : in.summary["outcomes"].items()) {
      if (!count.is_number_unsigned()) fail(in.file, "outcomes." + name + ": expected a count");
      outcomes[name] += count.get<std::uint64_t>();
    }
    const json& first = in.summary.value("first_failing_seed", json());
    if (first.is_number_unsigned()) {
      const std::uint64_t index = detect::history_index(seed, first.get<std::uint64_t>());
      if (!in.shard.selects(index)) {
        fail(in.file, "first_failing_seed " + first.dump() + " is not a history of shard " +
                          in.shard.text());
      }
      if (!first_index || index < *first_index) first_index = index;
    } else if (!first.is_null()) {
      fail(in.file, "field \"first_failing_seed\": expected a seed or null");
    }
    runs.merge(saved_runs(in));
  }
  // Each shard kept the failing runs of its lowest indices up to keep_runs: the campaign's lowest
  // are among them, and the merge keeps those, as the unsharded run does.
  const std::uint64_t keep = merged.value("keep_runs", std::numeric_limits<std::uint64_t>::max());
  std::uint64_t saved = 0;
  for (const auto& [index, file] : runs) {
    if (saved == keep) break;
    history::write_file_atomically(out / file.filename(), history::read_file(file.string()),
                                   history::Durability::kProcessSafe);
    ++saved;
  }
  if (histories != merged["campaign"].value("histories", std::uint64_t{0})) {
    fail(shards.front().file, "the shards ran " + std::to_string(histories) +
                                  " histories, the campaign has " +
                                  merged["campaign"]["histories"].dump());
  }
  merged["histories"] = histories;
  merged["violations"] = violations;
  merged["unknown"] = unknown;
  merged["outcomes"] = outcomes;
  merged["saved"] = saved;
  merged["first_failing_seed"] =
      first_index ? json(detect::history_seed(seed, *first_index)) : json(nullptr);
  return merged;
}

json merge_verify(const std::vector<ShardInput>& shards) {
  json merged = shards.front().summary;
  const json& inputs = merged["campaign"].value("inputs", json());
  if (!inputs.is_array()) fail(shards.front().file, "campaign.inputs: expected an array");
  std::map<std::string, std::uint64_t> index_of;
  for (std::uint64_t i = 0; i < inputs.size(); ++i) index_of[inputs[i].get<std::string>()] = i;
  std::map<std::string, std::uint64_t> counts;
  std::vector<json> results;
  for (const ShardInput& in : shards) {
    const json& list = in.summary.value("results", json());
    if (!list.is_array()) fail(in.file, "field \"results\": expected an array");
    for (const json& result : list) {
      const std::string file = result.value("file", "");
      const auto it = index_of.find(file);
      if (it == index_of.end() || !in.shard.selects(it->second)) {
        fail(in.file,
             "result for \"" + file + "\", which is not an input of shard " + in.shard.text());
      }
      ++counts[result.value("status", "")];
      results.push_back(result);
    }
  }
  if (results.size() != inputs.size()) {
    fail(shards.front().file, "the shards verified " + std::to_string(results.size()) +
                                  " inputs, the campaign has " + std::to_string(inputs.size()));
  }
  std::sort(results.begin(), results.end(), [](const json& a, const json& b) {
    return a["file"].get<std::string>() < b["file"].get<std::string>();
  });
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i]["file"] == results[i - 1]["file"]) {
      fail(shards.front().file, "two results for " + results[i]["file"].dump());
    }
  }
  merged["results"] = results;
  merged["checked"] = results.size();
  for (const char* status : {"fails", "passes", "not-replayable"}) {
    merged["counts"][status] = counts[status];
  }
  return merged;
}

// `run`: each shard stopped at its own first failing batch; the unsharded run stops at the
// smallest, and there prefers a violation, then the smallest index (detect_first_failure). The
// shard that found that run minimized it: its files are the unsharded run's.
json merge_run(const std::vector<ShardInput>& shards, const fs::path& out) {
  json merged = shards.front().summary;
  const json& campaign = merged["campaign"];
  const std::uint64_t seed = campaign.value("seed", std::uint64_t{0});
  const std::uint64_t histories = campaign.value("histories", std::uint64_t{0});
  const std::uint64_t batch = campaign.value("batch", std::uint64_t{1});
  std::optional<std::uint64_t> first_batch;
  for (const ShardInput& in : shards) {
    const json& b = in.summary.value("failing_batch", json());
    if (b.is_number_unsigned() && (!first_batch || b.get<std::uint64_t>() < *first_batch)) {
      first_batch = b.get<std::uint64_t>();
    }
  }
  std::uint64_t violations = 0, total = 0;
  const ShardInput* winner = nullptr;
  std::uint64_t winner_index = 0;
  bool winner_violation = false;
  for (const ShardInput& in : shards) {
    total += unsigned_field(in, in.summary, "histories");
    if (!first_batch || in.summary.value("failing_batch", json()) != json(*first_batch)) continue;
    violations += unsigned_field(in, in.summary, "violations");
    const json& failing = in.summary.value("failing", json());
    if (!failing.is_object() || !failing.contains("seed") ||
        !failing["seed"].is_number_unsigned()) {
      fail(in.file, "field \"failing\": expected {\"seed\": ..., \"violation\": ...}");
    }
    const std::uint64_t index = detect::history_index(seed, failing["seed"].get<std::uint64_t>());
    const bool violation = failing.value("violation", false);
    if (index >= histories || !in.shard.selects(index) || index / batch != *first_batch) {
      fail(in.file, "its failing seed " + failing["seed"].dump() +
                        " is not a history of its shard and batch");
    }
    if (!winner || (violation && !winner_violation) ||
        (violation == winner_violation && index < winner_index)) {
      winner = &in;
      winner_index = index;
      winner_violation = violation;
    }
  }
  merged["violations"] = violations;
  merged["failing_batch"] = first_batch ? json(*first_batch) : json(nullptr);
  if (!winner) {
    if (total != histories) {
      fail(shards.front().file, "the shards ran " + std::to_string(total) +
                                    " histories without a failure, the campaign has " +
                                    std::to_string(histories));
    }
    merged["histories"] = histories;
    merged["failing"] = nullptr;
    merged["files"] = json::array();
    return merged;
  }
  merged["histories"] = std::min(histories, (*first_batch + 1) * batch);
  merged["failing"] = winner->summary["failing"];
  merged["files"] = winner->summary.value("files", json::array());
  for (const json& name : merged["files"]) {
    const fs::path file = winner->dir / name.get<std::string>();
    if (!name.is_string() || name.get<std::string>().find('/') != std::string::npos) {
      fail(winner->file, "field \"files\": expected file names");
    }
    history::write_file_atomically(out / file.filename(), history::read_file(file.string()));
  }
  return merged;
}

void run_merge(const MergeArguments& args) {
  const fs::path out = args.out;
  std::vector<ShardInput> shards;
  for (const std::string& input : args.inputs) {
    shards.push_back(read_shard(input));
    std::error_code error;
    if (fs::exists(out, error) && fs::equivalent(shards.back().dir, out, error)) {
      throw UsageError("--out " + args.out + " is one of the shards' directories");
    }
  }
  shards = check_shards(std::move(shards));
  prepare_output_directory(out, "--out");
  for (const fs::directory_entry& entry : fs::directory_iterator(out)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name[0] != '.') {
      throw UsageError("--out " + args.out + " is not empty (" + name +
                       "): merge into a new directory");
    }
  }

  const std::string kind = shards.front().summary["linfault"];
  json whole;
  try {
    whole = kind == "detect-summary" ? merge_detect(shards, out)
            : kind == "run-summary"  ? merge_run(shards, out)
                                     : merge_verify(shards);
    whole["shard"] = Shard{}.to_json();
    history::flush_file_system(out);  // the copies before the summary that counts them
    write_summary(out, whole);
  } catch (...) {
    // A shard found wrong after some copies: leave --out as empty as it was, so that the merge
    // can be run again once the shard is fixed.
    std::error_code ignored;
    std::vector<fs::path> written;
    for (const fs::directory_entry& entry : fs::directory_iterator(out, ignored)) {
      written.push_back(entry.path());
    }
    for (const fs::path& path : written) fs::remove_all(path, ignored);
    throw;
  }

  const std::string shards_text = std::to_string(shards.size()) + " shard(s)";
  bool failing = false;
  if (kind == "detect-summary") {
    // As `detect` decides: a crash or a deadlock fails the campaign as a violation does.
    const json& outcomes = whole["outcomes"];
    failing = whole["violations"].get<std::uint64_t>() > 0 ||
              outcomes.value("crash", std::uint64_t{0}) > 0 ||
              outcomes.value("deadlock", std::uint64_t{0}) > 0;
    std::cout << "merged " << shards_text << " of detect " << whole["campaign"]["target"].dump()
              << " into " << args.out << ": " << whole["violations"] << " non-linearizable of "
              << whole["histories"] << ", " << whole["saved"]
              << " saved run(s), first failing seed "
              << (whole["first_failing_seed"].is_null() ? "none"
                                                        : whole["first_failing_seed"].dump())
              << "\n";
  } else if (kind == "run-summary") {
    failing = !whole["failing"].is_null();
    std::cout << "merged " << shards_text << " of run " << whole["campaign"]["target"].dump()
              << " into " << args.out << ": "
              << (failing
                      ? "first failing seed " + whole["failing"]["seed"].dump() + " of " +
                            whole["histories"].dump() + " histories, files " + whole["files"].dump()
                      : "no failure in " + whole["histories"].dump() + " histories")
              << "\n";
  } else {
    failing = whole["counts"]["fails"].get<std::uint64_t>() > 0;
    std::cout << "merged " << shards_text << " of verify into " << args.out << ": "
              << whole["counts"]["fails"] << " still fail, " << whole["counts"]["passes"]
              << " pass, " << whole["counts"]["not-replayable"] << " not replayable, of "
              << whole["checked"] << "\n";
  }
  throw CLI::RuntimeError(failing ? kExitViolation : kExitSuccess);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArguments>();
  CLI::App* merge = app.add_subcommand(
      "merge",
      "Combine the output directories of the shards of a `detect --shard`, `run --shard` or "
      "`verify --shard` campaign into what one unsharded run writes.");
  merge->add_option("dirs", args->inputs, "One output directory (or summary.json) per shard")
      ->required();
  merge->add_option("-o,--out", args->out, "A new (or empty) directory for the merged result")
      ->required();
  merge->footer(
      "The merged summary.json is byte for byte the one the unsharded run writes, and the saved\n"
      "runs are the same files (docs/scale-out.md).\n"
      "Exit codes: 0 merged, nothing fails; 1 merged, and the campaign found a violation (verify:\n"
      "an input still fails); 64 usage error; 65 the directories are not the complete, finished\n"
      "shards of one campaign (the message names the file); 66 a summary cannot be opened.\n"
      "Examples:\n"
      "  linfault merge --out runs-all runs-0 runs-1 runs-2 runs-3");
  merge->callback([args] {
    try {
      run_merge(*args);
    } catch (const nlohmann::json::exception& e) {
      // A field of the right name but the wrong type in one of the summaries.
      throw history::InputError(args->inputs.empty() ? "merge" : args->inputs.front(), 0,
                                std::string("a summary field has the wrong type: ") + e.what());
    }
  });
}

}  // namespace linfault::tool
