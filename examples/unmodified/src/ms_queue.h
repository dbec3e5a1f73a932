// MsQueue: Michael and Scott's lock-free FIFO queue, in plain std::atomic with explicit memory
// orders and compare_exchange_weak loops. Correct: the check finds nothing.
//
// Thread-safety: enq() and deq() may be called concurrently. Dequeued nodes stay linked from the
// first dummy node and are freed by the destructor only.

#ifndef UNMODIFIED_MS_QUEUE_H_
#define UNMODIFIED_MS_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <optional>

namespace unmodified {

class MsQueue {
 public:
  MsQueue();
  ~MsQueue();
  MsQueue(const MsQueue&) = delete;
  MsQueue& operator=(const MsQueue&) = delete;

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  struct Node {
    explicit Node(std::int64_t v) : value(v) {}
    const std::int64_t value;
    std::atomic<Node*> next{nullptr};
  };

  Node* const first_;  // the first dummy: every node stays reachable from it
  std::atomic<Node*> head_;
  std::atomic<Node*> tail_;
};

}  // namespace unmodified

#endif  // UNMODIFIED_MS_QUEUE_H_
