// BoostQueue: boost::lockfree::queue<std::int64_t> as a linfault target (model "queue"). The
// queue is Boost's, unchanged: the build instruments copies of the installed headers (INSTRUMENT
// HEADERS boost/lockfree/), so every atomic access inside Boost's push and pop is a scheduling
// point located at its line in /usr/include/boost/lockfree/.
//
// The queue starts with kNodes nodes on its free list; push takes a node from the free list (and
// allocates one only if the list is empty, which no checked workload reaches), pop returns its
// node to the free list, so nodes are recycled within a run: what Boost's tagged pointers (the
// ABA tag it keeps in the node's `next` and bumps on reuse) are there for.
//
// Thread-safety: enq() and deq() may be called concurrently (the claim under test).

#ifndef LIBRARIES_BOOST_QUEUE_H_
#define LIBRARIES_BOOST_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include <boost/lockfree/queue.hpp>

namespace libraries {

class BoostQueue {
 public:
  static constexpr std::size_t kNodes = 64;

  BoostQueue() : queue_(kNodes) {}

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  boost::lockfree::queue<std::int64_t> queue_;
};

}  // namespace libraries

#endif  // LIBRARIES_BOOST_QUEUE_H_
