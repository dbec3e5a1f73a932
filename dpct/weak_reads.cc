#include "dpct/weak_reads.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "dpct/schedule.h"

namespace linfault::dpct {

namespace {

constexpr std::uint64_t kReadSeedSalt = 0x7265616473ULL;  // keeps read draws apart from threads'
// depth: the read decisions a concurrent call is assumed to make, for drawing the stale ones.
constexpr std::uint64_t kReadsPerCall = 4;

std::string format_probability(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", p);
  return buffer;
}

}  // namespace

std::string read_policy_text(const ReadPolicy& policy) {
  switch (policy.kind) {
    case ReadPolicy::Kind::kUniform:
      return "uniform";
    case ReadPolicy::Kind::kBiased:
      return "biased:" + format_probability(policy.stale);
    case ReadPolicy::Kind::kDepth:
      return "depth:" + std::to_string(policy.depth);
    case ReadPolicy::Kind::kMixed:
      break;
  }
  return "mixed";
}

std::optional<ReadPolicy> parse_read_policy(std::string_view text) {
  ReadPolicy policy;
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view argument =
      colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (colon != std::string_view::npos && argument.empty()) return std::nullopt;
  if (name == "uniform" || name == "mixed") {
    if (!argument.empty()) return std::nullopt;
    policy.kind = name == "uniform" ? ReadPolicy::Kind::kUniform : ReadPolicy::Kind::kMixed;
    return policy;
  }
  if (name == "biased") {
    policy.kind = ReadPolicy::Kind::kBiased;
    if (!argument.empty()) {
      const std::string copy(argument);
      char* end = nullptr;
      policy.stale = std::strtod(copy.c_str(), &end);
      if (end != copy.c_str() + copy.size() || !(policy.stale > 0) || !(policy.stale <= 1)) {
        return std::nullopt;
      }
    }
    return policy;
  }
  if (name == "depth") {
    policy.kind = ReadPolicy::Kind::kDepth;
    if (!argument.empty()) {
      const auto [end, error] =
          std::from_chars(argument.data(), argument.data() + argument.size(), policy.depth);
      if (error != std::errc() || end != argument.data() + argument.size() || policy.depth == 0 ||
          policy.depth > 1000) {
        return std::nullopt;
      }
    }
    return policy;
  }
  return std::nullopt;
}

WeakReadScheduler::WeakReadScheduler(std::unique_ptr<Scheduler> inner, ReadPolicy policy,
                                     std::uint64_t seed)
    : inner_(std::move(inner)), policy_(policy), run_policy_(policy), seed_(seed) {}

void WeakReadScheduler::reseed(std::uint64_t seed) {
  inner_->reseed(seed);
  seed_ = seed;
}

void WeakReadScheduler::begin(const RunInfo& info) {
  inner_->begin(info);
  rng_ = SplitMix64(seed_ ^ kReadSeedSalt);
  // Not learnt from earlier runs: a run stays a function of its seed and workload alone.
  std::uint64_t calls = 0;
  if (info.workload != nullptr) {
    for (const auto& thread : info.workload->threads) calls += thread.size();
  }
  reads_estimate_ = std::max<std::uint64_t>(8, kReadsPerCall * calls);
  reads_ = 0;
  run_policy_ = policy_;
  if (policy_.kind == ReadPolicy::Kind::kMixed) {
    static constexpr std::array<ReadPolicy, 5> kMembers = {{
        {ReadPolicy::Kind::kUniform, 0.25, 1},
        {ReadPolicy::Kind::kBiased, 0.1, 1},
        {ReadPolicy::Kind::kBiased, 0.5, 1},
        {ReadPolicy::Kind::kDepth, 0.25, 1},
        {ReadPolicy::Kind::kDepth, 0.25, 2},
    }};
    run_policy_ = kMembers[rng_.below(kMembers.size())];
  }
  stale_.clear();
  if (run_policy_.kind == ReadPolicy::Kind::kDepth) {
    for (unsigned i = 0; i < run_policy_.depth; ++i) stale_.push_back(rng_.below(reads_estimate_));
    std::sort(stale_.begin(), stale_.end());
  }
}

std::size_t WeakReadScheduler::choose_read(const ReadPoint&, std::span<const StoreId> candidates) {
  const std::uint64_t index = reads_++;
  const std::size_t older = candidates.size() - 1;  // at least 1
  switch (run_policy_.kind) {
    case ReadPolicy::Kind::kUniform:
      return rng_.below(candidates.size());
    case ReadPolicy::Kind::kBiased:
      return rng_.unit() < run_policy_.stale ? 1 + rng_.below(older) : 0;
    case ReadPolicy::Kind::kDepth:
      return std::binary_search(stale_.begin(), stale_.end(), index) ? 1 + rng_.below(older) : 0;
    case ReadPolicy::Kind::kMixed:
      break;
  }
  return 0;
}

void WeakReadScheduler::end(Schedule& schedule) {
  inner_->end(schedule);
  schedule.set_parameter("reads", read_policy_text(run_policy_));
}

}  // namespace linfault::dpct
