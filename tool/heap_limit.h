// Heap accounting behind --memory-limit (tool/limits.h): the global operator new and delete of
// a linfault tool count the live heap bytes while a limit is set, and an allocation that would go
// past it throws std::bad_alloc. Without a limit they cost one relaxed load per call.
//
// What is counted: everything malloc holds when the limit is set (mallinfo2), then every C++
// allocation and release. Direct malloc calls made later (C libraries) are not counted.
// The replacement is compiled only with glibc 2.33 or later and without a sanitizer (whose own
// operator new checks mismatched deallocations): elsewhere supported() is false and only the
// algorithms' own memory limits apply. A program that links linfault::tool gets these
// operators; one that replaces operator new itself cannot link linfault::tool.
//
// Thread-safety: all functions are safe from any thread.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_TOOL_HEAP_LIMIT_H_
#define LINFAULT_TOOL_HEAP_LIMIT_H_

#include <cstddef>

namespace linfault::tool::heap {

// Whether this build counts the heap (see above).
bool supported();
// Starts counting and sets the limit (bytes, > 0); does nothing when !supported().
void set_limit(std::size_t bytes);
std::size_t limit();
std::size_t in_use();
// True once an allocation was refused; from then on, kReserveAfterRefusal more bytes are
// granted so that the refusal can be reported.
bool refused();

inline constexpr std::size_t kReserveAfterRefusal = 8u << 20;

}  // namespace linfault::tool::heap

#endif  // LINFAULT_TOOL_HEAP_LIMIT_H_
