// Campaigns split over machines (`--shard i/N`) and the summary files their shards write, which
// `linfault merge` combines (docs/scale-out.md).
//
// A shard i of N takes the items (histories of `detect`, inputs of `verify`) whose 0-based index
// in the whole campaign is congruent to i modulo N. Item k keeps everything it has in the whole
// campaign (its seed, its file name), so the shards together do exactly the unsharded work and
// the merge of their summaries is byte for byte the summary of the unsharded run.
//
// A summary file (DIR/summary.json) is one JSON object:
//   {"linfault": "detect-summary" | "run-summary" | "verify-summary", "version": 1,
//    "campaign": {...what was run: equal in every shard...},
//    "shard": {"index": i, "count": N}, "complete": true | false, ...counts and results...}
// It holds deterministic fields only (no time, no host): equal inputs give equal bytes. It is
// written with write_summary (indented, keys sorted, atomically replaced).
//
// Thread-safety: plain data and pure functions (the file functions touch only their paths).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_CAMPAIGN_H_
#define LINFAULT_TOOL_CAMPAIGN_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace linfault::tool {

struct Shard {
  std::uint64_t index = 0;
  std::uint64_t count = 1;

  bool selects(std::uint64_t item) const { return item % count == index; }
  bool whole() const { return count == 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
  nlohmann::json to_json() const { return {{"index", index}, {"count", count}}; }
};

// "i/N" with decimal i < N, 1 <= N < 2^64, nothing else (no sign, space or leading '+'); throws
// UsageError "--shard: ..." otherwise.
Shard parse_shard(std::string_view text);

// Registers --shard on `command`; `text` receives the option's value ("" when absent).
void add_shard_option(CLI::App& command, std::string& text, const std::string& what);

inline constexpr const char* kSummaryFile = "summary.json";
inline constexpr int kSummaryVersion = 1;

// Writes `summary` to DIR/summary.json through history::write_file_atomically.
void write_summary(const std::filesystem::path& dir, const nlohmann::json& summary);

// Reads a summary file: history::OpenError when it cannot be opened, history::InputError naming
// the file when it is not a summary of a known kind and version.
nlohmann::json read_summary(const std::filesystem::path& file);

// Creates `dir` (UsageError naming `option` when it cannot be) and removes the temporary files
// killed writers left in it.
void prepare_output_directory(const std::filesystem::path& dir, const std::string& option);

}  // namespace linfault::tool

#endif  // LINFAULT_TOOL_CAMPAIGN_H_
