#include "tool/campaign.h"

#include <limits>
#include <optional>

#include "history/atomic_file.h"
#include "history/formats.h"
#include "history/json_format.h"
#include "tool/commands.h"

namespace linfault::tool {
namespace {

// A decimal number of at most 2^64 - 1 with digits only; nullopt otherwise.
std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const auto fail = [&](const std::string& problem) -> Shard {
    throw UsageError("--shard: \"" + std::string(text) + "\": " + problem);
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return fail("expected i/N, e.g. 0/4");
  const std::optional<std::uint64_t> index = parse_decimal(text.substr(0, slash));
  const std::optional<std::uint64_t> count = parse_decimal(text.substr(slash + 1));
  if (!index || !count) {
    return fail("expected i/N with decimal numbers below 2^64, e.g. 0/4");
  }
  if (*count == 0) return fail("N must be at least 1");
  if (*index >= *count) return fail("i must be below N (shards are numbered 0 to N-1)");
  return Shard{.index = *index, .count = *count};
}

void add_shard_option(CLI::App& command, std::string& text, const std::string& what) {
  command
      .add_option("--shard", text,
                  "Do only part i of N of the campaign: the " + what +
                      " whose 0-based index is i modulo N; `linfault merge` combines the N "
                      "parts into what one unsharded run gives (docs/scale-out.md)")
      ->option_text("i/N");
}

void write_summary(const std::filesystem::path& dir, const nlohmann::json& summary) {
  history::write_file_atomically(dir / kSummaryFile, history::json_text(summary, 2) + "\n");
}

nlohmann::json read_summary(const std::filesystem::path& file) {
  const std::string name = file.string();
  const nlohmann::json doc = history::read_json_file(name);
  const std::string kind =
      doc.is_object() && doc.contains("linfault") && doc["linfault"].is_string() ? doc["linfault"]
                                                                                 : "";
  if (kind != "detect-summary" && kind != "verify-summary" && kind != "run-summary") {
    throw history::InputError(name, 0,
                              "not a campaign summary (expected \"linfault\": \"detect-summary\", "
                              "\"run-summary\" or \"verify-summary\")");
  }
  const auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer() ||
      version->get<std::int64_t>() != kSummaryVersion) {
    throw history::InputError(name, 0,
                              "summary version " + doc.value("version", nlohmann::json()).dump() +
                                  " is not " + std::to_string(kSummaryVersion));
  }
  return doc;
}

void prepare_output_directory(const std::filesystem::path& dir, const std::string& option) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw UsageError(option + " " + dir.string() + ": cannot create: " + error.message());
  }
  history::remove_stale_temporaries(dir);
  // A summary of an earlier campaign in the same directory would pass for this one's until its
  // first summary is written (or forever, if this one is killed before).
  std::filesystem::remove(dir / kSummaryFile, error);
}

}  // namespace linfault::tool
