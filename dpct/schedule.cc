#include "dpct/schedule.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace linfault::dpct {

namespace {

constexpr std::string_view kSpaces = " \t\r\n";
// A run has at most its executor's max_steps decisions; this bounds what a text can ask for
// ("0x99999999 0x99999999 ..." would otherwise exhaust memory).
constexpr std::size_t kMaxDecisions = 10'000'000;

struct Token {
  std::string_view text;
  std::size_t column;  // 1-based column in the whole schedule text
};

// Splits `section` (starting at 0-based `offset` in the whole text) on whitespace.
std::vector<Token> tokenize(std::string_view section, std::size_t offset) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (true) {
    i = section.find_first_not_of(kSpaces, i);
    if (i == std::string_view::npos) break;
    std::size_t end = section.find_first_of(kSpaces, i);
    if (end == std::string_view::npos) end = section.size();
    tokens.push_back({section.substr(i, end - i), offset + i + 1});
    i = end;
  }
  return tokens;
}

[[noreturn]] void fail_at(std::size_t column, const std::string& problem) {
  throw ScheduleFormatError("schedule text, column " + std::to_string(column) + ": " + problem);
}

template <class T>
bool parse_number(std::string_view text, T& out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool valid_word(std::string_view word) {
  return !word.empty() && word.find_first_of("|= \t\r\n") == std::string_view::npos;
}

// Parses "T@file:line", "T!file:line", "T-", "^" (and "T@:line" when `previous_file` is known).
PointTag parse_point(Schedule& schedule, std::string_view text, std::size_t column,
                     std::uint32_t& previous_file) {
  PointTag tag;
  if (text == "^") return tag;
  std::size_t mark = text.find_first_of("@!-");
  if (mark == std::string_view::npos || mark == 0 ||
      !parse_number(text.substr(0, mark), tag.thread)) {
    fail_at(column,
            "bad point '" + std::string(text) + "' (expected ^, T-, T@file:line or T!file:line)");
  }
  if (text[mark] == '-') {
    if (mark + 1 != text.size()) fail_at(column, "bad point '" + std::string(text) + "'");
    tag.kind = PointKind::kFinished;
    return tag;
  }
  tag.kind = text[mark] == '@' ? PointKind::kAccess : PointKind::kBlocked;
  std::string_view location = text.substr(mark + 1);
  std::size_t colon = location.rfind(':');
  if (colon == std::string_view::npos || !parse_number(location.substr(colon + 1), tag.line)) {
    fail_at(column, "bad location in point '" + std::string(text) + "' (expected file:line)");
  }
  if (colon == 0) {
    if (previous_file == PointTag::kNoFile) {
      fail_at(column,
              "point '" + std::string(text) + "' omits its file but no earlier point names one");
    }
    tag.file = previous_file;
  } else {
    tag.file = schedule.intern_file(location.substr(0, colon));
    previous_file = tag.file;
  }
  return tag;
}

std::string point_text(const Schedule& s, const PointTag& tag, bool with_file) {
  switch (tag.kind) {
    case PointKind::kStart:
      return "^";
    case PointKind::kFinished:
      return std::to_string(tag.thread) + "-";
    case PointKind::kAccess:
    case PointKind::kBlocked:
      break;
  }
  std::string out = std::to_string(tag.thread) + (tag.kind == PointKind::kAccess ? "@" : "!");
  if (with_file && tag.file < s.files.size()) out += s.files[tag.file];
  return out + ":" + std::to_string(tag.line);
}

bool same_tag(const Schedule& a, const PointTag& x, const Schedule& b, const PointTag& y) {
  if (x.kind != y.kind || x.thread != y.thread || x.line != y.line) return false;
  std::string_view fx = x.file < a.files.size() ? std::string_view(a.files[x.file]) : "";
  std::string_view fy = y.file < b.files.size() ? std::string_view(b.files[y.file]) : "";
  return fx == fy;
}

}  // namespace

std::string_view base_name(std::string_view path) {
  std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

const std::string* Schedule::parameter(std::string_view name) const {
  for (const auto& [key, value] : parameters) {
    if (key == name) return &value;
  }
  return nullptr;
}

void Schedule::set_parameter(std::string name, std::string value) {
  for (auto& [key, old] : parameters) {
    if (key == name) {
      old = std::move(value);
      return;
    }
  }
  parameters.emplace_back(std::move(name), std::move(value));
}

std::uint32_t Schedule::intern_file(std::string_view name) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i] == name) return static_cast<std::uint32_t>(i);
  }
  files.emplace_back(name);
  return static_cast<std::uint32_t>(files.size() - 1);
}

