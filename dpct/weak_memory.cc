#include "dpct/weak_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace linfault::dpct {

WeakMemory::WeakMemory(std::size_t threads) { reset(threads); }

void WeakMemory::reset(std::size_t threads) {
  if (threads == 0) throw std::invalid_argument("WeakMemory: no threads");
  threads_ = threads;
  width_ = 2 * threads;
  clocks_.clear();
  locations_.clear();
  incarnations_.clear();
  objects_.clear();
  graph_ = ExecutionGraph{};
  graph_.threads = threads;
  serials_ = 0;
  pending_ = PendingLoad{};
  sc_fence_clock_ = new_clock();
  sc_write_times_ = new_clock();
  thread_states_.assign(threads, ThreadState{});
  for (ThreadState& state : thread_states_) {
    state.clock = new_clock();
    state.release_fence = new_clock();
    state.acquire_pending = new_clock();
    state.sc_fences = new_clock();
  }
}

WeakMemory::ClockRef WeakMemory::new_clock() {
  const auto ref = static_cast<ClockRef>(clocks_.size());
  clocks_.resize(clocks_.size() + width_, 0);
  return ref;
}

void WeakMemory::join(ClockRef into, ClockRef from) {
  if (from == kNoClock) return;
  std::uint32_t* to = at(into);
  const std::uint32_t* source = at(from);
  for (std::size_t u = 0; u < width_; ++u) to[u] = std::max(to[u], source[u]);
}

bool WeakMemory::happens_before(const Store& store, Thread thread) const {
  if (store.id.initial()) return true;
  return store.time <= at(thread_states_[thread].clock)[store.id.thread];
}

std::uint32_t WeakMemory::tick(Thread thread) {
  if (thread >= threads_) {
    throw std::out_of_range("WeakMemory: thread " + std::to_string(thread) + " of " +
                            std::to_string(threads_));
  }
  return ++at(thread_states_[thread].clock)[thread];
}

std::int64_t WeakMemory::note(GraphEvent::Kind kind, std::uint32_t thread, std::uint64_t location,
                              std::memory_order order, std::int64_t reads_from) {
  if (!recording_) return -1;
  graph_.events.push_back({kind, thread, location, order, reads_from});
  return static_cast<std::int64_t>(graph_.events.size()) - 1;
}

namespace {
std::uint64_t object_key(const void* object) { return reinterpret_cast<std::uintptr_t>(object); }
}  // namespace

void WeakMemory::synchronize_all() {
  note(GraphEvent::Kind::kBarrier, GraphEvent::kNoThread, 0, std::memory_order_seq_cst);
  const ClockRef all = new_clock();
  for (const ThreadState& state : thread_states_) join(all, state.clock);
  for (const ThreadState& state : thread_states_) join(state.clock, all);
}

void WeakMemory::release_to(Thread thread, const void* object) {
  tick(thread);
  note(GraphEvent::Kind::kRelease, thread, object_key(object), std::memory_order_release);
  auto [it, added] = objects_.try_emplace(object, kNoClock);
  if (added) it->second = new_clock();
  join(it->second, thread_states_[thread].clock);
}

void WeakMemory::acquire_from(Thread thread, const void* object) {
  tick(thread);
  note(GraphEvent::Kind::kAcquire, thread, object_key(object), std::memory_order_acquire);
  const auto it = objects_.find(object);
  if (it != objects_.end()) join(thread_states_[thread].clock, it->second);
}

void WeakMemory::forget(const void* address) {
  locations_.erase(address);
  incarnations_.erase(address);
  for (ThreadState& state : thread_states_) {
    state.floor.erase(address);
    state.read_since_hint.erase(address);
  }
}

WeakMemory::Location& WeakMemory::locate(const void* address, std::size_t size,
                                         const void* current) {
  Location& location = locations_[address];
  const bool fresh =
      location.stores.empty() || location.size != size ||
      std::memcmp(location.bytes.data() + location.stores.back().bytes, current, size) != 0;
  if (fresh) {
    location = Location{};
    location.size = static_cast<std::uint32_t>(size);
    location.incarnation = incarnations_[address]++;
    location.stores_by.assign(threads_, 0);
    location.serial = serials_++;
    location.bytes.assign(static_cast<const std::byte*>(current),
                          static_cast<const std::byte*>(current) + size);
    Store initial;  // StoreId{} is the initial store
    initial.id.incarnation = location.incarnation;
    if (location.incarnation > 0) {
      // Bytes that changed outside the model: nobody knows who wrote them, so reading them
      // synchronises with everything done so far (never less than the truth).
      initial.sync = new_clock();
      for (const ThreadState& state : thread_states_) join(initial.sync, state.clock);
    }
    initial.event = note(GraphEvent::Kind::kInit, GraphEvent::kNoThread, location.serial,
                         std::memory_order_relaxed);
    if (initial.event >= 0 && location.incarnation > 0) {
      graph_.events[static_cast<std::size_t>(initial.event)].synchronizes_all = true;
    }
    location.stores.push_back(initial);
    // Thread floors and read marks of the old location index stores that are gone.
    for (ThreadState& state : thread_states_) {
      state.floor.erase(address);
      state.read_since_hint.erase(address);
    }
  }
  return location;
}

