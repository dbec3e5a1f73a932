// ForkServer: runs requests in a child process, a copy of the caller, so that an object under
// test that corrupts its process takes only that child down.
//
// In-process recovery (dpct/executor.h: siglongjmp out of a fault, a stalled run abandoned) keeps
// a campaign going after most faults, but it cannot be sound after every one. A double free or a
// write past a block can make glibc abort inside malloc with its lock held, and the next
// allocation, the checker's or the driver's, then waits forever; a wild write can land in the
// driver's own data. `detect --isolate` therefore runs histories in children (as libFuzzer's
// fork mode and AFL's fork server do): a child serves request after request until its handler
// asks it to retire (the driver retires one after any run it had to cut short), it dies, or it
// stops answering; the next request gets a fresh child, whose memory the object has never
// touched.
//
// The children are forked by a zygote, a single-threaded copy of the caller made when the server
// is constructed. Forking the caller itself while its other threads run would hand each child
// whatever locks those threads held at that instant (an allocator's under AddressSanitizer, a
// mutex of the caller's), and the child would hang on the first one it takes.
//
// Contract:
//   - Construct the server while the caller's other threads hold no lock that the zygote (the
//     allocator, fork) or the handler needs, ideally before they start, and keep the
//     constructing thread alive while the server is used: the zygote is killed when that thread
//     exits (PR_SET_PDEATHSIG), and its children with it.
//   - call() sends a request and waits for the reply. The handler runs in a child, on a copy of
//     the caller's memory as it was at the server's construction (state captured by reference is
//     read as it was then, and changed in the child's copy only; thread_local state is the
//     constructing thread's), and with one thread.
//   - A child that dies or exits before replying, or does not reply within `limits.reply` (or
//     within `limits.after_fault` of saying it faulted), is killed with SIGKILL and yields a
//     Reply with `answered` false and `failure` saying how it ended ("died with SIGABRT
//     (Aborted)", "stopped answering for 60 s and was killed"). The next call gets a new child.
//     A child found dead before a request is sent (killed while idle) is replaced first, and the
//     request goes to the new one.
//   - An exception thrown by the handler is rethrown by call() as std::runtime_error with its
//     message, and the child retires. A zygote that dies or does not answer within a minute is
//     killed, and this and every later call throws std::runtime_error saying so.
//   - Children and the zygote end with _exit: no atexit handler or static destructor of the
//     caller runs there. The destructor ends both.
//   - Zygotes are made one at a time, and each closes the sockets the caller holds to the other
//     servers' zygotes and children; it keeps every other descriptor the caller had at the
//     construction open for the server's life. stdio is flushed before each fork. Components
//     with a background thread (dpct/watchdog.h) reset it in the child.
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

  // Forks the zygote; throws std::system_error when it cannot.
  ForkServer(Handler handler, Limits limits);
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  // Throws std::system_error when no child can be forked, std::runtime_error for the handler's
  // exception or when the zygote is gone.
  Reply call(std::string_view request);

  // Children forked so far.
  std::uint64_t forks() const { return forks_; }

 private:
  void start();
  // Reaps the child (killing it first when `kill_first`) and says how it ended.
  std::string reap(bool kill_first);
  // Lets the zygote reap the child (killing it first when `kill_first`) in its own time.
  void release(bool kill_first);
  // Why the zygote did not answer.
  std::string zygote_gone();
  // Sends the zygote a request and returns its answer (and the socket attached to it); throws
  // std::runtime_error when the zygote is gone.
  std::int32_t ask_zygote(int op, bool kill_first, pid_t pid, int* attached);

  Handler handler_;
  Limits limits_;
  pid_t zygote_ = -1;       // -1 once it ended
  std::string zygote_end_;  // how it ended
  int control_ = -1;        // the caller's end of the zygote's socket pair
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
