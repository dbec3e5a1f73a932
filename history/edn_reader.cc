// Jepsen and Knossos EDN histories (docs/formats.md, "edn"): a sequence of operation maps, bare
// (Jepsen's history.edn, one map per line or spread over several) or inside one top-level vector
// or list (Knossos), each map possibly tagged (#jepsen.history.Op{...}). Read in one pass over the
// text with edn::Scanner: no tree is built; a map's fields are matched by keyword name, unknown
// fields are checked for syntax and skipped, and :value/:key/:error are converted to Values only
// for operations of the object (processes that are integers), so a nemesis may carry anything.

#include <stdexcept>
#include <vector>

#include "history/edn.h"
#include "history/readers.h"

namespace linfault::history {
namespace {

using edn::Position;
using edn::Token;
using edn::TokenKind;

using edn::shortened;

// The keys of an operation map that the reader looks at (unqualified keywords: a namespaced
// :foo/process is another field).
enum class Field : std::uint8_t { kProcess, kType, kF, kValue, kKey, kError, kIndex, kOther };

Field field_named(std::string_view name) {
  switch (name.size()) {
    case 1:
      return name[0] == 'f' ? Field::kF : Field::kOther;
    case 3:
      return name == "key" ? Field::kKey : Field::kOther;
    case 4:
      return name == "type" ? Field::kType : Field::kOther;
    case 5:
      if (name == "value") return Field::kValue;
      if (name == "error") return Field::kError;
      if (name == "index") return Field::kIndex;
      return Field::kOther;
    case 7:
      return name == "process" ? Field::kProcess : Field::kOther;
    default:
      return Field::kOther;
  }
}

// A field whose value is read later: a scalar read at once, or where to read it again.
struct DeferredValue {
  bool present = false;
  bool direct = false;  // `value` holds it
  Value value;
  Position before;  // where a scanner re-reads it (its leading blanks)
};

// A name field (:type, :f): a keyword or a string; anything else is kept to be reported.
struct NameField {
  bool present = false;
  bool valid = false;
  std::string_view name;  // into the text, or into `storage` for a string with escapes
  std::string storage;
  std::string bad;  // the written form of an invalid value
  Position where;
};

class OperationReader {
 public:
  OperationReader(std::string_view text, const std::string& origin)
      : text_(text), scanner_(text), origin_(origin), recorder_(origin) {}

  LoadedHistory read() && {
    try {
      read_operations();
    } catch (const edn::ParseError& e) {
      fail(e.where(), e.message());
    }
    LoadedHistory loaded;
    loaded.format = Format::kEdn;
    loaded.model = recorder_.saw_key() ? std::optional<std::string>("kv")
                                       : register_model_for(recorder_.methods());
    loaded.history = std::move(recorder_).finish();
    return loaded;
  }

 private:
  [[noreturn]] void fail(const Position& where, const std::string& problem) const {
    throw InputError(origin_, where.line,
                     "column " + std::to_string(where.column) + ": " + problem);
  }

  // The text of the value starting with `first`, which is skipped.
  std::string_view source_of(const Token& first) {
    const std::size_t start = first.where.offset;
    scanner_.skip_value(first, 2);
    return text_.substr(start, scanner_.position().offset - start);
  }

  // The same, shortened for a message.
  std::string written(const Token& first) { return shortened(source_of(first)); }

  // The token of a map's value after its key; a map that ends instead has a key without value.
  const Token& value_token(const Position& map) {
    const Token& token = scanner_.next();
    if (token.kind == TokenKind::kEnd) fail(map, "`{` is never closed");
    if (token.kind == TokenKind::kClose) {
      if (token.bracket == '}') fail(map, "map has a key without a value");
      fail(token.where, std::string("unexpected `") + token.bracket + "`");
    }
    return token;
  }

  void read_operations() {
    const Token* token = &scanner_.next();
    char close = 0;
    Position open;
    if (token->kind == TokenKind::kOpen && (token->bracket == '[' || token->bracket == '(')) {
      close = token->bracket == '[' ? ']' : ')';
      open = token->where;
      token = &scanner_.next();
    }
    while (true) {
      if (token->kind == TokenKind::kEnd) {
        if (close != 0)
          fail(open, std::string("`") + (close == ']' ? '[' : '(') + "` is never closed");
        return;
      }
      if (close != 0 && token->kind == TokenKind::kClose && token->bracket == close) {
        const Token& after = scanner_.next();
        if (after.kind != TokenKind::kEnd) {
          fail(after.where, std::string("unexpected `") + text_[after.where.offset] +
                                "` after the history's closing `" + close + "`");
        }
        return;
      }
      const Position start = token->where;
      while (token->kind == TokenKind::kTag) {  // a record: #jepsen.history.Op{...}
        token = &scanner_.next();
        if (token->kind == TokenKind::kEnd) fail(start, "tag without a value");
      }
      if (token->kind != TokenKind::kOpen || token->bracket != '{') {
        if (token->kind == TokenKind::kClose) {
          fail(token->where, std::string("unexpected `") + token->bracket + "`");
        }
        const Position where = token->where;
        fail(where, "expected one operation map {:process .. :type .. :f ..}, got `" +
                        written(*token) + "`");
      }
      read_operation(start, token->where);
      token = &scanner_.next();
    }
  }

