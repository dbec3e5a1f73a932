#include "history/edn.h"

#include <cctype>
#include <charconv>
#include <set>
#include <stdexcept>

namespace linfault::history::edn {
namespace {

bool is_symbol_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view(".*+!-_?$%&=<>/':#").find(c) != std::string_view::npos;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// The byte offset of the first malformed UTF-8 sequence in `text` (overlong forms, surrogates and
// code points above U+10FFFF included), or npos. Strings must be valid UTF-8: they end up in JSON.
std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    std::uint32_t code_point = 0;
    if (byte < 0x80) {
      ++i;
      continue;
    } else if ((byte & 0xE0) == 0xC0) {
      length = 2;
      code_point = byte & 0x1F;
    } else if ((byte & 0xF0) == 0xE0) {
      length = 3;
      code_point = byte & 0x0F;
    } else if ((byte & 0xF8) == 0xF0) {
      length = 4;
      code_point = byte & 0x07;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return i;
      code_point = (code_point << 6) | (next & 0x3F);
    }
    static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code_point < kSmallest[length] || code_point > 0x10FFFF ||
        (code_point >= 0xD800 && code_point <= 0xDFFF)) {
      return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Node parse_document() {
    skip_blank();
    if (at_end()) fail("expected a value, found end of input");
    Node node = parse_value();
    skip_blank();
    if (!at_end()) fail("unexpected `" + std::string(1, text_[pos_]) + "` after the value");
    return node;
  }

 private:
  static constexpr int kMaxDepth = 200;

  bool at_end() const { return pos_ >= text_.size(); }
  [[noreturn]] void fail(const std::string& message) const { throw ParseError(pos_ + 1, message); }

  void skip_blank() {
    while (!at_end()) {
      const char c = text_[pos_];
      if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (c == ';') {
        while (!at_end() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  Node parse_value() {
    if (++depth_ > kMaxDepth)
      fail("values nested more than " + std::to_string(kMaxDepth) + " deep");
    Node node = parse_value_inner();
    --depth_;
    return node;
  }

  Node parse_value_inner() {
    const char c = text_[pos_];
    switch (c) {
      case '"':
        return parse_string();
      case ':':
        return parse_keyword();
      case '[':
        return parse_sequence(Node::Kind::kVector, ']');
      case '(':
        return parse_sequence(Node::Kind::kList, ')');
      case '{':
        return parse_map();
      case '#':
        return parse_dispatch();
      case '\\':
        fail("EDN characters (\\c) are not supported");
      case ']':
      case ')':
      case '}':
        fail("unexpected `" + std::string(1, c) + "`");
      default:
        break;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        ((c == '+' || c == '-') && pos_ + 1 < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      return parse_number();
    }
    if (is_symbol_char(c)) return parse_symbol();
    fail("unexpected character `" + std::string(1, c) + "`");
  }

  std::string_view take_token() {
    const std::size_t start = pos_;
    while (!at_end() && is_symbol_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  Node parse_number() {
    const std::size_t start = pos_;
    std::string_view token = take_token();
    std::string_view digits = token;
    if (!digits.empty() && digits.back() == 'N') digits.remove_suffix(1);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    Node node;
    node.kind = Node::Kind::kInt;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), node.integer);
    if (error == std::errc::result_out_of_range) {
      pos_ = start;
      fail("integer " + std::string(token) + " does not fit in 64 bits");
    }
    if (error != std::errc() || end != digits.data() + digits.size()) {
      pos_ = start;
      if (token.find_first_of(".eE/M") != std::string_view::npos) {
        fail("number " + std::string(token) + " is not an integer (only integers are supported)");
      }
      fail("malformed number " + std::string(token));
    }
    return node;
  }

  Node parse_symbol() {
    Node node;
    node.text = std::string(take_token());
    if (node.text == "nil") {
      node.kind = Node::Kind::kNil;
    } else if (node.text == "true" || node.text == "false") {
      node.kind = Node::Kind::kBool;
      node.boolean = node.text == "true";
    } else {
      node.kind = Node::Kind::kSymbol;
    }
    return node;
  }

  Node parse_keyword() {
    ++pos_;  // ':'
    Node node;
    node.kind = Node::Kind::kKeyword;
    node.text = std::string(take_token());
    if (node.text.empty()) fail("empty keyword `:`");
    return node;
  }

  Node parse_string() {
    const std::size_t start = pos_;
    ++pos_;  // opening quote
    Node node;
    node.kind = Node::Kind::kString;
    while (true) {
      if (at_end()) {
        pos_ = start;
        fail("unterminated string");
      }
      const char c = text_[pos_++];
      if (c == '"') {
        if (const std::size_t bad = invalid_utf8_at(node.text); bad != std::string_view::npos) {
          pos_ = start;
          fail("string is not valid UTF-8 (byte " + std::to_string(bad) + " of its contents)");
        }
        break;
      }
      if (c != '\\') {
        node.text += c;
        continue;
      }
      if (at_end()) continue;  // reported as unterminated on the next iteration
      const char escaped = text_[pos_++];
      switch (escaped) {
        case '"':
          node.text += '"';
          break;
        case '\\':
          node.text += '\\';
          break;
        case 'n':
          node.text += '\n';
          break;
        case 't':
          node.text += '\t';
          break;
        case 'r':
          node.text += '\r';
          break;
        case 'b':
          node.text += '\b';
          break;
        case 'f':
          node.text += '\f';
          break;
        case 'u':
          node.text += parse_unicode_escape();
          break;
        default:
          pos_ -= 2;
          fail("unknown escape `\\" + std::string(1, escaped) + "` in string");
      }
    }
    return node;
  }

  std::uint32_t parse_hex4() {
    std::uint32_t code_point = 0;
    if (pos_ + 4 > text_.size()) fail("\\u needs four hex digits");
    auto [end, error] =
        std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code_point, 16);
    if (error != std::errc() || end != text_.data() + pos_ + 4) fail("\\u needs four hex digits");
    pos_ += 4;
    return code_point;
  }

  // After "\u": one code point, or a UTF-16 surrogate pair \uD83D\uDE00.
  std::string parse_unicode_escape() {
    std::uint32_t code_point = parse_hex4();
    if (code_point >= 0xDC00 && code_point <= 0xDFFF) fail("\\u escape is a lone low surrogate");
    if (code_point >= 0xD800 && code_point <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") fail("\\u high surrogate without its low surrogate");
      pos_ += 2;
      const std::uint32_t low = parse_hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("\\u high surrogate without its low surrogate");
      code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
    }
    std::string out;
    append_utf8(out, code_point);
    return out;
  }

  Node parse_sequence(Node::Kind kind, char close) {
    const std::size_t open = pos_;
    ++pos_;
    Node node;
    node.kind = kind;
    while (true) {
      skip_blank();
      if (at_end()) {
        pos_ = open;
        fail("`" + std::string(1, text_[open]) + "` is never closed");
      }
      if (text_[pos_] == close) {
        ++pos_;
        return node;
      }
      node.items.push_back(parse_value());
    }
  }

  Node parse_map() {
    const std::size_t open = pos_;
    Node node = parse_sequence(Node::Kind::kMap, '}');
    if (node.items.size() % 2 != 0) {
      pos_ = open;
      fail("map has a key without a value");
    }
    // Written forms are distinct for distinct nodes, so they identify the keys.
    std::set<std::string> keys;
    for (std::size_t i = 0; i < node.items.size(); i += 2) {
      std::string key = node.items[i].to_string();
      if (keys.count(key) != 0) {
        pos_ = open;
        if (key.size() > 40) key = key.substr(0, 37) + "...";
        fail("duplicate key " + key + " in a map");
      }
      keys.insert(std::move(key));
    }
    return node;
  }

  Node parse_dispatch() {
    ++pos_;  // '#'
    if (at_end()) fail("`#` at end of input");
    if (text_[pos_] == '{') return parse_sequence(Node::Kind::kSet, '}');
    if (text_[pos_] == '_') {
      ++pos_;
      skip_blank();
      if (at_end()) fail("#_ discards nothing");
      parse_value();
      skip_blank();
      if (at_end()) fail("expected a value after the discarded one");
      return parse_value();
    }
    if (!is_symbol_char(text_[pos_])) fail("unsupported `#` dispatch");
    take_token();  // the tag: the tagged value stands for itself
    skip_blank();
    if (at_end()) fail("tag without a value");
    return parse_value();
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

const Node* Node::find(std::string_view keyword) const {
  if (kind != Kind::kMap) return nullptr;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i].is_keyword(keyword)) return &items[i + 1];
  }
  return nullptr;
}

std::string Node::to_string() const {
  auto join = [this](const char* open, const char* close) {
    std::string out = open;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out += ' ';
      out += items[i].to_string();
    }
    return out + close;
  };
  switch (kind) {
    case Kind::kNil:
      return "nil";
    case Kind::kBool:
      return boolean ? "true" : "false";
    case Kind::kInt:
      return std::to_string(integer);
    case Kind::kString:
      return Value(text).to_string();
    case Kind::kKeyword:
      return ":" + text;
    case Kind::kSymbol:
      return text;
    case Kind::kVector:
      return join("[", "]");
    case Kind::kList:
      return join("(", ")");
    case Kind::kSet:
      return join("#{", "}");
    case Kind::kMap:
      return join("{", "}");
  }
  return "?";
}

Node parse(std::string_view text) { return Parser(text).parse_document(); }

Value to_value(const Node& node) {
  switch (node.kind) {
    case Node::Kind::kNil:
      return Value();
    case Node::Kind::kBool:
      return Value(node.boolean);
    case Node::Kind::kInt:
      return Value(node.integer);
    case Node::Kind::kString:
      return Value(node.text);
    case Node::Kind::kKeyword:
      return Value(":" + node.text);
    case Node::Kind::kVector:
    case Node::Kind::kList:
    case Node::Kind::kSet: {
      Value::List list;
      list.reserve(node.items.size());
      for (const Node& item : node.items) list.push_back(to_value(item));
      return Value(std::move(list));
    }
    case Node::Kind::kSymbol:
      throw std::invalid_argument("symbol " + node.text + " is not a value (strings need quotes)");
    case Node::Kind::kMap:
      throw std::invalid_argument("map " + node.to_string() + " cannot be an operation value");
  }
  throw std::invalid_argument("unknown EDN node");
}

}  // namespace linfault::history::edn
