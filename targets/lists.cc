#include "targets/lists.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace linfault::targets {
namespace {
constexpr std::int64_t kMinKey = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxKey = std::numeric_limits<std::int64_t>::max();

// The ListState of a list whose first node is `head` (a sentinel): `next(node)` is the node after
// it, `removed(node)` whether it is marked removed; the tail sentinel holds kMaxKey. The links are
// read without scheduling points (unsafe_peek): the state is read after every call of a serial
// run, and instrumented loads would count a walk of the whole list each time towards the run's
// step cap (kSerialMaxSteps).
template <class Node, class Next, class Removed>
ListState state_of(Node* head, Next next, Removed removed) {
  ListState state;
  for (Node* node = next(head); node->key != kMaxKey; node = next(node)) {
    (removed(node) ? state.second : state.first).push_back(node->key);
  }
  return state;
}

ListNode* next_of(ListNode* node) { return node->next.unsafe_peek(); }
bool never_marked(ListNode*) { return false; }

// The ListState of a list whose nodes carry their removal mark in their next reference
// (MarkableRef): LockFreeList and BugUnknownList1.
template <class Node>
ListState marked_list_state(Node* head) {
  return state_of(
      head, [](Node* node) { return node->next.unsafe_peek().ref(); },
      [](Node* node) { return node->next.unsafe_peek().marked(); });
}
}  // namespace

void check_list_key(std::int64_t key) {
  if (key == kMinKey || key == kMaxKey) {
    throw std::invalid_argument("key " + std::to_string(key) +
                                " is reserved for the list's sentinel nodes");
  }
}

// ---------------------------------------------------------------------------------------------
// LockFreeList

LockFreeList::LockFreeList(Mark mark) : mark_(mark) {
  Node* tail = arena_.make(kMaxKey, Ref::of(nullptr, false));
  head_ = arena_.make(kMinKey, Ref::of(tail, false));
}

LockFreeList::Window LockFreeList::find(std::int64_t key) {
  while (true) {
    Node* pred = head_;
    Node* curr = pred->next.load().ref();
    bool snip_failed = false;
    while (!snip_failed) {
      Ref succ = curr->next.load();
      while (succ.marked()) {
        Ref expected = Ref::of(curr, false);
        if (!pred->next.compare_exchange(expected, Ref::of(succ.ref(), false))) {
          snip_failed = true;
          break;
        }
        curr = succ.ref();
        succ = curr->next.load();
      }
      if (snip_failed) break;
      if (curr->key >= key) return {pred, curr};
      pred = curr;
      curr = succ.ref();
    }
  }
}

// Java's AtomicMarkableReference.attemptMark(succ, true) (errata: true when already marked), or
// a real CAS from (succ, unmarked) to (succ, marked).
bool LockFreeList::mark_for_removal(Node* node, Node* succ) {
  if (mark_ == Mark::kCorrect) {
    Ref expected = Ref::of(succ, false);
    return node->next.compare_exchange(expected, Ref::of(succ, true));
  }
  Ref current = node->next.load();
  if (current.ref() != succ) return false;
  if (current.marked()) return true;
  return node->next.compare_exchange(current, Ref::of(succ, true));
}

bool LockFreeList::add(std::int64_t key) {
  check_list_key(key);
  Node* node = nullptr;
  while (true) {
    auto [pred, curr] = find(key);
    if (curr->key == key) return false;
    if (node == nullptr) {
      node = arena_.make(key, Ref::of(curr, false));
    } else {
      node->next.store(Ref::of(curr, false));
    }
    Ref expected = Ref::of(curr, false);
    if (pred->next.compare_exchange(expected, Ref::of(node, false))) return true;
  }
}

bool LockFreeList::remove(std::int64_t key) {
  check_list_key(key);
  while (true) {
    auto [pred, curr] = find(key);
    if (curr->key != key) return false;
    Node* succ = curr->next.load().ref();
    if (!mark_for_removal(curr, succ)) continue;
    Ref expected = Ref::of(curr, false);
    pred->next.compare_exchange(expected, Ref::of(succ, false));  // failure is fine: find snips
    return true;
  }
}

