#include "structure_tree/tree.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace linfault::structure_tree {
namespace {

constexpr std::string_view kFormatName = "linfault-structure-trees";
constexpr int kFormatVersion = 1;

std::string_view basename_of(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_component_suffix(std::string_view longer, std::string_view shorter) {
  if (shorter.size() > longer.size()) return false;
  if (longer.substr(longer.size() - shorter.size()) != shorter) return false;
  return longer.size() == shorter.size() || shorter.front() == '/' ||
         longer[longer.size() - shorter.size() - 1] == '/';
}

std::string lexically_normal(std::string_view path) {
  std::string normal = std::filesystem::path(path).lexically_normal().string();
  if (normal.starts_with("./")) normal.erase(0, 2);
  return normal;
}

[[noreturn]] void fail(const std::string& origin, const std::string& where,
                       const std::string& problem) {
  throw TreeFormatError(origin + ": " + where + ": " + problem);
}

template <class T>
T get_field(const nlohmann::json& object, const char* name, const std::string& origin,
            const std::string& where) {
  if (!object.is_object() || !object.contains(name))
    fail(origin, where, std::string("missing \"") + name + "\"");
  try {
    return object.at(name).get<T>();
  } catch (const nlohmann::json::exception&) {
    fail(origin, where, std::string("\"") + name + "\" has the wrong type");
  }
}

nlohmann::json location_fields(const SourceLocation& location) {
  return {{"file", location.file}, {"line", location.line}, {"column", location.column}};
}

SourceLocation location_from(const nlohmann::json& object, const std::string& origin,
                             const std::string& where) {
  return {get_field<std::string>(object, "file", origin, where),
          get_field<std::uint32_t>(object, "line", origin, where),
          get_field<std::uint32_t>(object, "column", origin, where)};
}

nlohmann::json point_to_json(const Point& point) {
  nlohmann::json j = location_fields(point.location);
  j["access"] = point.access;
  if (!point.text.empty()) j["text"] = point.text;
  return j;
}

Point point_from_json(const nlohmann::json& j, const std::string& origin,
                      const std::string& where) {
  Point point{get_field<std::string>(j, "access", origin, where), location_from(j, origin, where),
              ""};
  if (j.contains("text")) point.text = get_field<std::string>(j, "text", origin, where);
  return point;
}

Node node_from_json(const nlohmann::json& j, const std::string& origin, const std::string& where) {
  if (!j.is_object()) fail(origin, where, "a node must be an object");
  const auto letter = get_field<std::string>(j, "type", origin, where);
  const auto kind = node_kind_from_letter(letter);
  if (!kind) fail(origin, where, "unknown node type \"" + letter + "\"");
  Node node;
  node.kind = *kind;
  if (j.contains("line")) node.line = get_field<std::uint32_t>(j, "line", origin, where);
  if (j.contains("label")) node.label = get_field<std::string>(j, "label", origin, where);
  if (node.kind == NodeKind::kLoop && j.contains("theta") && !j.at("theta").is_null()) {
    node.theta = get_field<std::uint64_t>(j, "theta", origin, where);
  }
  if (node.kind == NodeKind::kSequence) {
    const auto& instructions = j.contains("instructions") ? j.at("instructions") : nlohmann::json();
    if (!instructions.is_array()) fail(origin, where, "an S node needs an \"instructions\" array");
    for (std::size_t i = 0; i < instructions.size(); ++i) {
      const std::string here = where + "/instructions/" + std::to_string(i);
      const auto& instruction = instructions[i];
      Instruction parsed;
      if (instruction.is_object() && instruction.contains("points")) {
        const auto& points = instruction.at("points");
        if (!points.is_array() || points.empty())
          fail(origin, here, "\"points\" must be a non-empty array");
        for (std::size_t p = 0; p < points.size(); ++p) {
          parsed.points.push_back(
              point_from_json(points[p], origin, here + "/points/" + std::to_string(p)));
        }
      } else {
        parsed.points.push_back(point_from_json(instruction, origin, here));
      }
      node.instructions.push_back(std::move(parsed));
    }
  } else {
    const auto& children = j.contains("children") ? j.at("children") : nlohmann::json::array();
    if (!children.is_array()) fail(origin, where, "\"children\" must be an array");
    for (std::size_t i = 0; i < children.size(); ++i) {
      node.children.push_back(
          node_from_json(children[i], origin, where + "/children/" + std::to_string(i)));
    }
    if (node.kind == NodeKind::kChoice) {
      for (const Node& child : node.children) {
        if (child.kind != NodeKind::kBranch)
          fail(origin, where, "a C node may only have B children");
      }
    }
  }
  if (j.contains("num") && get_field<std::size_t>(j, "num", origin, where) != node.num()) {
    fail(origin, where, "\"num\" disagrees with the node's contents");
  }
  return node;
}

void dump_node(const Node& node, const std::string& prefix, bool last, bool top,
               std::ostringstream& out) {
  const std::string connector = top ? "" : (last ? "└─ " : "├─ ");
  out << prefix << connector << node_kind_letter(node.kind);
  switch (node.kind) {
    case NodeKind::kSequence: {
      out << '(' << node.num() << ')';
      const char* separator = "  ";
      for (std::size_t i = 0; i < node.instructions.size(); ++i) {
        const Instruction& instruction = node.instructions[i];
        const Point& first = instruction.points.front();
        out << separator << '#' << (i + 1) << ' ';
        if (instruction.atomic_block()) {
          out << "atomic{" << instruction.points.size() << " points} ";
        }
        out << (first.text.empty() ? first.access : first.text) << " @" << first.location.line
            << ':' << first.location.column;
        separator = ", ";
      }
      break;
    }
    case NodeKind::kLoop:
      out << " θ=" << (node.theta ? std::to_string(*node.theta) : std::string("?"));
      break;
    case NodeKind::kRoot:
      break;
    case NodeKind::kChoice:
    case NodeKind::kBranch:
      break;
  }
  if (!node.label.empty() || node.line != 0) {
    out << " (" << node.label;
    if (node.line != 0) out << (node.label.empty() ? "" : ", ") << "line " << node.line;
    out << ')';
  }
  out << '\n';
  const std::string child_prefix = top ? prefix : prefix + (last ? "   " : "│  ");
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    dump_node(node.children[i], child_prefix, i + 1 == node.children.size(), false, out);
  }
}

}  // namespace

