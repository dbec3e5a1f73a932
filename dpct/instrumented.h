// What a source instrumented by the rewriter (structure_tree/rewriter.h, linfault_add_target(...
// INSTRUMENT)) includes first: the instrumented drop-in types of dpct/shared.h, and the
// functions the rewriter turns operators on atomics into.
//
// An operator cannot take a defaulted std::source_location, so `counter++` on a dpct::Atomic
// would record the operator's own location. The rewriter writes ops::post_increment(counter)
// instead, whose defaulted location is the user's line (kept by the copy's #line directive):
// every access stays a scheduling point at its own file:line. Each function performs exactly the
// access its operator performs in std::atomic (sequentially consistent), with the same result.
//
// Internal header: included by generated code only.
//
// Thread-safety: as the operators they replace.

#ifndef LINFAULT_DPCT_INSTRUMENTED_H_
#define LINFAULT_DPCT_INSTRUMENTED_H_

#include <atomic>
#include <type_traits>
#include <utility>

#include "dpct/shared.h"

namespace linfault::dpct::ops {

template <class A>
using value_of = std::remove_cvref_t<decltype(std::declval<const A&>().unsafe_peek())>;

// The implicit load: `int v = counter;`.
template <class A>
auto load(const A& atomic, SourceLocation where = SourceLocation::current()) {
  return atomic.load(std::memory_order_seq_cst, where);
}

// `counter = v` (returns v, as std::atomic's operator= does).
template <class A, class V>
value_of<A> assign(A& atomic, V&& value, SourceLocation where = SourceLocation::current()) {
  const value_of<A> desired = std::forward<V>(value);
  atomic.store(desired, std::memory_order_seq_cst, where);
  return desired;
}

template <class A>
value_of<A> post_increment(A& atomic, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_add(1, std::memory_order_seq_cst, where);
}
template <class A>
value_of<A> pre_increment(A& atomic, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_add(1, std::memory_order_seq_cst, where) + 1;
}
template <class A>
value_of<A> post_decrement(A& atomic, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_sub(1, std::memory_order_seq_cst, where);
}
template <class A>
value_of<A> pre_decrement(A& atomic, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_sub(1, std::memory_order_seq_cst, where) - 1;
}

template <class A, class V>
value_of<A> add_assign(A& atomic, V value, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_add(value, std::memory_order_seq_cst, where) + value;
}
template <class A, class V>
value_of<A> sub_assign(A& atomic, V value, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_sub(value, std::memory_order_seq_cst, where) - value;
}
template <class A, class V>
value_of<A> and_assign(A& atomic, V value, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_and(value, std::memory_order_seq_cst, where) & value;
}
template <class A, class V>
value_of<A> or_assign(A& atomic, V value, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_or(value, std::memory_order_seq_cst, where) | value;
}
template <class A, class V>
value_of<A> xor_assign(A& atomic, V value, SourceLocation where = SourceLocation::current()) {
  return atomic.fetch_xor(value, std::memory_order_seq_cst, where) ^ value;
}

}  // namespace linfault::dpct::ops

#endif  // LINFAULT_DPCT_INSTRUMENTED_H_
