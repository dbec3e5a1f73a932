// Structure trees: the static shape of one operation of a concurrent object, as CGVT's D-PCT
// uses it to estimate k, the number of shared-memory instructions a run executes (Sec. III-B of
// the CGVT paper; docs/structure-trees.md documents the JSON form and every policy).
//
// A tree has five node kinds, children in program order:
//   R  the root: the whole operation;
//   L  a loop unit, with its trip count `theta` when the extractor could prove it constant;
//   C  a selection unit (if/switch/?:/&&/||): its children are exactly its B branches;
//   B  one branch of a C (an absent else or default is an empty B);
//   S  a sequential unit: a straight-line run of `num` shared-memory instructions, each with the
//      source locations of the scheduling points it consists of (one point for an ordinary
//      access; several for a locked block, which counts as ONE atomic instruction).
// The paper's `num` of an R/L/C/B node is its number of children (Node::num()).
//
// sum() implements Algorithm 2: S -> num; R, L, B -> theta * sum of children (theta = 1 unless a
// loop's trip count is known); C -> max over branches.
//
// Thread-safety: plain values; const access from several threads is safe.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_STRUCTURE_TREE_TREE_H_
#define LINFAULT_STRUCTURE_TREE_TREE_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace linfault::structure_tree {

enum class NodeKind : std::uint8_t { kRoot, kLoop, kChoice, kBranch, kSequence };
// "R", "L", "C", "B", "S".
const char* node_kind_letter(NodeKind kind);
std::optional<NodeKind> node_kind_from_letter(std::string_view letter);

// A position in a source file, 1-based, in the convention of std::source_location as g++
// reports it for a defaulted `SourceLocation where = SourceLocation::current()` parameter: the
// column of the '(' of a call, of the closing ')' or '}' of a constructor's initializer.
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  std::string to_string() const;  // "file:line:column"
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

// True when `a` and `b` name the same position: same line and column, and file names that are
// equal or where one is a path-component suffix of the other ("targets/x.h" vs "/w/targets/x.h"),
// since the runtime sees the spelling the compiler was given.
bool same_position(const SourceLocation& a, const SourceLocation& b);

// One scheduling point: an instrumented access as dpct/shared.h defines them.
struct Point {
  std::string access;  // dpct::access_kind_name spelling: "load", "store", "lock", ...
  SourceLocation location;
  std::string text;  // the callee as written ("top_.load"), for humans; may be empty
  friend bool operator==(const Point&, const Point&) = default;
};

// One shared-memory instruction of an S unit. Ordinary accesses have one point; a locked block
// (from a LockGuard or lock() to the end of its scope or the matching unlock()) is one atomic
// instruction whose points are the lock, every access inside, and the unlock.
struct Instruction {
  std::vector<Point> points;

  bool atomic_block() const { return points.size() > 1; }
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

struct Node {
  NodeKind kind = NodeKind::kSequence;
  std::optional<std::uint64_t> theta;  // kLoop only: the constant trip count, if known
  std::uint32_t line = 0;              // where the construct starts (0 for R and S)
  std::string label;           // "while", "for", "if", "switch", "then", "else", "case 3", ...
  std::vector<Node> children;  // R, L, C, B
  std::vector<Instruction> instructions;  // S only

  // The paper's num: instructions of an S, children of the others.
  std::size_t num() const;
  friend bool operator==(const Node&, const Node&) = default;
};

// The tree of one operation (a public method of an object).
struct OperationTree {
  std::string object;          // class name as written ("LockFreeList" for LockFreeList<int>)
  std::string method;          // "add"
  std::string instantiation;   // "LockFreeList<int>" for a class template, else empty
  SourceLocation declared_at;  // the method's definition
  Node root;
  friend bool operator==(const OperationTree&, const OperationTree&) = default;
};

struct TreeSet {
  std::vector<OperationTree> operations;

  // The operation named `method` of `object`; with an empty `object`, the only operation with
  // that method name (nullptr if there is none or the name is ambiguous).
  const OperationTree* find(std::string_view object, std::string_view method) const;
  void merge(TreeSet other);
  friend bool operator==(const TreeSet&, const TreeSet&) = default;
};

// Algorithm 2.
std::uint64_t sum(const Node& node);
inline std::uint64_t sum(const OperationTree& op) { return sum(op.root); }

// Thrown by the JSON reader for a document that is not a valid tree set.
class TreeFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The documented JSON form (docs/structure-trees.md). Lossless round trip.
nlohmann::json to_json(const Node& node);
nlohmann::json to_json(const OperationTree& op);
nlohmann::json to_json(const TreeSet& trees);
TreeSet tree_set_from_json(const nlohmann::json& doc, const std::string& origin);
TreeSet parse_tree_set(std::string_view json_text, const std::string& origin);

// Human-readable dump in the style of the paper's Fig. 6:
//   PairSnapShot::readpair  pair_snapshot.h:31  SUM=3
//   R
//   └─ L θ=? (while, line 33)
//      └─ S(3)  #1 d_[i].load @34:24, #2 d_[j].load @35:24, #3 d_[i].load @36:25
std::string dump(const OperationTree& op);
std::string dump(const TreeSet& trees);

}  // namespace linfault::structure_tree

#endif  // LINFAULT_STRUCTURE_TREE_TREE_H_
