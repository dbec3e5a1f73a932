// The linear-time set monitor (seed 001, monitors.md §1.3), internal to detect/monitors/.
//
// Each value is checked on its own (a set is P-compositional): with at most one successful add
// per value, the value is absent, then present from its add to its successful remove (or for
// ever), then absent; every "true" observation (contains -> true, add -> false) must fit in the
// present window and every "false" one (contains -> false, remove -> false) outside it.
//
// Pending operations in history.prefix(cut): pending contains are dropped; a value whose only
// true facts are absent keeps only its completed ops; a pending add of a value with true
// observations but no completed successful add becomes that add, responding at +infinity; a
// pending remove of a value that was added and not yet removed becomes its remove, likewise;
// other mixes of pending adds/removes with observations are kUncertain (the caller asks the
// search). Unsupported: size(), a successful add of the same value twice, results that are not
// booleans, unknown methods.
//
// Thread-safety: pure functions.

#ifndef LINFAULT_DETECT_MONITORS_SET_MONITOR_H_
#define LINFAULT_DETECT_MONITORS_SET_MONITOR_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "detect/monitors/container_monitor.h"
#include "history/history.h"

namespace linfault::detect::internal {

struct SetOp {
  enum class Kind : std::uint8_t { kAdd, kRemove, kContains } kind;
  bool result = false;  // completed ok ops: the boolean returned
  bool failed = false;
  std::int32_t value = 0;
  history::EventIndex call = 0;
  history::EventIndex ret = kNoReturn;
};

struct SetOps {
  std::vector<SetOp> ops;  // indexed like History::operations()
  std::int32_t values = 0;
  std::int32_t events = 0;
};

std::variant<SetOps, std::string> compile_set_ops(const history::History& history);

PrefixDecision decide_set_prefix(const SetOps& ops, std::int32_t cut);

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_SET_MONITOR_H_
