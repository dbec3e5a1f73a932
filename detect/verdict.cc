#include "detect/verdict.h"

namespace linfault::detect {

const char* result_name(Result r) {
  switch (r) {
    case Result::kLinearizable:
      return "linearizable";
    case Result::kViolation:
      return "violation";
    case Result::kUnknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace linfault::detect
