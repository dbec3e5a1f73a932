// Runs the extractor on in-memory sources and asserts the trees derived by hand from the paper's
// rules (Sec. III-B) and the policies of docs/structure-trees.md.

#include "structure_tree/extractor.h"

#include <gtest/gtest.h>

#include <map>
#include <source_location>
#include <string>
#include <vector>

#include "dpct/shared.h"
#include "structure_tree/progress.h"
#include "structure_tree/testdata/probe_object.h"

namespace linfault::structure_tree {
namespace {

constexpr const char* kFile = "/virtual/object.cc";

TreeSet extract(const std::string& code) {
  return extract_from_code(code, kFile, {"-std=c++20", "-I" LINFAULT_SOURCE_DIR}, {});
}

// "R[S(1),L(?)[S(3)]]": kinds, S sizes and loop thetas, children in brackets.
std::string shape(const Node& node) {
  std::string text = node_kind_letter(node.kind);
  if (node.kind == NodeKind::kSequence) return text + "(" + std::to_string(node.num()) + ")";
  if (node.kind == NodeKind::kLoop) {
    text += "(" + (node.theta ? std::to_string(*node.theta) : std::string("?")) + ")";
  }
  if (node.children.empty()) return text;
  text += "[";
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    text += (i == 0 ? "" : ",") + shape(node.children[i]);
  }
  return text + "]";
}

// Every point of the tree in program order: "load@7:25"; an atomic block is "{...}".
void collect_points(const Node& node, std::vector<std::string>& out) {
  for (const Instruction& instruction : node.instructions) {
    std::string text;
    for (const Point& point : instruction.points) {
      if (!text.empty()) text += ' ';
      text += point.access + "@" + std::to_string(point.location.line) + ":" +
              std::to_string(point.location.column);
    }
    out.push_back(instruction.atomic_block() ? "{" + text + "}" : text);
  }
  for (const Node& child : node.children) collect_points(child, out);
}
std::vector<std::string> points(const OperationTree& op) {
  std::vector<std::string> out;
  collect_points(op.root, out);
  return out;
}

// "line:column" of the last character of the first occurrence of `needle` in `code`: with a
// needle ending in the '(' of a call, the position g++ reports for that call's source_location.
std::string at(const std::string& code, const std::string& needle, std::size_t occurrence = 1) {
  std::size_t pos = std::string::npos;
  for (std::size_t n = 0; n < occurrence; ++n) {
    pos = code.find(needle, pos == std::string::npos ? 0 : pos + 1);
    if (pos == std::string::npos) ADD_FAILURE() << "needle not in code: " << needle;
  }
  const std::size_t end = pos + needle.size() - 1;
  const std::size_t line_start = code.rfind('\n', end);
  const std::size_t line =
      1 + std::count(code.begin(), code.begin() + static_cast<long>(end), '\n');
  const std::size_t column = end - (line_start == std::string::npos ? -1 : line_start);
  return std::to_string(line) + ":" + std::to_string(column);
}

const OperationTree& op(const TreeSet& trees, std::string_view object, std::string_view method) {
  const OperationTree* found = trees.find(object, method);
  if (found == nullptr) {
    ADD_FAILURE() << "no tree for " << object << "::" << method;
    static const OperationTree kEmpty;
    return kEmpty;
  }
  return *found;
}

const std::string kPairSnapShot = R"(#include <utility>
#include "dpct/shared.h"
// CGVT Fig. 1.
class PairSnapShot {
 public:
  void write(int i, int v) { d_[i].store(v); }
  std::pair<int, int> read() {
    while (true) {
      int x = d_[0].load();
      int y = d_[1].load();
      if (x == d_[0].load()) return {x, y};
    }
  }
 private:
  linfault::dpct::Var<int> d_[2];
};
)";

TEST(ExtractorTest, PairSnapShotWriteIsOneSequentialUnit) {
  const TreeSet trees = extract(kPairSnapShot);
  ASSERT_EQ(trees.operations.size(), 2u);
  const OperationTree& write = op(trees, "PairSnapShot", "write");
  EXPECT_EQ(shape(write.root), "R[S(1)]");
  EXPECT_EQ(points(write), std::vector<std::string>{"store@" + at(kPairSnapShot, "d_[i].store(")});
  EXPECT_EQ(sum(write), 1u);
  EXPECT_EQ(write.declared_at.file, kFile);
  EXPECT_EQ(write.declared_at.line, 6u);
}

