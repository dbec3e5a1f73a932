#include "docs/examples/two_lock_queue.h"

#include <memory>

#include "targets/bind.h"

namespace linfault::examples {

TwoLockQueue::TwoLockQueue(Locking locking)
    : locking_(locking), head_(arena_.make(0)), tail_(head_.unsafe_peek()) {}

void TwoLockQueue::enq(std::int64_t value) {
  Node* node = arena_.make(value);
  dpct::LockGuard guard(tail_lock_);
  tail_.load()->next.store(node);
  tail_.store(node);
}

std::optional<std::int64_t> TwoLockQueue::deq() {
  if (locking_ == Locking::kEnqueueOnly) return deq_locked();  // the bug: no head lock
  dpct::LockGuard guard(head_lock_);
  return deq_locked();
}

std::optional<std::int64_t> TwoLockQueue::deq_locked() {
  Node* sentinel = head_.load();
  Node* first = sentinel->next.load();
  if (first == nullptr) return std::nullopt;
  const std::int64_t value = first->value;
  head_.store(first);
  return value;
}

targets::Target two_lock_queue_target(TwoLockQueue::Locking locking) {
  const bool buggy = locking == TwoLockQueue::Locking::kEnqueueOnly;
  targets::Target target;
  target.name = buggy ? "two_lock_queue_buggy" : "two_lock_queue";
  target.model = "queue";
  target.description =
      buggy ? "two-lock queue whose deq forgets the head lock" : "Michael & Scott's two-lock queue";
  target.bug_expected = buggy;
  target.operations = {{"enq", targets::unique_value(), "enq(unique value)"},
                       {"deq", targets::no_arguments(), "deq() -> value | nil"}};
  target.factory =
      targets::Binding<TwoLockQueue>([locking] { return std::make_unique<TwoLockQueue>(locking); })
          .method("enq", &TwoLockQueue::enq)
          .method("deq", &TwoLockQueue::deq)
          .factory();
  return target;
}

}  // namespace linfault::examples
