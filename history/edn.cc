#include "history/edn.h"

#include <array>
#include <cctype>
#include <charconv>
#include <set>
#include <stdexcept>

namespace linfault::history::edn {
namespace {

using detail::is_symbol_char;

std::string shown(std::string_view text) { return shortened(text, 38); }

// One character of the text for a message: itself when ASCII, else its byte value (a byte of a
// UTF-8 sequence alone would make the message invalid UTF-8).
std::string quoted_char(std::string_view prefix, char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x80) return "`" + std::string(prefix) + printable(std::string_view(&c, 1)) + "`";
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0xF];
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

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

// Whether `token` is a floating-point number: [sign] digits [. digits] [e [sign] digits] [M],
// with at least one of the fraction, the exponent or M.
bool is_float_text(std::string_view token) {
  std::size_t i = 0;
  if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
  const std::size_t digits_start = i;
  while (i < token.size() && is_digit(token[i])) ++i;
  if (i == digits_start) return false;
  bool decorated = false;
  if (i < token.size() && token[i] == '.') {
    decorated = true;
    ++i;
    while (i < token.size() && is_digit(token[i])) ++i;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    decorated = true;
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    const std::size_t exponent_start = i;
    while (i < token.size() && is_digit(token[i])) ++i;
    if (i == exponent_start) return false;
  }
  if (i < token.size() && token[i] == 'M') {
    decorated = true;
    ++i;
  }
  return decorated && i == token.size();
}

// Whether `token` is a ratio: [sign] digits / digits.
bool is_ratio_text(std::string_view token) {
  const std::size_t slash = token.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view numerator = token.substr(0, slash);
  const std::string_view denominator = token.substr(slash + 1);
  if (!numerator.empty() && (numerator[0] == '+' || numerator[0] == '-')) {
    numerator.remove_prefix(1);
  }
  auto all_digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return all_digits(numerator) && all_digits(denominator);
}

constexpr std::string_view kCharNames[] = {"newline", "return",   "space",
                                           "tab",     "formfeed", "backspace"};

char closing_of(char open) {
  switch (open) {
    case '[':
      return ']';
    case '(':
      return ')';
    default:
      return '}';  // maps and sets
  }
}

std::string opening_text(char bracket) { return bracket == '#' ? "#{" : std::string(1, bracket); }

}  // namespace

std::string shortened(std::string_view text, std::size_t length) {
  std::string out = printable(text);
  if (out.size() <= length) return out;
  std::size_t cut = length - 3;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  return out + "...";
}

void Scanner::seek(const Position& where) {
  pos_ = where.offset;
  line_ = where.line;
  line_start_ = where.offset - (where.column - 1);
}

const Token& Scanner::next_token() {
  while (true) {
    skip_blanks();
    token_.where = here();
    if (pos_ >= text_.size()) {
      token_.kind = TokenKind::kEnd;
      return token_;
    }
    const char c = text_[pos_];
    switch (c) {
      case '[':
      case '(':
      case '{':
        ++pos_;
        token_.kind = TokenKind::kOpen;
        token_.bracket = c;
        return token_;
      case ']':
      case ')':
      case '}':
        ++pos_;
        token_.kind = TokenKind::kClose;
        token_.bracket = c;
        return token_;
      case '"':
        scan_string();
        return token_;
      case ':': {
        const std::size_t start = ++pos_;
        while (pos_ < text_.size() && is_symbol_char(text_[pos_])) ++pos_;
        if (pos_ == start) fail(token_.where, "empty keyword `:`");
        token_.kind = TokenKind::kKeyword;
        token_.text = text_.substr(start, pos_ - start);
        return token_;
      }
      case '\\':
        scan_char();
        return token_;
      case '#':
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '_') {
          const Position discard = token_.where;
          pos_ += 2;
          if (++discard_depth_ > kMaxDepth) {
            fail(discard, "#_ discards nested more than " + std::to_string(kMaxDepth) + " deep");
          }
          const Token& dropped = next();
          if (dropped.kind == TokenKind::kEnd) fail(discard, "#_ discards nothing");
          skip_value(dropped);
          --discard_depth_;
          continue;
        }
        scan_dispatch();
        return token_;
      default:
        scan_number_or_symbol();
        return token_;
    }
  }
}