TEST(ExtractorTest, PairSnapShotReadIsALoopOverThreeReadsAndThePrunedReturnBranch) {
  const TreeSet trees = extract(kPairSnapShot);
  const OperationTree& read = op(trees, "PairSnapShot", "read");
  // The `if` has no shared access in either branch, so its C unit is pruned (policy) and the
  // three reads form one S unit: d[0], d[1], then d[0] again in the condition.
  EXPECT_EQ(shape(read.root), "R[L(?)[S(3)]]");
  EXPECT_EQ(points(read), (std::vector<std::string>{
                              "load@" + at(kPairSnapShot, "x = d_[0].load("),
                              "load@" + at(kPairSnapShot, "y = d_[1].load("),
                              "load@" + at(kPairSnapShot, "x == d_[0].load("),
                          }));
  EXPECT_EQ(read.root.children[0].label, "while");
  EXPECT_EQ(read.root.children[0].line, 8u);
  EXPECT_EQ(sum(read), 3u);
}

const std::string kBuggySet = R"(#include "dpct/shared.h"
struct Node {
  explicit Node(int k) : key(k) {}
  int key;
  linfault::dpct::Var<Node*> next{nullptr};
};
// CGVT Fig. 3: the traversal runs without the lock; the insertion is one synchronized block.
class BuggySet {
 public:
  bool add(int key) {
    Node* pred = head_;
    Node* curr = pred->next.load();
    while (curr->key < key) {
      pred = curr;
      curr = curr->next.load();
    }
    if (curr->key == key) return false;
    Node* node = new Node(key);
    {
      linfault::dpct::LockGuard guard(mutex_);
      node->next.store(curr);
      pred->next.store(node);
    }
    return true;
  }
 private:
  Node* head_ = nullptr;
  linfault::dpct::Mutex mutex_;
};
)";

TEST(ExtractorTest, BuggySetAddIsTraversalLoopThenLockedBlockAsOneInstruction) {
  const TreeSet trees = extract(kBuggySet);
  ASSERT_EQ(trees.operations.size(), 1u) << "Node's constructor is not an operation";
  const OperationTree& add = op(trees, "BuggySet", "add");
  EXPECT_EQ(shape(add.root), "R[S(1),L(?)[S(1)],S(1)]");
  const std::string guard = at(kBuggySet, "guard(mutex_)");
  EXPECT_EQ(points(add),
            (std::vector<std::string>{
                "load@" + at(kBuggySet, "pred->next.load("),
                "load@" + at(kBuggySet, "curr->next.load("),
                "{lock@" + guard + " store@" + at(kBuggySet, "node->next.store(") + " store@" +
                    at(kBuggySet, "pred->next.store(") + " unlock@" + guard + "}",
            }));
  EXPECT_EQ(sum(add), 3u);
}

const std::string kHelperSet = R"(#include <utility>
#include "dpct/shared.h"
struct Node {
  int key;
  linfault::dpct::Var<Node*> next{nullptr};
};
class HelperSet {
 public:
  bool add(int key) {
    auto [pred, curr] = find(key);
    if (curr->key == key) return false;
    linfault::dpct::LockGuard guard{mutex_};
    pred->next.store(new Node{key});
    return true;
  }
  bool remove(int key) {
    mutex_.lock();
    auto [pred, curr] = find(key);
    if (curr->key != key) {
      mutex_.unlock();
      return false;
    }
    pred->next.store(curr->next.load());
    mutex_.unlock();
    return size_.fetch_sub(1) > 0;
  }
  bool contains(int key) { return find(key).second->key == key; }
 private:
  std::pair<Node*, Node*> find(int key) {
    Node* pred = head_.load();
    Node* curr = pred->next.load();
    for (; curr->key < key; curr = curr->next.load()) pred = curr;
    return {pred, curr};
  }
  linfault::dpct::Atomic<Node*> head_{nullptr};
  linfault::dpct::Atomic<int> size_{0};
  linfault::dpct::Mutex mutex_;
};
)";

