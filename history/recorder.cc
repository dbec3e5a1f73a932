#include "history/recorder.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "history/atomic_file.h"
#include "history/json_format.h"

namespace linfault::history {
namespace {

constexpr std::uint64_t kNoStamp = ~std::uint64_t{0};
constexpr std::size_t kInlineArgs = 2;
// Chunks of records grow from kFirstChunk to kMaxChunk records (64 bytes each: 2 MiB, one huge
// page where the system gives them); reserve() prepares chunks of kMaxChunk.
constexpr std::size_t kFirstChunk = 64;
constexpr std::size_t kMaxChunk = 32768;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Interned method names are looked up linearly up to this many, then through a hash map.
constexpr std::size_t kLinearMethods = 16;

// Recorder ids are never reused, so a thread's cached buffer of a destroyed recorder can never be
// mistaken for one of a new recorder allocated at the same address.
std::atomic<std::uint64_t> next_recorder_id{1};

// The calling thread's buffer in the recorder it used last (one entry: a stress test records into
// one recorder at a time). Trivially constructible: no TLS guard on the hot path.
struct LocalCache {
  std::uint64_t recorder = 0;
  void* buffer = nullptr;
};
constinit thread_local LocalCache local_cache;

enum class State : std::uint8_t { kOpen, kOk, kFail, kAbandoned };

// How a recorded Value is stored in 8 bytes plus a kind: nil, booleans and integers inline; other
// values (strings, lists) boxed on the heap; more than kInlineArgs arguments spilled to a vector.
enum class Kind : std::uint8_t { kNil, kFalse, kTrue, kInt, kBoxed, kSpilled };

}  // namespace

// One recorded operation: one cache line, trivially constructible (chunks are not initialized).
// Written by the thread holding its Op handle; stable address (chunks never move), so a handle
// may be completed from another thread.
struct Recorder::Record {
  ProcessId process;
  const std::string* method;  // interned in the invoking thread's buffer
  std::uint64_t invoke_stamp;
  std::uint64_t response_stamp;
  std::uint64_t arg_bits[kInlineArgs];
  std::uint64_t result_bits;
  std::uint32_t arg_count;
  Kind arg_kinds[kInlineArgs];
  Kind result_kind;
  State state;

  static Kind store(const Value& value, std::uint64_t& bits) {
    if (value.is_int()) {
      bits = static_cast<std::uint64_t>(value.as_int());
      return Kind::kInt;
    }
    if (value.is_nil()) return Kind::kNil;
    if (value.is_bool()) return value.as_bool() ? Kind::kTrue : Kind::kFalse;
    bits = reinterpret_cast<std::uintptr_t>(new Value(value));
    return Kind::kBoxed;
  }
  static Kind store(Value&& value, std::uint64_t& bits) {
    if (value.is_int() || value.is_nil() || value.is_bool()) return store(value, bits);
    bits = reinterpret_cast<std::uintptr_t>(new Value(std::move(value)));
    return Kind::kBoxed;
  }
  static Value load(Kind kind, std::uint64_t bits) {
    switch (kind) {
      case Kind::kNil:
        return Value();
      case Kind::kFalse:
        return Value(false);
      case Kind::kTrue:
        return Value(true);
      case Kind::kInt:
        return Value(static_cast<std::int64_t>(bits));
      case Kind::kBoxed:
        return *reinterpret_cast<const Value*>(static_cast<std::uintptr_t>(bits));
      case Kind::kSpilled:
        break;
    }
    return Value();
  }
  static void free(Kind kind, std::uint64_t bits) {
    if (kind == Kind::kBoxed) {
      delete reinterpret_cast<Value*>(static_cast<std::uintptr_t>(bits));
    } else if (kind == Kind::kSpilled) {
      delete reinterpret_cast<std::vector<Value>*>(static_cast<std::uintptr_t>(bits));
    }
  }