void Scanner::skip_nested(const Token& first, int depth) {
  // The open brackets of this value: their kind, where they are, and how many values they hold
  // so far (a map's must be even). Discarded values inside use the same stack above `base`.
  const std::size_t base = open_.size();
  const Token* token = &first;
  while (true) {
    switch (token->kind) {
      case TokenKind::kEnd:
        if (open_.size() == base) fail(token->where, "expected a value, found end of input");
        fail(open_.back().where, "`" + opening_text(open_.back().bracket) + "` is never closed");
      case TokenKind::kOpen:
        if (depth + static_cast<int>(open_.size() - base) > kMaxDepth) {
          fail(token->where, "values nested more than " + std::to_string(kMaxDepth) + " deep");
        }
        open_.push_back({token->bracket, 0, token->where});
        break;
      case TokenKind::kClose: {
        if (open_.size() == base || closing_of(open_.back().bracket) != token->bracket) {
          fail(token->where, std::string("unexpected `") + token->bracket + "`");
        }
        const OpenBracket closed = open_.back();
        open_.pop_back();
        if (closed.bracket == '{' && closed.count % 2 != 0) {
          fail(closed.where, "map has a key without a value");
        }
        if (open_.size() == base) return;
        ++open_.back().count;
        break;
      }
      case TokenKind::kTag:
        break;  // its value follows
      default:
        if (open_.size() == base) return;
        ++open_.back().count;
        break;
    }
    token = &next();
  }
}

void Scanner::scan_number_or_symbol() {
  const std::size_t start = pos_;
  const char c = text_[pos_];
  if (!is_symbol_char(c)) {
    fail(token_.where, "unexpected character " + quoted_char("", c));
  }
  while (pos_ < text_.size() && is_symbol_char(text_[pos_])) ++pos_;
  const std::string_view token = text_.substr(start, pos_ - start);
  token_.text = token;
  const bool number =
      is_digit(c) || ((c == '+' || c == '-') && token.size() > 1 && is_digit(token[1]));
  if (!number) {
    if (token == "nil") {
      token_.kind = TokenKind::kNil;
    } else if (token == "true" || token == "false") {
      token_.kind = TokenKind::kBool;
      token_.boolean = token[0] == 't';
    } else {
      token_.kind = TokenKind::kSymbol;
    }
    return;
  }
  std::string_view digits = token;
  if (digits.back() == 'N') digits.remove_suffix(1);
  if (digits.front() == '+') digits.remove_prefix(1);
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), token_.integer);
  if (end == digits.data() + digits.size() && !digits.empty() && digits.back() != '-' &&
      digits.back() != '+') {
    if (error == std::errc()) {
      token_.kind = TokenKind::kInt;
      return;
    }
    if (error == std::errc::result_out_of_range) {
      token_.kind = TokenKind::kBigInt;
      return;
    }
  }
  if (is_float_text(token)) {
    token_.kind = TokenKind::kFloat;
  } else if (is_ratio_text(token)) {
    token_.kind = TokenKind::kRatio;
  } else {
    fail(token_.where, "malformed number " + shown(token));
  }
}