  void read_name(NameField& field, std::string_view key, const Token& token) {
    field.present = true;
    field.where = token.where;
    if (token.kind == TokenKind::kKeyword) {
      field.valid = true;
      field.name = token.text;
    } else if (token.kind == TokenKind::kString && !token.text.empty()) {
      field.valid = true;
      field.storage = std::string(token.text);
      field.name = field.storage;
    } else {
      field.bad = ":" + std::string(key) + " must be a keyword, got " + written(token);
    }
  }

  void read_deferred(DeferredValue& field, const Position& before, const Token& token) {
    field.present = true;
    field.before = before;
    field.direct = true;
    switch (token.kind) {
      case TokenKind::kNil:
        field.value = Value();
        return;
      case TokenKind::kBool:
        field.value = Value(token.boolean);
        return;
      case TokenKind::kInt:
        field.value = Value(token.integer);
        return;
      case TokenKind::kString:
        field.value = Value(std::string(token.text));
        return;
      case TokenKind::kKeyword: {
        std::string keyword;
        keyword.reserve(token.text.size() + 1);
        keyword += ':';
        keyword += token.text;
        field.value = Value(std::move(keyword));
        return;
      }
      default:
        field.direct = false;
        scanner_.skip_value(token, 2);
        return;
    }
  }

  // Reads one map; `start` is where the operation begins (its tag, if any), `map` its `{`.
  void read_operation(const Position start, const Position map) {
    bool has_process = false;
    bool nemesis = false;
    ProcessId process = 0;
    NameField type, method;
    DeferredValue value, key, error;
    unsigned fields_seen = 0;                  // bits of Field
    std::vector<std::string_view> other_keys;  // texts of keys that are not keywords
    other_names_.clear();
    while (true) {
      const Token& key_token = scanner_.next();
      if (key_token.kind == TokenKind::kClose) {
        if (key_token.bracket != '}') {
          fail(key_token.where, std::string("unexpected `") + key_token.bracket + "`");
        }
        break;
      }
      if (key_token.kind == TokenKind::kEnd) fail(map, "`{` is never closed");
      if (key_token.kind != TokenKind::kKeyword) {
        const Position key_at = key_token.where;
        const std::string_view key_text = source_of(key_token);
        for (std::string_view other : other_keys) {
          if (other == key_text) fail(key_at, "duplicate key " + shortened(key_text) + " in a map");
        }
        other_keys.push_back(key_text);
        scanner_.skip_value(value_token(map), 2);
        continue;
      }
      const std::string_view name = key_token.text;
      const Position key_at = key_token.where;
      const Field field = field_named(name);
      if (field == Field::kOther) {
        check_other_key(name, key_at);
      } else {
        const unsigned bit = 1u << static_cast<unsigned>(field);
        if ((fields_seen & bit) != 0) {
          fail(key_at, "duplicate key :" + shortened(name) + " in a map");
        }
        fields_seen |= bit;
      }
      const Position before = scanner_.position();
      const Token& token = value_token(map);
      switch (field) {
        case Field::kProcess:
          has_process = true;
          if (token.kind == TokenKind::kInt) {
            process = token.integer;
          } else if (token.kind == TokenKind::kKeyword) {
            nemesis = true;
          } else {
            const Position where = token.where;
            fail(where, ":process must be an integer, got " + written(token));
          }
          break;
        case Field::kType:
          read_name(type, name, token);
          break;
        case Field::kF:
          read_name(method, name, token);
          break;
        case Field::kValue:
          read_deferred(value, before, token);
          break;
        case Field::kKey:
          read_deferred(key, before, token);
          break;
        case Field::kError:
          read_deferred(error, before, token);
          break;
        case Field::kIndex:
          check_index(token);
          break;
        case Field::kOther:
          scanner_.skip_value(token, 2);  // :time, :node and any other field
          break;
      }
    }
    if (!has_process) fail(map, "missing :process");
    if (nemesis) return;
    for (NameField* field : {&type, &method}) {
      const char* field_name = field == &type ? ":type" : ":f";
      if (!field->present) fail(map, std::string("missing ") + field_name);
      if (!field->valid) fail(field->where, field->bad);
    }
    const Position resume = scanner_.position();
    Value argument = materialize(value, "value");
    std::optional<Value> partition_key;
    if (key.present) partition_key = materialize(key, "key");
    std::optional<Value> error_detail;
    if (error.present) error_detail = materialize_error(error);
    scanner_.seek(resume);
    recorder_.record(start.line, process, type.name, method.name, std::move(argument),
                     std::move(partition_key), std::move(error_detail));
  }

