// BoostStack: boost::lockfree::stack<std::int64_t> as a linfault target (model "stack"), Boost's
// stack unchanged, its installed headers instrumented by the build (see boost_queue.h). It starts
// with kNodes nodes on its free list, which push and pop recycle.
//
// peek() is the wrapper's own, and wrong (target boost_stack_buggy binds it): Boost's stack has no
// top(), so it pops the top element and pushes it back, two steps where the stack model's peek is
// one. Run alone it is right; while it holds the element a concurrent pop finds the stack empty,
// or another element on top, which no order of the calls explains.
//
// Thread-safety: push(), pop() and peek() may be called concurrently (the claim under test).

#ifndef LIBRARIES_BOOST_STACK_H_
#define LIBRARIES_BOOST_STACK_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include <boost/lockfree/stack.hpp>

namespace libraries {

class BoostStack {
 public:
  static constexpr std::size_t kNodes = 64;

  BoostStack() : stack_(kNodes) {}

  void push(std::int64_t value);
  std::optional<std::int64_t> pop();
  std::optional<std::int64_t> peek();  // not atomic: see above

 private:
  boost::lockfree::stack<std::int64_t> stack_;
};

}  // namespace libraries

#endif  // LIBRARIES_BOOST_STACK_H_
