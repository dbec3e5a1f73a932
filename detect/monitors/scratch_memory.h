// ScratchMemory: a memory resource for the monitors' working arrays that keeps large blocks for
// reuse instead of returning them to the system.
//
// A monitor run allocates tens of arrays of millions of entries, and a localisation runs the
// monitor on a few dozen prefixes. Fresh pages cost a page fault each (about 10 us on the
// project's virtual machine), which made page faults, not the algorithms, the largest cost at
// 10^6 operations. Blocks of at least kLargeBlock bytes are therefore mapped directly and faulted
// in with one madvise(MADV_POPULATE_WRITE) call, cached when freed, and handed out again for
// requests they fit (up to twice the request, so that a small array cannot hold on to a huge
// block); smaller requests go to the global operator new. Everything is unmapped with the
// resource.
//
//   internal::ScratchMemory scratch;                // one per run_monitor call
//   std::pmr::vector<std::int32_t> a(n, 0, &scratch);
//
// Thread-safety: none; one resource per thread (monitor runs are reentrant with their own).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_SCRATCH_MEMORY_H_
#define LINFAULT_DETECT_MONITORS_SCRATCH_MEMORY_H_

#include <cstddef>
#include <map>
#include <memory_resource>
#include <unordered_map>

namespace linfault::detect::internal {

class ScratchMemory : public std::pmr::memory_resource {
 public:
  static constexpr std::size_t kLargeBlock = std::size_t{1} << 16;

  ScratchMemory() = default;
  ScratchMemory(const ScratchMemory&) = delete;
  ScratchMemory& operator=(const ScratchMemory&) = delete;
  ~ScratchMemory() override;

  // Bytes held in large blocks, in use or cached (for tests and benchmarks).
  std::size_t large_bytes() const { return large_bytes_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::multimap<std::size_t, void*> cached_;           // free large blocks by size
  std::unordered_map<void*, std::size_t> block_size_;  // every large block, in use or cached
  std::size_t large_bytes_ = 0;
};

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_SCRATCH_MEMORY_H_