  // Keywords other than the operation's fields (:time, :node, ...) must not repeat either.
  void check_other_key(std::string_view name, const Position& key_at) {
    for (std::string_view other : other_names_) {
      if (other == name) fail(key_at, "duplicate key :" + shortened(name) + " in a map");
    }
    other_names_.push_back(name);
  }

  // :index, when present, must increase from operation to operation (Jepsen numbers them).
  void check_index(const Token& token) {
    const Position where = token.where;
    if (token.kind != TokenKind::kInt)
      fail(where, ":index must be an integer, got " + written(token));
    if (last_index_line_ != 0 && token.integer <= last_index_) {
      fail(where, ":index " + std::to_string(token.integer) + " is not above :index " +
                      std::to_string(last_index_) + " on line " + std::to_string(last_index_line_));
    }
    last_index_ = token.integer;
    last_index_line_ = where.line;
  }

  Value materialize(DeferredValue& field, std::string_view name) {
    if (!field.present) return Value();
    if (field.direct) return std::move(field.value);
    scanner_.seek(field.before);
    std::optional<Value> converted = convert(scanner_.next());
    if (!converted) fail(problem_at_, ":" + std::string(name) + ": " + problem_);
    return std::move(*converted);
  }

  // :error is a detail of :fail and :info: kept as a Value when it has one, else as its text.
  Value materialize_error(DeferredValue& field) {
    if (field.direct) return std::move(field.value);
    scanner_.seek(field.before);
    const Token& first = scanner_.next();
    const Position where = first.where;
    std::optional<Value> converted = convert(first);
    if (converted) return std::move(*converted);
    scanner_.seek(field.before);
    const Token& again = scanner_.next();
    scanner_.skip_value(again, 2);
    std::string text;
    bool blank = false;
    for (char c : text_.substr(where.offset, scanner_.position().offset - where.offset)) {
      const bool is_blank = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ',';
      if (is_blank && !blank) text += ' ';
      if (!is_blank) text += c;
      blank = is_blank;
    }
    if (invalid_utf8_at(text) != std::string_view::npos) {
      fail(where, ":error is not valid UTF-8");
    }
    return Value(std::move(text));
  }

  // The value starting with `token` (already checked for syntax), or nullopt with problem_ set
  // when it has no Value form. Leaves the scanner after the value only on success.
  std::optional<Value> convert(const Token& token) {
    auto problem = [this, &token](std::string message) -> std::optional<Value> {
      problem_ = std::move(message);
      problem_at_ = token.where;
      return std::nullopt;
    };
    constexpr const char* kNoFloats =
        " is not supported: history values are nil, booleans, integers, strings and lists";
    switch (token.kind) {
      case TokenKind::kNil:
        return Value();
      case TokenKind::kBool:
        return Value(token.boolean);
      case TokenKind::kInt:
        return Value(token.integer);
      case TokenKind::kString:
        return Value(std::string(token.text));
      case TokenKind::kKeyword:
        return Value(":" + std::string(token.text));
      case TokenKind::kBigInt:
        return problem("integer " + shortened(token.text) + " does not fit in 64 bits");
      case TokenKind::kFloat:
        return problem("floating-point number " + shortened(token.text) + kNoFloats);
      case TokenKind::kRatio:
        return problem("ratio " + shortened(token.text) + kNoFloats);
      case TokenKind::kChar:
        return problem("character \\" + shortened(token.text) + kNoFloats);
      case TokenKind::kSymbol:
        return problem("symbol " + shortened(token.text) + " is not a value (strings need quotes)");
      case TokenKind::kTag: {  // the tagged value (iteratively: tags may be chained)
        const Token* inner = &scanner_.next();
        while (inner->kind == TokenKind::kTag) inner = &scanner_.next();
        return convert(*inner);
      }
      case TokenKind::kEnd:
      case TokenKind::kClose:
        return problem("expected a value");
      case TokenKind::kOpen:
        break;
    }
    if (token.bracket == '{') {
      const Position where = token.where;
      std::string map = written(token);
      problem_at_ = where;
      problem_ = "map " + map + " cannot be an operation value";
      return std::nullopt;
    }
    Value::List list;
    while (true) {
      const Token& item = scanner_.next();
      if (item.kind == TokenKind::kClose) break;  // the syntax was checked: it matches
      std::optional<Value> element = convert(item);
      if (!element) return std::nullopt;
      list.push_back(std::move(*element));
    }
    return Value(std::move(list));
  }

  std::string_view text_;
  edn::Scanner scanner_;
  const std::string& origin_;
  JepsenRecorder recorder_;
  std::int64_t last_index_ = 0;
  std::uint32_t last_index_line_ = 0;
  std::vector<std::string_view> other_names_;  // of the current map, into the text
  std::string problem_;
  Position problem_at_;
};

}  // namespace

LoadedHistory read_edn(std::string_view text, const std::string& origin) {
  return OperationReader(text, origin).read();
}

}  // namespace linfault::history
