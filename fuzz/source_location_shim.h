// Forced include (-include) of the fuzzing build: std::source_location for Clang 14.
//
// libstdc++ defines std::source_location only when the compiler has __builtin_source_location,
// which Clang gained in version 15; dpct/shared.h needs it. This defines the same interface from
// the older __builtin_FILE/LINE/COLUMN/FUNCTION builtins, and nothing when the compiler has the
// real one. Only the LINFAULT_BUILD_FUZZERS build uses it (CMakeLists.txt).
//
// Internal header of the fuzzers; not installed. Thread-safety: a value type.

#ifndef LINFAULT_FUZZ_SOURCE_LOCATION_SHIM_H_
#define LINFAULT_FUZZ_SOURCE_LOCATION_SHIM_H_

#if defined(__cplusplus) && !__has_builtin(__builtin_source_location)
#include <cstdint>

namespace std {
struct source_location {
  static constexpr source_location current(
      const char* file = __builtin_FILE(), const char* function = __builtin_FUNCTION(),
      std::uint_least32_t line = __builtin_LINE(),
      std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    source_location here;
    here.file_ = file;
    here.function_ = function;
    here.line_ = line;
    here.column_ = column;
    return here;
  }
  constexpr source_location() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return column_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
  std::uint_least32_t column_ = 0;
};
}  // namespace std
#endif

#endif  // LINFAULT_FUZZ_SOURCE_LOCATION_SHIM_H_