TEST(ExtractorTest, HelperCallsContributeTheirTreesAtTheCallSite) {
  const TreeSet trees = extract(kHelperSet);
  ASSERT_EQ(trees.operations.size(), 3u) << "the private helper find() is not an operation";
  const OperationTree& contains = op(trees, "HelperSet", "contains");
  EXPECT_EQ(shape(contains.root), "R[S(2),L(?)[S(1)]]");
  EXPECT_EQ(points(contains), (std::vector<std::string>{
                                  "load@" + at(kHelperSet, "head_.load("),
                                  "load@" + at(kHelperSet, "Node* curr = pred->next.load("),
                                  "load@" + at(kHelperSet, "curr = curr->next.load("),
                              }));
  const OperationTree& add = op(trees, "HelperSet", "add");
  // find()'s units, then the guard (brace-initialized: g++ reports the '}') to the end of add.
  EXPECT_EQ(shape(add.root), "R[S(2),L(?)[S(1)],S(1)]");
  const std::string guard = at(kHelperSet, "guard{mutex_}");
  EXPECT_EQ(points(add).back(), "{lock@" + guard + " store@" + at(kHelperSet, "pred->next.store(") +
                                    " unlock@" + guard + "}");
}

TEST(ExtractorTest, ExplicitLockToTheNextUnlockOfTheBlockIsOneInstruction) {
  const TreeSet trees = extract(kHelperSet);
  const OperationTree& remove = op(trees, "HelperSet", "remove");
  // lock() .. the unlock() of the same block: find's loop and the early-return branch are
  // flattened into the atomic instruction; the fetch_sub after it is the second instruction.
  EXPECT_EQ(shape(remove.root), "R[S(2)]");
  const std::vector<std::string> got = points(remove);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "{lock@" + at(kHelperSet, "mutex_.lock(") + " load@" +
                        at(kHelperSet, "head_.load(") + " load@" +
                        at(kHelperSet, "Node* curr = pred->next.load(") + " load@" +
                        at(kHelperSet, "curr = curr->next.load(") + " unlock@" +
                        at(kHelperSet, "mutex_.unlock(") + " load@" +
                        at(kHelperSet, "store(curr->next.load(") + " store@" +
                        at(kHelperSet, "pred->next.store(", 2) + " unlock@" +
                        at(kHelperSet, "mutex_.unlock(", 2) + "}");
  EXPECT_EQ(got[1], "fetch_sub@" + at(kHelperSet, "size_.fetch_sub("));
}

const std::string kStdStyle = R"(#include <atomic>
#include <mutex>
#include <shared_mutex>
#include "dpct/shared.h"
template <class T> using atomic = linfault::dpct::Atomic<T>;
class StdStyle {
 public:
  bool members() {
    int expected = 0;
    bool ok = x_.compare_exchange_weak(expected, 1, std::memory_order_acq_rel,
                                       std::memory_order_relaxed);
    ok = x_.compare_exchange_strong(expected, 2) && ok;
    x_.fetch_and(3, std::memory_order_relaxed);
    x_.fetch_or(4);
    x_.fetch_xor(5);
    x_.wait(0, std::memory_order_acquire);
    x_.notify_one();
    x_.notify_all();
    if (flag_.test_and_set(std::memory_order_acquire)) flag_.clear();
    flag_.wait(true);
    return flag_.test() && ok;
  }
  int operators() {
    x_ = 1;
    int v = x_;
    ++x_;
    x_ -= v;
    return v;
  }
  void locks() {
    shared_.lock_shared();
    shared_.unlock_shared();
    recursive_.lock();
    recursive_.unlock();
    cv_.notify_all();
  }
  int guarded() {
    std::shared_lock<linfault::dpct::SharedMutex> reader(shared_);
    return x_.load();
  }
  void waits() {
    std::unique_lock<linfault::dpct::Mutex> lock(mutex_);
    cv_.wait(lock, [&] { return x_.load() > 0; });
  }
  void deferred() {
    std::unique_lock<linfault::dpct::Mutex> later(mutex_, std::defer_lock);
    x_.store(0);
  }
 private:
  atomic<int> x_{0};
  linfault::dpct::AtomicFlag flag_;
  linfault::dpct::Mutex mutex_;
  linfault::dpct::SharedMutex shared_;
  linfault::dpct::RecursiveMutex recursive_;
  linfault::dpct::ConditionVariable cv_;
};
)";

