#include "structure_tree/progress.h"

#include <algorithm>
#include <stdexcept>

namespace linfault::structure_tree {
namespace {

bool point_matches(const Point& point, const SourceLocation& where, std::string_view access) {
  // The position first: it differs at almost every point tried, and compares two integers first.
  return same_position(point.location, where) && (access.empty() || point.access == access);
}

// True when `instruction` waits on a condition variable at `where`: that wait releases its lock
// and takes it again there (dpct::ConditionVariable), and both are points of the wait.
bool waits_at(const Instruction& instruction, const SourceLocation& where) {
  return std::any_of(instruction.points.begin(), instruction.points.end(), [&](const Point& p) {
    return p.access == "wait" && same_position(p.location, where);
  });
}

// The branch of `choice` with the largest SUM (the first one on ties).
const Node* widest_branch(const Node& choice, const TreeIndex& index) {
  const Node* widest = nullptr;
  std::uint64_t best = 0;
  for (const Node& branch : choice.children) {
    const std::uint64_t s = index.sum_of(&branch);
    if (widest == nullptr || s > best) {
      widest = &branch;
      best = s;
    }
  }
  return widest;
}

}  // namespace

const char* move_name(Move move) {
  switch (move) {
    case Move::kSameInstruction:
      return "same-instruction";
    case Move::kAdvanced:
      return "advanced";
    case Move::kBeyondAssumption:
      return "beyond-assumption";
    case Move::kUnmapped:
      return "unmapped";
  }
  return "?";
}

TreeIndex::TreeIndex(const OperationTree& tree) {
  std::vector<Frame> path;
  index(tree.root, path);
  for (Slot& slot : slots_) {
    for (Frame& frame : slot.path) {
      const Node& node = *frame.node;
      if (node.kind == NodeKind::kSequence) continue;
      if (node.kind == NodeKind::kChoice) {
        const Node* taken = &node.children[frame.child];
        frame.taken_first = range_of(taken).first;
        frame.narrower = sum_of(taken) != sum_of(widest_branch(node, *this));
        continue;
      }
      for (std::size_t i = frame.child + 1; i < node.children.size(); ++i) {
        frame.later += sum_of(&node.children[i]);
      }
      if (node.kind == NodeKind::kLoop) {
        for (const Node& child : node.children) frame.body += sum_of(&child);
      }
    }
  }
}

void TreeIndex::index(const Node& node, std::vector<Frame>& path) {
  const std::size_t first = slots_.size();
  if (node.kind == NodeKind::kSequence) {
    for (std::size_t i = 0; i < node.instructions.size(); ++i) {
      Slot slot{path};
      slot.path.push_back({&node, i});
      slots_.push_back(std::move(slot));
    }
  } else {
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      path.push_back({&node, i});
      index(node.children[i], path);
      path.pop_back();
    }
  }
  ranges_[&node] = {first, slots_.size()};
  sums_[&node] = sum(node);
}

const Instruction& TreeIndex::instruction(std::size_t slot) const {
  const Frame& last = slots_[slot].path.back();
  return last.node->instructions[last.child];
}

std::shared_ptr<const TreeIndexes> index_trees(const TreeSet& trees) {
  auto indexes = std::make_shared<TreeIndexes>();
  indexes->trees.reserve(trees.operations.size());
  for (std::size_t i = 0; i < trees.operations.size(); ++i) {
    indexes->trees.emplace_back(trees.operations[i]);
    indexes->all.push_back(i);
    indexes->by_method[trees.operations[i].method].push_back(i);
  }
  return indexes;
}

const std::vector<std::size_t>& TreeIndexes::named(std::string_view method) const {
  static const std::vector<std::size_t> kNone;
  const auto it = by_method.find(method);
  return it == by_method.end() ? kNone : it->second;
}

OperationProgress::OperationProgress(const OperationTree& tree)
    : tree_(&tree), owned_index_(std::make_shared<TreeIndex>(tree)), index_(owned_index_.get()) {}

OperationProgress::OperationProgress(const OperationTree& tree, const TreeIndex& index)
    : tree_(&tree), index_(&index) {}

