// The memory model a controlled execution follows, and the names its weak-memory read choices
// are recorded by.
//
//   - kSequential ("sc"): every load reads the newest store (sequential consistency), whatever
//     memory order the code gives. A bug that needs a weaker order goes unseen.
//   - kC11 ("c11"): the C++20 model of docs/weak-memory.md (dpct/weak_memory.h) in the fragment
//     where modification order is execution order: a load may read an older store that no
//     happens-before or coherence rule hides from it, and which one is a schedule decision
//     (Scheduler::choose_read), recorded in the Schedule as the chosen store's StoreId.
//
// Thread-safety: plain data and pure functions.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_MEMORY_MODEL_H_
#define LINFAULT_DPCT_MEMORY_MODEL_H_

#include <atomic>
#include <compare>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace linfault::dpct {

enum class MemoryModel : std::uint8_t { kSequential, kC11 };
const char* memory_model_name(MemoryModel model);  // "sc", "c11"
// "sc" or "c11"; nullopt for anything else.
std::optional<MemoryModel> parse_memory_model(std::string_view name);

// A store by its writer: `thread`'s `seq`-th store (from 0) to the location, or the location's
// initial bytes (thread kInitialWriter, seq 0); `incarnation` counts the times the location at
// that address started afresh before (memory reused: dpct/weak_memory.h). Never an address, so
// a recorded read choice replays in another process.
struct StoreId {
  static constexpr std::uint32_t kInitialWriter = std::numeric_limits<std::uint32_t>::max();
  std::uint32_t thread = kInitialWriter;
  std::uint32_t seq = 0;
  std::uint32_t incarnation = 0;
  auto operator<=>(const StoreId&) const = default;
  bool initial() const { return thread == kInitialWriter; }
};

// Text form: "T.S" (thread T's S-th store), "i" (the initial bytes), each followed by "/K" when
// the incarnation K is not 0: "1.0", "i", "0.3/2".
std::string store_id_text(const StoreId& id);
// nullopt when `text` is not that form.
std::optional<StoreId> parse_store_id(std::string_view text);

// Whether `order` has an acquire part (consume counts as acquire), and a release part.
constexpr bool acquires(std::memory_order order) {
  return order == std::memory_order_acquire || order == std::memory_order_consume ||
         order == std::memory_order_acq_rel || order == std::memory_order_seq_cst;
}
constexpr bool releases(std::memory_order order) {
  return order == std::memory_order_release || order == std::memory_order_acq_rel ||
         order == std::memory_order_seq_cst;
}

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_MEMORY_MODEL_H_