std::span<const StoreId> WeakMemory::load_candidates(Thread thread, const void* address,
                                                     std::size_t size, std::memory_order order,
                                                     const void* current,
                                                     const void* unreadable_stale) {
  tick(thread);
  ThreadState& state = thread_states_[thread];
  const bool seq_cst = order == std::memory_order_seq_cst;
  // An SC load first learns the SC fences so far (C++17 [atomics.order] p5).
  if (seq_cst) join(state.sc_fences, sc_fence_clock_);
  Location& location = locate(address, size, current);
  pending_.ready = true;
  pending_.thread = thread;
  pending_.address = address;
  pending_.stores = location.stores.size();
  pending_.incarnation = location.incarnation;
  pending_.order = order;
  pending_.indices.clear();
  pending_.ids.clear();

  // No clock is made below: these pointers stay valid.
  const std::uint32_t* clock = at(state.clock);
  const std::uint32_t* sc_writes = clock + threads_;
  const std::uint32_t* sc_fences = at(state.sc_fences);
  std::uint32_t floor = 0;
  if (const auto it = state.floor.find(address); it != state.floor.end()) floor = it->second;
  const auto newest = static_cast<std::uint32_t>(location.stores.size() - 1);
  for (std::uint32_t i = newest;; --i) {
    const Store& store = location.stores[i];
    const bool excluded =
        i != newest && unreadable_stale != nullptr &&
        std::memcmp(location.bytes.data() + store.bytes, unreadable_stale, location.size) == 0;
    if (!excluded) {
      pending_.indices.push_back(i);
      pending_.ids.push_back(store.id);
    }
    // Whether this store hides every older one from this load.
    bool last = i == 0 || i <= floor || happens_before(store, thread);  // CoWR, progress
    if (!last && store.first_read != kNoClock) {  // CoRR: a read of it happens-before this load
      const std::uint32_t* first = at(store.first_read);
      for (std::size_t u = 0; u < threads_ && !last; ++u) {
        last = first[u] != 0 && first[u] <= clock[u];
      }
    }
    if (!last && store.sc && !store.id.initial() && store.time <= sc_writes[store.id.thread]) {
      last = true;  // an SC store before an SC fence hb-before this load ([atomics.order] p4)
    }
    if (!last && seq_cst && !store.id.initial() && store.time <= sc_fences[store.id.thread]) {
      last = true;  // sequenced before an SC fence this SC load follows ([atomics.order] p5)
    }
    if (!last && seq_cst && (store.sc || store.sc_read)) {
      last = true;  // the newest SC store, or one an SC load read: nothing older for an SC load
    }
    if (last) break;
  }
  // The newest store is never excluded, so there is a candidate.
  return pending_.ids;
}

const std::byte* WeakMemory::commit_load(std::size_t choice) {
  if (!pending_.ready || choice >= pending_.indices.size()) {
    throw std::logic_error("WeakMemory::commit_load: no such candidate");
  }
  const auto it = locations_.find(pending_.address);
  if (it == locations_.end() || it->second.stores.size() != pending_.stores ||
      it->second.incarnation != pending_.incarnation) {
    throw std::logic_error("WeakMemory::commit_load: the location changed since load_candidates");
  }
  Location& location = it->second;
  const std::uint32_t index = pending_.indices[choice];
  pending_.ready = false;
  note(GraphEvent::Kind::kRead, pending_.thread, location.serial, pending_.order,
       location.stores[index].event);
  read(pending_.thread, pending_.address, location, index, pending_.order);
  return location.bytes.data() + location.stores[index].bytes;
}

void WeakMemory::read(Thread thread, const void* address, Location& location, std::uint32_t index,
                      std::memory_order order) {
  ThreadState& state = thread_states_[thread];
  // Clocks may be added below: refer to the store by index, not by reference, across them.
  if (location.stores[index].first_read == kNoClock) {
    const ClockRef first = new_clock();
    location.stores[index].first_read = first;
  }
  std::uint32_t& first = at(location.stores[index].first_read)[thread];
  if (first == 0) first = at(state.clock)[thread];
  if (order == std::memory_order_seq_cst) location.stores[index].sc_read = true;
  const ClockRef sync = location.stores[index].sync;
  join(acquires(order) ? state.clock : state.acquire_pending, sync);
  state.read_since_hint[address] = index;
}