// The access names of an operation's points, in program order ("{lock unlock}" for a block).
std::vector<std::string> accesses(const OperationTree& tree) {
  std::vector<std::string> names;
  for (const std::string& point : points(tree)) {
    std::string text;
    bool in_name = true;
    for (char c : point) {
      if (c == '@') in_name = false;
      if (c == ' ') in_name = true;
      if (in_name || c == '}') text += c;
    }
    names.push_back(text);
  }
  return names;
}

TEST(ExtractorTest, StdAtomicMembersAreInstructionsAtTheCallersLine) {
  const TreeSet trees = extract(kStdStyle);
  const OperationTree& members = op(trees, "StdStyle", "members");
  const std::vector<std::string> expected = {"cas",       "cas",   "fetch_and",  "fetch_or",
                                             "fetch_xor", "wait",  "notify_one", "notify_all",
                                             "exchange",  "store", "wait",       "load"};
  EXPECT_EQ(accesses(members), expected);
  EXPECT_EQ(shape(members.root), "R[S(9),C[B[S(1)],B],S(2)]");
  EXPECT_EQ(points(members).front(), "cas@" + at(kStdStyle, "x_.compare_exchange_weak("));
  EXPECT_EQ(points(members)[5], "wait@" + at(kStdStyle, "x_.wait("));
}

TEST(ExtractorTest, AtomicOperatorsAreInstructionsLocatedInsideSharedH) {
  const TreeSet trees = extract(kStdStyle);
  const OperationTree& ops = op(trees, "StdStyle", "operators");
  EXPECT_EQ(accesses(ops), (std::vector<std::string>{"store", "load", "fetch_add", "fetch_sub"}));
  std::vector<std::string> texts;
  for (const Instruction& instruction : ops.root.children.at(0).instructions) {
    const Point& point = instruction.points.at(0);
    // At run time the access reports the member call inside the operator, so does the tree.
    EXPECT_NE(point.location.file.find("dpct/shared.h"), std::string::npos) << point.location.file;
    texts.push_back(point.text);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"x_ = 1", "x_", "++x_", "x_ -= v"}));
}

TEST(ExtractorTest, NewLockTypesAndConditionVariableCallsAreInstructions) {
  const TreeSet trees = extract(kStdStyle);
  EXPECT_EQ(
      accesses(op(trees, "StdStyle", "locks")),
      (std::vector<std::string>{"lock_shared", "unlock_shared", "{lock unlock}", "notify_all"}));
}

TEST(ExtractorTest, StdGuardsOverDpctLocksAreLockedBlocksAtTheStandardHeadersLines) {
  const TreeSet trees = extract(kStdStyle);
  const OperationTree& guarded = op(trees, "StdStyle", "guarded");
  EXPECT_EQ(accesses(guarded), (std::vector<std::string>{"{lock_shared load unlock_shared}"}));
  const Instruction& block = guarded.root.children.at(0).instructions.at(0);
  ASSERT_EQ(block.points.size(), 3u);
  EXPECT_NE(block.points[0].location.file.find("shared_mutex"), std::string::npos)
      << block.points[0].location.file;
  EXPECT_EQ(block.points[0].text, "reader(shared_)");
  EXPECT_NE(block.points[2].location.file.find("shared_mutex"), std::string::npos);

  // The condition variable's predicate may run any number of times: a lambda loop before the
  // wait, all inside the unique_lock's block.
  EXPECT_EQ(accesses(op(trees, "StdStyle", "waits")),
            (std::vector<std::string>{"{lock load wait unlock}"}));
  // A guard constructed with std::defer_lock locks nothing.
  EXPECT_EQ(accesses(op(trees, "StdStyle", "deferred")), (std::vector<std::string>{"store"}));
}

