// The Snark deque (Detlefs et al. 2000), with the false-"empty" bug Doherty et al. (2004) found
// (target snark_deque): a doubly-linked list of nodes (L, R, V) between two hats, updated only by
// double-word compare-and-swap (DCAS). A hat node whose outer pointer points to itself is dead:
// that side is empty. Built from Lamport's TLA+ model as benchmark-objects.md section 3.14 says.
//
// DCAS modelling: DCAS is not a C++ primitive, and two arbitrary words cannot share one
// dpct::Atomic. Every word of the deque (the two hats and each node's L and R) is therefore plain
// memory owned by the deque, and every access to it -- a load, a store, or a whole DCAS -- is
// exactly ONE scheduling point: one instrumented access to the deque's `memory_` Atomic, made
// before the access. In controlled mode only one logical thread runs between scheduling points,
// so the DCAS's two compares and two writes are one atomic step. Natively, the word accesses
// also take a std::mutex (never held across a scheduling point), so loads and DCAS stay atomic
// with respect to each other. Loads report kind "load"; stores and DCAS report "fetch_add" on
// the single `memory_` address, so an address-based reduction sees every deque access as
// conflicting, which is sound.
//
// Bug (type 1, 1 || 2): from [1], popLeft || [pushLeft(60); popRight] can make popLeft return
// empty although the deque was never empty during its interval.
//
// Thread-safety: any number of threads may call any method concurrently.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_SNARK_DEQUE_H_
#define LINFAULT_TARGETS_SNARK_DEQUE_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "dpct/shared.h"
#include "targets/arena.h"

namespace linfault::targets {

class SnarkDeque {
 public:
  SnarkDeque();

  void push_left(std::int64_t value);
  void push_right(std::int64_t value);
  std::optional<std::int64_t> pop_left();
  std::optional<std::int64_t> pop_right();
  // The items from left to right: the deque's state for the serial specification
  // (Binding::state), asked between the calls of a serial run only (it reads the words without
  // scheduling points).
  std::vector<std::int64_t> state();

 private:
  struct Node;
  // One word of the deque's memory: only touched through load/store/dcas below.
  struct Word {
    explicit Word(Node* initial) : value(initial) {}
    Node* value;
  };
  struct Node {
    Node(Node* l, Node* r, std::int64_t v) : left(l), right(r), value(v) {}
    Word left;
    Word right;
    const std::int64_t value;
  };

  Node* load(const Word& word, dpct::SourceLocation where = dpct::SourceLocation::current());
  void store(Word& word, Node* value, dpct::SourceLocation where = dpct::SourceLocation::current());
  bool dcas(Word& a, Word& b, Node* old_a, Node* old_b, Node* new_a, Node* new_b,
            dpct::SourceLocation where = dpct::SourceLocation::current());

  dpct::Atomic<std::uint64_t> memory_{0};
  std::mutex atomicity_;
  NodeArena<Node> arena_;
  Node* const dummy_;
  Word left_hat_;
  Word right_hat_;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_SNARK_DEQUE_H_