const std::uint64_t* OperationProgress::iterations_of(const Iterations& iterations,
                                                      const Node* loop) {
  for (const auto& [node, count] : iterations) {
    if (node == loop) return &count;
  }
  return nullptr;
}

bool OperationProgress::matches(std::size_t slot, const SourceLocation& where,
                                std::string_view access) const {
  // A new instruction starts at its first point; the others are reached only from inside.
  return point_matches(instruction(slot).points.front(), where, access);
}

std::ptrdiff_t OperationProgress::search(std::size_t from, std::size_t to,
                                         const SourceLocation& where,
                                         std::string_view access) const {
  for (std::size_t s = from; s < to && s < index_->slots().size(); ++s) {
    if (matches(s, where, access)) return static_cast<std::ptrdiff_t>(s);
  }
  return -1;
}

bool OperationProgress::contains(const SourceLocation& where) const {
  for (const TreeIndex::Slot& slot : index_->slots()) {
    const Frame& last = slot.path.back();
    for (const Point& point : last.node->instructions[last.child].points) {
      if (point_matches(point, where, "")) return true;
    }
  }
  return false;
}

Move OperationProgress::on_point(const SourceLocation& where, std::string_view access) {
  if (current_ >= 0 && (access == "unlock" || access == "lock") &&
      waits_at(instruction(static_cast<std::size_t>(current_)), where)) {
    return Move::kSameInstruction;
  }
  if (current_ >= 0 && inside_block_) {
    const Instruction& block = instruction(static_cast<std::size_t>(current_));
    for (std::size_t p = 0; p < block.points.size(); ++p) {
      if (!point_matches(block.points[p], where, access)) continue;
      if (block.points[p].access == "unlock" && p + 1 == block.points.size()) inside_block_ = false;
      return Move::kSameInstruction;
    }
  }
  const std::size_t next = static_cast<std::size_t>(current_ + 1);
  if (current_ < 0) {
    const std::ptrdiff_t found = search(0, index_->slots().size(), where, access);
    return found < 0 ? enter_block_inside(where, access)
                     : move_to(static_cast<std::size_t>(found), nullptr);
  }
  const std::size_t here = static_cast<std::size_t>(current_);
  std::size_t searched_end = next;
  // Enclosing loops, innermost first.
  const std::vector<Frame>& path = index_->slots()[here].path;
  for (auto frame = path.rbegin(); frame != path.rend(); ++frame) {
    if (frame->node->kind != NodeKind::kLoop) continue;
    const auto [first, end] = index_->range_of(frame->node);
    if (const std::ptrdiff_t found = search(searched_end, end, where, access); found >= 0) {
      return move_to(static_cast<std::size_t>(found), nullptr);
    }
    searched_end = std::max(searched_end, end);
    if (const std::ptrdiff_t found = search(first, next, where, access); found >= 0) {
      return move_to(static_cast<std::size_t>(found), frame->node);
    }
  }
  if (const std::ptrdiff_t found = search(searched_end, index_->slots().size(), where, access);
      found >= 0) {
    return move_to(static_cast<std::size_t>(found), nullptr);
  }
  return enter_block_inside(where, access);
}

Move OperationProgress::enter_block_inside(const SourceLocation& where, std::string_view access) {
  // The lock of an atomic block was not seen (a thread blocked on the mutex resumes after it):
  // the first later point inside the block enters it.
  const std::size_t from = current_ < 0 ? 0 : static_cast<std::size_t>(current_ + 1);
  for (std::size_t s = from; s < index_->slots().size(); ++s) {
    const auto& points = instruction(s).points;
    for (std::size_t p = 1; p < points.size(); ++p) {
      if (point_matches(points[p], where, access)) return move_to(s, nullptr);
    }
  }
  return Move::kUnmapped;
}

