// MoodycamelQueue: moodycamel::ConcurrentQueue<std::int64_t> (Debian: libconcurrentqueue-dev) as a
// linfault target, used as its README shows: enqueue() through the calling thread's implicit
// producer, try_dequeue() from any thread. The queue is the library's, unchanged: the build
// instruments copies of the installed headers (INSTRUMENT HEADERS concurrentqueue/).
//
// The implicit producers are looked up by thread id (the address of a thread_local), so the
// target asks for thread identity (Target::thread_identity): each logical thread is an OS thread
// of its own, as in a real program. Its contract is queue(fifo=per-producer): FIFO among one
// producer's elements, and a try_dequeue() that may find nothing while elements are in flight.
//
// Thread-safety: enqueue() and try_dequeue() may be called concurrently (the claim under test).

#ifndef LIBRARIES_MOODYCAMEL_QUEUE_H_
#define LIBRARIES_MOODYCAMEL_QUEUE_H_

#include <cstdint>
#include <optional>

#include <concurrentqueue/concurrentqueue.h>

namespace libraries {

class MoodycamelQueue {
 public:
  // Room for the blocks a checked workload needs, allocated up front by the constructor.
  static constexpr std::size_t kCapacity = 64;

  MoodycamelQueue() : queue_(kCapacity) {}

  void enqueue(std::int64_t value);
  std::optional<std::int64_t> try_dequeue();

 private:
  moodycamel::ConcurrentQueue<std::int64_t> queue_;
};

}  // namespace libraries

#endif  // LIBRARIES_MOODYCAMEL_QUEUE_H_
