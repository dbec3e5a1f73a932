// Run-time position tracking in structure trees, and D-PCT's dynamic estimate of k.
//
// OperationProgress follows one execution of one operation through its tree: each scheduling
// point the thread passes (an instrumented access with its source location and access kind) is
// mapped to an instruction of an S unit. Program order decides between several candidate
// instructions at the same location (a helper inlined twice): the nearest one forward inside the
// innermost enclosing loop, then a back edge of that loop (one more iteration), then the same
// outward, then anywhere forward. The points of a locked block after its lock map to the same
// atomic instruction and do not advance the position.
//
// The assumption of Algorithm 2 is that every loop runs theta times (1 when unknown) and every
// selection takes its widest branch. A move that breaks it (a loop entering iteration theta+1, a
// branch other than the widest one) is reported as kBeyondAssumption, and remaining() is then
// recomputed from the current position: the rest of the current S, the later siblings at every
// level, and the iterations the enclosing loops still have under the assumption.
//
// KEstimator does this for every thread of a run: k = the sum over threads of what each still
// runs (the current operation's remaining() plus SUM of its later operations). Operations are
// found by method name (and class, when given). Without a class, every same-named tree holding an
// operation's first location is followed until the points single one class out (a helper shared
// by several classes is in all their trees); a name that is no method of the object (a registry
// alias) falls back to the trees holding the location, and to the widest operation for SUM.
//
// Units: instructions, as in the paper; D-PCT places change points among the run's decisions
// (points with >= 2 enabled threads), so it uses k as "decisions so far + remaining_k()".
//
// TreeIndex holds what follows from a tree alone (its instructions in program order, the range of
// each node, each node's SUM). index_trees() makes them once for a TreeSet, and every estimator of
// every run on it shares them: a run used to rebuild them at the first point of every operation.
//
// Thread-safety: OperationProgress and KEstimator are not thread-safe; one estimator per
// execution. TreeIndexes are immutable once made and may be shared by threads. The TreeSet must
// outlive the indexes and the estimators.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_STRUCTURE_TREE_PROGRESS_H_
#define LINFAULT_STRUCTURE_TREE_PROGRESS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "structure_tree/tree.h"

namespace linfault::structure_tree {

enum class Move : std::uint8_t {
  kSameInstruction,   // a later point of the current atomic block
  kAdvanced,          // a new instruction, within the assumption
  kBeyondAssumption,  // a new instruction that breaks the assumption: re-estimate k
  kUnmapped,          // the location is not in this tree; the position is unchanged
};
const char* move_name(Move move);

// The positions of one operation's tree (its S instructions in program order, with the path to
// each, and the range of positions under every node), computed once per tree and shared by every
// OperationProgress that follows it: a run starts one per operation and thread.
class TreeIndex {
 public:
  explicit TreeIndex(const OperationTree& tree);

  struct Frame {
    const Node* node;
    std::size_t child;  // index of the child on the path (instruction index for S)
    // Set once the whole tree is indexed, so that following a run looks nothing up:
    std::size_t taken_first = 0;  // C: the first slot under the child taken
    bool narrower = false;        // C: the child taken has a smaller SUM than the widest one
    std::uint64_t later = 0;      // R, B, L: the SUM of the children after the one taken
    std::uint64_t body = 0;       // L: the SUM of all its children (one iteration)
  };
  struct Slot {
    std::vector<Frame> path;  // root first, the S node last
  };

  const std::vector<Slot>& slots() const { return slots_; }
  // [first, end) of the slots under `node`, a node of this tree.
  std::pair<std::size_t, std::size_t> range_of(const Node* node) const { return ranges_.at(node); }
  const Instruction& instruction(std::size_t slot) const;
  // sum(*node), computed once: `node` is a node of this tree.
  std::uint64_t sum_of(const Node* node) const {
    return node->kind == NodeKind::kSequence ? node->instructions.size() : sums_.at(node);
  }

 private:
  void index(const Node& node, std::vector<Frame>& path);

  std::vector<Slot> slots_;
  std::unordered_map<const Node*, std::pair<std::size_t, std::size_t>> ranges_;
  std::unordered_map<const Node*, std::uint64_t> sums_;
};

// The indexes of a TreeSet's operations, which must outlive them.
struct TreeIndexes {
  std::vector<TreeIndex> trees;  // one per operation, in the order of TreeSet::operations
  std::vector<std::size_t> all;  // 0, 1, ... n - 1
  // The operations named each method, in the order of TreeSet::operations.
  std::unordered_map<std::string_view, std::vector<std::size_t>> by_method;