bool LockFreeList::contains(std::int64_t key) {
  check_list_key(key);
  Node* curr = head_;
  while (curr->key < key) curr = curr->next.load().ref();
  return curr->key == key && !curr->next.load().marked();
}

ListState LockFreeList::state() { return marked_list_state(head_); }

// ---------------------------------------------------------------------------------------------
// BugUnknownList1

BugUnknownList1::BugUnknownList1() {
  Node* tail = arena_.make(kMaxKey, Ref::of(nullptr, false));
  head_ = arena_.make(kMinKey, Ref::of(tail, false));
}

BugUnknownList1::Window BugUnknownList1::find(std::int64_t key) {
  Node* pred = head_;
  Node* curr = pred->next.load().ref();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load().ref();
  }
  return {pred, curr};
}

bool BugUnknownList1::add(std::int64_t key) {
  check_list_key(key);
  Node* node = nullptr;
  while (true) {
    auto [pred, curr] = find(key);
    if (curr->key == key) return false;
    if (node == nullptr) {
      node = arena_.make(key, Ref::of(curr, false));
    } else {
      node->next.store(Ref::of(curr, false));
    }
    Ref expected = Ref::of(curr, false);
    if (pred->next.compare_exchange(expected, Ref::of(node, false))) return true;
    dpct::spin_hint();  // bug c: fails forever when pred is a stranded marked node
  }
}

bool BugUnknownList1::remove(std::int64_t key) {
  check_list_key(key);
  while (true) {
    auto [pred, curr] = find(key);
    if (curr->key != key) return false;
    Node* succ = curr->next.load().ref();
    // attemptMark(succ, true): succeeds on an already marked node (bug a).
    Ref current = curr->next.load();
    if (current.ref() != succ) continue;
    if (!current.marked() && !curr->next.compare_exchange(current, Ref::of(succ, true))) continue;
    Ref expected = Ref::of(curr, false);
    pred->next.compare_exchange(expected, Ref::of(succ, false));  // bug b: failure strands curr
    return true;
  }
}

bool BugUnknownList1::contains(std::int64_t key) {
  check_list_key(key);
  Node* curr = find(key).curr;
  return curr->key == key && !curr->next.load().marked();
}

ListState BugUnknownList1::state() { return marked_list_state(head_); }

// ---------------------------------------------------------------------------------------------
// SimpleList

SimpleList::SimpleList() {
  ListNode* tail = arena_.make(kMaxKey, nullptr);
  head_ = arena_.make(kMinKey, tail);
}

bool SimpleList::add(std::int64_t key) {
  check_list_key(key);
  ListNode* pred = head_;
  ListNode* curr = pred->next.load();
  while (curr->key < key) {  // without the lock: the window may be stale once locked
    pred = curr;
    curr = curr->next.load();
  }
  dpct::LockGuard guard(lock_);
  if (curr->key == key) return false;
  pred->next.store(arena_.make(key, curr));
  return true;
}

bool SimpleList::remove(std::int64_t key) {
  check_list_key(key);
  dpct::LockGuard guard(lock_);
  ListNode* pred = head_;
  ListNode* curr = pred->next.load();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load();
  }
  if (curr->key != key) return false;
  pred->next.store(curr->next.load());
  return true;
}

bool SimpleList::contains(std::int64_t key) {
  check_list_key(key);
  dpct::LockGuard guard(lock_);
  ListNode* curr = head_->next.load();
  while (curr->key < key) curr = curr->next.load();
  return curr->key == key;
}

ListState SimpleList::state() { return state_of(head_, next_of, never_marked); }

// ---------------------------------------------------------------------------------------------
// UnsafeSizeList

UnsafeSizeList::UnsafeSizeList() {
  ListNode* tail = arena_.make(kMaxKey, nullptr);
  head_ = arena_.make(kMinKey, tail);
}

bool UnsafeSizeList::add(std::int64_t key) {
  check_list_key(key);
  dpct::LockGuard guard(lock_);
  ListNode* pred = head_;
  ListNode* curr = pred->next.load();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load();
  }
  if (curr->key == key) return false;
  pred->next.store(arena_.make(key, curr));
  return true;
}