void Scanner::scan_char() {
  ++pos_;  // the backslash
  if (pos_ >= text_.size()) fail(token_.where, "`\\` at end of input");
  const std::size_t start = pos_;
  // One character (all the bytes of a UTF-8 sequence), then the rest of a name (\newline).
  ++pos_;
  while (pos_ < text_.size() && (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80) ++pos_;
  const std::size_t first_length = pos_ - start;
  while (pos_ < text_.size() && is_symbol_char(text_[pos_])) ++pos_;
  const std::string_view name = text_.substr(start, pos_ - start);
  token_.kind = TokenKind::kChar;
  token_.text = name;
  if (invalid_utf8_at(name) != std::string_view::npos) {
    fail(token_.where, "character is not valid UTF-8");
  }
  if (name.size() == first_length) return;
  for (std::string_view known : kCharNames) {
    if (name == known) return;
  }
  const bool unicode =
      name.size() == 5 && name[0] == 'u' &&
      name.substr(1).find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
  if (!unicode) fail(token_.where, "unknown character `\\" + shown(name) + "`");
}

void Scanner::scan_dispatch() {
  const Position where = token_.where;
  ++pos_;  // '#'
  if (pos_ >= text_.size()) fail(where, "`#` at end of input");
  const char c = text_[pos_];
  if (c == '{') {
    ++pos_;
    token_.kind = TokenKind::kOpen;
    token_.bracket = '#';
    return;
  }
  if (c == '#') {
    const std::size_t start = ++pos_;
    while (pos_ < text_.size() && is_symbol_char(text_[pos_])) ++pos_;
    const std::string_view name = text_.substr(start, pos_ - start);
    if (name != "Inf" && name != "-Inf" && name != "NaN") {
      fail(where, "unknown symbolic value ##" + shown(name) + " (##Inf, ##-Inf or ##NaN)");
    }
    token_.kind = TokenKind::kFloat;
    token_.text = text_.substr(start - 2, pos_ - start + 2);
    return;
  }
  if (c == ':') fail(where, "namespaced maps (#:ns{...}) are Clojure, not EDN: not supported");
  if (!std::isalpha(static_cast<unsigned char>(c))) {
    fail(where, "unsupported `#` dispatch " + quoted_char("#", c));
  }
  const std::size_t start = pos_;
  while (pos_ < text_.size() && is_symbol_char(text_[pos_])) ++pos_;
  token_.kind = TokenKind::kTag;
  token_.text = text_.substr(start, pos_ - start);
}

std::uint32_t Scanner::scan_hex4() {
  std::uint32_t code_point = 0;
  if (pos_ + 4 > text_.size()) fail(here(), "\\u needs four hex digits");
  const auto [end, error] =
      std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code_point, 16);
  if (error != std::errc() || end != text_.data() + pos_ + 4) {
    fail(here(), "\\u needs four hex digits");
  }
  pos_ += 4;
  return code_point;
}