void WeakMemory::append(Thread thread, Location& location, const void* bytes, ClockRef sync,
                        bool seq_cst, std::int64_t event) {
  ThreadState& state = thread_states_[thread];
  Store store;
  store.event = event;
  store.id = StoreId{thread, location.stores_by[thread]++, location.incarnation};
  store.time = at(state.clock)[thread];
  store.sync = sync;
  store.bytes = static_cast<std::uint32_t>(location.bytes.size());
  location.bytes.insert(location.bytes.end(), static_cast<const std::byte*>(bytes),
                        static_cast<const std::byte*>(bytes) + location.size);
  location.stores.push_back(store);
  if (seq_cst) {
    // Every store that happens-before an SC store is ordered before it in SC order: an SC load
    // that sees this one cannot read them.
    for (Store& earlier : location.stores) {
      if (happens_before(earlier, thread)) earlier.sc = true;
    }
    at(sc_write_times_)[thread] = at(state.clock)[thread];
  }
}

void WeakMemory::store(Thread thread, const void* address, std::size_t size,
                       std::memory_order order, const void* current, const void* bytes) {
  tick(thread);
  Location& location = locate(address, size, current);
  const ClockRef sync = new_clock();
  const ThreadState& state = thread_states_[thread];
  join(sync, releases(order) ? state.clock : state.release_fence);
  append(thread, location, bytes, sync, order == std::memory_order_seq_cst,
         note(GraphEvent::Kind::kWrite, thread, location.serial, order));
}

void WeakMemory::read_modify_write(Thread thread, const void* address, std::size_t size,
                                   std::memory_order order, const void* current,
                                   const void* bytes) {
  tick(thread);
  ThreadState& state = thread_states_[thread];
  const bool seq_cst = order == std::memory_order_seq_cst;
  if (seq_cst) join(state.sc_fences, sc_fence_clock_);
  Location& location = locate(address, size, current);
  const auto newest = static_cast<std::uint32_t>(location.stores.size() - 1);
  const std::int64_t event = note(GraphEvent::Kind::kUpdate, thread, location.serial, order,
                                  location.stores[newest].event);
  read(thread, address, location, newest, order);
  // C++20 release sequence: the RMW passes on what the store it read carried.
  const ClockRef sync = new_clock();
  join(sync, location.stores[newest].sync);
  join(sync, releases(order) ? state.clock : state.release_fence);
  append(thread, location, bytes, sync, seq_cst, event);
}

void WeakMemory::fence(Thread thread, std::memory_order order) {
  if (order == std::memory_order_relaxed) return;
  tick(thread);
  note(GraphEvent::Kind::kFence, thread, 0, order);
  ThreadState& state = thread_states_[thread];
  if (acquires(order)) join(state.clock, state.acquire_pending);
  if (order == std::memory_order_seq_cst) {
    // As an acq_rel RMW of one global location, and learn the last SC store of every thread.
    join(sc_fence_clock_, state.clock);
    join(state.clock, sc_fence_clock_);
    std::uint32_t* sc_writes = at(state.clock) + threads_;
    const std::uint32_t* times = at(sc_write_times_);
    for (std::size_t u = 0; u < threads_; ++u) sc_writes[u] = std::max(sc_writes[u], times[u]);
  }
  if (releases(order)) {
    std::copy_n(at(state.clock), width_, at(state.release_fence));
  }
}

void WeakMemory::spin_hint(Thread thread) {
  tick(thread);
  ThreadState& state = thread_states_[thread];
  for (const auto& [address, index] : state.read_since_hint) {
    const auto it = locations_.find(address);
    if (it == locations_.end()) continue;
    const auto newest = static_cast<std::uint32_t>(it->second.stores.size() - 1);
    std::uint32_t& floor = state.floor[address];
    floor = std::max(floor, std::min(index + 1, newest));
  }
  state.read_since_hint.clear();
}

std::span<const std::uint32_t> WeakMemory::clock(Thread thread) const {
  return {at(thread_states_.at(thread).clock), threads_};
}

std::size_t WeakMemory::stores_at(const void* address) const {
  const auto it = locations_.find(address);
  return it == locations_.end() ? 0 : it->second.stores.size();
}

std::optional<StoreId> WeakMemory::newest_store(const void* address) const {
  const auto it = locations_.find(address);
  if (it == locations_.end() || it->second.stores.empty()) return std::nullopt;
  return it->second.stores.back().id;
}

}  // namespace linfault::dpct
