// SpscRing: a bounded single-producer single-consumer ring buffer, as audio and logging code
// write it: the producer alone writes tail_, the consumer alone writes head_, and each publishes
// with a release store what the other reads with acquire. Its contract: at most one thread
// enqueues and at most one dequeues at a time (registered with roles: a producer and a
// consumer); two enqueuers would write one slot.
//
// enq() returns false when the ring is full; its 64 slots are more than a checked workload
// enqueues (the queue model has no failed enqueue).
//
// Variants, chosen by the constructor:
//   - kPublishFirst (target spsc_ring_buggy): enq publishes the new tail before it writes the
//     slot, so a consumer in between reads the slot's old contents.
//   - kRelaxedPublish (target spsc_ring_relaxed): enq publishes the new tail with a relaxed
//     store instead of release. Every interleaving is still correct: only a consumer that sees
//     the new tail but not yet the slot's new value (the C++ memory model allows it; ARM and
//     POWER do it) reads the old contents. A memory-order bug, found under --memory-model c11.
//
// Thread-safety: enq() from one thread and deq() from one other thread, concurrently.

#ifndef UNMODIFIED_SPSC_RING_H_
#define UNMODIFIED_SPSC_RING_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace unmodified {

class SpscRing {
 public:
  enum class Variant { kCorrect, kPublishFirst, kRelaxedPublish };
  explicit SpscRing(Variant variant = Variant::kCorrect) : variant_(variant) {}

  bool enq(std::int64_t value);  // false when full
  std::optional<std::int64_t> deq();

 private:
  static constexpr std::size_t kSlots = 64;
  const Variant variant_;
  std::atomic<std::uint64_t> head_{0};  // next slot to read; written by the consumer
  std::atomic<std::uint64_t> tail_{0};  // next slot to write; written by the producer
  std::array<std::atomic<std::int64_t>, kSlots> slots_{};
};

}  // namespace unmodified

#endif  // UNMODIFIED_SPSC_RING_H_
