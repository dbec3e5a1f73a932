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
// other mixes of pending adds/removes with observations, and two adds that may both succeed
// (pending ones included) around a completed removal, are kUncertain (the caller asks the
// search). Unsupported: size(), a successful add of the same value twice, results that are not
// booleans, unknown methods.
//
// Thread-safety: pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_DETECT_MONITORS_SET_MONITOR_H_
#define LINFAULT_DETECT_MONITORS_SET_MONITOR_H_

#include <cstdint>
#include <span>
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

// The ops of each value v, in op order: ops[begin[v] .. begin[v + 1]).
struct SetValueIndex {
  std::vector<std::int32_t> begin;
  std::vector<std::int32_t> ops;
};
SetValueIndex index_set_values(const SetOps& ops);

// Decides the sub-history of one value (`value_ops`, from the index) in history.prefix(cut). A set
// is the product of its values' objects, so history.prefix(cut) is linearizable iff every value's
// part is: a violation's shortest prefix is the smallest over values, each found on its own ops.
PrefixDecision decide_set_value(const SetOps& ops, std::span<const std::int32_t> value_ops,
                                std::int32_t cut);

}  // namespace linfault::detect::internal

#endif  // LINFAULT_DETECT_MONITORS_SET_MONITOR_H_
