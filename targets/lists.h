// Concurrent sets built on sorted linked lists: the list benchmarks of CGVT (Tables I and II).
//
// Each class is one object of ../shared/docs/benchmark-objects.md, written against the dpct
// instrumentation API with the named bug (or none, for the controls). All are sets of int64 keys
// with sentinel nodes of keys INT64_MIN and INT64_MAX, so keys must lie strictly between those;
// add/remove/contains return booleans and size returns a count, as the "set" model expects.
//
// Shared links are dpct::Atomic even where the original Java reads them without synchronization:
// the bugs studied are atomicity violations (a stale window, a lost update), not C++ data races,
// so natively the objects stay free of undefined behaviour and ThreadSanitizer reports nothing.
// Node keys are immutable and published through those links. Nodes are never freed during a run
// (targets/arena.h).
//
// Every method is a single operation of the object; in controlled mode each shared access is a
// scheduling point. Thread-safety: any number of threads may call any method concurrently (that
// is the point); the buggy ones then misbehave exactly as documented on each class.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_LISTS_H_
#define LINFAULT_TARGETS_LISTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dpct/shared.h"
#include "targets/arena.h"

namespace linfault::targets {

// Throws std::invalid_argument when `key` collides with a sentinel.
void check_list_key(std::int64_t key);

// A list's state for the serial specification (targets::Binding::state): the keys of its nodes
// between the sentinels, in list order, those not removed first, then those marked removed but
// still linked. Equal states answer every later call alike (the lists are deterministic and
// their nodes' addresses never reach a result).
using ListState = std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>;

// A pointer and a boolean mark changed together by one atomic step (Java's
// AtomicMarkableReference): the mark is the low bit of the pointer, so a (ref, mark) CAS is one
// dpct::Atomic compare-exchange.
template <class Node>
struct MarkableRef {
  std::uintptr_t bits = 0;

  static MarkableRef of(Node* ref, bool marked) {
    return {reinterpret_cast<std::uintptr_t>(ref) | static_cast<std::uintptr_t>(marked)};
  }
  Node* ref() const { return reinterpret_cast<Node*>(bits & ~std::uintptr_t{1}); }
  bool marked() const { return (bits & 1) != 0; }
  friend bool operator==(MarkableRef, MarkableRef) = default;
  // In traces: the node's name, "(marked)" after a marked one ("node#2", "node#3(marked)").
  friend std::string linfault_render(MarkableRef r) {
    std::string ref = dpct::render_value(r.ref());
    return r.marked() ? ref + "(marked)" : ref;
  }
};

// LFList: the Harris-Michael lock-free list of Herlihy & Shavit ch. 9 (find snips marked nodes).
//   kBookErrata (target lf_list_buggy): remove marks with Java's attemptMark(succ, true), which
//     also succeeds when the node is already marked, so remove(x) || remove(x) both return true.
//   kCorrect (target lf_list): remove marks with a real CAS (succ, unmarked) -> (succ, marked).
class LockFreeList {
 public:
  enum class Mark { kBookErrata, kCorrect };
  explicit LockFreeList(Mark mark);

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  bool contains(std::int64_t key);
  ListState state();

 private:
  struct Node;
  using Ref = MarkableRef<Node>;
  struct Node {
    Node(std::int64_t k, Ref n) : key(k), next(n) {}
    const std::int64_t key;
    dpct::Atomic<Ref> next;
  };
  struct Window {
    Node* pred;
    Node* curr;
  };
  Window find(std::int64_t key);
  bool mark_for_removal(Node* node, Node* succ);

  const Mark mark_;
  NodeArena<Node> arena_;
  Node* head_;
};

// BUList1: LFList with attemptMark removal and a plain find that neither snips nor looks at marks.
//   Bug a: remove(x) || remove(x) both return true (type 1).
//   Bug b: when remove's unlink CAS fails, the marked node stays linked forever, and a later
//     add of its key returns false (type 2).
//   Bug c: an add whose pred is such a stranded node retries its CAS forever (livelock); the
//     retry calls dpct::spin_hint so a controlled run ends at the executor's step cap.
class BugUnknownList1 {
 public:
  BugUnknownList1();

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  // Not in the prototype: a plain traversal that reports an unmarked node with the key, added so
  // that reveals (Pr) can observe membership.
  bool contains(std::int64_t key);
  ListState state();