std::string Schedule::describe_point(std::size_t decision) const {
  if (decision >= points.size()) return "?";
  return point_text(*this, points[decision], true);
}

std::string Schedule::to_text() const {
  std::string out = scheduler.empty() ? "unknown" : scheduler;
  for (const auto& [key, value] : parameters) out += " " + key + "=" + value;
  out += " |";
  for (std::size_t i = 0; i < decisions.size();) {
    std::size_t run = 1;
    while (i + run < decisions.size() && decisions[i + run] == decisions[i]) ++run;
    out += " " + std::to_string(decisions[i]);
    if (run > 1) out += "x" + std::to_string(run);
    i += run;
  }
  if (!points.empty()) {
    out += " |";
    std::uint32_t previous_file = PointTag::kNoFile;
    for (const PointTag& tag : points) {
      bool has_file = tag.kind == PointKind::kAccess || tag.kind == PointKind::kBlocked;
      out += " " + point_text(*this, tag, !has_file || tag.file != previous_file);
      if (has_file) previous_file = tag.file;
    }
  }
  if (memory_model == MemoryModel::kC11) {
    out += " | reads";
    for (const StoreId& id : reads) out += " " + store_id_text(id);
  }
  return out;
}

Schedule Schedule::from_text(std::string_view text) {
  Schedule s;
  std::size_t bar1 = text.find('|');
  if (bar1 == std::string_view::npos) {
    throw ScheduleFormatError(
        "schedule text: missing '|' between the parameters and the decisions");
  }
  // The last section is the reads when it starts with the word "reads" (no point or decision
  // does).
  if (const std::size_t last = text.rfind('|'); last != bar1) {
    const std::vector<Token> tokens = tokenize(text.substr(last + 1), last + 1);
    if (!tokens.empty() && tokens[0].text == "reads") {
      s.memory_model = MemoryModel::kC11;
      if (tokens.size() > kMaxDecisions) {
        fail_at(tokens[0].column, "more than " + std::to_string(kMaxDecisions) + " reads");
      }
      for (std::size_t i = 1; i < tokens.size(); ++i) {
        const std::optional<StoreId> id = parse_store_id(tokens[i].text);
        if (!id) {
          fail_at(tokens[i].column, "bad read '" + std::string(tokens[i].text) +
                                        "' (expected T.S, i, or either with /K)");
        }
        s.reads.push_back(*id);
      }
      text = text.substr(0, last);
    }
  }
  std::size_t bar2 = text.find('|', bar1 + 1);
  std::string_view header = text.substr(0, bar1);
  std::string_view decisions = text.substr(
      bar1 + 1, bar2 == std::string_view::npos ? std::string_view::npos : bar2 - bar1 - 1);

  std::vector<Token> head = tokenize(header, 0);
  if (head.empty()) fail_at(1, "missing scheduler name");
  if (!valid_word(head[0].text))
    fail_at(head[0].column, "bad scheduler name '" + std::string(head[0].text) + "'");
  s.scheduler = head[0].text;
  for (std::size_t i = 1; i < head.size(); ++i) {
    std::size_t eq = head[i].text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      fail_at(head[i].column, "expected key=value, got '" + std::string(head[i].text) + "'");
    }
    const std::string_view key = head[i].text.substr(0, eq);
    if (s.parameter(key) != nullptr) {
      fail_at(head[i].column, "parameter '" + std::string(key) + "' given twice");
    }
    s.parameters.emplace_back(key, head[i].text.substr(eq + 1));
  }

  for (const Token& token : tokenize(decisions, bar1 + 1)) {
    std::size_t x = token.text.find('x');
    ThreadId thread = 0;
    std::uint64_t count = 1;
    if (!parse_number(token.text.substr(0, x), thread) ||
        (x != std::string_view::npos &&
         (!parse_number(token.text.substr(x + 1), count) || count == 0))) {
      fail_at(token.column, "bad decision '" + std::string(token.text) + "' (expected T or TxN)");
    }
    if (count > kMaxDecisions - s.decisions.size()) {
      fail_at(token.column, "more than " + std::to_string(kMaxDecisions) + " decisions");
    }
    s.decisions.insert(s.decisions.end(), count, thread);
  }

  if (bar2 != std::string_view::npos) {
    std::uint32_t previous_file = PointTag::kNoFile;
    std::vector<Token> tokens = tokenize(text.substr(bar2 + 1), bar2 + 1);
    if (tokens.size() != s.decisions.size()) {
      fail_at(bar2 + 1, std::to_string(tokens.size()) + " points for " +
                            std::to_string(s.decisions.size()) + " decisions");
    }
    for (const Token& token : tokens) {
      s.points.push_back(parse_point(s, token.text, token.column, previous_file));
    }
  }
  return s;
}

