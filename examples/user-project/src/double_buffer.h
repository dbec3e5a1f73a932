// DoubleBuffer: a value kept in two buffers of two words each, written into the back buffer and
// then made current by flipping an index, so that readers never wait for a writer. write(v)
// stores v; read() returns the current value with its two words joined (hi << 32 | lo, both v
// for a whole write). Written before linfault's mixed shapes pitted whole threads of readers
// against threads of writers (the fourth held-out set, bench/schedulers/README.md).
//
// The bug: a reader that read the index and then stalls can still be reading the buffer when a
// second write, the back buffer again after the first write's flip, overwrites it: it returns
// the first word of one value and the second of another (one read against two writes). Two
// writers also share the back buffer. Values must fit in 31 bits.
//
// Thread-safety: every method may be called concurrently (the claim under test).

#ifndef USER_PROJECT_DOUBLE_BUFFER_H_
#define USER_PROJECT_DOUBLE_BUFFER_H_

#include <array>
#include <cstdint>

#include <linfault/target.h>

namespace user {

class DoubleBuffer {
 public:
  void write(std::int64_t value) {
    Buffer& back = buffers_[static_cast<std::size_t>(1 - front_.load())];
    back.hi.store(value);
    back.lo.store(value);
    front_.store(&back == &buffers_[0] ? 0 : 1);
  }
  std::int64_t read() {
    const Buffer& current = buffers_[static_cast<std::size_t>(front_.load())];
    const std::int64_t hi = current.hi.load();
    const std::int64_t lo = current.lo.load();
    return (hi << 32) | lo;
  }

 private:
  struct Buffer {
    linfault::Atomic<std::int64_t> hi{0};
    linfault::Atomic<std::int64_t> lo{0};
  };
  std::array<Buffer, 2> buffers_;
  linfault::Atomic<std::int64_t> front_{0};
};

}  // namespace user

#endif  // USER_PROJECT_DOUBLE_BUFFER_H_