Move OperationProgress::move_to(std::size_t target, const Node* back_edge_loop) {
  bool beyond = false;
  Iterations& iterations = next_iterations_;
  iterations.clear();
  bool inside_back_edge_loop = false;
  for (const Frame& frame : index_->slots()[target].path) {
    const Node* node = frame.node;
    if (node->kind == NodeKind::kLoop) {
      const std::uint64_t* before = iterations_of(iterations_, node);
      std::uint64_t count = 1;
      if (node == back_edge_loop) {
        count = before != nullptr ? *before + 1 : 2;
        inside_back_edge_loop = true;
      } else if (!inside_back_edge_loop && before != nullptr) {
        count = *before;
      }
      iterations.emplace_back(node, count);
      const bool newly_counted = before == nullptr || *before != count;
      if (newly_counted && count > node->theta.value_or(1)) beyond = true;
    } else if (node->kind == NodeKind::kChoice) {
      // Entering the choice, or the branch taken: the taken branch starts after the position
      // (and so does the choice if it starts after it), or a back edge re-enters it.
      const bool entering = current_ < 0 ||
                            frame.taken_first > static_cast<std::size_t>(current_) ||
                            back_edge_loop != nullptr;
      if (entering && frame.narrower) beyond = true;
    }
  }
  iterations_.swap(iterations);
  current_ = static_cast<std::ptrdiff_t>(target);
  inside_block_ = instruction(target).atomic_block();
  ++executed_;
  return beyond ? Move::kBeyondAssumption : Move::kAdvanced;
}

std::uint64_t OperationProgress::remaining() const {
  if (current_ < 0) return index_->sum_of(&tree_->root);
  std::uint64_t rest = 0;
  const auto& path = index_->slots()[static_cast<std::size_t>(current_)].path;
  for (auto frame = path.rbegin(); frame != path.rend(); ++frame) {
    const Node& node = *frame->node;
    switch (node.kind) {
      case NodeKind::kSequence:
        rest += node.instructions.size() - frame->child - 1;
        break;
      case NodeKind::kChoice:
        break;
      case NodeKind::kRoot:
      case NodeKind::kBranch:
      case NodeKind::kLoop: {
        rest += frame->later;
        if (node.kind == NodeKind::kLoop) {
          const std::uint64_t theta = node.theta.value_or(1);
          const std::uint64_t* iterated = iterations_of(iterations_, &node);
          const std::uint64_t done = iterated != nullptr ? *iterated : 1;
          rest += (done < theta ? theta - done : 0) * frame->body;
        }
        break;
      }
    }
  }
  return rest;
}

KEstimator::KEstimator(const TreeSet& trees, std::string object,
                       std::vector<std::vector<std::string>> methods)
    : KEstimator(trees, index_trees(trees), std::move(object), std::move(methods)) {}

KEstimator::KEstimator(const TreeSet& trees, std::shared_ptr<const TreeIndexes> indexes,
                       std::string object, std::vector<std::vector<std::string>> methods)
    : trees_(&trees), indexes_(std::move(indexes)), object_(std::move(object)) {
  if (indexes_ == nullptr || indexes_->trees.size() != trees.operations.size()) {
    throw std::invalid_argument("KEstimator: the indexes are not those of the trees");
  }
  for (auto& list : methods) threads_.push_back({std::move(list), 0, {}, {}});
  refresh_estimates();
}

std::uint64_t KEstimator::tree_sum(const OperationTree& op) const {
  const auto i = static_cast<std::size_t>(&op - trees_->operations.data());
  return indexes_->trees[i].sum_of(&op.root);
}

void KEstimator::refresh_estimates() {
  // A workload calls a few methods many times: each is looked up once.
  std::vector<std::pair<std::string_view, std::uint64_t>> known;
  for (ThreadState& state : threads_) {
    state.estimates.clear();
    for (const std::string& method : state.methods) {
      auto it = std::find_if(known.begin(), known.end(),
                             [&](const auto& entry) { return entry.first == method; });
      if (it == known.end()) it = known.insert(known.end(), {method, estimate(method)});
      state.estimates.push_back(it->second);
    }
  }
}

