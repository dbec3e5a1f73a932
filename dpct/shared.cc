#include "dpct/shared.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <cxxabi.h>

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
    case AccessKind::kFetchAnd:
      return "fetch_and";
    case AccessKind::kFetchOr:
      return "fetch_or";
    case AccessKind::kFetchXor:
      return "fetch_xor";
    case AccessKind::kWait:
      return "wait";
    case AccessKind::kNotifyOne:
      return "notify_one";
    case AccessKind::kNotifyAll:
      return "notify_all";
    case AccessKind::kLockShared:
      return "lock_shared";
    case AccessKind::kTryLockShared:
      return "try_lock_shared";
    case AccessKind::kUnlockShared:
      return "unlock_shared";
  }
  return "?";
}

const char* memory_order_name(std::memory_order order) {
  switch (order) {
    case std::memory_order_relaxed:
      return "relaxed";
    case std::memory_order_consume:
      return "consume";
    case std::memory_order_acquire:
      return "acquire";
    case std::memory_order_release:
      return "release";
    case std::memory_order_acq_rel:
      return "acq_rel";
    case std::memory_order_seq_cst:
      return "seq_cst";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Object names.

namespace {

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : std::string();
}

// `name` without anything between angle brackets (nested ones included).
std::string without_template_arguments(std::string_view name) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      if (depth > 0) --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

bool is_upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }
bool is_lower_or_digit(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 ||
         std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// "BUListNode" -> "bu_list_node"; characters that cannot be in an identifier are dropped, and
// the words of a built-in type ("unsigned long") joined by '_'.
std::string snake_case(std::string_view word) {
  std::string out;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if (c == ' ') {
      if (!out.empty() && out.back() != '_') out += '_';
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') continue;
    if (is_upper(c)) {
      const bool starts_word =
          i > 0 &&
          (is_lower_or_digit(word[i - 1]) ||
           (is_upper(word[i - 1]) && i + 1 < word.size() && is_lower_or_digit(word[i + 1])));
      if (starts_word && !out.empty() && out.back() != '_') out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

std::string object_type_name(const std::type_info& pointer_type) {
  std::string name = without_template_arguments(demangle(pointer_type.name()));
  // The pointee: drop the pointer's '*' and the qualifiers that follow the type name.
  if (!name.empty() && name.back() == '*') name.pop_back();
  for (std::string_view qualifier : {" volatile", " const"}) {
    if (name.size() > qualifier.size() && name.ends_with(qualifier)) {
      name.resize(name.size() - qualifier.size());
    }
  }
  if (const std::size_t colons = name.rfind("::"); colons != std::string::npos) {
    name.erase(0, colons + 2);
  }
  std::string type = snake_case(name);
  if (type.empty() || type == "void" || std::isdigit(static_cast<unsigned char>(type[0])) != 0) {
    return "obj";
  }
  return type;
}

std::string native_object_name(const void* address, const std::string& type) {
  char hex[2 + 2 * sizeof(void*) + 1];
  std::snprintf(hex, sizeof hex, "%p", address);
  return type + "@" + hex;
}

std::string ExecutionContext::object_name(const void* address, const std::string& type) {
  return native_object_name(address, type);
}

// ---------------------------------------------------------------------------------------------
// ExecutionContext defaults: a context with a single thread, where waiting would be forever.

void ExecutionContext::block_until(const Access& access, const std::function<bool()>& ready) {
  if (ready()) return;
  throw std::logic_error(std::string(access_kind_name(access.kind)) + " at " +
                         access.where.file_name() + ":" + std::to_string(access.where.line()) +
                         " would block forever: no other thread can run");
}

std::uint64_t ExecutionContext::enqueue_waiter(const void* /*address*/) { return 0; }

void ExecutionContext::weak_load(const Access&, std::size_t, const void*, void*, const void*) {
  throw std::logic_error("this execution context does not model weak memory");
}
void ExecutionContext::weak_store(const Access&, std::size_t, const void*, const void*) {
  throw std::logic_error("this execution context does not model weak memory");
}
void ExecutionContext::weak_read_modify_write(const Access&, std::size_t, const void*,
                                              const void*) {
  throw std::logic_error("this execution context does not model weak memory");
}

void ExecutionContext::weak_construct(const void*) {
  throw std::logic_error("this execution context does not model weak memory");
}

void atomic_thread_fence(std::memory_order order, SourceLocation where) noexcept {
  if (ExecutionContext* c = detail::current_context; c != nullptr && !c->observer()) {
    c->fence(order, where);
  } else {
    std::atomic_thread_fence(order);
  }
}

void atomic_signal_fence(std::memory_order order) noexcept { std::atomic_signal_fence(order); }

void ExecutionContext::await_notify(const Access& access, std::uint64_t /*ticket*/) {
  block_until(access, [] { return false; });
}

// ---------------------------------------------------------------------------------------------
// SharedMutex.

void SharedMutex::lock(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kLock, this, where});
  if (c == nullptr) {
    native_.lock();
    return;
  }
  const Access access{AccessKind::kLock, this, where};
  c->before_access(access);
  ExecutionContext::LockState& state = c->lock_state(this);
  c->block_until(access, [&state] { return !state.writer && state.readers == 0; });
  state.writer = true;
  c->synchronize(this, /*acquire=*/true);
}

bool SharedMutex::try_lock(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kTryLock, this, where});
  if (c == nullptr) return native_.try_lock();
  c->before_access({AccessKind::kTryLock, this, where});
  ExecutionContext::LockState& state = c->lock_state(this);
  const bool ok = !state.writer && state.readers == 0;
  if (ok) {
    state.writer = true;
    c->synchronize(this, /*acquire=*/true);
  }
  detail::point_done(AccessKind::kTryLock, this, where, ok);
  return ok;
}

void SharedMutex::unlock(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kUnlock, this, where});
  if (c == nullptr) {
    native_.unlock();
    return;
  }
  c->before_access({AccessKind::kUnlock, this, where});
  ExecutionContext::LockState& state = c->lock_state(this);
  if (!state.writer && std::uncaught_exceptions() == 0) {
    throw std::logic_error("unlock at " + std::string(where.file_name()) + ":" +
                           std::to_string(where.line()) +
                           " of a shared mutex that is not locked exclusively");
  }
  c->synchronize(this, /*acquire=*/false);
  state.writer = false;
}