void Scanner::scan_string() {
  const Position start = token_.where;
  const std::size_t contents = ++pos_;
  bool ascii = true;
  bool decoding = false;          // an escape was seen: the contents are built in decoded_
  std::size_t copied = contents;  // text before this offset is already in decoded_
  while (true) {
    if (pos_ >= text_.size()) fail(start, "unterminated string");
    const char c = text_[pos_];
    if (c == '"') break;
    if (c == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
    } else if (c == '\\') {
      if (!decoding) {
        decoded_.clear();
        decoding = true;
      }
      decoded_.append(text_.substr(copied, pos_ - copied));
      const Position backslash = here();
      if (pos_ + 1 >= text_.size()) fail(start, "unterminated string");
      const char escaped = text_[pos_ + 1];
      pos_ += 2;
      switch (escaped) {
        case '"':
        case '\\':
        case '/':
          decoded_ += escaped;
          break;
        case 'n':
          decoded_ += '\n';
          break;
        case 't':
          decoded_ += '\t';
          break;
        case 'r':
          decoded_ += '\r';
          break;
        case 'b':
          decoded_ += '\b';
          break;
        case 'f':
          decoded_ += '\f';
          break;
        case 'u': {
          std::uint32_t code_point = scan_hex4();
          if (code_point >= 0xDC00 && code_point <= 0xDFFF) {
            fail(here(), "\\u escape is a lone low surrogate");
          }
          if (code_point >= 0xD800 && code_point <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u")
              fail(here(), "\\u high surrogate without its low surrogate");
            pos_ += 2;
            const std::uint32_t low = scan_hex4();
            if (low < 0xDC00 || low > 0xDFFF)
              fail(here(), "\\u high surrogate without its low surrogate");
            code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(decoded_, code_point);
          break;
        }
        default:
          fail(backslash, "unknown escape " + quoted_char("\\", escaped) + " in string");
      }
      copied = pos_;
      continue;
    }
    ++pos_;
  }
  std::string_view value = text_.substr(contents, pos_ - contents);
  if (decoding) {
    decoded_.append(text_.substr(copied, pos_ - copied));
    value = decoded_;
  }
  ++pos_;  // closing quote
  if (!ascii) {
    if (const std::size_t bad = invalid_utf8_at(value); bad != std::string_view::npos) {
      fail(start, "string is not valid UTF-8 (byte " + std::to_string(bad) + " of its contents)");
    }
  }
  token_.kind = TokenKind::kString;
  token_.text = value;
}

namespace {

class TreeParser {
 public:
  explicit TreeParser(std::string_view text) : scanner_(text) {}

  Node parse_document() {
    const Token first = scanner_.next();
    if (first.kind == TokenKind::kEnd) {
      Scanner::fail(first.where, "expected a value, found end of input");
    }
    Node node = parse_value(first, 1);
    const Token& after = scanner_.next();
    if (after.kind != TokenKind::kEnd) {
      const std::string_view rest = scanner_.text().substr(after.where.offset, 1);
      Scanner::fail(after.where, "unexpected `" + printable(rest) + "` after the value");
    }
    return node;
  }

 private:
  Node parse_value(const Token& token, int depth) {
    if (depth > Scanner::kMaxDepth) {
      Scanner::fail(token.where,
                    "values nested more than " + std::to_string(Scanner::kMaxDepth) + " deep");
    }
    Node node;
    switch (token.kind) {
      case TokenKind::kEnd:
        Scanner::fail(token.where, "expected a value, found end of input");
      case TokenKind::kNil:
        return node;
      case TokenKind::kBool:
        node.kind = Node::Kind::kBool;
        node.boolean = token.boolean;
        return node;
      case TokenKind::kInt:
        node.kind = Node::Kind::kInt;
        node.integer = token.integer;
        return node;
      case TokenKind::kBigInt:
        Scanner::fail(token.where, "integer " + shown(token.text) + " does not fit in 64 bits");
      case TokenKind::kFloat:
      case TokenKind::kRatio:
        Scanner::fail(token.where, "number " + shown(token.text) +
                                       " is not an integer (only integers are supported)");
      case TokenKind::kChar:
        Scanner::fail(token.where, "EDN characters (\\c) are not supported");
      case TokenKind::kString:
      case TokenKind::kKeyword:
      case TokenKind::kSymbol:
        node.kind = token.kind == TokenKind::kString    ? Node::Kind::kString
                    : token.kind == TokenKind::kKeyword ? Node::Kind::kKeyword
                                                        : Node::Kind::kSymbol;
        node.text = std::string(token.text);
        return node;
      case TokenKind::kClose:
        Scanner::fail(token.where, std::string("unexpected `") + token.bracket + "`");
      case TokenKind::kTag: {
        const Token value = scanner_.next();
        if (value.kind == TokenKind::kEnd) Scanner::fail(token.where, "tag without a value");
        return parse_value(value, depth + 1);
      }
      case TokenKind::kOpen:
        break;
    }
    switch (token.bracket) {
      case '[':
        node.kind = Node::Kind::kVector;
        break;
      case '(':
        node.kind = Node::Kind::kList;
        break;
      case '{':
        node.kind = Node::Kind::kMap;
        break;
      default:
        node.kind = Node::Kind::kSet;
        break;
    }
    const char close = closing_of(token.bracket);
    while (true) {
      const Token item = scanner_.next();
      if (item.kind == TokenKind::kEnd) {
        Scanner::fail(token.where, "`" + opening_text(token.bracket) + "` is never closed");
      }
      if (item.kind == TokenKind::kClose && item.bracket == close) break;
      node.items.push_back(parse_value(item, depth + 1));
    }
    if (node.kind == Node::Kind::kMap) check_map(node, token.where);
    return node;
  }

  static void check_map(const Node& node, const Position& where) {
    if (node.items.size() % 2 != 0) Scanner::fail(where, "map has a key without a value");
    // Written forms are distinct for distinct nodes, so they identify the keys.
    std::set<std::string> keys;
    for (std::size_t i = 0; i < node.items.size(); i += 2) {
      std::string key = node.items[i].to_string();
      if (keys.count(key) != 0) {
        if (key.size() > 40) key = key.substr(0, 37) + "...";
        Scanner::fail(where, "duplicate key " + key + " in a map");
      }
      keys.insert(std::move(key));
    }
  }

  Scanner scanner_;
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

Node parse(std::string_view text) { return TreeParser(text).parse_document(); }

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
