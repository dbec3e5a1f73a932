#include "dpct/shared.h"

#include <thread>

namespace linfault::dpct {

const char* access_kind_name(AccessKind kind) {
  switch (kind) {
    case AccessKind::kLoad:
      return "load";
    case AccessKind::kStore:
      return "store";
    case AccessKind::kExchange:
      return "exchange";
    case AccessKind::kCompareExchange:
      return "cas";
    case AccessKind::kFetchAdd:
      return "fetch_add";
    case AccessKind::kFetchSub:
      return "fetch_sub";
    case AccessKind::kLock:
      return "lock";
    case AccessKind::kTryLock:
      return "try_lock";
    case AccessKind::kUnlock:
      return "unlock";
    case AccessKind::kYield:
      return "yield";
  }
  return "?";
}

void spin_hint(SourceLocation where) {
  if (ExecutionContext* c = detail::current_context) {
    c->before_access({AccessKind::kYield, nullptr, where});
  } else {
    std::this_thread::yield();
  }
}

}  // namespace linfault::dpct