const std::string kLoops = R"(#include <array>
#include "dpct/shared.h"
class Loops {
 public:
  static constexpr int kMax = 2;
  void counted() {
    for (int i = 0; i < 4; ++i) total_.fetch_add(1);
    for (int i = 10; i > 0; i -= 3) total_.fetch_sub(1);
    for (int i = 0; i <= kMax; i++) total_.load();
    for (int i = 0; i < limit_; ++i) total_.load();
    for (int i = 0; i < 5; ++i) { total_.load(); i++; }
  }
  void ranges() {
    for (auto& cell : cells_) cell.store(0);
    for (int value : values_) total_.store(value);
    do { total_.load(); } while (false);
    while (false) total_.load();
  }
  int nested() {
    int seen = 0;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) seen += total_.load();
      total_.store(seen);
    }
    return seen;
  }
  int local_loops_only() {
    int s = 0;
    for (int i = 0; i < 10; ++i) s += i;
    return s + total_.load();
  }
 private:
  int limit_ = 3;
  linfault::dpct::Atomic<int> total_;
  linfault::dpct::Atomic<int> cells_[3];
  std::array<int, 4> values_{};
};
)";

TEST(ExtractorTest, ConstantTripCountsBecomeTheta) {
  const TreeSet trees = extract(kLoops);
  // i < 4 step 1: 4; 10,7,4,1: 4; i <= kMax (2): 3; a member bound: unknown; a body that
  // changes i: unknown.
  EXPECT_EQ(shape(op(trees, "Loops", "counted").root),
            "R[L(4)[S(1)],L(4)[S(1)],L(3)[S(1)],L(?)[S(1)],L(?)[S(1)]]");
  EXPECT_EQ(sum(op(trees, "Loops", "counted")), 4u + 4u + 3u + 1u + 1u);
  // A built-in array of 3, a std::array of 4, do-while(false) runs once, while(false) never.
  EXPECT_EQ(shape(op(trees, "Loops", "ranges").root),
            "R[L(3)[S(1)],L(4)[S(1)],L(1)[S(1)],L(0)[S(1)]]");
  EXPECT_EQ(sum(op(trees, "Loops", "ranges")), 3u + 4u + 1u + 0u);
}

TEST(ExtractorTest, NestedLoopsMultiplyAndLoopsWithoutAccessesArePruned) {
  const TreeSet trees = extract(kLoops);
  const OperationTree& nested = op(trees, "Loops", "nested");
  EXPECT_EQ(shape(nested.root), "R[L(2)[L(3)[S(1)],S(1)]]");
  EXPECT_EQ(sum(nested), 2u * (3u * 1u + 1u));
  EXPECT_EQ(shape(op(trees, "Loops", "local_loops_only").root), "R[S(1)]");
}

const std::string kBranches = R"(#include "dpct/shared.h"
class Branches {
 public:
  int early(int k) {
    int v = a_.load();
    if (v == k) {
      b_.store(1);
      return v;
      b_.store(2);
    }
    b_.load();
    return 0;
  }
  int chain(int k) {
    if (k == 0) {
      a_.store(0);
    } else if (k == 1) {
      a_.store(1);
      b_.store(1);
    } else {
      b_.load();
    }
    return 0;
  }
  int pick(int k) {
    switch (k) {
      case 0:
        return a_.load();
      case 1:
      case 2:
        a_.store(k);
        b_.store(k);
        break;
      default:
        break;
    }
    switch (k) {
      case 3:
        a_.load();
    }
    return 0;
  }
  bool logic(int k) {
    bool both = a_.load() > 0 && b_.load() > 0;
    return k > 0 ? a_.load() == k : both;
  }
  int constexpr_branch() {
    if constexpr (sizeof(int) == 4) {
      return a_.load();
    } else {
      return b_.load() + a_.load();
    }
  }
 private:
  linfault::dpct::Atomic<int> a_;
  linfault::dpct::Var<int> b_;
};
)";

TEST(ExtractorTest, EarlyReturnKeepsTheRestAndDropsDeadCode) {
  const TreeSet trees = extract(kBranches);
  const OperationTree& early = op(trees, "Branches", "early");
  // The branch with the return holds the store before it; the store after it is dead. The
  // absent else is an empty branch.
  EXPECT_EQ(shape(early.root), "R[S(1),C[B[S(1)],B],S(1)]");
  EXPECT_EQ(points(early), (std::vector<std::string>{
                               "load@" + at(kBranches, "a_.load("),
                               "store@" + at(kBranches, "b_.store("),
                               "load@" + at(kBranches, "b_.load("),
                           }));
  EXPECT_EQ(early.root.children[1].children[1].label, "no else");
  EXPECT_EQ(sum(early), 3u);
}