  void set_args(std::span<const Value> args) {
    arg_count = static_cast<std::uint32_t>(args.size());
    if (args.size() <= kInlineArgs) {
      for (std::size_t i = 0; i < args.size(); ++i) arg_kinds[i] = store(args[i], arg_bits[i]);
    } else {
      arg_kinds[0] = Kind::kSpilled;
      arg_bits[0] =
          reinterpret_cast<std::uintptr_t>(new std::vector<Value>(args.begin(), args.end()));
    }
  }
  std::vector<Value> args() const {
    if (arg_count > kInlineArgs) {
      return *reinterpret_cast<const std::vector<Value>*>(static_cast<std::uintptr_t>(arg_bits[0]));
    }
    std::vector<Value> values;
    values.reserve(arg_count);
    for (std::size_t i = 0; i < arg_count; ++i) values.push_back(load(arg_kinds[i], arg_bits[i]));
    return values;
  }
  Value result() const { return load(result_kind, result_bits); }
  // Frees what the record owns on the heap.
  void release() {
    const std::size_t inline_count = arg_count > kInlineArgs ? 1 : arg_count;
    for (std::size_t i = 0; i < inline_count; ++i) free(arg_kinds[i], arg_bits[i]);
    if (state == State::kOk || state == State::kFail) free(result_kind, result_bits);
  }
};
struct Recorder::Impl {
  static_assert(sizeof(Record) == 64);
  static_assert(std::is_trivially_default_constructible_v<Record>);

  // The open operation of one process, if any; a cache line each so that processes do not share.
  struct alignas(64) ProcessSlot {
    std::atomic<Record*> open{nullptr};
  };

  struct FreeChunk {
    void operator()(Record* records) const { std::free(records); }
  };
  struct Chunk {
    std::unique_ptr<Record[], FreeChunk> records;
    std::size_t capacity = 0;
  };
  // Not initialized: pages are touched when records are written. A 2 MiB chunk is aligned and
  // marked for transparent huge pages: one page fault instead of 512 (most of the cost of
  // recording into fresh memory).
  static Chunk allocate_chunk(std::size_t capacity) {
    const std::size_t bytes = capacity * sizeof(Record);
    const bool huge = bytes % kHugePage == 0;
    void* memory = huge ? std::aligned_alloc(kHugePage, bytes) : std::malloc(bytes);
    if (memory == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (huge) ::madvise(memory, bytes, MADV_HUGEPAGE);
#endif
    return Chunk{std::unique_ptr<Record[], FreeChunk>(static_cast<Record*>(memory)), capacity};
  }

  // Per (recorder, OS thread): the records that thread invoked, in invocation order, plus caches
  // that keep the hot path free of the recorder's mutex.
  struct ThreadBuffer {
    std::vector<Chunk> chunks;
    Record* cursor = nullptr;  // the next record of chunks.back()
    Record* limit = nullptr;   // the end of chunks.back()

    ProcessId last_process = 0;
    std::atomic<Record*>* last_slot = nullptr;
    std::unordered_map<ProcessId, std::atomic<Record*>*> slots;

    std::vector<std::unique_ptr<std::string>> methods;
    std::size_t last_method = 0;
    std::unordered_map<std::string_view, const std::string*> method_index;

    ThreadBuffer() = default;
    ThreadBuffer(const ThreadBuffer&) = delete;
    ThreadBuffer& operator=(const ThreadBuffer&) = delete;
    ~ThreadBuffer() {
      for_each([](Record& record) { record.release(); });
    }

    std::size_t used_in(std::size_t c) const {
      return c + 1 == chunks.size() ? static_cast<std::size_t>(cursor - chunks[c].records.get())
                                    : chunks[c].capacity;
    }
    std::size_t size() const {
      std::size_t n = 0;
      for (std::size_t c = 0; c < chunks.size(); ++c) n += used_in(c);
      return n;
    }
    template <class Visit>
    void for_each(Visit&& visit) const {
      for (std::size_t c = 0; c < chunks.size(); ++c) {
        const std::size_t n = used_in(c);
        for (std::size_t i = 0; i < n; ++i) visit(chunks[c].records[i]);
      }
    }

    // Method names are short: an inline comparison beats a call to memcmp.
    static bool same(const std::string& interned, std::string_view name) {
      if (interned.size() != name.size()) return false;
      for (std::size_t i = 0; i < name.size(); ++i) {
        if (interned[i] != name[i]) return false;
      }
      return true;
    }

    const std::string* intern(std::string_view name) {
      if (last_method < methods.size() && same(*methods[last_method], name)) {
        return methods[last_method].get();
      }
      if (methods.size() <= kLinearMethods) {
        for (std::size_t i = 0; i < methods.size(); ++i) {
          if (same(*methods[i], name)) {
            last_method = i;
            return methods[i].get();
          }
        }
      } else if (auto it = method_index.find(name); it != method_index.end()) {
        return it->second;
      }
      methods.push_back(std::make_unique<std::string>(name));
      last_method = methods.size() - 1;
      const std::string* interned = methods.back().get();
      if (methods.size() > kLinearMethods) {
        if (method_index.empty()) {
          for (const auto& m : methods) method_index.emplace(*m, m.get());
        } else {
          method_index.emplace(*interned, interned);
        }
      }
      return interned;
    }
  };

  explicit Impl(std::string model_name)
      : model(std::move(model_name)), id(next_recorder_id.fetch_add(1)) {}

  std::uint64_t tick() { return clock.fetch_add(1, std::memory_order_acq_rel); }

  ThreadBuffer& local_buffer() {
    if (local_cache.recorder == id) return *static_cast<ThreadBuffer*>(local_cache.buffer);
    return register_thread();
  }

  ThreadBuffer& register_thread() {
    std::lock_guard<std::mutex> lock(mu);
    ThreadBuffer*& buffer = by_thread[std::this_thread::get_id()];
    if (buffer == nullptr) {
      buffers.push_back(std::make_unique<ThreadBuffer>());
      buffer = buffers.back().get();
    }
    local_cache = LocalCache{id, buffer};
    return *buffer;
  }

  // The next record of `buffer`, not yet committed (a rejected invoke leaves it unused).
  Record& next(ThreadBuffer& buffer) {
    if (buffer.cursor == buffer.limit) grow(buffer);
    return *buffer.cursor;
  }
  void grow(ThreadBuffer& buffer) {
    Chunk chunk;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!pool.empty()) {
        chunk = std::move(pool.back());
        pool.pop_back();
      }
    }
    if (chunk.records == nullptr) {
      const std::size_t last = buffer.chunks.empty() ? 0 : buffer.chunks.back().capacity;
      chunk = allocate_chunk(last == 0 ? kFirstChunk : std::min(2 * last, kMaxChunk));
    }
    buffer.cursor = chunk.records.get();
    buffer.limit = buffer.cursor + chunk.capacity;
    buffer.chunks.push_back(std::move(chunk));
  }

