// A test object whose accesses are written in unusual ways (spaces before '(', calls split over
// lines, guards with parentheses and braces, std::atomic-style operators and std lock guards,
// whose accesses happen inside dpct/shared.h and the standard headers), so that a test can compare the std::source_location
// g++ records at run time with the locations the extractor computes from the same file.
//
// Thread-safety: as its dpct members; meant for single-threaded tests.

#ifndef LINFAULT_STRUCTURE_TREE_TESTDATA_PROBE_OBJECT_H_
#define LINFAULT_STRUCTURE_TREE_TESTDATA_PROBE_OBJECT_H_

#include <atomic>
#include <mutex>

#include "dpct/shared.h"

namespace linfault::structure_tree::testdata {

// The odd spacing and line breaks are what this object tests.
// clang-format off
class ProbeObject {
 public:
  int spaced_calls(int rounds) {
    int total = counter_ .load ();
    for (int i = 0; i < rounds; ++i) {
      total += counter_
                   .fetch_add(
                       1);
    }
    int expected = total;
    counter_.compare_exchange(expected, 0);
    flag_.store(counter_.exchange(5) > 0);
    dpct::spin_hint();
    return total + (flag_.load() ? 1 : 0);
  }

  void guarded(int v) {
    {
      dpct::LockGuard guard(mutex_);
      cell_.store(v);
    }
    dpct::LockGuard second{
        mutex_};
    cell_.store(cell_.load() + 1);
  }

  bool explicit_locks() {
    if (!mutex_.try_lock()) return false;
    mutex_.unlock();
    mutex_.lock();
    cell_.store(0);
    mutex_.unlock();
    return true;
  }

  int std_style() {
    counter_ = 4;
    int seen = counter_;
    ++counter_;
    counter_ += 2;
    int expected = seen;
    counter_.compare_exchange_weak(expected, 1, std::memory_order_acq_rel,
                                   std::memory_order_relaxed);
    {
      std::lock_guard<dpct::Mutex> guard(mutex_);
      cell_.store(seen);
    }
    std::unique_lock<dpct::Mutex> lock(mutex_);
    lock.unlock();
    lock.lock();
    bits_.fetch_or(1, std::memory_order_release);
    return seen;
  }

 private:
  dpct::Atomic<int> counter_{0};
  dpct::Var<bool> flag_{false};
  dpct::Var<int> cell_{0};
  dpct::Mutex mutex_;
  dpct::Atomic<unsigned> bits_{0};
};
// clang-format on

}  // namespace linfault::structure_tree::testdata

#endif  // LINFAULT_STRUCTURE_TREE_TESTDATA_PROBE_OBJECT_H_