TEST(ExtractorTest, ElseIfChainsNestAndSumTakesTheWidestBranch) {
  const TreeSet trees = extract(kBranches);
  const OperationTree& chain = op(trees, "Branches", "chain");
  EXPECT_EQ(shape(chain.root), "R[C[B[S(1)],B[C[B[S(2)],B[S(1)]]]]]");
  EXPECT_EQ(sum(chain), 2u);
}

TEST(ExtractorTest, SwitchHasOneBranchPerCaseGroupAndAnEmptyOneWithoutDefault) {
  const TreeSet trees = extract(kBranches);
  const OperationTree& pick = op(trees, "Branches", "pick");
  EXPECT_EQ(shape(pick.root), "R[C[B[S(1)],B[S(2)],B],C[B[S(1)],B]]");
  const Node& first = pick.root.children[0];
  EXPECT_EQ(first.label, "switch");
  EXPECT_EQ(first.children[0].label, "case 0");
  EXPECT_EQ(first.children[1].label, "case 1, 2");
  EXPECT_EQ(first.children[2].label, "default");
  EXPECT_EQ(pick.root.children[1].children[1].label, "no default");
  EXPECT_EQ(sum(pick), 3u);
}

TEST(ExtractorTest, ShortCircuitAndConditionalOperatorsAreSelections) {
  const TreeSet trees = extract(kBranches);
  const OperationTree& logic = op(trees, "Branches", "logic");
  EXPECT_EQ(shape(logic.root), "R[S(1),C[B[S(1)],B],C[B[S(1)],B]]");
  EXPECT_EQ(logic.root.children[1].label, "&&");
  EXPECT_EQ(logic.root.children[2].label, "?:");
  EXPECT_EQ(shape(op(trees, "Branches", "constexpr_branch").root), "R[S(1)]");
}

const std::string kTemplates = R"(#include "dpct/shared.h"
template <class T>
class Box {
 public:
  T get() const { return value_.load(); }
  void put(T v) { value_.store(v); }
  template <class U>
  void put_twice(U v) { put(static_cast<T>(v)); put(static_cast<T>(v)); }
 private:
  linfault::dpct::Atomic<T> value_;
};
template class Box<long>;
template class Box<int>;
inline void use() { Box<int> b; b.put_twice(1.5); }

template <class T>
class NeverInstantiated {
 public:
  T get() { return value_.load(); }
 private:
  linfault::dpct::Atomic<T> value_;
};
)";

TEST(ExtractorTest, TemplatesComeFromTheirFirstInstantiationByName) {
  const TreeSet trees = extract(kTemplates);
  ASSERT_EQ(trees.operations.size(), 3u) << "one tree per method; none for a template that is "
                                            "never instantiated";
  const OperationTree& get = op(trees, "Box", "get");
  EXPECT_EQ(get.instantiation, "Box<int>");
  EXPECT_EQ(shape(get.root), "R[S(1)]");
  EXPECT_EQ(points(get), std::vector<std::string>{"load@" + at(kTemplates, "value_.load(")});
  const OperationTree& twice = op(trees, "Box", "put_twice");
  EXPECT_EQ(shape(twice.root), "R[S(2)]");
  EXPECT_EQ(trees.find("NeverInstantiated", "get"), nullptr);
}

const std::string kLambdas = R"(#include <algorithm>
#include <iterator>
#include "dpct/shared.h"
template <class F>
void retry(F attempt) {
  while (!attempt()) {
  }
}
class Lambdas {
 public:
  int twice() {
    auto read = [this] { return a_.load(); };
    return read() + read();
  }
  void defined_not_called() {
    auto f = [this] { a_.store(1); };
    (void)f;
  }
  void push(int v) {
    int old = a_.load();
    retry([&] { return a_.compare_exchange(old, v); });
  }
  void each() {
    std::for_each(std::begin(cells_), std::end(cells_),
                  [](linfault::dpct::Atomic<int>& cell) { cell.fetch_add(1); });
  }
  void each_generic() {
    std::for_each(std::begin(cells_), std::end(cells_), [](auto& cell) { cell.fetch_sub(1); });
  }
 private:
  linfault::dpct::Atomic<int> a_;
  linfault::dpct::Atomic<int> cells_[2];
};
)";

