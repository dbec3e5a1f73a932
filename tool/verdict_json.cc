#include "tool/verdict_json.h"

#include "tool/commands.h"

#include <cstdio>

#include "history/json_format.h"

namespace linfault::tool {
namespace {

using nlohmann::json;

json operations_to_json(const history::History& history,
                        const std::vector<history::OpIndex>& indices) {
  json list = json::array();
  for (history::OpIndex index : indices) list.push_back(operation_to_json(history, index));
  return list;
}

// "op 3: p1 pop() -> 2 (file.edn:7)"; with `with_response`, also the line of its response.
std::string describe(const history::History& history, history::OpIndex index,
                     bool with_response = false) {
  const history::Operation& op = history.op(index);
  std::string out = "op " + std::to_string(index) + ": " + op.to_string();
  if (op.source.call_line != 0) {
    out += " (" + (history.origin().empty() ? std::string("line ") : history.origin() + ":") +
           std::to_string(op.source.call_line);
    if (with_response && op.source.return_line != 0 &&
        op.source.return_line != op.source.call_line) {
      out += ", response on line " + std::to_string(op.source.return_line);
    }
    out += ")";
  }
  return out;
}

std::string format_ms(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f ms", ms);
  return buffer;
}

// At most `limit` operations, then "... and N more".
void append_operations(std::string& out, const history::History& history,
                       const std::vector<history::OpIndex>& indices, std::size_t limit) {
  for (std::size_t i = 0; i < indices.size() && i < limit; ++i) {
    out += "    " + std::to_string(i + 1) + ". " + describe(history, indices[i]) + "\n";
  }
  if (indices.size() > limit) {
    out += "    ... and " + std::to_string(indices.size() - limit) + " more (--json lists all)\n";
  }
}

}  // namespace

json operation_to_json(const history::History& history, history::OpIndex index) {
  const history::Operation& op = history.op(index);
  json entry = json::object();
  entry["index"] = index;
  entry["process"] = op.process;
  entry["method"] = op.call.method;
  json args = json::array();
  for (const history::Value& arg : op.call.args) args.push_back(history::value_to_json(arg));
  entry["args"] = std::move(args);
  entry["result"] = history::value_to_json(op.result);
  entry["outcome"] = history::outcome_name(op.outcome);
  if (op.key) entry["key"] = history::value_to_json(*op.key);
  entry["line"] = op.source.call_line != 0 ? json(op.source.call_line) : json(nullptr);
  if (op.source.return_line != 0) entry["return_line"] = op.source.return_line;
  return entry;
}

json verdict_to_json(const detect::Verdict& verdict, const history::History& history,
                     bool include_witness) {
  json out = json::object();
  out["linfault"] = "verdict";
  out["verdict"] = detect::result_name(verdict.result);
  out["model"] = verdict.model;
  out["algorithm"] = verdict.algorithm;
  out["operations"] = verdict.operations;
  out["elapsed_ms"] = verdict.elapsed_ms;
  out["partitions"] = verdict.partitions;
  out["states_explored"] = verdict.states_explored;
  out["memo_bytes"] = verdict.memo_bytes;
  if (!verdict.monitor_declined.empty()) out["monitor_declined"] = verdict.monitor_declined;
  switch (verdict.result) {
    case detect::Result::kViolation:
      out["prefix_events"] = verdict.prefix_events;
      out["prefix_exact"] = verdict.prefix_exact;
      if (!verdict.prefix_exact) out["reason"] = verdict.reason;
      out["culprit"] =
          verdict.culprit >= 0 ? operation_to_json(history, verdict.culprit) : json(nullptr);
      if (verdict.stuck) out["stuck"] = true;
      if (verdict.unsynchronized) {
        out["unsynchronized"] = true;
        out["source"] = operation_to_json(history, verdict.source);
      }
      out["longest_partial"] = operations_to_json(history, verdict.longest_partial);
      if (verdict.partition_key) {
        out["partition_key"] = history::value_to_json(*verdict.partition_key);
      }
      break;
    case detect::Result::kUnknown:
      out["reason"] = verdict.reason;
      if (!verdict.longest_partial.empty()) {
        out["longest_partial"] = operations_to_json(history, verdict.longest_partial);
      }
      break;
    case detect::Result::kLinearizable:
      if (include_witness) out["witness"] = operations_to_json(history, verdict.witness);
      break;
  }
  return out;
}

std::string verdict_to_text(const detect::Verdict& verdict, const history::History& history,
                            const std::string& label, bool include_witness) {
  std::string out = label + ": " + detect::result_name(verdict.result) + "\n";
  out += "  model " + verdict.model + ", " + std::to_string(verdict.operations) + " operations, " +
         format_ms(verdict.elapsed_ms) +
         (verdict.algorithm.empty() ? "" : ", " + verdict.algorithm) + "\n";
  if (!verdict.monitor_declined.empty()) {
    out += "  (the " + verdict.model + " monitor declined: " + verdict.monitor_declined + ")\n";
  }
  constexpr std::size_t kShown = 20;
  switch (verdict.result) {
    case detect::Result::kViolation:
      out += std::string(verdict.unsynchronized
                             ? "  linearizable, but unsynchronized from the prefix of "
                             : "  shortest non-linearizable prefix: ") +
             std::to_string(verdict.prefix_events) + " of " +
             std::to_string(history.events().size()) + " events" +
             (verdict.prefix_exact ? "" : " (an upper bound: " + verdict.reason + ")") + "\n";
      if (verdict.partition_key) {
        out += "  in the partition of key " + verdict.partition_key->to_string() + "\n";
      }
      if (verdict.culprit >= 0 && verdict.stuck) {
        out +=
            "  culprit: it never returns (the run deadlocked), and no serial order makes it "
            "block:\n    " +
            describe(history, verdict.culprit, true) + "\n";
      } else if (verdict.culprit >= 0 && verdict.unsynchronized) {
        out +=
            "  culprit: it took an element that no happens-before orders after its insertion "
            "(a missing release or acquire):\n    " +
            describe(history, verdict.culprit, true) + "\n  inserted by:\n    " +
            describe(history, verdict.source, true) + "\n";
      } else if (verdict.culprit >= 0) {
        out += "  culprit: its last response cannot be explained:\n    " +
               describe(history, verdict.culprit, true) + "\n";
      }
      if (verdict.longest_partial.empty() && verdict.algorithm.starts_with("monitor")) {
        out +=
            "  (the monitor builds no linearization; --algo search prints the longest "
            "partial one)\n";
        break;
      }
      out += "  longest partial linearization (" + std::to_string(verdict.longest_partial.size()) +
             " operations):\n";
      append_operations(out, history, verdict.longest_partial, kShown);
      break;
    case detect::Result::kUnknown:
      out += "  no verdict: " + verdict.reason + "\n";
      break;
    case detect::Result::kLinearizable:
      if (include_witness) {
        out += "  linearization (" + std::to_string(verdict.witness.size()) + " operations):\n";
        append_operations(out, history, verdict.witness, verdict.witness.size());
      }
      break;
  }
  return out;
}

void exit_with_verdict(detect::Result result) {
  switch (result) {
    case detect::Result::kLinearizable:
      throw CLI::RuntimeError(kExitSuccess);
    case detect::Result::kViolation:
      throw CLI::RuntimeError(kExitViolation);
    case detect::Result::kUnknown:
      break;
  }
  throw CLI::RuntimeError(kExitUnknown);
}

}  // namespace linfault::tool
