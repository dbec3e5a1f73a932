// MutexModel ("mutex"): a lock, with Knossos's semantics (Jepsen's `:f :acquire` / `:f :release`).
//
// Methods: acquire() (alias lock), release() (alias unlock). Acquiring a held lock is illegal (a
// real acquire would block until a release, which then comes first in the linearization);
// releasing a lock that is not held is illegal. A failed call (kFail: a try-lock that did not get
// the lock, a release refused because the lock is not held) took no effect and is left out. A
// pending call may take effect, under the same rules, or never. An :ok call's result must be nil
// or true: a lock attempt that returned false did not get the lock, and is to be recorded as a
// failure, not silently read as an acquisition.
// Takes no parameters; the lock starts free.
// State: whether the lock is held.
//
// Thread-safety: immutable; usable from several threads.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_MUTEX_H_
#define LINFAULT_SPEC_MUTEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/model.h"
#include "spec/model_support.h"

namespace linfault::spec {

class MutexModel {
 public:
  using State = bool;  // held
  struct Op {
    bool acquire;  // false: release
  };

  std::string_view name() const { return "mutex"; }
  State initial() const { return false; }
  Compiled<Op> compile(const history::Operation& op) const;
  bool step(State& held, const Op& op) const {
    if (held == op.acquire) return false;  // acquiring a held lock, releasing a free one
    held = op.acquire;
    return true;
  }
  std::size_t hash(const State& held) const { return hash_mix(0, held ? 1 : 0); }
  std::string describe(const State& held) const { return held ? "held" : "free"; }
  std::string describe_op(const Op& op) const { return op.acquire ? "acquire()" : "release()"; }
  std::vector<history::Call> build(const State& held) const;
};

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_MUTEX_H_
