#include "history/json_format.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "history/json_history_build.h"
#include "history/readers.h"

namespace linfault::history {
namespace {

using json_detail::ParsedOperation;
using nlohmann::json;

constexpr int kVersion = 1;

// A char iterator that counts the newlines it has moved past, so the JSON parser's callback can
// tell on which line an object starts.
class LineCountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  LineCountingIterator() = default;
  LineCountingIterator(const char* position, std::uint32_t* newlines)
      : position_(position), newlines_(newlines) {}
  reference operator*() const { return *position_; }
  LineCountingIterator& operator++() {
    if (*position_ == '\n') ++*newlines_;
    ++position_;
    return *this;
  }
  LineCountingIterator operator++(int) {
    LineCountingIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const LineCountingIterator& a, const LineCountingIterator& b) {
    return a.position_ == b.position_;
  }

 private:
  const char* position_ = nullptr;
  std::uint32_t* newlines_ = nullptr;
};

std::uint32_t line_of_byte(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  return 1 + static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + byte, '\n'));
}

class OperationReader {
 public:
  OperationReader(const json& op, std::size_t index, const std::string& origin, std::uint32_t line)
      : op_(op), index_(index), origin_(origin), line_(line) {}

  [[noreturn]] void fail(const std::string& problem) const {
    throw InputError(origin_, line_, "operations[" + std::to_string(index_) + "]: " + problem);
  }

  const json* find(const char* field) const {
    auto it = op_.find(field);
    return it == op_.end() ? nullptr : &*it;
  }

  std::int64_t integer(const char* field) const {
    const json* value = find(field);
    if (value == nullptr) fail(std::string("missing \"") + field + "\"");
    return integer_value(field, *value);
  }

  std::int64_t integer_value(const char* field, const json& value) const {
    if (value.is_number_integer() &&
        (value.is_number_unsigned()
             ? value.get<std::uint64_t>() <=
                   static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             : true)) {
      return value.get<std::int64_t>();
    }
    fail(std::string("\"") + field + "\" must be an integer, got " + value.dump());
  }

  std::uint32_t line_field(const char* field, std::uint32_t fallback) const {
    const json* value = find(field);
    if (value == nullptr) return fallback;
    const std::int64_t line = integer_value(field, *value);
    if (line < 0 || line > std::numeric_limits<std::uint32_t>::max()) {
      fail(std::string("\"") + field + "\" out of range");
    }
    return static_cast<std::uint32_t>(line);
  }

  Value value(const char* field) const {
    const json* value = find(field);
    if (value == nullptr) return Value();
    try {
      return value_from_json(*value);
    } catch (const std::invalid_argument& e) {
      fail(std::string("\"") + field + "\": " + e.what());
    }
  }

 private:
  const json& op_;
  std::size_t index_;
  const std::string& origin_;
  std::uint32_t line_;
};

ParsedOperation parse_operation(const json& op, std::size_t index, const std::string& origin,
                                std::uint32_t json_line) {
  OperationReader reader(op, index, origin, json_line);
  if (!op.is_object()) reader.fail("must be an object, got " + op.dump());
  if (const auto name = unknown_field(op, {"process", "method", "args", "outcome", "result", "call",
                                           "return", "key", "line", "return_line"})) {
    reader.fail("unknown field \"" + *name + "\"");
  }
  ParsedOperation parsed;
  parsed.index = index;
  parsed.json_line = json_line;
  parsed.process = reader.integer("process");
  const json* method = reader.find("method");
  if (method == nullptr || !method->is_string() || method->get<std::string>().empty()) {
    reader.fail("\"method\" must be a non-empty string");
  }
  parsed.call.method = method->get<std::string>();
  if (const json* args = reader.find("args")) {
    if (!args->is_array()) reader.fail("\"args\" must be an array, got " + args->dump());
    for (const json& arg : *args) {
      try {
        parsed.call.args.push_back(value_from_json(arg));
      } catch (const std::invalid_argument& e) {
        reader.fail(std::string("\"args\": ") + e.what());
      }
    }
  }
  parsed.result = reader.value("result");
  if (reader.find("key") != nullptr) parsed.key = reader.value("key");
  parsed.call_position = reader.integer("call");
  if (const json* ret = reader.find("return"); ret != nullptr && !ret->is_null()) {
    parsed.return_position = reader.integer_value("return", *ret);
    if (*parsed.return_position <= parsed.call_position) {
      reader.fail("\"return\" " + std::to_string(*parsed.return_position) +
                  " is not after \"call\" " + std::to_string(parsed.call_position));
    }
  }
  if (const json* outcome = reader.find("outcome")) {
    const std::string name = outcome->is_string() ? outcome->get<std::string>() : outcome->dump();
    if (name == "ok") {
      parsed.outcome = Outcome::kOk;
    } else if (name == "fail") {
      parsed.outcome = Outcome::kFail;
    } else if (name == "pending") {
      parsed.outcome = Outcome::kPending;
    } else {
      reader.fail("unknown \"outcome\" " + outcome->dump() +
                  " (expected \"ok\", \"fail\" or \"pending\")");
    }
  } else {
    parsed.outcome = parsed.return_position ? Outcome::kOk : Outcome::kPending;
  }
  if (parsed.outcome == Outcome::kPending && parsed.return_position) {
    reader.fail("a pending operation has no \"return\"");
  }
  if (parsed.outcome != Outcome::kPending && !parsed.return_position) {
    reader.fail(std::string("an operation with outcome \"") + outcome_name(parsed.outcome) +
                "\" needs a \"return\" position");
  }
  parsed.source.call_line = reader.line_field("line", json_line);
  parsed.source.return_line =
      reader.line_field("return_line", parsed.return_position ? json_line : 0);
  return parsed;
}

}  // namespace