void SharedMutex::lock_shared(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kLockShared, this, where});
  if (c == nullptr) {
    native_.lock_shared();
    return;
  }
  const Access access{AccessKind::kLockShared, this, where};
  c->before_access(access);
  ExecutionContext::LockState& state = c->lock_state(this);
  c->block_until(access, [&state] { return !state.writer; });
  ++state.readers;
  c->synchronize(this, /*acquire=*/true);
}

bool SharedMutex::try_lock_shared(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kTryLockShared, this, where});
  if (c == nullptr) return native_.try_lock_shared();
  c->before_access({AccessKind::kTryLockShared, this, where});
  ExecutionContext::LockState& state = c->lock_state(this);
  const bool ok = !state.writer;
  if (ok) {
    ++state.readers;
    c->synchronize(this, /*acquire=*/true);
  }
  detail::point_done(AccessKind::kTryLockShared, this, where, ok);
  return ok;
}

void SharedMutex::unlock_shared(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kUnlockShared, this, where});
  if (c == nullptr) {
    native_.unlock_shared();
    return;
  }
  c->before_access({AccessKind::kUnlockShared, this, where});
  ExecutionContext::LockState& state = c->lock_state(this);
  if (state.readers == 0 && std::uncaught_exceptions() == 0) {
    throw std::logic_error("unlock_shared at " + std::string(where.file_name()) + ":" +
                           std::to_string(where.line()) +
                           " of a shared mutex that is not locked shared");
  }
  c->synchronize(this, /*acquire=*/false);
  if (state.readers > 0) --state.readers;
}

// ---------------------------------------------------------------------------------------------
// RecursiveMutex.

void RecursiveMutex::lock(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kLock, this, where});
  if (c == nullptr) {
    native_.lock();
    return;
  }
  const Access access{AccessKind::kLock, this, where};
  c->before_access(access);
  const std::uint64_t self = c->logical_thread() + 1;
  ExecutionContext::LockState& state = c->lock_state(this);
  c->block_until(access, [&state, self] { return state.depth == 0 || state.owner == self; });
  state.owner = self;
  ++state.depth;
  c->synchronize(this, /*acquire=*/true);
}

bool RecursiveMutex::try_lock(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kTryLock, this, where});
  if (c == nullptr) return native_.try_lock();
  c->before_access({AccessKind::kTryLock, this, where});
  const std::uint64_t self = c->logical_thread() + 1;
  ExecutionContext::LockState& state = c->lock_state(this);
  const bool ok = state.depth == 0 || state.owner == self;
  if (ok) {
    state.owner = self;
    ++state.depth;
    c->synchronize(this, /*acquire=*/true);
  }
  detail::point_done(AccessKind::kTryLock, this, where, ok);
  return ok;
}

void RecursiveMutex::unlock(SourceLocation where) {
  ExecutionContext* c = detail::controller({AccessKind::kUnlock, this, where});
  if (c == nullptr) {
    native_.unlock();
    return;
  }
  c->before_access({AccessKind::kUnlock, this, where});
  ExecutionContext::LockState& state = c->lock_state(this);
  if ((state.depth == 0 || state.owner != c->logical_thread() + 1) &&
      std::uncaught_exceptions() == 0) {
    throw std::logic_error("unlock at " + std::string(where.file_name()) + ":" +
                           std::to_string(where.line()) +
                           " of a recursive mutex the thread does not hold");
  }
  c->synchronize(this, /*acquire=*/false);
  if (state.depth > 0 && --state.depth == 0) state.owner = 0;
}

void spin_hint(SourceLocation where) {
  if (ExecutionContext* c = detail::controller({AccessKind::kYield, nullptr, where})) {
    c->before_access({AccessKind::kYield, nullptr, where});
  } else {
    std::this_thread::yield();
  }
}

}  // namespace linfault::dpct