  std::atomic<Record*>& slot(ThreadBuffer& buffer, ProcessId process) {
    if (buffer.last_slot != nullptr && buffer.last_process == process) return *buffer.last_slot;
    std::atomic<Record*>*& cached = buffer.slots[process];
    if (cached == nullptr) {
      std::lock_guard<std::mutex> lock(mu);
      std::unique_ptr<ProcessSlot>& shared = slots[process];
      if (shared == nullptr) shared = std::make_unique<ProcessSlot>();
      cached = &shared->open;
    }
    buffer.last_process = process;
    buffer.last_slot = cached;
    return *cached;
  }

  // The sequence counter: one fetch_add per event, on a cache line of its own.
  alignas(64) std::atomic<std::uint64_t> clock{0};
  alignas(64) const std::string model;
  const std::uint64_t id;
  mutable std::mutex mu;  // guards the containers below (registration, chunks, reading)
  std::vector<std::unique_ptr<ThreadBuffer>> buffers;
  std::unordered_map<std::thread::id, ThreadBuffer*> by_thread;
  std::unordered_map<ProcessId, std::unique_ptr<ProcessSlot>> slots;
  std::vector<Chunk> pool;  // reserve()d chunks, already touched
};

Recorder::Recorder(std::string model) : impl_(std::make_unique<Impl>(std::move(model))) {}

Recorder::~Recorder() = default;

const std::string& Recorder::model() const { return impl_->model; }

