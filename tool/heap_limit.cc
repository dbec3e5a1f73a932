// The replaceable global allocation functions ([new.delete]) of a linfault tool, counting the
// live heap bytes for --memory-limit (tool/heap_limit.h).

#include "tool/heap_limit.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define LINFAULT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LINFAULT_SANITIZED 1
#endif

#include <cstddef>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) && !defined(LINFAULT_SANITIZED)
#define LINFAULT_HEAP_ACCOUNTING 1
#include <malloc.h>
#endif

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#if LINFAULT_HEAP_ACCOUNTING

namespace linfault::tool::heap {
namespace {

std::atomic<bool> counting{false};
std::atomic<std::int64_t> live_bytes{0};
std::atomic<std::int64_t> limit_bytes{0};
std::atomic<bool> refused_once{false};

// Counts `bytes` more; false (and nothing counted) when that goes past the limit.
bool reserve(std::size_t bytes) {
  const auto size = static_cast<std::int64_t>(bytes);
  const std::int64_t before = live_bytes.fetch_add(size, std::memory_order_relaxed);
  std::int64_t limit = limit_bytes.load(std::memory_order_relaxed);
  if (refused_once.load(std::memory_order_relaxed)) {
    limit += static_cast<std::int64_t>(kReserveAfterRefusal);
  }
  if (before + size <= limit) return true;
  live_bytes.fetch_sub(size, std::memory_order_relaxed);
  refused_once.store(true, std::memory_order_relaxed);
  return false;
}

void* allocate(std::size_t size, std::size_t alignment) {
  if (size == 0) size = 1;
  if (alignment > __STDCPP_DEFAULT_NEW_ALIGNMENT__ && size > SIZE_MAX - alignment) return nullptr;
  void* p = alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__
                ? std::malloc(size)
                : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p == nullptr) return nullptr;
  if (counting.load(std::memory_order_relaxed) && !reserve(malloc_usable_size(p))) {
    std::free(p);
    return nullptr;
  }
  return p;
}

void release(void* p) {
  if (p == nullptr) return;
  if (counting.load(std::memory_order_relaxed)) {
    live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)),
                         std::memory_order_relaxed);
  }
  std::free(p);
}

void* allocate_or_throw(std::size_t size, std::size_t alignment) {
  for (;;) {
    if (void* p = allocate(size, alignment)) return p;
    if (counting.load(std::memory_order_relaxed)) throw std::bad_alloc();
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

bool supported() { return true; }

void set_limit(std::size_t bytes) {
  // What malloc already holds (the input read so far, the runtime's own buffers) counts too.
  const struct mallinfo2 info = mallinfo2();
  live_bytes.store(static_cast<std::int64_t>(info.uordblks + info.hblkhd));
  limit_bytes.store(static_cast<std::int64_t>(bytes));
  counting.store(true);
}

std::size_t limit() { return static_cast<std::size_t>(limit_bytes.load()); }

std::size_t in_use() {
  const std::int64_t live = live_bytes.load(std::memory_order_relaxed);
  return live > 0 ? static_cast<std::size_t>(live) : 0;
}

bool refused() { return refused_once.load(); }

}  // namespace linfault::tool::heap

using linfault::tool::heap::allocate;
using linfault::tool::heap::allocate_or_throw;
using linfault::tool::heap::release;

void* operator new(std::size_t size) { return allocate_or_throw(size, 0); }
void* operator new[](std::size_t size) { return allocate_or_throw(size, 0); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }

#else  // no heap accounting in this build

namespace linfault::tool::heap {
bool supported() { return false; }
void set_limit(std::size_t) {}
std::size_t limit() { return 0; }
std::size_t in_use() { return 0; }
bool refused() { return false; }
}  // namespace linfault::tool::heap

#endif
