// NodePool: the nodes of one object, freed when the object dies, never during a run (a thread
// may still read a node another one unlinked). Plain C++, not instrumented: allocation touches
// no memory the algorithm shares, so it is not a scheduling point (its std::mutex is never held
// across one).
//
// Thread-safety: make() may be called from several threads at once.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TARGETS_PORTED_NODE_POOL_H_
#define LINFAULT_TARGETS_PORTED_NODE_POOL_H_

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace ported {

template <class Node>
class NodePool {
 public:
  template <class... Args>
  Node* make(Args&&... args) {
    auto node = std::make_unique<Node>(std::forward<Args>(args)...);
    Node* raw = node.get();
    std::lock_guard<std::mutex> lock(mutex_);
    nodes_.push_back(std::move(node));
    return raw;
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

}  // namespace ported

#endif  // LINFAULT_TARGETS_PORTED_NODE_POOL_H_
