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
// Thread-safety: make() may be called from several threads at once. Natively it takes a
// std::mutex, never held across a scheduling point; under a controlled execution, whose logical
// threads all run on the one OS thread that installed it, it takes none.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_ARENA_H_
#define LINFAULT_TARGETS_ARENA_H_

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "dpct/shared.h"

namespace linfault::targets {

template <class Node>
class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;
  ~NodeArena() {
    for (Chunk& chunk : chunks_) {
      for (std::size_t i = 0; i < chunk.used; ++i) std::destroy_at(chunk.nodes + i);
      std::allocator<Node>().deallocate(chunk.nodes, chunk.capacity);
    }
  }

  template <class... Args>
  Node* make(Args&&... args) {
    const dpct::ExecutionContext* context = dpct::detail::current_context;
    std::unique_lock lock(mutex_, std::defer_lock);
    if (context == nullptr || context->observer()) lock.lock();
    // Nodes are placed in chunks of doubling size: a short run's object allocates once, not once
    // per node (an allocation per node was a tenth of a 2 x 5 queue history's cost).
    if (chunks_.empty() || chunks_.back().used == chunks_.back().capacity) {
      const std::size_t capacity =
          chunks_.empty() ? kFirstChunk : std::min(2 * chunks_.back().capacity, kLargestChunk);
      chunks_.reserve(chunks_.size() + 1);
      chunks_.push_back({std::allocator<Node>().allocate(capacity), capacity, 0});
    }
    Chunk& chunk = chunks_.back();
    Node* node = std::construct_at(chunk.nodes + chunk.used, std::forward<Args>(args)...);
    ++chunk.used;
    ++size_;
    return node;
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return size_;
  }

 private:
  static constexpr std::size_t kFirstChunk = 16;
  static constexpr std::size_t kLargestChunk = 4096;
  struct Chunk {
    Node* nodes;  // room for `capacity` nodes, of which the first `used` are constructed
    std::size_t capacity;
    std::size_t used;
  };

  mutable std::mutex mutex_;
  std::vector<Chunk> chunks_;
  std::size_t size_ = 0;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_ARENA_H_
