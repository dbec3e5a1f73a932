// Jepsen console logs: only `INFO  jepsen.util - <process> :<type> :<f> <value>` lines are
// operations (fields separated by tabs or spaces); every other line is noise and skipped.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <vector>

#include "history/edn.h"
#include "history/readers.h"

namespace linfault::history {
namespace {

constexpr std::string_view kMarker = "jepsen.util - ";

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// A keyword every EDN reader takes as one: a colon, a letter, then letters, digits, '-' and '_'
// (":write", ":compare-and-set"). Lets the common case skip the EDN parser.
bool is_plain_keyword(std::string_view token) {
  if (token.size() < 2 || token[0] != ':' || !is_ascii_letter(token[1])) return false;
  return std::all_of(token.begin() + 2, token.end(), [](char c) {
    return is_ascii_letter(c) || is_ascii_digit(c) || c == '-' || c == '_';
  });
}

// Whether `token` is exactly one EDN keyword (":write", no comment or other text after it): the
// method name must be one, and so JSON-writable.
bool is_keyword(std::string_view token) {
  if (is_plain_keyword(token)) return true;
  if (token.size() < 2 || token[0] != ':') return false;
  try {
    const edn::Node node = edn::parse(token);
    return node.kind == edn::Node::Kind::kKeyword && node.text == token.substr(1);
  } catch (const edn::ParseError&) {
    return false;
  }
}

// The next blank-separated token of `line` at or after `pos`; advances `pos` past it.
std::string_view next_token(std::string_view line, std::size_t& pos) {
  while (pos < line.size() && is_blank(line[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < line.size() && !is_blank(line[pos])) ++pos;
  return line.substr(start, pos - start);
}

// The common values without the EDN parser: nil and decimal integers written without a sign,
// leading zeros or a suffix ("0", "17", "-3") that fit in 64 bits. nullopt for anything else,
// which the EDN parser then reads (or rejects).
std::optional<Value> plain_value(std::string_view text) {
  if (text == "nil") return Value();
  std::string_view digits = text.substr(!text.empty() && text[0] == '-' ? 1 : 0);
  if (digits.empty() || (digits[0] == '0' && digits.size() > 1) ||
      !std::all_of(digits.begin(), digits.end(), is_ascii_digit)) {
    return std::nullopt;
  }
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return Value(number);
}

// The process number; nullopt for a token that is not an integer (:nemesis). An integer beyond
// ProcessId's range is an error, not noise.
std::optional<ProcessId> parse_process(std::string_view token, const std::string& origin,
                                       std::uint32_t line) {
  ProcessId process = 0;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), process);
  if (end != token.data() + token.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    std::string shown(token.substr(0, 30));
    if (token.size() > 30) shown += "...";
    throw InputError(origin, line, "process " + shown + " does not fit in 64 bits");
  }
  if (error != std::errc()) return std::nullopt;
  return process;
}

}  // namespace

LoadedHistory read_jepsen_log(std::string_view text, const std::string& origin) {
  JepsenRecorder recorder(origin);
  bool any_log_line = false;  // a jepsen.util line at INFO, an operation or not
  std::uint32_t line_number = 0;
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;

    const std::size_t marker = line.find(kMarker);
    if (marker == std::string_view::npos) continue;
    if (line.substr(0, marker).find("INFO") == std::string_view::npos) continue;
    any_log_line = true;
    std::size_t pos = marker + kMarker.size();
    const std::string_view process_token = next_token(line, pos);
    const std::string_view type_token = next_token(line, pos);
    // Anything else jepsen.util logs ("Starting...", "Run complete") is not an operation.
    if (type_token.size() < 2 || type_token[0] != ':') continue;
    const std::optional<ProcessId> process = parse_process(process_token, origin, line_number);
    if (!process) continue;  // :nemesis and other non-client processes
    const std::string_view f_token = next_token(line, pos);
    if (!is_keyword(f_token)) {
      std::string shown(f_token.substr(0, 40));
      if (f_token.size() > 40) shown += "...";
      throw InputError(origin, line_number,
                       "expected the operation's :f keyword after " + std::string(type_token) +
                           ", got `" + shown + "`");
    }
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    std::string_view value_text = line.substr(pos);
    while (!value_text.empty() && is_blank(value_text.back())) value_text.remove_suffix(1);
    if (value_text.empty()) {
      throw InputError(origin, line_number,
                       "missing value after " + std::string(f_token) + " (write nil for none)");
    }
    Value value;
    try {
      if (std::optional<Value> plain = plain_value(value_text)) {
        value = std::move(*plain);
      } else {
        value = edn::to_value(edn::parse(value_text));
      }
    } catch (const edn::ParseError& e) {
      throw InputError(origin, line_number,
                       "column " + std::to_string(pos + e.column()) + ": bad value `" +
                           std::string(value_text) + "`: " + e.message());
    } catch (const std::invalid_argument& e) {
      throw InputError(origin, line_number, std::string("bad value: ") + e.what());
    }
    recorder.record(line_number, *process, type_token.substr(1), f_token.substr(1),
                    std::move(value), std::nullopt);
  }
  // Other lines are noise, but a text with no jepsen.util line at all is another format read as
  // a log (`--format jepsen-log` forced on an EDN history): an empty, linearizable history would
  // be a verdict on nothing.
  if (!any_log_line && text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    throw InputError(origin, 1,
                     "no jepsen.util line (such as `INFO  jepsen.util - 3\t:invoke\t:read\tnil`): "
                     "not a Jepsen log");
  }
  LoadedHistory loaded;
  loaded.format = Format::kJepsenLog;
  loaded.model = recorder.methods().empty() ? std::optional<std::string>("cas-register")
                                            : register_model_for(recorder.methods());
  loaded.history = std::move(recorder).finish();
  return loaded;
}

}  // namespace linfault::history
