#include "dpct/fork_server.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "dpct/watchdog.h"

namespace linfault::dpct {
namespace {

using Clock = std::chrono::steady_clock;

// Every zygote's fork, and the list below: a zygote made while another thread makes one must not
// keep that one's sockets.
std::mutex& fork_mutex() {
  static std::mutex* const mutex = new std::mutex;  // never destroyed: forks may race exit
  return *mutex;
}

// The sockets this process holds to zygotes and children, with fork_mutex held. A new zygote
// closes them all at once: a copy kept there would hide a zygote's or a child's end of file.
std::vector<int>& caller_sockets() {
  static std::vector<int>* const sockets = new std::vector<int>;
  return *sockets;
}

// Closes `fd` and forgets it.
void close_socket(int fd) {
  std::lock_guard lock(fork_mutex());
  std::vector<int>& sockets = caller_sockets();
  sockets.erase(std::remove(sockets.begin(), sockets.end(), fd), sockets.end());
  ::close(fd);
}

// A message: a 4-byte length, a status byte, then the payload.
enum Status : std::uint8_t { kReply = 0, kReplyAndRetire = 1, kHandlerError = 2, kFaultNotice = 3 };

// In a child: its end of the socket (tell_fork_server_of_fault); -1 elsewhere.
volatile int child_socket = -1;

std::string signal_name(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  const char* description = sigdescr_np(signal);
  return (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(signal)) +
         (description ? " (" + std::string(description) + ")" : "");
}

bool send_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

bool send_message(int fd, Status status, std::string_view payload) {
  const auto size = static_cast<std::uint32_t>(payload.size());
  char header[5];
  std::memcpy(header, &size, 4);
  header[4] = static_cast<char>(status);
  return send_all(fd, header, sizeof header) && send_all(fd, payload.data(), payload.size());
}

enum class Received { kMessage, kClosed, kTimedOut };

// Reads exactly `size` bytes before `deadline` (none when nullopt).
Received receive_all(int fd, char* data, std::size_t size,
                     std::optional<Clock::time_point> deadline) {
  while (size > 0) {
    int wait_ms = -1;
    if (deadline) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return Received::kTimedOut;
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Received::kClosed;
    }
    if (ready == 0) continue;  // the deadline is checked above
    const ssize_t got = ::recv(fd, data, size, 0);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Received::kClosed;
    }
    if (got == 0) return Received::kClosed;
    data += got;
    size -= static_cast<std::size_t>(got);
  }
  return Received::kMessage;
}

Received receive_message(int fd, Status& status, std::string& payload,
                         std::optional<Clock::time_point> deadline) {
  char header[5];
  if (Received r = receive_all(fd, header, sizeof header, deadline); r != Received::kMessage) {
    return r;
  }
  std::uint32_t size = 0;
  std::memcpy(&size, header, 4);
  status = static_cast<Status>(header[4]);
  payload.resize(size);
  return receive_all(fd, payload.data(), size, deadline);
}

[[noreturn]] void serve(int fd, const ForkServer::Handler& handler) {
  child_socket = fd;
  std::string request;
  for (;;) {
    Status ignored;
    if (receive_message(fd, ignored, request, std::nullopt) != Received::kMessage) _exit(0);
    bool retire = false;
    std::string reply;
    Status status = kReply;
    try {
      reply = handler(request, retire);
      if (retire) status = kReplyAndRetire;
    } catch (const std::exception& e) {
      reply = e.what();
      status = kHandlerError;
    } catch (...) {
      reply = "unknown exception in the child process";
      status = kHandlerError;
    }
    if (!send_message(fd, status, reply) || status != kReply) _exit(0);
  }
}

// What a server asks its zygote (over a SOCK_SEQPACKET pair, one datagram each way).
struct ZygoteRequest {
  // kReap waits for the child and answers its wait status; kRelease (a child that retired, or one
  // whose end does not matter) answers nothing and reaps it later, so that the next child need
  // not wait for this one's exit.
  enum Op : std::uint8_t { kFork, kReap, kRelease, kQuit };
  std::uint8_t op = kFork;
  std::uint8_t kill_first = 0;  // kReap, kRelease
  std::uint8_t unused[2] = {};  // no padding of unknown value crosses the socket
  std::int32_t pid = 0;         // kReap, kRelease
};

// How long the caller waits for the zygote's answer. A fork, or the exit of a killed child,
// takes milliseconds; a child's core dump can take seconds.
constexpr std::chrono::seconds kZygoteAnswerLimit{60};

// The zygote's answer: kFork: the child's pid (or -errno), with its socket as SCM_RIGHTS;
// kReap: the child's wait status.
bool send_answer(int fd, std::int32_t value, int attached) {
  iovec data{&value, sizeof value};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (attached >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &attached, sizeof(int));
  }
  for (;;) {
    if (::sendmsg(fd, &message, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof value)) return true;
    if (errno != EINTR) return false;
  }
}

