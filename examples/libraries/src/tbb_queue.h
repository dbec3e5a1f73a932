// TbbQueue: oneTBB's tbb::concurrent_queue<std::int64_t> (Debian: libtbb-dev) as a linfault
// target (model "queue"): push() and try_pop(), from any thread. The queue is TBB's, unchanged:
// the build instruments copies of its installed headers (INSTRUMENT HEADERS oneapi/tbb/ tbb/);
// what libtbb.so itself does (allocation) runs natively.
//
// Thread-safety: enq() and deq() may be called concurrently (the claim under test).

#ifndef LIBRARIES_TBB_QUEUE_H_
#define LIBRARIES_TBB_QUEUE_H_

#include <cstdint>
#include <optional>

#include <oneapi/tbb/concurrent_queue.h>

namespace libraries {

class TbbQueue {
 public:
  void enq(std::int64_t value);
  std::optional<std::int64_t> deq();

 private:
  tbb::concurrent_queue<std::int64_t> queue_;
};

}  // namespace libraries

#endif  // LIBRARIES_TBB_QUEUE_H_