 private:
  struct Node;
  using Ref = MarkableRef<Node>;
  struct Node {
    Node(std::int64_t k, Ref n) : key(k), next(n) {}
    const std::int64_t key;
    dpct::Atomic<Ref> next;
  };
  struct Window {
    Node* pred;
    Node* curr;
  };
  Window find(std::int64_t key);

  NodeArena<Node> arena_;
  Node* head_;
};

// Plain sorted-list node for the lock-based lists below.
struct ListNode {
  ListNode(std::int64_t k, ListNode* n) : key(k), next(n) {}
  const std::int64_t key;
  dpct::Atomic<ListNode*> next;
};

// SimpleList / CGList (Vechev & Yahav's "buggy set", CGVT Fig. 3): add traverses without the
// lock, then links its node under the lock without checking that pred.next is still curr.
// remove and contains hold the lock throughout. Bugs: add(5) || add(5) both return true
// (type 1); add(8) || add(9) in the same window drops 8 (type 2, revealed by contains(8)).
class SimpleList {
 public:
  SimpleList();

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  bool contains(std::int64_t key);
  ListState state();

 private:
  NodeArena<ListNode> arena_;
  ListNode* head_;
  dpct::Mutex lock_;
};

// UnsafeSizeList: a correct coarse-grained set (one lock held across traversal and update)
// whose size() counts nodes without the lock. Bug (type 1, 1 || 2): size() || [add(0);
// remove(5)] from {1, 5} can return 1, a size the set never had.
class UnsafeSizeList {
 public:
  UnsafeSizeList();

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  bool contains(std::int64_t key);
  ListState state();
  std::int64_t size();

 private:
  NodeArena<ListNode> arena_;
  ListNode* head_;
  dpct::Mutex lock_;
};

// BUList2 and BUList3: an unsynchronized locate, then the update under the lock.
//   kNone (BUList2): no validation at all.
//   kReturnFalse (BUList3): validates pred.next == curr under the lock and returns false
//     instead of retrying when validation fails.
// The prototype's remove is the self-assignment `r = pred.next; pred.next = r` (a no-op that
// makes the object sequentially wrong); this class builds the intended `pred.next = curr.next`,
// as benchmark-objects.md sections 3.3 and 3.4 prescribe. Bugs: lost inserts and double adds
// in the same window (BUList2), a spurious add(7) -> false (BUList3), links after a removed
// pred (both).
class OptimisticUnlockedList {
 public:
  enum class Validation { kNone, kReturnFalse };
  explicit OptimisticUnlockedList(Validation validation);

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  bool contains(std::int64_t key);  // the prototype's `contain`: locate, compare, no lock
  ListState state();

 private:
  struct Window {
    ListNode* pred;
    ListNode* curr;
  };
  Window locate(std::int64_t key);

  const Validation validation_;
  NodeArena<ListNode> arena_;
  ListNode* head_;
  dpct::Mutex lock_;
};

// BUList4: a lazy-list variant whose remove marks the victim and reads its successor outside
// the lock. Bug (type 2, 1 || 1): from {3}, add(5) || remove(3) can lose 5, so a later add(5)
// returns true again. A resurrected marked node can also make add/remove retry forever; retries
// call dpct::spin_hint.
class BugUnknownList4 {
 public:
  BugUnknownList4();

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  // Not in the prototype: the lazy list's traversal (key found and not marked), for reveals.
  bool contains(std::int64_t key);
  ListState state();

 private:
  struct Node {
    Node(std::int64_t k, Node* n) : key(k), next(n) {}
    const std::int64_t key;
    dpct::Atomic<bool> marked{false};
    dpct::Atomic<Node*> next;
  };
  struct Window {
    Node* pred;
    Node* curr;
  };
  Window locate(std::int64_t key);

  NodeArena<Node> arena_;
  Node* head_;
  dpct::Mutex lock_;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_LISTS_H_