bool UnsafeSizeList::remove(std::int64_t key) {
  check_list_key(key);
  dpct::LockGuard guard(lock_);
  ListNode* pred = head_;
  ListNode* curr = pred->next.load();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load();
  }
  if (curr->key != key) return false;
  pred->next.store(curr->next.load());
  return true;
}

bool UnsafeSizeList::contains(std::int64_t key) {
  check_list_key(key);
  dpct::LockGuard guard(lock_);
  ListNode* curr = head_->next.load();
  while (curr->key < key) curr = curr->next.load();
  return curr->key == key;
}

ListState UnsafeSizeList::state() { return state_of(head_, next_of, never_marked); }

std::int64_t UnsafeSizeList::size() {
  std::int64_t count = 0;
  for (ListNode* curr = head_->next.load(); curr->key != kMaxKey; curr = curr->next.load()) {
    ++count;  // the bug: no lock, so the count mixes states from before and after updates
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// OptimisticUnlockedList (BUList2 / BUList3)

OptimisticUnlockedList::OptimisticUnlockedList(Validation validation) : validation_(validation) {
  ListNode* tail = arena_.make(kMaxKey, nullptr);
  head_ = arena_.make(kMinKey, tail);
}

OptimisticUnlockedList::Window OptimisticUnlockedList::locate(std::int64_t key) {
  ListNode* pred = head_;
  ListNode* curr = pred->next.load();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load();
  }
  return {pred, curr};
}

bool OptimisticUnlockedList::add(std::int64_t key) {
  check_list_key(key);
  auto [pred, curr] = locate(key);
  dpct::LockGuard guard(lock_);
  if (validation_ == Validation::kReturnFalse && pred->next.load() != curr) return false;
  if (curr->key == key) return false;
  pred->next.store(arena_.make(key, curr));
  return true;
}

bool OptimisticUnlockedList::remove(std::int64_t key) {
  check_list_key(key);
  auto [pred, curr] = locate(key);
  dpct::LockGuard guard(lock_);
  if (validation_ == Validation::kReturnFalse && pred->next.load() != curr) return false;
  if (curr->key != key) return false;
  pred->next.store(curr->next.load());  // the intended unlink, not the prototype's no-op
  return true;
}

bool OptimisticUnlockedList::contains(std::int64_t key) {
  check_list_key(key);
  return locate(key).curr->key == key;
}

ListState OptimisticUnlockedList::state() { return state_of(head_, next_of, never_marked); }

// ---------------------------------------------------------------------------------------------
// BugUnknownList4

BugUnknownList4::BugUnknownList4() {
  Node* tail = arena_.make(kMaxKey, nullptr);
  head_ = arena_.make(kMinKey, tail);
}

BugUnknownList4::Window BugUnknownList4::locate(std::int64_t key) {
  Node* pred = head_;
  Node* curr = pred->next.load();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load();
  }
  return {pred, curr};
}

bool BugUnknownList4::add(std::int64_t key) {
  check_list_key(key);
  Node* node = nullptr;
  while (true) {
    auto [pred, curr] = locate(key);
    if (curr->key == key) return false;
    if (node == nullptr) {
      node = arena_.make(key, curr);
    } else {
      node->next.store(curr);
    }
    {
      dpct::LockGuard guard(lock_);
      if (!pred->marked.load() && pred->next.load() == curr) {
        pred->next.store(node);
        return true;
      }
    }
    dpct::spin_hint();
  }
}

bool BugUnknownList4::remove(std::int64_t key) {
  check_list_key(key);
  while (true) {
    auto [pred, curr] = locate(key);
    if (curr->key != key) return false;
    curr->marked.store(true);  // the bug: marked and successor read outside the lock
    Node* succ = curr->next.load();
    {
      dpct::LockGuard guard(lock_);
      if (!pred->marked.load() && pred->next.load() == curr) {
        pred->next.store(succ);
        return true;
      }
    }
    dpct::spin_hint();
  }
}

bool BugUnknownList4::contains(std::int64_t key) {
  check_list_key(key);
  Node* curr = locate(key).curr;
  return curr->key == key && !curr->marked.load();
}

ListState BugUnknownList4::state() {
  return state_of(
      head_, [](Node* node) { return node->next.unsafe_peek(); },
      [](Node* node) { return node->marked.unsafe_peek(); });
}

}  // namespace linfault::targets