// Reads an answer and the socket attached to it (-1 when none); false when the zygote closed its
// end or did not answer within kZygoteAnswerLimit. The answer is read with fork_mutex held, so that
// no zygote is forked between the attached socket's arrival here and its entry in
// caller_sockets().
bool receive_answer(int fd, std::int32_t& value, int& attached) {
  attached = -1;
  const Clock::time_point deadline = Clock::now() + kZygoteAnswerLimit;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) return false;
    if (ready > 0) break;
  }
  iovec data{&value, sizeof value};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  std::lock_guard lock(fork_mutex());
  ssize_t got;
  while ((got = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (got != static_cast<ssize_t>(sizeof value) || (message.msg_flags & MSG_CTRUNC)) return false;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
      std::memcpy(&attached, CMSG_DATA(header), sizeof(int));
      caller_sockets().push_back(attached);
    }
  }
  return true;
}

bool send_request(int fd, const ZygoteRequest& request) {
  for (;;) {
    if (::send(fd, &request, sizeof request, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof request))
      return true;
    if (errno != EINTR) return false;
  }
}

// The zygote: a single-threaded copy of the caller at the server's construction, which forks the
// children. Forking the caller itself while its other threads run would give each child whatever
// locks those threads held at that instant (an allocator's, under a sanitizer), and the child
// would hang on the first. It ends when asked, when its server's socket closes, or with the thread
// that made it (PR_SET_PDEATHSIG); its children end with it.
[[noreturn]] void run_zygote(int control, const ForkServer::Handler& handler) {
  const pid_t zygote = ::getpid();
  struct Child {
    pid_t pid = -1;  // or -errno
    int socket = -1;
  };
  auto fork_child = [&]() -> Child {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return {-errno, -1};
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(control);
      ::close(pair[0]);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != zygote) _exit(0);  // the zygote died before the line above
      serve(pair[1], handler);
    }
    const int error = errno;
    ::close(pair[1]);
    if (pid < 0) {
      ::close(pair[0]);
      return {-error, -1};
    }
    return {pid, pair[0]};
  };
  std::vector<pid_t> released;  // not reaped yet
  auto release = [&released](pid_t pid, bool kill_first) {
    if (kill_first) ::kill(pid, SIGKILL);
    released.push_back(pid);
  };
  auto end = [&] {
    for (const pid_t pid : released) {
      ::kill(pid, SIGKILL);  // a retired child has answered: nothing of it is needed
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    _exit(0);
  };
  for (;;) {
    std::erase_if(released, [](pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) != 0; });
    ZygoteRequest request;
    const ssize_t got = ::recv(control, &request, sizeof request, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got != static_cast<ssize_t>(sizeof request) || request.op == ZygoteRequest::kQuit ||
        request.op > ZygoteRequest::kQuit) {
      end();
    }
    if (request.op == ZygoteRequest::kRelease) {
      release(request.pid, request.kill_first);
      continue;
    }
    if (request.op == ZygoteRequest::kReap) {
      if (request.kill_first) ::kill(request.pid, SIGKILL);
      int status = 0;
      while (::waitpid(request.pid, &status, 0) < 0 && errno == EINTR) {
      }
      if (!send_answer(control, status, -1)) end();
      continue;
    }
    const Child child = fork_child();
    const bool sent = send_answer(control, child.pid, child.socket);
    if (child.socket >= 0) ::close(child.socket);
    if (!sent) {
      if (child.pid > 0) release(child.pid, /*kill_first=*/true);
      end();
    }
  }
}

}  // namespace

void tell_fork_server_of_fault(int signal) {
  const int fd = child_socket;
  if (fd < 0) return;
  // One send of a whole message: a local stream socket with room takes it at once, and a full
  // one (the caller is not reading) loses only the notice.
  char message[9];
  const std::uint32_t size = sizeof(std::int32_t);
  const auto value = static_cast<std::int32_t>(signal);
  std::memcpy(message, &size, 4);
  message[4] = static_cast<char>(kFaultNotice);
  std::memcpy(message + 5, &value, 4);
  (void)::send(fd, message, sizeof message, MSG_NOSIGNAL | MSG_DONTWAIT);
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) return "died with " + signal_name(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

ForkServer::ForkServer(Handler handler, Limits limits)
    : handler_(std::move(handler)), limits_(limits) {
  std::lock_guard lock(fork_mutex());
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair");
  }
  // Output buffered now would be written twice, once by each process.
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(pair[0]);
    ::close(pair[1]);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (pid == 0) {
    ::close(pair[0]);
    for (const int fd : caller_sockets()) ::close(fd);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(0);  // the caller died before the line above
    run_zygote(pair[1], handler_);
  }
  ::close(pair[1]);
  zygote_ = pid;
  control_ = pair[0];
  caller_sockets().push_back(control_);
}

