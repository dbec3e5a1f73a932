#include "history/value.h"

#include <functional>

namespace linfault::history {
namespace {

// `prefix` and two hex digits: "\\u00" for a control character's code point, "\\x" for a byte
// that is not part of well-formed UTF-8 (its value, not a code point).
void append_hex_escape(std::string& out, const char* prefix, unsigned char code) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  out += kHex[code >> 4];
  out += kHex[code & 0xf];
}

// Appends `text` with every control character escaped: C0 (below 0x20), DEL, and the C1 code
// points U+0080..U+009F in their UTF-8 form (0xC2 0x80..0x9F), which some terminals obey too;
// bytes of malformed UTF-8 as `\xNN`; with `quoted`, `"` and `\` are escaped as well.
void append_printable(std::string& out, std::string_view text, bool quoted) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      const std::size_t length = utf8_character_length(text, i);
      if (length == 0) {
        append_hex_escape(out, "\\x", byte);
      } else if (byte == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
        append_hex_escape(out, "\\u00", static_cast<unsigned char>(text[i + 1]));
      } else {
        out.append(text.substr(i, length));
      }
      i += length == 0 ? 0 : length - 1;
      continue;
    }
    if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      append_hex_escape(out, "\\u00", byte);
    } else if (quoted && (byte == '"' || byte == '\\')) {
      out += '\\';
      out += text[i];
    } else {
      out += text[i];
    }
  }
}

void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  append_printable(out, s, /*quoted=*/true);
  out += '"';
}

struct Printer {
  std::string& out;
  void operator()(Value::Nil) const { out += "nil"; }
  void operator()(bool b) const { out += b ? "true" : "false"; }
  void operator()(std::int64_t v) const { out += std::to_string(v); }
  void operator()(const std::string& s) const { append_quoted(out, s); }
  void operator()(const Value::List& l) const {
    out += '[';
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (i) out += ' ';
      out += l[i].to_string();
    }
    out += ']';
  }
};

std::size_t mix(std::size_t seed, std::size_t h) {
  return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace

std::size_t utf8_character_length(std::string_view text, std::size_t at) {
  const auto byte = static_cast<unsigned char>(text[at]);
  if (byte < 0x80) return 1;
  std::size_t length = 0;
  std::uint32_t code_point = 0;
  if ((byte & 0xE0) == 0xC0) {
    length = 2;
    code_point = byte & 0x1F;
  } else if ((byte & 0xF0) == 0xE0) {
    length = 3;
    code_point = byte & 0x0F;
  } else if ((byte & 0xF8) == 0xF0) {
    length = 4;
    code_point = byte & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (next & 0x3F);
  }
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[length] || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    return 0;
  }
  return length;
}

std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII, the common case, inline
      ++i;
      continue;
    }
    const std::size_t length = utf8_character_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_printable(out, text, /*quoted=*/false);
  return out;
}

int Value::compare(const Value& a, const Value& b) {
  if (a.rep_.index() != b.rep_.index()) return a.rep_.index() < b.rep_.index() ? -1 : 1;
  if (a.is_bool()) return static_cast<int>(a.as_bool()) - static_cast<int>(b.as_bool());
  if (a.is_int()) return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int() ? 1 : 0);
  if (a.is_string()) {
    const int order = a.as_string().compare(b.as_string());
    return (order > 0) - (order < 0);
  }
  if (a.is_list()) {
    const List& x = a.as_list();
    const List& y = b.as_list();
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (const int order = compare(x[i], y[i]); order != 0) return order;
    }
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  return 0;  // nil
}

std::string Value::to_string() const {
  std::string out;
  std::visit(Printer{out}, rep_);
  return out;
}

std::string_view Value::kind_name() const {
  static constexpr std::string_view kNames[] = {"nil", "bool", "int", "string", "list"};
  return kNames[rep_.index()];
}

std::size_t Value::hash() const {
  std::size_t seed = rep_.index();
  if (is_bool()) return mix(seed, as_bool());
  if (is_int()) return mix(seed, std::hash<std::int64_t>{}(as_int()));
  if (is_string()) return mix(seed, std::hash<std::string>{}(as_string()));
  if (is_list()) {
    for (const Value& v : as_list()) seed = mix(seed, v.hash());
  }
  return seed;
}

}  // namespace linfault::history
