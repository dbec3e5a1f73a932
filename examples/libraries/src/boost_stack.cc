#include "boost_stack.h"

#include <new>

namespace libraries {

void BoostStack::push(std::int64_t value) {
  // push fails only when a node cannot be allocated.
  if (!stack_.push(value)) throw std::bad_alloc();
}

std::optional<std::int64_t> BoostStack::pop() {
  std::int64_t value = 0;
  if (!stack_.pop(value)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> BoostStack::peek() {
  std::optional<std::int64_t> top = pop();
  if (top) push(*top);  // the bug: between the two, the element is not on the stack
  return top;
}

}  // namespace libraries
