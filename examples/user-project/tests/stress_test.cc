// A native stress test of the kind that flakes in CI, with linfault's recorder around every call:
// real threads hammer the lock-free counter, the recorder stamps each call, and the history is
// checked right away and written to stress-history.json, which `user-linfault check`,
// `minimize` and `triage` read.

#include <linfault/check.h>
#include <linfault/gtest.h>
#include <linfault/recorder.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "../src/cas_counter.h"

namespace {

TEST(CasCounterStress, RecordedHistoryIsLinearizable) {
  constexpr int kThreads = 2;
  constexpr int kOpsPerThread = 2000;
  user::CasCounter counter;
  linfault::Recorder recorder("counter");
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kOpsPerThread; ++i) {
          if (i % 3 == 2) {
            recorder.call(t, "get", {}, [&] { return counter.get(); });
          } else {
            auto op = recorder.invoke(t, "increment", {});
            counter.increment();
            op.ok();
          }
        }
      });
    }
  }  // joined

  const linfault::history::History history = recorder.history();
  ASSERT_EQ(history.size(), static_cast<std::size_t>(kThreads * kOpsPerThread));
  recorder.write_json("stress-history.json");
  const linfault::Verdict verdict = linfault::check_history(history, "counter", 60);
  EXPECT_EQ(verdict.result, linfault::Result::kLinearizable) << verdict.reason;
}

}  // namespace
