#include "detect/monitors/scratch_memory.h"

#include <sys/mman.h>

#include <new>

namespace linfault::detect::internal {
namespace {

constexpr std::size_t kPage = 4096;

// Maps a large block and asks the kernel to fault all of it in with one call: on a virtual
// machine, one page fault per 4 KiB page costs several times more.
void* map_block(std::size_t bytes) {
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_POPULATE_WRITE
  madvise(block, bytes, MADV_POPULATE_WRITE);  // best effort: older kernels fault lazily
#endif
  return block;
}

}  // namespace

ScratchMemory::~ScratchMemory() {
  for (const auto& [block, size] : block_size_) munmap(block, size);
}

void* ScratchMemory::do_allocate(std::size_t bytes, std::size_t alignment) {
  if (bytes < kLargeBlock || alignment > kPage) {
    return ::operator new (bytes, std::align_val_t{alignment});
  }
  bytes = (bytes + kPage - 1) / kPage * kPage;
  auto fit = cached_.lower_bound(bytes);
  if (fit != cached_.end() && fit->first <= 2 * bytes) {
    void* block = fit->second;
    cached_.erase(fit);
    return block;
  }
  void* block = map_block(bytes);
  block_size_.emplace(block, bytes);
  large_bytes_ += bytes;
  return block;
}

void ScratchMemory::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
  if (bytes < kLargeBlock || alignment > kPage) {
    ::operator delete (p, std::align_val_t{alignment});
    return;
  }
  cached_.emplace(block_size_.at(p), p);
}

}  // namespace linfault::detect::internal
