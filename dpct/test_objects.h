// Small objects written against dpct/shared.h, for the dpct tests only.
//
// TreiberStack is a correct lock-free stack (nodes are freed only when the stack is destroyed,
// so there is no ABA or use-after-free). LockedCounter is a mutex-protected counter. The
// Depth*Bug objects are the classic PCT examples with a known bug depth d (the number of ordering
// constraints between accesses needed to expose the bug); their operations return whether the
// bug showed. Each object type is exposed through ObjectUnderTest.
//
// Thread-safety: as dpct/workload.h (one execution's threads).

#ifndef LINFAULT_DPCT_TEST_OBJECTS_H_
#define LINFAULT_DPCT_TEST_OBJECTS_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpct/shared.h"
#include "dpct/watchdog.h"
#include "dpct/workload.h"

namespace linfault::dpct::fixtures {

using history::Call;
using history::Value;

class TreiberStack final : public ObjectUnderTest {
 public:
  ~TreiberStack() override {
    for (Node* n : all_) delete n;
  }
  Value invoke(const Call& call) override {
    if (call.method == "push") {
      push(call.args.at(0).as_int());
      return {};
    }
    if (call.method == "pop") return pop();
    throw std::invalid_argument("TreiberStack has no method '" + call.method + "'");
  }

 private:
  struct Node {
    std::int64_t value;
    Atomic<Node*> next{nullptr};
  };
  void push(std::int64_t v) {
    Node* node = new Node{v};
    {
      LockGuard guard(nodes_lock_);
      all_.push_back(node);
    }
    Node* old = top_.load();
    do {
      node->next.store(old);
    } while (!top_.compare_exchange(old, node));
  }
  Value pop() {
    Node* old = top_.load();
    while (old != nullptr) {
      Node* next = old->next.load();
      if (top_.compare_exchange(old, next)) return Value(old->value);
    }
    return {};
  }

  Atomic<Node*> top_{nullptr};
  Mutex nodes_lock_;
  std::vector<Node*> all_;
};

class LockedCounter final : public ObjectUnderTest {
 public:
  Value invoke(const Call& call) override {
    LockGuard guard(lock_);
    if (call.method == "inc") {
      value_.store(value_.load() + 1);
      return {};
    }
    if (call.method == "get") return Value(value_.load());
    throw std::invalid_argument("LockedCounter has no method '" + call.method + "'");
  }

 private:
  Mutex lock_;
  Var<std::int64_t> value_{0};
};

// Unrelated shared traffic that makes the run longer (more steps) without affecting the bug.
inline void pad(Atomic<int>& noise, int accesses) {
  for (int i = 0; i < accesses; ++i) noise.load();
}

// Depth 1 (an ordering bug): "use" reads the flag before "init" sets it.
// Threads: 0 runs init(), 1 runs use() -> true iff the bug showed.
class Depth1Bug final : public ObjectUnderTest {
 public:
  explicit Depth1Bug(int padding) : padding_(padding) {}
  Value invoke(const Call& call) override {
    if (call.method == "init") {
      pad(noise_, padding_);
      ready_.store(1);
      pad(noise_, padding_);
      return {};
    }
    pad(noise_, padding_);
    bool bug = ready_.load() == 0;
    pad(noise_, padding_);
    return bug;
  }

 private:
  int padding_;
  Atomic<int> noise_{0};
  Atomic<int> ready_{0};
};

// Depth 2 (an atomicity violation): "check" tests a pointer and then reads it again, "clear"
// nulls it in between. Threads: 0 runs check() -> true iff it saw the null, 1 runs clear().
class Depth2Bug final : public ObjectUnderTest {
 public:
  explicit Depth2Bug(int padding) : padding_(padding) {}
  Value invoke(const Call& call) override {
    if (call.method == "check") {
      pad(noise_, padding_);
      bool bug = false;
      if (pointer_.load() != 0) bug = pointer_.load() == 0;
      pad(noise_, padding_);
      return bug;
    }
    pad(noise_, padding_);
    pointer_.store(0);
    pad(noise_, padding_);
    return {};
  }