ForkServer::~ForkServer() {
  try {
    if (child_ > 0) reap(/*kill_first=*/true);
  } catch (const std::exception&) {
    // The zygote is gone, and its child with it (PR_SET_PDEATHSIG).
  }
  if (zygote_ < 0) return;  // reaped by zygote_gone
  (void)send_request(control_, {.op = ZygoteRequest::kQuit});
  close_socket(control_);
  while (::waitpid(zygote_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

std::string ForkServer::zygote_gone() {
  if (zygote_ < 0) return zygote_end_;
  // It closed its end (it is ending), or it did not answer and is killed here.
  char byte;
  const bool killed_here = ::recv(control_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
  if (killed_here) ::kill(zygote_, SIGKILL);
  int status = 0;
  while (::waitpid(zygote_, &status, 0) < 0 && errno == EINTR) {
  }
  zygote_ = -1;
  close_socket(control_);
  control_ = -1;
  zygote_end_ = "the process that forks the children running the object (its zygote) " +
                (killed_here ? std::string("stopped answering and was killed")
                             : describe_wait_status(status));
  return zygote_end_;
}

std::int32_t ForkServer::ask_zygote(int op, bool kill_first, pid_t pid, int* attached) {
  const ZygoteRequest request{.op = static_cast<std::uint8_t>(op),
                              .kill_first = kill_first,
                              .pid = static_cast<std::int32_t>(pid)};
  std::int32_t value = 0;
  int fd = -1;
  if (zygote_ < 0 || !send_request(control_, request) || !receive_answer(control_, value, fd)) {
    throw std::runtime_error(zygote_gone());
  }
  if (attached) {
    *attached = fd;
  } else if (fd >= 0) {
    close_socket(fd);
  }
  return value;
}

void ForkServer::start() {
  int fd = -1;
  const std::int32_t pid = ask_zygote(ZygoteRequest::kFork, false, 0, &fd);
  if (pid < 0 || fd < 0) {
    if (fd >= 0) close_socket(fd);
    if (pid > 0) {
      (void)send_request(control_, {.op = ZygoteRequest::kRelease, .kill_first = 1, .pid = pid});
    }
    throw std::system_error(pid < 0 ? -pid : EBADF, std::generic_category(), "fork");
  }
  child_ = pid;
  socket_ = fd;
  ++forks_;
}

std::string ForkServer::reap(bool kill_first) {
  if (socket_ >= 0) close_socket(socket_);
  socket_ = -1;
  const pid_t child = child_;
  child_ = -1;
  last_status_ = ask_zygote(ZygoteRequest::kReap, kill_first, child, nullptr);
  return describe_wait_status(last_status_);
}

void ForkServer::release(bool kill_first) {
  if (socket_ >= 0) close_socket(socket_);
  socket_ = -1;
  const ZygoteRequest request{.op = ZygoteRequest::kRelease,
                              .kill_first = kill_first,
                              .pid = static_cast<std::int32_t>(child_)};
  child_ = -1;
  // A zygote that is gone is noticed by the next request that needs an answer.
  if (zygote_ >= 0) (void)send_request(control_, request);
}

ForkServer::Reply ForkServer::call(std::string_view request) {
  if (child_ >= 0) {
    // Killed while idle (the OOM killer, a signal): not this request's doing.
    char byte;
    if (::recv(socket_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) release(/*kill_first=*/true);
  }
  if (child_ < 0) start();
  Reply reply;
  Status status = kReply;
  Received received = Received::kClosed;
  if (send_message(socket_, kReply, request)) {
    std::optional<Clock::time_point> deadline;
    if (limits_.reply.count() > 0) deadline = Clock::now() + limits_.reply;
    for (;;) {
      received = receive_message(socket_, status, reply.data, deadline);
      if (received != Received::kMessage || status != kFaultNotice) break;
      std::int32_t signal = 0;
      if (reply.data.size() == sizeof signal)
        std::memcpy(&signal, reply.data.data(), sizeof signal);
      // A fault after a stall says more of how the child ended than the stall.
      if (reply.fault_signal == 0 || reply.fault_signal == stall_signal()) {
        reply.fault_signal = signal;
      }
      if (limits_.after_fault.count() > 0) {
        const Clock::time_point grace = Clock::now() + limits_.after_fault;
        if (!deadline || grace < *deadline) deadline = grace;
      }
    }
  }
  if (received == Received::kMessage) {
    if (status != kReply) release(/*kill_first=*/false);  // it exits right after this reply
    if (status == kHandlerError) throw std::runtime_error(reply.data);
    reply.answered = true;
    return reply;
  }
  reply.data.clear();
  reply.timed_out = received == Received::kTimedOut;
  const std::string how = reap(/*kill_first=*/reply.timed_out);
  if (reply.timed_out) {
    const auto waited = reply.fault_signal != 0 && limits_.after_fault.count() > 0 &&
                                (limits_.reply.count() == 0 || limits_.after_fault < limits_.reply)
                            ? limits_.after_fault
                            : limits_.reply;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", static_cast<double>(waited.count()) / 1000);
    reply.failure = std::string("stopped answering for ") + seconds + " s and was killed";
  } else {
    reply.failure = how;
    if (WIFEXITED(last_status_)) reply.exit_status = WEXITSTATUS(last_status_);
  }
  if (reply.fault_signal == stall_signal()) {
    reply.failure = "stalled, then " + reply.failure;
  } else if (reply.fault_signal != 0) {
    reply.failure = "faulted with " + signal_name(reply.fault_signal) + ", then " + reply.failure;
  }
  return reply;
}

}  // namespace linfault::dpct