const OperationTree* KEstimator::tree_for(std::string_view method) const {
  const OperationTree* best = nullptr;
  for (int pass = 0; pass < 2 && best == nullptr; ++pass) {
    // By name first; an operation whose name is not a method of the object (a registry alias)
    // falls back to the widest operation.
    for (std::size_t i : pass == 0 ? indexes_->named(method) : indexes_->all) {
      const OperationTree& op = trees_->operations[i];
      if (!object_.empty() && op.object != object_) continue;
      if (best == nullptr || tree_sum(op) > tree_sum(*best)) best = &op;
    }
  }
  return best;
}

std::uint64_t KEstimator::estimate(std::string_view method) const {
  const OperationTree* tree = tree_for(method);
  return tree == nullptr ? 0 : tree_sum(*tree);
}

std::uint64_t KEstimator::initial_k() const {
  std::uint64_t k = 0;
  for (const ThreadState& state : threads_) {
    for (std::uint64_t estimate : state.estimates) k += estimate;
  }
  return k;
}

std::uint64_t KEstimator::remaining_of(const ThreadState& state) const {
  std::uint64_t rest = 0;
  std::size_t later = state.op_index;
  if (!state.candidates.empty()) {
    rest += state.candidates.front().remaining();
    ++later;
  }
  for (std::size_t i = later; i < state.estimates.size(); ++i) rest += state.estimates[i];
  return rest;
}

std::vector<std::uint64_t> KEstimator::remaining_per_thread() const {
  std::vector<std::uint64_t> per_thread;
  for (const ThreadState& state : threads_) per_thread.push_back(remaining_of(state));
  return per_thread;
}

std::uint64_t KEstimator::remaining_k() const {
  std::uint64_t k = 0;
  for (const ThreadState& state : threads_) k += remaining_of(state);
  return k;
}

Move KEstimator::unmapped(const SourceLocation& where, std::string_view access) {
  if (unmapped_++ == 0) first_unmapped_ = std::string(access) + "@" + where.to_string();
  return Move::kUnmapped;
}

Move KEstimator::on_point(std::size_t thread, std::size_t op_index, const SourceLocation& where,
                          std::string_view access) {
  if (thread >= threads_.size()) threads_.resize(thread + 1);
  ThreadState& state = threads_[thread];
  if (state.candidates.empty() || op_index != state.op_index) {
    state.op_index = op_index;
    state.candidates.clear();
    const std::string_view method =
        op_index < state.methods.size() ? std::string_view(state.methods[op_index]) : "";
    // Every tree of the operation that holds this first location is a candidate (a helper shared
    // by several classes puts its locations in all of them); later points weed them out.
    for (int pass = 0; pass < 2 && state.candidates.empty(); ++pass) {
      for (std::size_t i : pass == 0 ? indexes_->named(method) : indexes_->all) {
        const OperationTree& op = trees_->operations[i];
        if (!object_.empty() && op.object != object_) continue;
        OperationProgress progress(op, indexes_->trees[i]);
        if (progress.contains(where)) state.candidates.push_back(std::move(progress));
      }
    }
    if (state.candidates.empty()) return unmapped(where, access);
  }
  moves_.clear();
  for (OperationProgress& candidate : state.candidates) {
    moves_.push_back(candidate.on_point(where, access));
  }
  if (std::all_of(moves_.begin(), moves_.end(), [](Move m) { return m == Move::kUnmapped; })) {
    return unmapped(where, access);
  }
  // Keep the candidates that mapped the point, in order; the first one's move is the answer.
  std::size_t kept = 0;
  Move move = Move::kUnmapped;
  for (std::size_t i = 0; i < moves_.size(); ++i) {
    if (moves_[i] == Move::kUnmapped) continue;
    if (kept == 0) move = moves_[i];
    if (kept != i) state.candidates[kept] = std::move(state.candidates[i]);
    ++kept;
  }
  state.candidates.erase(state.candidates.begin() + static_cast<std::ptrdiff_t>(kept),
                         state.candidates.end());
  const std::string& object = state.candidates.front().tree().object;
  if (object_.empty() &&
      std::all_of(state.candidates.begin(), state.candidates.end(),
                  [&](const OperationProgress& c) { return c.tree().object == object; })) {
    object_ = object;
    refresh_estimates();  // tree_for() now looks at this class's trees only
  }
  return move;
}

}  // namespace linfault::structure_tree