  const std::vector<std::size_t>& named(std::string_view method) const;
};
std::shared_ptr<const TreeIndexes> index_trees(const TreeSet& trees);

class OperationProgress {
 public:
  explicit OperationProgress(const OperationTree& tree);
  // Follows `tree` through `index`, which must be tree's and outlive this object.
  OperationProgress(const OperationTree& tree, const TreeIndex& index);

  // `access` is the dpct access kind name ("load", "unlock", ...); empty matches any kind.
  Move on_point(const SourceLocation& where, std::string_view access);
  // Instructions still expected after the current one under the assumption (the whole SUM
  // before the first point).
  std::uint64_t remaining() const;
  // Instructions passed so far (atomic blocks count once).
  std::uint64_t executed() const { return executed_; }
  bool contains(const SourceLocation& where) const;
  const OperationTree& tree() const { return *tree_; }

 private:
  using Frame = TreeIndex::Frame;
  // Iterations so far of the loops on the current path: a few entries, searched in place.
  using Iterations = std::vector<std::pair<const Node*, std::uint64_t>>;
  static const std::uint64_t* iterations_of(const Iterations& iterations, const Node* loop);

  bool matches(std::size_t slot, const SourceLocation& where, std::string_view access) const;
  std::ptrdiff_t search(std::size_t from, std::size_t to, const SourceLocation& where,
                        std::string_view access) const;
  Move move_to(std::size_t target, const Node* back_edge_loop);
  Move enter_block_inside(const SourceLocation& where, std::string_view access);
  const Instruction& instruction(std::size_t slot) const { return index_->instruction(slot); }

  const OperationTree* tree_;
  std::shared_ptr<const TreeIndex> owned_index_;  // set by the one-argument constructor only
  const TreeIndex* index_;
  std::ptrdiff_t current_ = -1;
  bool inside_block_ = false;
  Iterations iterations_;
  Iterations next_iterations_;  // move_to's scratch
  std::uint64_t executed_ = 0;
};

class KEstimator {
 public:
  // `methods[t]` lists the operations thread t will run, in order. `object` may be empty.
  KEstimator(const TreeSet& trees, std::string object,
             std::vector<std::vector<std::string>> methods);
  // The same with `indexes`, index_trees(trees) made once for every run on these trees.
  KEstimator(const TreeSet& trees, std::shared_ptr<const TreeIndexes> indexes, std::string object,
             std::vector<std::vector<std::string>> methods);

  // The k of Algorithm 2 before the run: the sum of SUM over all operations of all threads.
  std::uint64_t initial_k() const;
  // Feeds the point `thread` passes while running its operation number `op_index`.
  Move on_point(std::size_t thread, std::size_t op_index, const SourceLocation& where,
                std::string_view access);
  // Instructions all threads are still expected to run after their current one.
  std::uint64_t remaining_k() const;
  std::vector<std::uint64_t> remaining_per_thread() const;
  std::uint64_t unmapped_points() const { return unmapped_; }
  // "access@file:line:column" of the first unmapped point, for diagnostics ("" if none).
  const std::string& first_unmapped() const { return first_unmapped_; }
  // The tree used for `method` given what is known so far (nullptr if none).
  const OperationTree* tree_for(std::string_view method) const;

 private:
  struct ThreadState {
    std::vector<std::string> methods;
    std::size_t op_index = 0;
    std::vector<OperationProgress> candidates;  // trees consistent with the points so far
    std::vector<std::uint64_t> estimates;       // estimate() of each method, for object_
  };
  std::uint64_t estimate(std::string_view method) const;
  // sum(op) for an operation of trees_, from its index.
  std::uint64_t tree_sum(const OperationTree& op) const;
  // Recomputes every thread's `estimates` (at the start, and when object_ is found).
  void refresh_estimates();
  Move unmapped(const SourceLocation& where, std::string_view access);
  std::uint64_t remaining_of(const ThreadState& state) const;

  const TreeSet* trees_;
  std::shared_ptr<const TreeIndexes> indexes_;
  std::string object_;
  std::vector<ThreadState> threads_;
  std::vector<Move> moves_;  // on_point's scratch, kept between points
  std::uint64_t unmapped_ = 0;
  std::string first_unmapped_;
};

}  // namespace linfault::structure_tree

#endif  // LINFAULT_STRUCTURE_TREE_PROGRESS_H_