std::string json_text(const json& document, int indent) {
  return document.dump(indent, ' ', false, json::error_handler_t::replace);
}

bool is_document_kind(const json& document, std::string_view kind) {
  if (!document.is_object()) return false;
  const auto tag = document.find("linfault");
  return tag != document.end() && tag->is_string() && tag->get_ref<const std::string&>() == kind;
}

std::optional<std::string> unknown_field(const json& object,
                                         std::initializer_list<std::string_view> known) {
  if (!object.is_object()) return std::nullopt;
  for (const auto& [name, unused] : object.items()) {
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return std::nullopt;
}

json value_to_json(const Value& value) {
  if (value.is_nil()) return nullptr;
  if (value.is_bool()) return value.as_bool();
  if (value.is_int()) return value.as_int();
  if (value.is_string()) return value.as_string();
  json array = json::array();
  for (const Value& item : value.as_list()) array.push_back(value_to_json(item));
  return array;
}

namespace {

constexpr int kMaxValueDepth = 200;

Value value_from_json_at(const json& json_value, int depth) {
  if (depth > kMaxValueDepth) {
    throw std::invalid_argument("value nested more than " + std::to_string(kMaxValueDepth) +
                                " deep");
  }
  switch (json_value.type()) {
    case json::value_t::null:
      return Value();
    case json::value_t::boolean:
      return Value(json_value.get<bool>());
    case json::value_t::number_integer:
      return Value(json_value.get<std::int64_t>());
    case json::value_t::number_unsigned:
      if (json_value.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        throw std::invalid_argument("integer " + json_value.dump() + " does not fit in 64 bits");
      }
      return Value(json_value.get<std::int64_t>());
    case json::value_t::string:
      return Value(json_value.get<std::string>());
    case json::value_t::array: {
      Value::List list;
      for (const json& item : json_value) list.push_back(value_from_json_at(item, depth + 1));
      return Value(std::move(list));
    }
    default: {
      std::string shown = json_value.dump();
      if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
      throw std::invalid_argument("value " + shown +
                                  " is not null, a boolean, an integer, a string or an array");
    }
  }
}

}  // namespace

Value value_from_json(const json& json_value) { return value_from_json_at(json_value, 0); }

json history_to_json(const History& history, const std::optional<std::string>& model) {
  json document = json::object();
  document["linfault"] = "history";
  document["version"] = kVersion;
  if (model) document["model"] = *model;
  json operations = json::array();
  for (const Operation& op : history.operations()) {
    json entry = json::object();
    entry["process"] = op.process;
    entry["method"] = op.call.method;
    json args = json::array();
    for (const Value& arg : op.call.args) args.push_back(value_to_json(arg));
    entry["args"] = std::move(args);
    entry["outcome"] = outcome_name(op.outcome);
    if (op.outcome == Outcome::kOk || !op.result.is_nil())
      entry["result"] = value_to_json(op.result);
    if (op.key) entry["key"] = value_to_json(*op.key);
    entry["call"] = op.call_event;
    if (op.return_event != kNoEvent) entry["return"] = op.return_event;
    if (op.source.call_line != 0) entry["line"] = op.source.call_line;
    if (op.source.return_line != 0) entry["return_line"] = op.source.return_line;
    operations.push_back(std::move(entry));
  }
  document["operations"] = std::move(operations);
  return document;
}

std::string history_to_json_text(const History& history, const std::optional<std::string>& model) {
  json document = history_to_json(history, model);
  json operations = std::move(document["operations"]);
  document.erase("operations");
  std::string text = document.dump();
  text.pop_back();  // the closing brace
  text += ",\"operations\":[\n";
  for (std::size_t i = 0; i < operations.size(); ++i) {
    text += operations[i].dump();
    text += i + 1 < operations.size() ? ",\n" : "\n";
  }
  text += "]}\n";
  return text;
}

History history_from_json(const json& document, const std::string& origin) {
  return history_from_json(document, origin, {});
}

History history_from_json(const json& document, const std::string& origin,
                          const std::vector<std::uint32_t>& operation_lines) {
  if (!document.is_object()) {
    throw InputError(
        origin, 1,
        "expected a JSON object with \"operations\", got " + std::string(document.type_name()));
  }
  if (auto tag = document.find("linfault"); tag != document.end() && *tag != "history") {
    throw InputError(origin, 1, "this is a linfault " + tag->dump() + " document, not a history");
  }
  if (auto version = document.find("version");
      version != document.end() && (!version->is_number_integer() || *version != kVersion)) {
    throw InputError(origin, 1,
                     "unsupported history version " + version->dump() +
                         " (this linfault reads version " + std::to_string(kVersion) + ")");
  }
  if (const auto name = unknown_field(document, {"linfault", "version", "model", "operations"})) {
    throw InputError(origin, 1,
                     "unknown field \"" + *name +
                         "\" (a history has \"linfault\", \"version\", \"model\" and "
                         "\"operations\")");
  }
  auto operations = document.find("operations");
  if (operations == document.end() || !operations->is_array()) {
    throw InputError(origin, 1, "missing \"operations\" array");
  }
  std::vector<ParsedOperation> ops;
  ops.reserve(operations->size());
  for (std::size_t i = 0; i < operations->size(); ++i) {
    const std::uint32_t line = i < operation_lines.size() ? operation_lines[i] : 0;
    ops.push_back(parse_operation((*operations)[i], i, origin, line));
  }
  return json_detail::build_history(std::move(ops), origin);
}

namespace json_detail {

History build_history(std::vector<ParsedOperation> ops, const std::string& origin) {
  struct Position {
    std::int64_t position;
    std::size_t op;
    bool is_call;
  };
  std::vector<Position> events;
  events.reserve(2 * ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    events.push_back({ops[i].call_position, i, true});
    if (ops[i].return_position) events.push_back({*ops[i].return_position, i, false});
  }
  const auto by_position = [](const Position& a, const Position& b) {
    return a.position < b.position;
  };
  // linfault writes operations in call order, so the positions are often in order already.
  if (!std::is_sorted(events.begin(), events.end(), by_position)) {
    std::sort(events.begin(), events.end(), by_position);
  }
  for (std::size_t e = 1; e < events.size(); ++e) {
    if (events[e].position == events[e - 1].position) {
      const ParsedOperation& op = ops[events[e].op];
      throw InputError(origin, op.json_line,
                       "operations[" + std::to_string(op.index) + "]: event position " +
                           std::to_string(events[e].position) + " is also used by operations[" +
                           std::to_string(ops[events[e - 1].op].index) + "]");
    }
  }

  HistoryBuilder builder(origin);
  builder.reserve(ops.size(), events.size());
  std::map<ProcessId, std::size_t> open;  // process -> document index of its open call
  auto close_pending = [&](ProcessId process) {
    auto it = open.find(process);
    if (it == open.end()) return;
    ParsedOperation& op = ops[it->second];
    builder.respond(process, Outcome::kPending, std::move(op.result), op.source.return_line);
    open.erase(it);
  };
  for (const Position& event : events) {
    ParsedOperation& op = ops[event.op];
    if (event.is_call) {
      if (auto it = open.find(op.process); it != open.end()) {
        const ParsedOperation& other = ops[it->second];
        if (other.return_position) {
          throw InputError(origin, op.json_line,
                           "operations[" + std::to_string(op.index) + "]: process " +
                               std::to_string(op.process) + " calls while its operations[" +
                               std::to_string(other.index) + "] has not returned");
        }
        close_pending(op.process);  // a pending call ends when its process calls again
      }
      builder.invoke(op.process, std::move(op.call), op.source.call_line, std::move(op.key));
      open[op.process] = event.op;
    } else {
      builder.respond(op.process, op.outcome, std::move(op.result), op.source.return_line);
      open.erase(op.process);
    }
  }
  while (!open.empty()) close_pending(open.begin()->first);
  return std::move(builder).build();
}

}  // namespace json_detail

namespace {

// Builds the DOM in one SAX pass, strictly: a key repeated in an object, a number too large for a
// double and nesting deeper than kMaxJsonDepth are errors (nlohmann's own DOM parser keeps the
// last of repeated keys and reports overflow as an out_of_range exception). It also records the
// line on which each element of the top-level "operations" array starts. (nlohmann's DOM parser
// with a callback rescans the enclosing array at every closing brace: quadratic.)
class StrictDomBuilder : public nlohmann::json_sax<json> {
 public:
  StrictDomBuilder(const std::uint32_t* newlines, std::vector<std::uint32_t>* operation_lines)
      : newlines_(newlines), operation_lines_(operation_lines) {}

  json& document() { return document_; }
  // After sax_parse() returned false: the problem, and its byte offset when the lexer gave one.
  const std::string& problem() const { return problem_; }
  std::optional<std::size_t> problem_byte() const { return problem_byte_; }
  std::uint32_t current_line() const { return *newlines_ + 1; }

  bool null() override { return add(json(nullptr)); }
  bool boolean(bool value) override { return add(json(value)); }
  bool number_integer(number_integer_t value) override { return add(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return add(json(value)); }
  bool number_float(number_float_t value, const string_t&) override { return add(json(value)); }
  bool string(string_t& value) override { return add(json(std::move(value))); }
  bool binary(binary_t&) override { return reject("binary values are not JSON"); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    json& object = *open_.back();
    if (object.contains(name)) return reject("duplicate key \"" + name + "\" in an object");
    if (open_.size() == 1) in_operations_ = name == "operations";
    key_ = std::move(name);
    return true;
  }
  bool parse_error(std::size_t byte, const std::string& token,
                   const nlohmann::detail::exception& error) override {
    problem_byte_ = byte;
    if (error.id == 406) {  // out_of_range: a number beyond a double's range
      std::string shown = token.size() > 30 ? token.substr(0, 27) + "..." : token;
      problem_ = "number " + shown + " is out of range";
      return false;
    }
    problem_ = error.what();
    if (const std::size_t column = problem_.find(", column "); column != std::string::npos) {
      problem_ = problem_.substr(problem_.find(": ", column) + 2);
    } else if (const std::size_t bracket = problem_.find("] "); bracket != std::string::npos) {
      problem_ = problem_.substr(bracket + 2);
    }
    return false;
  }

 private:
  static constexpr std::size_t kMaxJsonDepth = 256;

  bool reject(std::string problem) {
    problem_ = std::move(problem);
    return false;
  }

  // Places `value` in the innermost open container (or as the document) and returns it.
  json* place(json value) {
    if (open_.empty()) {
      document_ = std::move(value);
      return &document_;
    }
    json& container = *open_.back();
    if (container.is_array()) {
      if (open_.size() == 2 && in_operations_ && operation_lines_ != nullptr) {
        operation_lines_->push_back(current_line());
      }
      container.push_back(std::move(value));
      return &container.back();
    }
    return &(container[std::move(key_)] = std::move(value));
  }
  bool add(json value) {
    place(std::move(value));
    return true;
  }
  bool open(json container) {
    if (open_.size() >= kMaxJsonDepth) {
      return reject("nested more than " + std::to_string(kMaxJsonDepth) + " deep");
    }
    open_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  const std::uint32_t* newlines_;
  std::vector<std::uint32_t>* operation_lines_;
  json document_;
  std::vector<json*> open_;  // the containers being filled, outermost first
  std::string key_;          // the key of the next member of the innermost object
  bool in_operations_ = false;
  std::string problem_;
  std::optional<std::size_t> problem_byte_;
};

}  // namespace

json parse_json_text(std::string_view text, const std::string& origin,
                     std::vector<std::uint32_t>* operation_lines) {
  std::uint32_t newlines = 0;
  StrictDomBuilder builder(&newlines, operation_lines);
  const bool parsed =
      json::sax_parse(LineCountingIterator(text.data(), &newlines),
                      LineCountingIterator(text.data() + text.size(), &newlines), &builder);
  if (!parsed) {
    const std::optional<std::size_t> byte = builder.problem_byte();
    const std::uint32_t line =
        byte ? line_of_byte(text, *byte == 0 ? 0 : *byte - 1) : builder.current_line();
    throw InputError(origin, line, "invalid JSON: " + builder.problem());
  }
  return std::move(builder.document());
}

json read_json_file(const std::string& path) {
  return parse_json_text(read_file(path), path, nullptr);
}

LoadedHistory read_json_history(std::string_view text, const std::string& origin) {
  if (std::optional<LoadedHistory> loaded = json_detail::read_json_history_fast(text, origin)) {
    return std::move(*loaded);
  }
  return read_json_history_reference(text, origin);
}

LoadedHistory read_json_history_reference(std::string_view text, const std::string& origin) {
  std::vector<std::uint32_t> operation_lines;
  const json document = parse_json_text(text, origin, &operation_lines);
  LoadedHistory loaded;
  loaded.format = Format::kJson;
  loaded.history = history_from_json(document, origin, operation_lines);
  if (auto model = document.find("model"); model != document.end()) {
    if (!model->is_string()) {
      throw InputError(origin, 1, "\"model\" must be a string, got " + model->dump());
    }
    loaded.model = model->get<std::string>();
  }
  return loaded;
}

}  // namespace linfault::history
