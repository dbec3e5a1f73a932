#include "dpct/fork_server.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace linfault::dpct {
namespace {

using std::chrono::milliseconds;

TEST(ForkServerTest, OneChildServesRequestAfterRequestOnItsOwnCopyOfMemory) {
  int calls = 0;  // the child's copy counts; the caller's stays 0
  ForkServer server(
      [&calls](std::string_view request, bool&) {
        ++calls;
        return std::string(request) + " #" + std::to_string(calls) + " from " +
               std::to_string(::getpid());
      },
      {.reply = milliseconds(10'000)});
  const std::string me = std::to_string(::getpid());
  const ForkServer::Reply first = server.call("a");
  const ForkServer::Reply second = server.call("b");
  ASSERT_TRUE(first.answered) << first.failure;
  ASSERT_TRUE(second.answered) << second.failure;
  EXPECT_EQ(first.data.rfind("a #1 from ", 0), 0u) << first.data;
  EXPECT_EQ(second.data.rfind("b #2 from ", 0), 0u) << second.data;
  EXPECT_EQ(first.data.substr(first.data.find("from")),
            second.data.substr(second.data.find("from")));
  EXPECT_EQ(first.data.find("from " + me), std::string::npos);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(server.forks(), 1u);
}

TEST(ForkServerTest, ARetiredChildIsReplacedByAFreshCopyOfTheCaller) {
  int calls = 0;
  ForkServer server(
      [&calls](std::string_view, bool& retire) {
        ++calls;
        retire = true;
        return std::to_string(calls);
      },
      {.reply = milliseconds(10'000)});
  EXPECT_EQ(server.call("x").data, "1");
  EXPECT_EQ(server.call("x").data, "1");  // the new child starts from the caller's memory
  EXPECT_EQ(server.forks(), 2u);
}

TEST(ForkServerTest, AChildThatDiesBeforeReplyingIsReportedAndReplaced) {
  ForkServer server(
      [](std::string_view request, bool&) -> std::string {
        if (request == "abort") std::abort();
        if (request == "kill") ::raise(SIGKILL);
        if (request == "exit") std::_Exit(3);
        return "fine";
      },
      {.reply = milliseconds(10'000)});
  // A default SIGABRT disposition: the executor's fault handlers are not installed here.
  const ForkServer::Reply aborted = server.call("abort");
  EXPECT_FALSE(aborted.answered);
  EXPECT_FALSE(aborted.timed_out);
  EXPECT_EQ(aborted.failure, "died with SIGABRT (Aborted)");
  EXPECT_EQ(server.call("ok").data, "fine");
  EXPECT_EQ(server.call("kill").failure, "died with SIGKILL (Killed)");
  const ForkServer::Reply exited = server.call("exit");
  EXPECT_EQ(exited.failure, "exited with status 3");
  EXPECT_EQ(exited.exit_status, 3);
  EXPECT_TRUE(server.call("ok").answered);
  EXPECT_EQ(server.forks(), 4u);
}

TEST(ForkServerTest, AChildThatStopsAnsweringIsKilledAtTheTimeout) {
  ForkServer server(
      [](std::string_view request, bool&) {
        if (request == "hang") {
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        return std::string("fine");
      },
      {.reply = milliseconds(300)});
  const auto start = std::chrono::steady_clock::now();
  const ForkServer::Reply hung = server.call("hang");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(hung.answered);
  EXPECT_TRUE(hung.timed_out);
  EXPECT_EQ(hung.failure, "stopped answering for 0.3 s and was killed");
  EXPECT_EQ(server.call("ok").data, "fine");
}

TEST(ForkServerTest, AChildThatFaultedHasAShortGraceToAnswer) {
  ForkServer server(
      [](std::string_view request, bool&) {
        tell_fork_server_of_fault(SIGSEGV);  // as the executor does when it recovers
        if (request == "hang") {
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        return std::string("recovered");
      },
      {.reply = milliseconds(120'000), .after_fault = milliseconds(300)});
  const ForkServer::Reply recovered = server.call("ok");
  EXPECT_TRUE(recovered.answered);
  EXPECT_EQ(recovered.data, "recovered");
  const auto start = std::chrono::steady_clock::now();
  const ForkServer::Reply hung = server.call("hang");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(hung.answered);
  EXPECT_EQ(hung.fault_signal, SIGSEGV);
  EXPECT_EQ(hung.failure,
            "faulted with SIGSEGV (Segmentation fault), then stopped answering for 0.3 s and was "
            "killed");
  tell_fork_server_of_fault(SIGSEGV);  // in the caller: nothing to tell
}

TEST(ForkServerTest, AChildKilledWhileIdleIsReplacedBeforeTheNextRequest) {
  ForkServer server([](std::string_view, bool&) { return std::to_string(::getpid()); },
                    {.reply = milliseconds(10'000)});
  const ForkServer::Reply first = server.call("pid");
  ASSERT_TRUE(first.answered);
  ASSERT_EQ(::kill(std::stoi(first.data), SIGKILL), 0);
  std::this_thread::sleep_for(milliseconds(100));
  const ForkServer::Reply second = server.call("pid");
  EXPECT_TRUE(second.answered) << second.failure;  // not charged to this request
  EXPECT_NE(second.data, first.data);
  EXPECT_EQ(server.forks(), 2u);
}

TEST(ForkServerTest, TheHandlersExceptionReachesTheCaller) {
  ForkServer server(
      [](std::string_view, bool&) -> std::string { throw std::invalid_argument("no such method"); },
      {.reply = milliseconds(10'000)});
  try {
    server.call("x");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "no such method");
  }
}

TEST(ForkServerTest, ServersOnSeveralThreadsEachSeeTheirOwnChildEnd) {
  // A child forked by one thread must not keep another thread's child alive: each death is seen.
  std::vector<std::thread> threads;
  std::vector<int> deaths(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &deaths] {
      ForkServer server(
          [](std::string_view request, bool&) -> std::string {
            if (request == "die") ::raise(SIGKILL);
            return "fine";
          },
          {.reply = milliseconds(20'000)});
      for (int i = 0; i < 10; ++i) {
        if (!server.call(i % 3 == 0 ? "die" : "ok").answered) ++deaths[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(deaths[t], 4) << t;
}

// The children are copies of the caller at construction: a lock another thread of the caller
// holds when a child is replaced is free in the child (forked from the caller there, the child
// would wait on it forever).
TEST(ForkServerTest, ChildrenAreCopiesOfTheCallerAtConstruction) {
  std::mutex shared;
  int value = 1;
  ForkServer server(
      [&](std::string_view, bool& retire) {
        retire = true;
        std::lock_guard lock(shared);
        return std::to_string(value);
      },
      {.reply = milliseconds(5'000)});
  value = 2;  // after construction: not seen by the children
  std::promise<void> locked;
  std::promise<void> done;
  std::thread holder([&] {
    std::lock_guard lock(shared);
    locked.set_value();
    done.get_future().wait();
  });
  locked.get_future().wait();
  for (int i = 0; i < 3; ++i) {
    const ForkServer::Reply reply = server.call("x");
    EXPECT_TRUE(reply.answered) << reply.failure;
    EXPECT_EQ(reply.data, "1");
  }
  done.set_value();
  holder.join();
  EXPECT_EQ(server.forks(), 3u);
}

// No process is left: neither the zygote nor its children, retired (reaped in the zygote's own
// time) or current.
TEST(ForkServerTest, TheDestructorEndsTheChildrenAndTheZygote) {
  std::vector<pid_t> pids;
  {
    ForkServer server(
        [](std::string_view request, bool& retire) {
          retire = request == "retire";
          return std::to_string(::getpid()) + " " + std::to_string(::getppid());
        },
        {.reply = milliseconds(10'000)});
    for (const char* request : {"retire", "retire", "stay"}) {
      const ForkServer::Reply reply = server.call(request);
      ASSERT_TRUE(reply.answered) << reply.failure;
      const std::size_t space = reply.data.find(' ');
      pids.push_back(std::stoi(reply.data.substr(0, space)));
      if (pids.size() == 1) pids.push_back(std::stoi(reply.data.substr(space + 1)));
    }
    EXPECT_NE(pids[1], ::getpid());  // the children's parent is the zygote
    EXPECT_EQ(::kill(pids.back(), 0), 0);
  }
  for (const pid_t pid : pids) {
    errno = 0;
    EXPECT_EQ(::kill(pid, 0), -1) << pid;
    EXPECT_EQ(errno, ESRCH) << pid;
  }
}

TEST(ForkServerTest, AZygoteThatDiedEndsEveryLaterCallWithAnError) {
  ForkServer server([](std::string_view, bool&) { return std::to_string(::getppid()); },
                    {.reply = milliseconds(10'000)});
  const ForkServer::Reply first = server.call("x");
  ASSERT_TRUE(first.answered) << first.failure;
  ASSERT_EQ(::kill(std::stoi(first.data), SIGKILL), 0);  // the zygote (its child dies with it)
  std::this_thread::sleep_for(milliseconds(100));
  for (int i = 0; i < 2; ++i) {
    try {
      server.call("x");
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(),
                   "the process that forks the children running the object (its zygote) died "
                   "with SIGKILL (Killed)");
    }
  }
}  // and the destructor returns

TEST(ForkServerTest, DescribesWaitStatuses) {
  EXPECT_EQ(describe_wait_status(0), "exited with status 0");
  EXPECT_EQ(describe_wait_status(SIGSEGV), "died with SIGSEGV (Segmentation fault)");
}

}  // namespace
}  // namespace linfault::dpct
