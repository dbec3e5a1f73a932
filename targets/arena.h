// NodeArena: the memory of one object instance's nodes, freed only when the object is destroyed.
//
// Concurrent objects under test never free a node during a run: a node unlinked by one thread may
// still be read by another that loaded a pointer to it earlier, and safe reclamation (hazard
// pointers, epochs) would add shared-memory steps the algorithms under study do not have. Every
// node an object allocates lives in its arena until the object dies. Because nodes are never
// reused, pointer ABA cannot happen on nodes; value ABA (the pair snapshot) still can.
//
// Allocation is not a scheduling point: it touches no memory shared with the algorithm.
//
// Thread-safety: make() may be called from several threads at once (natively it takes a
// std::mutex that is never held across a scheduling point, so controlled runs cannot block on it).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_ARENA_H_
#define LINFAULT_TARGETS_ARENA_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace linfault::targets {

template <class Node>
class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  template <class... Args>
  Node* make(Args&&... args) {
    auto node = std::make_unique<Node>(std::forward<Args>(args)...);
    Node* raw = node.get();
    std::lock_guard lock(mutex_);
    nodes_.push_back(std::move(node));
    return raw;
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return nodes_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_ARENA_H_
