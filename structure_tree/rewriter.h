// The instrumentation rewriter: turns a user's unmodified C++ source written against
// std::atomic, std::atomic_flag, std::mutex & co. into a copy that uses linfault's instrumented
// drop-in types (dpct/shared.h), so that the user's repository keeps its plain std:: code
// (linfault_add_target(... INSTRUMENT), docs/adding-a-target.md).
//
// What it rewrites, in the files given (never in headers outside them):
//   - type names: std::atomic<T> (also through `using` aliases, templates, nested types, arrays,
//     new-expressions, CTAD), the std::atomic_int-style typedefs, std::atomic_flag, std::mutex,
//     std::shared_mutex, std::recursive_mutex, std::condition_variable(_any) become
//     ::linfault::dpct::Atomic<T>, AtomicFlag, Mutex, SharedMutex, RecursiveMutex,
//     ConditionVariable. std::lock_guard<std::mutex> becomes ::linfault::dpct::LockGuard, which
//     records the line of the guard's declaration; unique_lock, scoped_lock and shared_lock stay
//     std types that lock the instrumented mutexes (their lock is then located in <mutex>).
//   - operators on atomics (++, --, +=, -=, &=, |=, ^=, assignment, and the implicit load of a
//     non-dependent expression) become calls of ::linfault::dpct::ops (dpct/instrumented.h),
//     whose defaulted std::source_location captures the user's line: every access is a
//     scheduling point with its own file:line, even when written as an operator.
//   - spin-wait hints: std::this_thread::yield(), _mm_pause() and __builtin_ia32_pause() become
//     ::linfault::dpct::spin_hint(); sched_yield() and pthread_yield(), which return 0, become
//     (::linfault::dpct::spin_hint(), 0). A native yield is no scheduling point: a controlled
//     scheduler would notice the spin only from its repeated reads, where a spin hint demotes
//     the thread at once, so that the one it waits for runs. A hint inside a macro or an
//     unevaluated operand stays as written.
// The copy starts with `#include "dpct/instrumented.h"` and `#line 1 "<original path>"` (a copy
// with no edit, only the #line: it may be included anywhere, inside a namespace too), and no edit
// adds or removes a line, so every location in traces, interleavings and repros is the user's
// own file:line. A UTF-8 byte-order mark at the start of the original is left out of the copy (it
// would otherwise follow the #line).
//
// What it refuses, with one line "file:line:column: cannot instrument ...: reason" each: a raw
// __atomic_* / __sync_* builtin, std::atomic_ref, and an atomic passed by pointer or reference to
// a function whose body is not in the files given and whose parameter names the std type (e.g.
// std::atomic_fetch_add(std::atomic<T>*, ...)): that function would still expect a std::atomic,
// and the copy would not compile.
//
// What it warns of, one line "file:line:column: warning: ..." each, rewriting the rest: an atomic
// whose address escapes to a function whose body is not in the files given through a `void*`
// parameter (or a C variadic one), or whose reference goes to a template's parameter of deduced
// type (std::addressof excepted). The call compiles and passes the linfault Atomic, whose first
// bytes are the std::atomic's value; what that function does with it is no scheduling point (a
// futex wait on its address, a memcpy), unless, for the template, it calls the atomic's members.
//
// Headers besides the files (a library's installed headers, linfault_add_target(... INSTRUMENT
// HEADERS)) are rewritten where a source includes them; one that no source includes is copied
// as it is when it names none of the rewritten std types, functions and builtins, and otherwise
// parsed on its own (all such headers together first) and rewritten.
//
// Only this library's Clang translation units include Clang headers.
//
// Thread-safety: the functions are reentrant; each call parses on its own.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_STRUCTURE_TREE_REWRITER_H_
#define LINFAULT_STRUCTURE_TREE_REWRITER_H_

#include <optional>
#include <string>
#include <vector>

#include "structure_tree/extractor.h"

namespace linfault::structure_tree {

struct Instrumented {
  std::string file;            // the original path, as given
  std::string text;            // the rewritten copy
  std::size_t types = 0;       // type names rewritten
  std::size_t operators = 0;   // operator uses rewritten into calls
  std::size_t spin_hints = 0;  // yield / pause calls rewritten into dpct::spin_hint
  std::size_t fences = 0;      // std::atomic_thread_fence calls into dpct::atomic_thread_fence
};

struct InstrumentResult {
  std::vector<Instrumented> files;
  std::vector<std::string> errors;    // one line each; empty when every construct was rewritten
  std::vector<std::string> warnings;  // one line each: rewritten, but see the header comment
};

// Headers instrumented besides the files of instrument_files(), whatever their names end with.
struct ExtraHeaders {
  // Named one by one: one that no source includes and that does not compile on its own is an
  // error.
  std::vector<std::string> named;
  // Found under a named directory: one that no source includes and that does not compile on its
  // own is copied as it is, with a warning.
  std::vector<std::string> in_directory;
};

// Rewrites `code` as if it were the file `file_name`, parsed with `args` (e.g. {"-std=c++20"}).
// Throws ExtractError for code that does not compile.
InstrumentResult instrument_code(const std::string& code, const std::string& file_name,
                                 const std::vector<std::string>& args);

// Rewrites `files` (sources and the headers they include), parsed with the compile commands of
// `build_dir` or with `fixed_flags`, as extract_from_files() does, and `headers`. Each header
// among `files` is rewritten where a source includes it (one that none includes: ExtractError);
// `headers` as the header comment says. Result::files has one entry per file given, by its
// normalized path.
InstrumentResult instrument_files(const std::vector<std::string>& files,
                                  const std::string& build_dir,
                                  const std::optional<std::vector<std::string>>& fixed_flags,
                                  const ExtraHeaders& headers = {});

}  // namespace linfault::structure_tree

#endif  // LINFAULT_STRUCTURE_TREE_REWRITER_H_
