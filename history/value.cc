#include "history/value.h"

#include <functional>

namespace linfault::history {
namespace {

void append_escaped_control(std::string& out, char c) {
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\t':
      out += "\\t";
      return;
    case '\r':
      out += "\\r";
      return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto byte = static_cast<unsigned char>(c);
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
}

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (is_control(c)) {
      append_escaped_control(out, c);
    } else {
      out += c;
    }
  }
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

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (is_control(c)) {
      append_escaped_control(out, c);
    } else {
      out += c;
    }
  }
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