TEST(ExtractorTest, LambdasCountWhereTheyAreCalled) {
  const TreeSet trees = extract(kLambdas);
  EXPECT_EQ(shape(op(trees, "Lambdas", "twice").root), "R[S(2)]");
  EXPECT_EQ(points(op(trees, "Lambdas", "twice")),
            (std::vector<std::string>{"load@" + at(kLambdas, "a_.load("),
                                      "load@" + at(kLambdas, "a_.load(")}));
  EXPECT_EQ(shape(op(trees, "Lambdas", "defined_not_called").root), "R");
  // retry() is followed: its while loop wraps the lambda's CAS.
  EXPECT_EQ(shape(op(trees, "Lambdas", "push").root), "R[S(1),L(?)[S(1)]]");
  EXPECT_EQ(points(op(trees, "Lambdas", "push")).back(),
            "cas@" + at(kLambdas, "a_.compare_exchange("));
}

TEST(ExtractorTest, LambdaHandedToCodeThatIsNotFollowedIsALoopOfUnknownCount) {
  const TreeSet trees = extract(kLambdas);
  const OperationTree& each = op(trees, "Lambdas", "each");
  EXPECT_EQ(shape(each.root), "R[L(?)[S(1)]]");
  EXPECT_EQ(each.root.children[0].label, "lambda");
  EXPECT_EQ(points(each), std::vector<std::string>{"fetch_add@" + at(kLambdas, "cell.fetch_add(")});
  EXPECT_EQ(shape(op(trees, "Lambdas", "each_generic").root), "R[L(?)[S(1)]]");
}

const std::string kForwarding = R"(#include "dpct/shared.h"
namespace dpct = linfault::dpct;
class Forwarding {
 public:
  int op() {
    int a = read(x_);
    int b = read(y_, dpct::SourceLocation::current());
    write(x_, a + b);
    return a;
  }
 private:
  int read(dpct::Atomic<int>& cell, dpct::SourceLocation where = dpct::SourceLocation::current()) {
    return cell.load(where);
  }
  void write(dpct::Atomic<int>& cell, int v,
             dpct::SourceLocation where = dpct::SourceLocation::current()) {
    step(cell, v, where);
  }
  void step(dpct::Atomic<int>& cell, int v, dpct::SourceLocation where) { cell.store(v, where); }
  dpct::Atomic<int> x_, y_;
};
)";

TEST(ExtractorTest, AForwardedSourceLocationPointsAtTheHelpersCallSite) {
  // Helpers that take `SourceLocation where = current()` and pass it to the access report the
  // helper's call site at run time (targets/snark_deque.cc does this); so do the points.
  const TreeSet trees = extract(kForwarding);
  ASSERT_EQ(trees.operations.size(), 1u);
  EXPECT_EQ(points(op(trees, "Forwarding", "op")),
            (std::vector<std::string>{
                "load@" + at(kForwarding, "int a = read("),
                // An explicit current() in the call: the '(' of that current().
                "load@" + at(kForwarding, "SourceLocation::current("),
                "store@" + at(kForwarding, "    write("),
            }));
}

TEST(ExtractorTest, ClassFilterKeepsOnlyTheNamedClasses) {
  ExtractOptions options;
  options.classes = {"Branches"};
  const TreeSet trees = extract_from_code(
      "#include <array>\n" + kBranches + kLoops.substr(kLoops.find("class Loops")), kFile,
      {"-std=c++20", "-I" LINFAULT_SOURCE_DIR}, options);
  EXPECT_EQ(trees.operations.size(), 5u);
  for (const OperationTree& tree : trees.operations) EXPECT_EQ(tree.object, "Branches");
}

