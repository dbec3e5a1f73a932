// Jepsen EDN histories: one operation map per line, e.g.
//   {:process 0, :type :invoke, :f :append, :key "0", :value "x 0 0 y"}
// Blank lines and ; comment lines are skipped; operations of non-integer processes (:nemesis)
// are not operations of the object and are skipped too.

#include <stdexcept>

#include "history/edn.h"
#include "history/readers.h"

namespace linfault::history {
namespace {

// The name of a keyword (or string) field such as :type or :f.
std::string name_field(const edn::Node& map, std::string_view field, const std::string& origin,
                       std::uint32_t line) {
  const edn::Node* node = map.find(field);
  if (node == nullptr) throw InputError(origin, line, "missing :" + std::string(field));
  if (node->kind != edn::Node::Kind::kKeyword && node->kind != edn::Node::Kind::kString) {
    throw InputError(origin, line,
                     ":" + std::string(field) + " must be a keyword, got " + node->to_string());
  }
  return node->text;
}

Value value_field(const edn::Node& map, std::string_view field, const std::string& origin,
                  std::uint32_t line) {
  const edn::Node* node = map.find(field);
  if (node == nullptr) return Value();
  try {
    return edn::to_value(*node);
  } catch (const std::invalid_argument& e) {
    throw InputError(origin, line, ":" + std::string(field) + ": " + e.what());
  }
}

}  // namespace

LoadedHistory read_edn(std::string_view text, const std::string& origin) {
  JepsenRecorder recorder(origin);
  std::uint32_t line_number = 0;
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r,") == std::string_view::npos) continue;
    if (line[line.find_first_not_of(" \t\r,")] == ';') continue;

    edn::Node map;
    try {
      map = edn::parse(line);
    } catch (const edn::ParseError& e) {
      throw InputError(origin, line_number, e.what());
    }
    if (map.kind != edn::Node::Kind::kMap) {
      std::string found = map.to_string();
      if (found.size() > 40) found = found.substr(0, 37) + "...";
      throw InputError(
          origin, line_number,
          "expected one operation map {:process .. :type .. :f ..} per line, got `" + found + "`");
    }
    const edn::Node* process = map.find("process");
    if (process == nullptr) throw InputError(origin, line_number, "missing :process");
    if (process->kind == edn::Node::Kind::kKeyword) continue;  // :nemesis
    if (process->kind != edn::Node::Kind::kInt) {
      throw InputError(origin, line_number,
                       ":process must be an integer, got " + process->to_string());
    }
    const std::string type = name_field(map, "type", origin, line_number);
    const std::string method = name_field(map, "f", origin, line_number);
    std::optional<Value> key;
    if (map.find("key") != nullptr) key = value_field(map, "key", origin, line_number);
    recorder.record(line_number, process->integer, type, method,
                    value_field(map, "value", origin, line_number), std::move(key));
  }
  LoadedHistory loaded;
  loaded.format = Format::kEdn;
  loaded.model = recorder.saw_key() ? std::optional<std::string>("kv")
                                    : register_model_for(recorder.methods());
  loaded.history = std::move(recorder).finish();
  return loaded;
}

}  // namespace linfault::history
