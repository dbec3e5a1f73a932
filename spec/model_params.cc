#include "spec/model_params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

namespace linfault::spec {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
}

bool is_word_char(char c) {
  return is_name_char(c) || c == '.' || c == '/' || c == ':' || c == '+';
}

// A recursive-descent reader over one spec or one value; every error names the whole text.
class SpecReader {
 public:
  SpecReader(std::string_view text, const char* what) : text_(text), what_(what) {}

  ModelSpec spec() {
    ModelSpec out;
    skip_space();
    out.name = name("a model name");
    skip_space();
    if (eat('(')) {
      skip_space();
      if (!eat(')')) {
        do {
          skip_space();
          std::string param = name("a parameter name");
          skip_space();
          if (!eat('=')) fail("expected '=' after parameter '" + param + "'");
          history::Value v = value();
          out.params.add(std::move(param), std::move(v));
          skip_space();
        } while (eat(','));
        if (!eat(')')) fail("expected ',' or ')'");
      }
    }
    end();
    return out;
  }

  history::Value whole_value() {
    history::Value v = value();
    end();
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw ModelSpecError(std::string("bad ") + what_ + " '" + history::printable(text_) +
                         "': " + problem + " at column " + std::to_string(at_ + 1));
  }

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool eat(char c) {
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void end() {
    skip_space();
    if (at_ != text_.size()) fail("unexpected '" + std::string(1, text_[at_]) + "'");
  }

  std::string name(const char* what) {
    const std::size_t start = at_;
    while (at_ < text_.size() && is_name_char(text_[at_])) ++at_;
    if (at_ == start) fail(std::string("expected ") + what);
    return std::string(text_.substr(start, at_ - start));
  }

  history::Value value() {
    skip_space();
    if (at_ == text_.size()) fail("expected a value");
    if (eat('"')) return quoted();
    if (eat('[')) {
      history::Value::List items;
      for (skip_space(); !eat(']'); skip_space()) {
        if (at_ == text_.size() || text_[at_] == ')' || text_[at_] == ',') {
          fail("unterminated list");
        }
        items.push_back(value());
      }
      return history::Value(std::move(items));
    }
    const std::size_t start = at_;
    while (at_ < text_.size() && is_word_char(text_[at_])) ++at_;
    if (at_ == start) fail("expected a value");
    const std::string_view word = text_.substr(start, at_ - start);
    if (word == "nil") return history::Value();
    if (word == "true") return history::Value(true);
    if (word == "false") return history::Value(false);
    const bool numeric = std::all_of(word.begin() + (word[0] == '-' || word[0] == '+'), word.end(),
                                     [](char c) { return c >= '0' && c <= '9'; });
    if (numeric && word.size() > (word[0] == '-' || word[0] == '+' ? 1u : 0u)) {
      std::int64_t n = 0;
      const char* first = word.data() + (word[0] == '+');
      const auto [end, error] = std::from_chars(first, word.data() + word.size(), n);
      if (error != std::errc() || end != word.data() + word.size()) {
        at_ = start;
        fail("integer out of range");
      }
      return history::Value(n);
    }
    // A word that reads as another kind of number ("1.5", "1e5", "0x10") would become the text
    // "1.5" where a number was meant: values have no decimals, and text in quotes says so.
    static const std::regex other_number(
        R"([+-]?((\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?|0[xX][0-9a-fA-F]+))");
    if (std::regex_match(word.begin(), word.end(), other_number)) {
      at_ = start;
      fail("'" + std::string(word) +
           "' is not an integer: values are integers, nil, true, false, :keywords and text (in "
           "quotes, \"" +
           std::string(word) + "\", for this one as text)");
    }
    return history::Value(std::string(word));
  }

  history::Value quoted() {
    std::string out;
    while (true) {
      if (at_ == text_.size()) fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return history::Value(std::move(out));
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ == text_.size()) fail("unterminated string");
      switch (const char escaped = text_[at_++]) {
        case '"':
        case '\\':
          out += escaped;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'u':
          append_utf8(out, hex4());
          break;
        default:
          --at_;
          fail("unknown escape '\\" + std::string(1, escaped) + "'");
      }
    }
  }

  unsigned hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i, ++at_) {
      const char c = at_ < text_.size() ? text_[at_] : '\0';
      const int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
      if (digit < 0) fail("expected 4 hex digits after \\u");
      code = code * 16 + static_cast<unsigned>(digit);
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  std::string_view text_;
  const char* what_;  // "model spec" or "parameter value", for messages
  std::size_t at_ = 0;
};

}  // namespace

void ModelParams::add(std::string name, history::Value value) {
  for (const auto& [given, unused] : entries_) {
    if (given == name) throw ModelSpecError("parameter '" + name + "' given twice");
  }
  entries_.emplace_back(std::move(name), std::move(value));
}

void ModelParams::set(std::string name, history::Value value) {
  for (auto& [given, old] : entries_) {
    if (given == name) {
      old = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(name), std::move(value));
}

std::optional<history::Value> ModelParams::take(std::string_view name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == name) {
      history::Value v = std::move(it->second);
      entries_.erase(it);
      return v;
    }
  }
  return std::nullopt;
}

void ModelParams::expect_all_taken(std::string_view model) const {
  if (entries_.empty()) return;
  model = model.substr(0, model.find('('));
  throw ModelSpecError("model '" + std::string(model) + "' takes no parameter '" +
                       history::printable(entries_.front().first) + "'");
}

std::string ModelSpec::canonical() const {
  if (params.empty()) return name;
  std::string out = name + "(";
  bool first = true;
  for (const auto& [param, value] : params.entries()) {
    if (!first) out += ",";
    first = false;
    out += param + "=" + value.to_string();
  }
  return out + ")";
}

std::string canonical_spec(std::string model, std::string param, history::Value value) {
  ModelSpec spec{std::move(model), {}};
  spec.params.add(std::move(param), std::move(value));
  return spec.canonical();
}

ModelSpec parse_model_spec(std::string_view text) { return SpecReader(text, "model spec").spec(); }

history::Value parse_param_value(std::string_view text) {
  return SpecReader(text, "parameter value").whole_value();
}

}  // namespace linfault::spec