 private:
  int padding_;
  Atomic<int> noise_{0};
  Atomic<int> pointer_{1};
};

// Depth 3: "observe" reads x twice and sees exactly 1 then 2, which needs
// write1 < read1 < write2 < read2. Threads: 0 runs write(), 1 runs observe() -> true iff so.
class Depth3Bug final : public ObjectUnderTest {
 public:
  explicit Depth3Bug(int padding) : padding_(padding) {}
  Value invoke(const Call& call) override {
    if (call.method == "write") {
      pad(noise_, padding_);
      x_.store(1);
      pad(noise_, padding_);
      x_.store(2);
      pad(noise_, padding_);
      return {};
    }
    pad(noise_, padding_);
    int first = x_.load();
    pad(noise_, padding_);
    int second = x_.load();
    pad(noise_, padding_);
    return first == 1 && second == 2;
  }

 private:
  int padding_;
  Atomic<int> noise_{0};
  Atomic<int> x_{0};
};

// Two accesses per call, nothing else: for counting interleavings.
class TwoAccesses final : public ObjectUnderTest {
 public:
  Value invoke(const Call&) override {
    a_.fetch_add(1);
    b_.fetch_add(1);
    return {};
  }

 private:
  Atomic<int> a_{0};
  Atomic<int> b_{0};
};

template <class T, class... Args>
ObjectFactory factory_of(Args... args) {
  return [=] { return std::make_unique<T>(args...); };
}

// A history up to what its verdict depends on: each process's operations with their results,
// and which operation returned before which other was called (the real-time order).
inline std::string real_time_form(const history::History& h) {
  std::vector<std::string> ops;
  std::map<history::OpIndex, std::string> names;
  std::map<history::ProcessId, int> per_process;
  for (history::OpIndex i = 0; i < static_cast<history::OpIndex>(h.size()); ++i) {
    const history::Operation& op = h.op(i);
    names[i] = "p" + std::to_string(op.process) + "." + std::to_string(per_process[op.process]++);
    ops.push_back(names[i] + " " + op.to_string());
  }
  std::sort(ops.begin(), ops.end());
  std::string out;
  for (const std::string& op : ops) out += op + "\n";
  std::vector<std::string> before;
  for (history::OpIndex a = 0; a < static_cast<history::OpIndex>(h.size()); ++a) {
    for (history::OpIndex b = 0; b < static_cast<history::OpIndex>(h.size()); ++b) {
      const history::Operation& x = h.op(a);
      const history::Operation& y = h.op(b);
      if (x.return_event != history::kNoEvent && x.return_event < y.call_event) {
        before.push_back(names[a] + " < " + names[b]);
      }
    }
  }
  std::sort(before.begin(), before.end());
  for (const std::string& pair : before) out += pair + "\n";
  return out;
}

// Renders every event of a history in order, fully: equal strings <=> identical histories.
inline std::string render(const history::History& h) {
  std::string out;
  for (const history::Event& e : h.events()) {
    const history::Operation& op = h.op(e.op);
    out += e.kind == history::Event::Kind::kCall ? "call " : "return ";
    out += op.to_string() + " #" + std::to_string(e.op) + "\n";
  }
  return out;
}

// For the stall watchdog's tests (dpct/watchdog.h): while alive, a run that makes no progress for
// 0.3 s is reported here instead of ending the process, and `release` is set so that the
// stalled run (which spins until it is) can finish. The destructor restores the default.
class StallCapture {
 public:
  explicit StallCapture(std::atomic<bool>& release) {
    set_stall_limit(std::chrono::milliseconds(300));
    set_stall_handler([this, &release](const std::string& message) {
      std::lock_guard lock(mutex_);
      reports_.push_back(message);
      release.store(true);
    });
  }
  ~StallCapture() {
    set_stall_handler({});
    set_stall_limit(
        std::chrono::milliseconds(static_cast<std::int64_t>(kDefaultStallSeconds * 1000)));
  }
  StallCapture(const StallCapture&) = delete;
  StallCapture& operator=(const StallCapture&) = delete;

  std::vector<std::string> reports() const {
    std::lock_guard lock(mutex_);
    return reports_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> reports_;
};

}  // namespace linfault::dpct::fixtures

#endif  // LINFAULT_DPCT_TEST_OBJECTS_H_