TEST(ExtractorTest, SourceThatDoesNotCompileIsAOneLineErrorWithItsPosition) {
  try {
    extract(
        "#include \"dpct/shared.h\"\nclass X {\n public:\n  void f() { undefined_name(); }\n};\n");
    FAIL() << "expected an ExtractError";
  } catch (const ExtractError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(std::string(kFile) + ":4:14: error: ", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(ExtractorTest, AnErrorInsideAHeaderNamesTheLineOfTheParsedFileThatCausedIt) {
  // The binding's static_assert fires in targets/bind.h; the user's line is the binding call.
  try {
    extract(
        "#include \"targets/bind.h\"\nclass Y {\n public:\n  void f(double) {}\n};\n"
        "#define MAKE(...) inline auto factory = (__VA_ARGS__);\n"
        "MAKE(\n"
        "    linfault::targets::Binding<Y>().method(\"f\", &Y::f).factory())\n");
    FAIL() << "expected an ExtractError";
  } catch (const ExtractError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("targets/bind.h:"), std::string::npos) << message;
    EXPECT_NE(message.find("unsupported parameter type"), std::string::npos) << message;
    // Where the binding is written, inside the macro's argument, not the macro's line (as
    // LINFAULT_REGISTER_TARGET's lambda is).
    EXPECT_NE(message.find(" (required from " + std::string(kFile) + ":8:"), std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(ExtractorTest, FilesNeedACompilationDatabaseOrExplicitFlags) {
  const std::string probe = LINFAULT_SOURCE_DIR "/structure_tree/testdata/probe_object.h";
  EXPECT_THROW(extract_from_files({probe}, "", std::nullopt, {}), ExtractError);
  EXPECT_THROW(extract_from_files({probe}, "/nonexistent-build-dir", std::nullopt, {}),
               ExtractError);
  EXPECT_THROW(extract_from_files({"/nonexistent.cc"}, "", std::vector<std::string>{}, {}),
               ExtractError);
}

// Records what g++'s std::source_location says at each scheduling point of a controlled run.
class RecordingContext : public dpct::ExecutionContext {
 public:
  void before_access(const dpct::Access& access) override { record(access.kind, access.where); }
  void lock(const void*, bool& held, const dpct::SourceLocation& where) override {
    record(dpct::AccessKind::kLock, where);
    held = true;
  }
  bool try_lock(const void*, bool& held, const dpct::SourceLocation& where) override {
    record(dpct::AccessKind::kTryLock, where);
    if (held) return false;
    held = true;
    return true;
  }
  void unlock(const void*, bool& held, const dpct::SourceLocation& where) override {
    record(dpct::AccessKind::kUnlock, where);
    held = false;
  }
  std::vector<std::pair<std::string, SourceLocation>> seen;

 private:
  void record(dpct::AccessKind kind, const dpct::SourceLocation& where) {
    seen.emplace_back(dpct::access_kind_name(kind),
                      SourceLocation{where.file_name(), where.line(), where.column()});
  }
};

TEST(ExtractorTest, RuntimeSourceLocationsOfGccMatchTheExtractedPoints) {
  const std::string probe = LINFAULT_SOURCE_DIR "/structure_tree/testdata/probe_object.h";
  const TreeSet trees = extract_from_files(
      {probe}, "", std::vector<std::string>{"-std=c++20", "-I" LINFAULT_SOURCE_DIR}, {});
  ASSERT_EQ(trees.operations.size(), 4u);

  RecordingContext context;
  {
    dpct::ScopedContext scoped(&context);
    testdata::ProbeObject object;
    object.spaced_calls(3);
    object.guarded(1);
    object.explicit_locks();
    object.std_style();
  }
  ASSERT_GE(context.seen.size(), 25u);
  for (const auto& [access, where] : context.seen) {
    bool found = false;
    for (const OperationTree& tree : trees.operations) {
      if (OperationProgress(tree).contains(where)) found = true;
    }
    EXPECT_TRUE(found) << access << " at " << where.to_string() << " is not an extracted point";
  }
  // And each method's points, fed in order, walk its tree without an unmapped point.
  const std::vector<std::string> methods = {"spaced_calls", "guarded", "explicit_locks",
                                            "std_style"};
  KEstimator estimator(trees, "ProbeObject", {methods});
  std::size_t op_index = 0;
  std::string previous_file;
  for (const auto& [access, where] : context.seen) {
    const OperationTree* tree = estimator.tree_for(methods[op_index]);
    ASSERT_NE(tree, nullptr);
    if (!OperationProgress(*tree).contains(where)) ++op_index;
    ASSERT_LT(op_index, methods.size());
    EXPECT_NE(estimator.on_point(0, op_index, where, access), Move::kUnmapped) << where.to_string();
  }
  EXPECT_EQ(estimator.unmapped_points(), 0u);
}

}  // namespace
}  // namespace linfault::structure_tree
