// What every Clang parse of linfault's structure_tree library adds to the compiler's arguments:
// the resource directory of Debian's Clang 14, and a shim for std::source_location, which
// libstdc++ defines only when the compiler has __builtin_source_location (Clang 14 lacks it) and
// which dpct/shared.h needs. The shim is a virtual file, force-included.
//
// Internal header, without Clang headers; used by extractor.cc and rewriter.cc.
//
// Thread-safety: constants.

#ifndef LINFAULT_STRUCTURE_TREE_CLANG_SHIMS_H_
#define LINFAULT_STRUCTURE_TREE_CLANG_SHIMS_H_

#include <string>
#include <vector>

namespace linfault::structure_tree::shims {

inline constexpr const char* kResourceDir = "-resource-dir=/usr/lib/llvm-14/lib/clang/14.0.6";
inline constexpr const char* kShimPath = "/linfault-structure-shims/source_location.h";
inline constexpr const char* kShimContent = R"(
#if !__has_builtin(__builtin_source_location)
namespace std {
struct source_location {
  static constexpr source_location current(unsigned l = __builtin_LINE(),
                                           unsigned c = __builtin_COLUMN(),
                                           const char* f = __builtin_FILE(),
                                           const char* fn = __builtin_FUNCTION()) noexcept {
    source_location s; s.l_ = l; s.c_ = c; s.f_ = f; s.fn_ = fn; return s;
  }
  constexpr source_location() noexcept = default;
  constexpr unsigned line() const noexcept { return l_; }
  constexpr unsigned column() const noexcept { return c_; }
  constexpr const char* file_name() const noexcept { return f_; }
  constexpr const char* function_name() const noexcept { return fn_; }
 private:
  unsigned l_ = 0, c_ = 0; const char* f_ = ""; const char* fn_ = "";
};
}
#endif
)";

// Appended to every parse's arguments.
inline std::vector<std::string> parse_arguments() {
  return {kResourceDir, "-include", kShimPath, "-Wno-everything"};
}

}  // namespace linfault::structure_tree::shims

#endif  // LINFAULT_STRUCTURE_TREE_CLANG_SHIMS_H_