const char* node_kind_letter(NodeKind kind) {
  switch (kind) {
    case NodeKind::kRoot:
      return "R";
    case NodeKind::kLoop:
      return "L";
    case NodeKind::kChoice:
      return "C";
    case NodeKind::kBranch:
      return "B";
    case NodeKind::kSequence:
      return "S";
  }
  return "?";
}

std::optional<NodeKind> node_kind_from_letter(std::string_view letter) {
  for (NodeKind kind : {NodeKind::kRoot, NodeKind::kLoop, NodeKind::kChoice, NodeKind::kBranch,
                        NodeKind::kSequence}) {
    if (letter == node_kind_letter(kind)) return kind;
  }
  return std::nullopt;
}

std::string SourceLocation::to_string() const {
  return file + ':' + std::to_string(line) + ':' + std::to_string(column);
}

bool same_position(const SourceLocation& a, const SourceLocation& b) {
  if (a.line != b.line || a.column != b.column) return false;
  if (a.file == b.file) return true;
  if (basename_of(a.file) != basename_of(b.file)) return false;
  const std::string na = lexically_normal(a.file);
  const std::string nb = lexically_normal(b.file);
  return is_component_suffix(na, nb) || is_component_suffix(nb, na);
}

std::size_t Node::num() const {
  return kind == NodeKind::kSequence ? instructions.size() : children.size();
}

const OperationTree* TreeSet::find(std::string_view object, std::string_view method) const {
  const OperationTree* found = nullptr;
  for (const OperationTree& op : operations) {
    if (op.method != method || (!object.empty() && op.object != object)) continue;
    if (found != nullptr) return nullptr;
    found = &op;
  }
  return found;
}

void TreeSet::merge(TreeSet other) {
  for (OperationTree& op : other.operations) operations.push_back(std::move(op));
}

std::uint64_t sum(const Node& node) {
  switch (node.kind) {
    case NodeKind::kSequence:
      return node.instructions.size();
    case NodeKind::kChoice: {
      std::uint64_t widest = 0;
      for (const Node& branch : node.children) widest = std::max(widest, sum(branch));
      return widest;
    }
    case NodeKind::kRoot:
    case NodeKind::kLoop:
    case NodeKind::kBranch: {
      std::uint64_t body = 0;
      for (const Node& child : node.children) body += sum(child);
      return node.theta.value_or(1) * body;
    }
  }
  return 0;
}

