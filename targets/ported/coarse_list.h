// The bundled simple_list_buggy (targets/lists.h: Vechev and Yahav's "buggy set", CGVT's CGList),
// ported back to plain std::atomic and std::mutex: add traverses without the lock, then links its
// node under the lock without checking that pred.next is still curr; remove and contains hold
// the lock throughout.
//
// Thread-safety: add(), remove() and contains() may be called concurrently (the claim under
// test).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_PORTED_COARSE_LIST_H_
#define LINFAULT_TARGETS_PORTED_COARSE_LIST_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "node_pool.h"

namespace ported {

class CoarseList {
 public:
  CoarseList();

  bool add(std::int64_t key);
  bool remove(std::int64_t key);
  bool contains(std::int64_t key);

 private:
  struct Node {
    Node(std::int64_t k, Node* n) : key(k), next(n) {}
    const std::int64_t key;
    std::atomic<Node*> next;
  };

  NodePool<Node> pool_;
  Node* const head_;  // sentinel with the smallest key; the last node has the largest
  std::mutex lock_;
};

}  // namespace ported

#endif  // LINFAULT_TARGETS_PORTED_COARSE_LIST_H_
