#include "history/formats.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <istream>
#include <vector>

#include "history/readers.h"

namespace linfault::history {
namespace {

struct FormatName {
  Format format;
  std::string_view name;
};

constexpr FormatName kFormatNames[] = {
    {Format::kAuto, "auto"}, {Format::kJson, "json"},       {Format::kJepsenLog, "jepsen-log"},
    {Format::kEdn, "edn"},   {Format::kFastlin, "fastlin"}, {Format::kSnapshot, "snapshot"},
};

std::string_view first_line_with_content(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return line;
    start = end + 1;
  }
  return {};
}

bool is_field_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// `method value start end`: a word starting with a letter, then three integers.
bool looks_like_fastlin_operation(std::string_view line) {
  std::size_t pos = 0;
  auto next_field = [&]() {
    while (pos < line.size() && is_field_blank(line[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < line.size() && !is_field_blank(line[pos])) ++pos;
    return line.substr(start, pos - start);
  };
  const std::string_view method = next_field();
  if (method.empty() || !std::isalpha(static_cast<unsigned char>(method[0]))) return false;
  for (int i = 0; i < 3; ++i) {
    std::string_view number = next_field();
    if (!number.empty() && number[0] == '+') number.remove_prefix(1);
    long long value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size()) {
      return false;
    }
  }
  return next_field().empty();
}

// Skips whitespace, commas and `;` comments from `pos`.
std::size_t skip_edn_blanks(std::string_view text, std::size_t pos) {
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ';') {
      pos = text.find('\n', pos);
      if (pos == std::string_view::npos) return text.size();
    } else if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      ++pos;
    } else {
      break;
    }
  }
  return pos;
}

// Whether the text at `pos` starts an EDN operation: a map whose first key is a keyword
// (`{:process`), a tagged map (`#jepsen.history.Op{`), or a discarded value (`#_`).
bool starts_edn_operation(std::string_view text, std::size_t pos) {
  // A loop over tags, not a recursion: a file may hold any number of them in a row.
  while (pos < text.size()) {
    if (text[pos] == '{') {
      const std::size_t key = skip_edn_blanks(text, pos + 1);
      return key < text.size() && (text[key] == ':' || text[key] == '}');
    }
    if (text[pos] != '#' || pos + 1 >= text.size()) return false;
    if (text[pos + 1] == '_') return true;
    if (!std::isalpha(static_cast<unsigned char>(text[pos + 1]))) return false;
    std::size_t end = pos + 1;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) &&
           text[end] != '{') {
      ++end;
    }
    pos = skip_edn_blanks(text, end);
  }
  return false;
}

// EDN histories: operations, bare or in a top-level vector or list (possibly empty), after
// comments.
bool looks_like_edn(std::string_view text) {
  std::size_t pos = skip_edn_blanks(text, 0);
  if (pos < text.size() && (text[pos] == '[' || text[pos] == '(')) {
    const char close = text[pos] == '[' ? ']' : ')';
    pos = skip_edn_blanks(text, pos + 1);
    if (pos < text.size() && text[pos] == close) return true;
  }
  return starts_edn_operation(text, pos);
}

[[noreturn]] void throw_open_error(const std::string& path, int error_number) {
  throw OpenError(path, 0, std::string("cannot open: ") + std::strerror(error_number));
}

// Closes the descriptor on every path out of read_file.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_file(const std::string& path) {
  Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) throw_open_error(path, errno);
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) throw_open_error(path, errno);
  if (S_ISDIR(status.st_mode)) throw OpenError(path, 0, "cannot open: is a directory");
  std::string text;
  // A regular file's size is known; other files (pipes, /dev/stdin) grow the buffer as they go.
  const bool sized = S_ISREG(status.st_mode);
  text.resize(sized ? static_cast<std::size_t>(status.st_size) + 1 : 1 << 16);
  std::size_t filled = 0;
  while (true) {
    if (filled == text.size()) text.resize(text.size() * 2);
    const ssize_t got = ::read(file.get(), text.data() + filled, text.size() - filled);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw OpenError(path, 0, std::string("cannot open: reading failed: ") + std::strerror(errno));
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  text.resize(filled);
  return text;
}

std::optional<Format> parse_format_name(std::string_view name) {
  for (const FormatName& entry : kFormatNames) {
    if (entry.name == name) return entry.format;
  }
  return std::nullopt;
}

const char* format_name(Format format) {
  for (const FormatName& entry : kFormatNames) {
    if (entry.format == format) return entry.name.data();
  }
  return "?";
}

std::vector<std::string_view> format_names() {
  std::vector<std::string_view> names;
  for (const FormatName& entry : kFormatNames) names.push_back(entry.name);
  return names;
}

Format detect_format(std::string_view text, const std::string& origin) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    throw InputError(origin, 0, "the input is empty: no operations, and no format to recognize");
  }
  if (text[first] == '{') {
    const std::size_t next = text.find_first_not_of(" \t\r\n", first + 1);
    if (next != std::string_view::npos && (text[next] == '"' || text[next] == '}')) {
      return Format::kJson;
    }
    return Format::kEdn;
  }
  if (looks_like_edn(text)) return Format::kEdn;
  if (text.find("jepsen.util - ") != std::string_view::npos) return Format::kJepsenLog;
  const std::string_view line = first_line_with_content(text);
  if (line.find("startUpdate!") != std::string_view::npos ||
      line.find("startScan!") != std::string_view::npos) {
    return Format::kSnapshot;
  }
  if (text[first] == '#' || looks_like_fastlin_operation(line)) return Format::kFastlin;
  std::string shown(line.substr(0, 40));
  throw InputError(origin, 0,
                   "cannot recognize the format (starts with `" + shown +
                       "`); pass --format json|jepsen-log|edn|fastlin|snapshot");
}

LoadedHistory load_history_text(std::string_view text, const std::string& origin, Format format) {
  if (format == Format::kAuto) format = detect_format(text, origin);
  switch (format) {
    case Format::kJson:
      return read_json_history(text, origin);
    case Format::kJepsenLog:
      return read_jepsen_log(text, origin);
    case Format::kEdn:
      return read_edn(text, origin);
    case Format::kFastlin:
      return read_fastlin(text, origin);
    case Format::kSnapshot:
      return read_snapshot(text, origin);
    case Format::kAuto:
      break;
  }
  throw InputError(origin, 0, "no reader for this format");
}

LoadedHistory load_history(std::istream& in, const std::string& origin, Format format) {
  std::string text;
  std::vector<char> block(std::size_t{1} << 16);
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
    text.append(block.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw OpenError(origin, 0, "cannot read: I/O error");
  return load_history_text(text, origin, format);
}

LoadedHistory load_history_file(const std::string& path, Format format) {
  return load_history_text(read_file(path), path, format);
}

}  // namespace linfault::history