nlohmann::json to_json(const Node& node) {
  nlohmann::json j = {{"type", node_kind_letter(node.kind)}, {"num", node.num()}};
  if (node.line != 0) j["line"] = node.line;
  if (!node.label.empty()) j["label"] = node.label;
  if (node.kind == NodeKind::kLoop) {
    j["theta"] = node.theta ? nlohmann::json(*node.theta) : nlohmann::json(nullptr);
  }
  if (node.kind == NodeKind::kSequence) {
    nlohmann::json instructions = nlohmann::json::array();
    for (const Instruction& instruction : node.instructions) {
      if (instruction.atomic_block()) {
        nlohmann::json points = nlohmann::json::array();
        for (const Point& point : instruction.points) points.push_back(point_to_json(point));
        instructions.push_back({{"access", "atomic-block"}, {"points", std::move(points)}});
      } else {
        instructions.push_back(point_to_json(instruction.points.front()));
      }
    }
    j["instructions"] = std::move(instructions);
  } else {
    nlohmann::json children = nlohmann::json::array();
    for (const Node& child : node.children) children.push_back(to_json(child));
    j["children"] = std::move(children);
  }
  return j;
}

nlohmann::json to_json(const OperationTree& op) {
  nlohmann::json j = {{"object", op.object},
                      {"method", op.method},
                      {"declared_at", location_fields(op.declared_at)},
                      {"sum", sum(op)},
                      {"tree", to_json(op.root)}};
  if (!op.instantiation.empty()) j["instantiation"] = op.instantiation;
  return j;
}

nlohmann::json to_json(const TreeSet& trees) {
  nlohmann::json operations = nlohmann::json::array();
  for (const OperationTree& op : trees.operations) operations.push_back(to_json(op));
  return {{"format", kFormatName}, {"version", kFormatVersion}, {"operations", operations}};
}

TreeSet tree_set_from_json(const nlohmann::json& doc, const std::string& origin) {
  if (!doc.is_object()) fail(origin, "/", "a tree set must be a JSON object");
  if (get_field<std::string>(doc, "format", origin, "/") != kFormatName) {
    fail(origin, "/format", std::string("expected \"") + std::string(kFormatName) + "\"");
  }
  if (get_field<int>(doc, "version", origin, "/") != kFormatVersion) {
    fail(origin, "/version",
         "unsupported version (this reader knows version " + std::to_string(kFormatVersion) + ")");
  }
  const auto& operations = doc.contains("operations") ? doc.at("operations") : nlohmann::json();
  if (!operations.is_array()) fail(origin, "/operations", "must be an array");
  TreeSet trees;
  for (std::size_t i = 0; i < operations.size(); ++i) {
    const std::string where = "/operations/" + std::to_string(i);
    const auto& j = operations[i];
    OperationTree op;
    op.object = get_field<std::string>(j, "object", origin, where);
    op.method = get_field<std::string>(j, "method", origin, where);
    if (j.contains("instantiation")) {
      op.instantiation = get_field<std::string>(j, "instantiation", origin, where);
    }
    if (!j.contains("declared_at")) fail(origin, where, "missing \"declared_at\"");
    op.declared_at = location_from(j.at("declared_at"), origin, where + "/declared_at");
    if (!j.contains("tree")) fail(origin, where, "missing \"tree\"");
    op.root = node_from_json(j.at("tree"), origin, where + "/tree");
    if (op.root.kind != NodeKind::kRoot) fail(origin, where + "/tree", "the top node must be R");
    trees.operations.push_back(std::move(op));
  }
  return trees;
}

TreeSet parse_tree_set(std::string_view json_text, const std::string& origin) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw TreeFormatError(origin + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  return tree_set_from_json(doc, origin);
}

std::string dump(const OperationTree& op) {
  std::ostringstream out;
  out << op.object << "::" << op.method;
  if (!op.instantiation.empty()) out << "  [" << op.instantiation << ']';
  out << "  " << basename_of(op.declared_at.file) << ':' << op.declared_at.line
      << "  SUM=" << sum(op) << '\n';
  dump_node(op.root, "", true, true, out);
  return out.str();
}

std::string dump(const TreeSet& trees) {
  std::string text;
  for (std::size_t i = 0; i < trees.operations.size(); ++i) {
    if (i != 0) text += '\n';
    text += dump(trees.operations[i]);
  }
  return text;
}

}  // namespace linfault::structure_tree
