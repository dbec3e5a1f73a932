// Single-producer single-consumer queues of two libraries as linfault targets, each with the
// roles its contract gives (Target::roles: one thread enqueues, one other dequeues):
//   - BoostSpscQueue: boost::lockfree::spsc_queue<std::int64_t> (a ring of kCapacity slots);
//   - ReaderWriterQueue: moodycamel::ReaderWriterQueue<std::int64_t> (Debian:
//     libreaderwriterqueue-dev), a list of rings that grows.
// Both are the libraries' own, unchanged: the build instruments copies of their installed
// headers (INSTRUMENT HEADERS boost/lockfree/ readerwriterqueue/).
//
// Thread-safety: one thread may call enq() while one other calls deq() (the claim under test).

#ifndef LIBRARIES_SPSC_QUEUES_H_
#define LIBRARIES_SPSC_QUEUES_H_

#include <cstdint>
#include <optional>

#include <boost/lockfree/spsc_queue.hpp>
#include <readerwriterqueue/readerwriterqueue.h>

namespace libraries {

class BoostSpscQueue {
 public:
  static constexpr std::size_t kCapacity = 64;

  BoostSpscQueue() : queue_(kCapacity) {}

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  boost::lockfree::spsc_queue<std::int64_t> queue_;
};

class ReaderWriterQueue {
 public:
  // A small first block, so that a workload's enqueues also take the path that adds a block.
  static constexpr std::size_t kFirstBlock = 2;

  ReaderWriterQueue() : queue_(kFirstBlock) {}

  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  moodycamel::ReaderWriterQueue<std::int64_t> queue_;
};

}  // namespace libraries

#endif  // LIBRARIES_SPSC_QUEUES_H_