nlohmann::json Schedule::to_json() const {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, value] : parameters) params[key] = value;
  nlohmann::json out = {{"scheduler", scheduler}, {"parameters", params}, {"decisions", decisions}};
  if (!points.empty()) {
    nlohmann::json pts = nlohmann::json::array();
    for (const PointTag& tag : points) pts.push_back(point_text(*this, tag, true));
    out["points"] = std::move(pts);
  }
  if (memory_model == MemoryModel::kC11) {
    out["memory_model"] = memory_model_name(memory_model);
    nlohmann::json ids = nlohmann::json::array();
    for (const StoreId& id : reads) ids.push_back(store_id_text(id));
    out["reads"] = std::move(ids);
  }
  return out;
}

Schedule Schedule::from_json(const nlohmann::json& json) {
  auto fail = [](const std::string& problem) -> void {
    throw ScheduleFormatError("schedule JSON: " + problem);
  };
  if (!json.is_object()) fail("expected an object");
  for (const auto& [key, unused] : json.items()) {
    if (key != "scheduler" && key != "parameters" && key != "decisions" && key != "points" &&
        key != "memory_model" && key != "reads") {
      fail("unknown field \"" + key + "\"");
    }
  }
  Schedule s;
  if (!json.contains("scheduler") || !json["scheduler"].is_string())
    fail("missing string \"scheduler\"");
  s.scheduler = json["scheduler"].get<std::string>();
  if (json.contains("parameters")) {
    if (!json["parameters"].is_object()) fail("\"parameters\" must be an object");
    for (const auto& [key, value] : json["parameters"].items()) {
      if (!value.is_string()) fail("parameter \"" + key + "\" must be a string");
      s.parameters.emplace_back(key, value.get<std::string>());
    }
  }
  if (!json.contains("decisions") || !json["decisions"].is_array())
    fail("missing array \"decisions\"");
  for (const nlohmann::json& d : json["decisions"]) {
    if (!d.is_number_unsigned()) fail("decisions must be thread numbers");
    s.decisions.push_back(d.get<ThreadId>());
  }
  if (json.contains("points")) {
    if (!json["points"].is_array() || json["points"].size() != s.decisions.size()) {
      fail("\"points\" must be an array with one entry per decision");
    }
    std::uint32_t previous_file = PointTag::kNoFile;
    std::size_t index = 0;
    for (const nlohmann::json& p : json["points"]) {
      if (!p.is_string()) fail("points must be strings");
      try {
        s.points.push_back(parse_point(s, p.get<std::string>(), index + 1, previous_file));
      } catch (const ScheduleFormatError& e) {
        fail("point " + std::to_string(index) + ": " + e.what());
      }
      ++index;
    }
  }
  if (json.contains("memory_model")) {
    const nlohmann::json& model = json["memory_model"];
    const std::optional<MemoryModel> parsed =
        model.is_string() ? parse_memory_model(model.get<std::string>()) : std::nullopt;
    if (!parsed) fail("\"memory_model\" must be \"sc\" or \"c11\"");
    s.memory_model = *parsed;
  }
  if (json.contains("reads")) {
    if (s.memory_model != MemoryModel::kC11) fail("\"reads\" needs \"memory_model\": \"c11\"");
    if (!json["reads"].is_array()) fail("\"reads\" must be an array");
    for (const nlohmann::json& r : json["reads"]) {
      const std::optional<StoreId> id =
          r.is_string() ? parse_store_id(r.get<std::string>()) : std::nullopt;
      if (!id) fail("reads must be store names (\"T.S\", \"i\", either with \"/K\")");
      s.reads.push_back(*id);
    }
  }
  return s;
}

bool operator==(const Schedule& a, const Schedule& b) {
  if (a.scheduler != b.scheduler || a.decisions != b.decisions ||
      a.memory_model != b.memory_model || a.reads != b.reads ||
      a.points.size() != b.points.size() || a.parameters.size() != b.parameters.size()) {
    return false;
  }
  std::map<std::string_view, std::string_view> pa, pb;
  for (const auto& [k, v] : a.parameters) pa[k] = v;
  for (const auto& [k, v] : b.parameters) pb[k] = v;
  if (pa != pb) return false;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    if (!same_tag(a, a.points[i], b, b.points[i])) return false;
  }
  return true;
}

}  // namespace linfault::dpct
