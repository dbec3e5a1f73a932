// Heap accounting behind --memory-limit (tool/limits.h): the global operator new and delete of
// a linfault tool count the live heap bytes while a limit is set, and an allocation that would go
// past it throws std::bad_alloc. Without a limit they cost one relaxed load per call.
//
// Thread-safety: all functions are safe from any thread.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_HEAP_LIMIT_H_
#define LINFAULT_TOOL_HEAP_LIMIT_H_

#include <cstddef>

namespace linfault::tool::heap {

// Starts counting and sets the limit (bytes, > 0). Allocations made before were not counted; their
// release is not subtracted either (their size is below the count's floor of zero).
void set_limit(std::size_t bytes);
std::size_t limit();
std::size_t in_use();
// True once an allocation was refused; from then on, `reserve_after_refusal` more bytes are
// granted so that the refusal can be reported.
bool refused();

inline constexpr std::size_t kReserveAfterRefusal = 8u << 20;

}  // namespace linfault::tool::heap

#endif  // LINFAULT_TOOL_HEAP_LIMIT_H_
