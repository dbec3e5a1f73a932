#include "targets/stacks.h"

namespace linfault::targets {

TreiberStack::TreiberStack(Pop pop) : pop_(pop) {}

void TreiberStack::push(std::int64_t value) {
  StackNode* node = arena_.make(value);
  while (true) {
    StackNode* old = top_.load();
    node->next.store(old);
    if (top_.compare_exchange(old, node)) return;
  }
}

namespace {
// Read without scheduling points: the state is read after every call of a serial run, and
// instrumented loads would count towards its step cap (kSerialMaxSteps) a walk of the whole
// stack each time.
std::vector<std::int64_t> items_from(StackNode* top) {
  std::vector<std::int64_t> items;
  for (StackNode* node = top; node != nullptr; node = node->next.unsafe_peek()) {
    items.push_back(node->value);
  }
  return items;
}
}  // namespace

std::vector<std::int64_t> TreiberStack::state() { return items_from(top_.unsafe_peek()); }

std::vector<std::int64_t> KStack::state() { return items_from(top_.unsafe_peek()); }

std::optional<std::int64_t> TreiberStack::pop() {
  while (true) {
    StackNode* old = top_.load();
    if (old == nullptr) return std::nullopt;
    StackNode* next = old->next.load();
    StackNode* expected = old;
    const bool swung = top_.compare_exchange(expected, next);
    if (swung || pop_ == Pop::kNoRetry) return old->value;  // kNoRetry: the CAS result is ignored
  }
}

void KStack::push(std::int64_t value) {
  StackNode* node = arena_.make(value);
  while (true) {
    StackNode* old = top_.load();
    node->next.store(old);
    StackNode* expected = old;
    top_.compare_exchange(expected, node);  // the bug: the result is ignored
    StackNode* top = top_.load();
    if (top != nullptr && top->next.load() == old) return;
    dpct::spin_hint();
  }
}

std::optional<std::int64_t> KStack::pop() {
  while (true) {
    StackNode* old = top_.load();
    if (old == nullptr) return std::nullopt;
    StackNode* next = old->next.load();
    StackNode* expected = old;
    if (top_.compare_exchange(expected, next)) return old->value;
  }
}

}  // namespace linfault::targets