void Recorder::reserve(std::size_t operations) {
  std::vector<Impl::Chunk> chunks;
  for (std::size_t n = 0; n < operations; n += kMaxChunk) {
    Impl::Chunk chunk = Impl::allocate_chunk(kMaxChunk);
    std::memset(static_cast<void*>(chunk.records.get()), 0, kMaxChunk * sizeof(Record));
    chunks.push_back(std::move(chunk));
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (Impl::Chunk& chunk : chunks) impl_->pool.push_back(std::move(chunk));
}

Recorder::Op Recorder::invoke(ProcessId process, std::string_view method,
                              std::span<const Value> args) {
  Impl& impl = *impl_;
  Impl::ThreadBuffer& buffer = impl.local_buffer();
  std::atomic<Record*>& slot = impl.slot(buffer, process);
  Record& record = impl.next(buffer);
  record.process = process;
  record.method = buffer.intern(method);
  record.response_stamp = kNoStamp;
  record.state = State::kOpen;
  record.set_args(args);

  Record* open = nullptr;
  if (!slot.compare_exchange_strong(open, &record, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
    record.release();
    throw std::logic_error("linfault::history::Recorder: process " + std::to_string(process) +
                           " invokes " + std::string(method) + " while its " + *open->method +
                           " is still open; a process (thread id) may have at most one open "
                           "operation: call ok() or fail() on its handle, or destroy the handle, "
                           "first");
  }
  ++buffer.cursor;  // commits the record
  // Last, so that the stamp is as close as possible to the start of the call.
  record.invoke_stamp = impl.tick();
  return Op(&impl, &record, &slot);
}

std::uint64_t Recorder::Op::response_stamp() {
  if (record_ == nullptr) {
    throw std::logic_error(
        "linfault::history::Recorder: ok()/fail() on an operation handle that is not open "
        "(already finished, abandoned, or moved from)");
  }
  return impl_->tick();
}

void Recorder::Op::finish(Outcome outcome, std::uint64_t stamp, Value result) {
  Record& record = *record_;
  record.response_stamp = stamp;
  record.result_kind = Record::store(std::move(result), record.result_bits);
  record.state = outcome == Outcome::kOk ? State::kOk : State::kFail;
  std::atomic<Record*>* slot = slot_;
  record_ = nullptr;
  impl_ = nullptr;
  slot_ = nullptr;
  // Publishes the record to the next invoke of this process, possibly on another thread.
  slot->store(nullptr, std::memory_order_release);
}

void Recorder::Op::abandon() noexcept {
  if (record_ == nullptr) return;
  record_->state = State::kAbandoned;
  std::atomic<Record*>* slot = slot_;
  record_ = nullptr;
  impl_ = nullptr;
  slot_ = nullptr;
  slot->store(nullptr, std::memory_order_release);
}

std::size_t Recorder::size() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::size_t n = 0;
  for (const auto& buffer : impl_->buffers) n += buffer->size();
  return n;
}

History Recorder::history() const {
  struct Stamped {
    std::uint64_t stamp;
    const Record* record;
    bool response;
  };
  std::vector<Stamped> events;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    std::size_t n = 0;
    for (const auto& buffer : impl_->buffers) n += buffer->size();
    events.reserve(2 * n);
    for (const auto& buffer : impl_->buffers) {
      buffer->for_each([&](const Record& record) {
        events.push_back({record.invoke_stamp, &record, false});
        if (record.state == State::kOk || record.state == State::kFail) {
          events.push_back({record.response_stamp, &record, true});
        }
      });
    }
  }
  std::sort(events.begin(), events.end(),
            [](const Stamped& a, const Stamped& b) { return a.stamp < b.stamp; });

  HistoryBuilder builder("recorder(" + impl_->model + ")");
  for (const Stamped& event : events) {
    const Record& record = *event.record;
    if (!event.response) {
      // The process's previous operation was abandoned: it stays pending, and its call ends here.
      if (builder.has_open_call(record.process)) {
        builder.respond(record.process, Outcome::kPending, Value());
      }
      builder.invoke(record.process, Call{*record.method, record.args()});
    } else {
      builder.respond(record.process, record.state == State::kOk ? Outcome::kOk : Outcome::kFail,
                      record.result());
    }
  }
  return std::move(builder).build();
}

std::string Recorder::json_text() const {
  const std::string& model = impl_->model;
  return history_to_json_text(history(),
                              model.empty() ? std::nullopt : std::optional<std::string>(model));
}

void Recorder::write_json(const std::filesystem::path& path) const {
  const std::string text = json_text();
  const std::filesystem::path directory =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) {
    throw std::runtime_error("linfault::history::Recorder::write_json: " + path.string() +
                             ": cannot create its directory: " + ec.message());
  }
  try {
    write_file_atomically(path, text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("linfault::history::Recorder::write_json: ") + e.what());
  }
}

WriteJsonOnFailure::WriteJsonOnFailure(const Recorder& recorder, std::filesystem::path path,
                                       std::function<bool()> failed)
    : recorder_(recorder),
      path_(std::move(path)),
      failed_(std::move(failed)),
      uncaught_at_start_(std::uncaught_exceptions()) {}

WriteJsonOnFailure::~WriteJsonOnFailure() {
  if (dismissed_) return;
  try {
    const bool unwinding = std::uncaught_exceptions() > uncaught_at_start_;
    if (!unwinding && !(failed_ && failed_())) return;
    recorder_.write_json(path_);
    std::cerr << "linfault: recorded history of the failed run written to " << path_.string()
              << " (" << recorder_.size() << " operations); check it with: linfault check "
              << path_.string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "linfault: could not write the recorded history: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "linfault: could not write the recorded history to " << path_.string() << "\n";
  }
}

}  // namespace linfault::history
