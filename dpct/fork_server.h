// ForkServer: runs requests in a child process forked from the caller, so that an object under
// test that corrupts its process takes only that child down.
//
// In-process recovery (dpct/executor.h: siglongjmp out of a fault, a stalled run abandoned) keeps
// a campaign going after most faults, but it cannot be sound after every one. A double free or a
// write past a block can make glibc abort inside malloc with its lock held, and the next
// allocation, the checker's or the driver's, then waits forever; a wild write can land in the
// driver's own data. `detect --isolate` therefore runs histories in children (as libFuzzer's
// fork mode and AFL's fork server do): a child serves request after request until its handler
// asks it to retire (the driver retires one after any run it had to cut short), it dies, or it
// stops answering; the next request forks a fresh one from the caller, whose memory the object
// has never touched.
//
// Contract:
//   - call() sends a request and waits for the reply. The handler runs in the child on a copy of
//     the caller's memory at the fork (it may use state captured by reference: it sees, and
//     changes, the child's copy only) and with one thread, the one that forked.
//   - A child that dies or exits before replying, or does not reply within `limits.reply` (or
//     within `limits.after_fault` of saying it faulted), is killed with SIGKILL and yields a
//     Reply with `answered` false and `failure` saying how it ended ("died with SIGABRT
//     (Aborted)", "stopped answering for 60 s and was killed"). The next call forks again. A
//     child found dead before a request is sent (killed while idle) is replaced first, and the
//     request goes to the new one.
//   - An exception thrown by the handler is rethrown by call() as std::runtime_error with its
//     message, and the child retires.
//   - The child ends with _exit: no atexit handler or static destructor of the caller runs there.
//     It is killed when the thread that forked it exits (PR_SET_PDEATHSIG), and by the destructor.
//   - Forks of all servers in the process are serialized, and stdio is flushed before each.
//     The caller's other threads must not hold locks the handler needs while a fork happens (in
//     the driver they only talk to their own children). glibc makes malloc and stdio safe across
//     fork; components with a background thread (dpct/watchdog.h) reset it in the child.
//
// Thread-safety: a ForkServer is used by one thread at a time; several may run concurrently.
//
// Internal header: not part of linfault's public API (include/linfault/); it may change between
// versions.

#ifndef LINFAULT_DPCT_FORK_SERVER_H_
#define LINFAULT_DPCT_FORK_SERVER_H_

#include <sys/types.h>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace linfault::dpct {

class ForkServer {
 public:
  // Runs in the child, once per request. Setting `retire` ends the child after this reply.
  using Handler = std::function<std::string(std::string_view request, bool& retire)>;

  struct Reply {
    bool answered = false;
    std::string data;     // the handler's reply, when answered
    std::string failure;  // otherwise: how the child ended
    bool timed_out = false;
    int exit_status = -1;  // the child's exit status when it exited, else -1
    int fault_signal = 0;  // the signal of a fault the child said it recovers from, if any
  };

  // How long a request may take (zero: no limit), and how long once its child said it faulted
  // (tell_fork_server_of_fault): a fault inside the allocator can leave a child hung.
  struct Limits {
    std::chrono::milliseconds reply{0};
    std::chrono::milliseconds after_fault{0};
  };

  ForkServer(Handler handler, Limits limits);
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  // Throws std::system_error when no child can be forked, std::runtime_error for the handler's
  // exception.
  Reply call(std::string_view request);

  // Children forked so far.
  std::uint64_t forks() const { return forks_; }

 private:
  void start();
  // Reaps the child (killing it first when `kill_first`) and says how it ended.
  std::string reap(bool kill_first);

  Handler handler_;
  Limits limits_;
  pid_t child_ = -1;
  int socket_ = -1;      // the caller's end of the socket pair
  int last_status_ = 0;  // the wait status of the child reaped last
  std::uint64_t forks_ = 0;
};

// Async-signal-safe. In a ForkServer child, tells the caller that the code it runs faulted or
// stalled with `signal` and is being recovered in process (the executor calls it), so the caller
// waits at most Limits::after_fault more for the reply. Does nothing in any other process.
void tell_fork_server_of_fault(int signal);

// "died with SIGABRT (Aborted)", "exited with status 3": a wait status in words.
std::string describe_wait_status(int status);

}  // namespace linfault::dpct

#endif  // LINFAULT_DPCT_FORK_SERVER_H_
