// Value conversion: the C++ values a concurrent object's methods take and return, as
// history::Values. Shared by the binding of targets (targets/bind.h) and the recorder
// (history/recorder.h), so that a method's result reads the same whichever records it.
//
// to_value(x):
//   Value -> itself; std::optional<T> -> nil when empty, else T converted; std::nullopt -> nil;
//   bool -> bool; integers and enums -> 64-bit integers (an unsigned value above INT64_MAX throws
//   std::out_of_range); anything convertible to std::string_view -> string (text that is not
//   valid UTF-8 throws std::invalid_argument: histories are written as JSON); std::pair -> [a b];
//   std::vector<T> -> list. Other types do not compile.
//
// Internal header.
//
// Thread-safety: pure functions.

#ifndef LINFAULT_HISTORY_VALUE_CONVERSION_H_
#define LINFAULT_HISTORY_VALUE_CONVERSION_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "history/value.h"

namespace linfault::history {

namespace conversion_detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
}  // namespace conversion_detail

// kUtf8Strings = false keeps any bytes in strings: for values that are only compared, never
// written (a Binding's state function).
template <bool kUtf8Strings = true, class T>
Value to_value(T&& result) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, Value>) {
    return std::forward<T>(result);
  } else if constexpr (std::is_same_v<U, std::nullopt_t> || std::is_same_v<U, Value::Nil>) {
    return Value();
  } else if constexpr (conversion_detail::is_optional<U>::value) {
    if (!result.has_value()) return Value();
    return to_value<kUtf8Strings>(*std::forward<T>(result));
  } else if constexpr (std::is_same_v<U, bool>) {
    return Value(static_cast<bool>(result));
  } else if constexpr (std::is_enum_v<U>) {
    return to_value<kUtf8Strings>(static_cast<std::underlying_type_t<U>>(result));
  } else if constexpr (std::is_integral_v<U>) {
    if constexpr (std::is_unsigned_v<U> && sizeof(U) >= sizeof(std::int64_t)) {
      if (result > static_cast<U>(std::numeric_limits<std::int64_t>::max())) {
        throw std::out_of_range("result " + std::to_string(result) +
                                " does not fit a 64-bit signed integer");
      }
    }
    return Value(static_cast<std::int64_t>(result));
  } else if constexpr (std::is_convertible_v<const U&, std::string_view>) {
    const std::string_view text(result);
    const std::size_t bad = kUtf8Strings ? invalid_utf8_at(text) : std::string_view::npos;
    if (bad != std::string_view::npos) {
      throw std::invalid_argument("string `" + printable(text) + "` is not valid UTF-8 (byte " +
                                  std::to_string(bad) +
                                  "): histories, saved runs and test cases are JSON, whose "
                                  "strings are UTF-8");
    }
    return Value(std::string(text));
  } else if constexpr (conversion_detail::is_pair<U>::value) {
    return Value(
        Value::List{to_value<kUtf8Strings>(result.first), to_value<kUtf8Strings>(result.second)});
  } else if constexpr (conversion_detail::is_vector<U>::value) {
    Value::List list;
    list.reserve(result.size());
    for (const auto& element : result) list.push_back(to_value<kUtf8Strings>(element));
    return Value(std::move(list));
  } else {
    static_assert(sizeof(U) == 0,
                  "linfault: cannot convert this type to a history::Value (use void, bool, an "
                  "integer, a string, history::Value, or optional/pair/vector of those)");
  }
}

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_VALUE_CONVERSION_H_
