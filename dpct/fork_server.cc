#include "dpct/fork_server.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "dpct/watchdog.h"

namespace linfault::dpct {
namespace {

using Clock = std::chrono::steady_clock;

// Every fork of every server: a socket pair's child end is closed in the caller before another
// thread forks, so no other child holds it and the child's death is seen as end of file.
std::mutex& fork_mutex() {
  static std::mutex* const mutex = new std::mutex;  // never destroyed: forks may race exit
  return *mutex;
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
    : handler_(std::move(handler)), limits_(limits) {}

ForkServer::~ForkServer() {
  if (child_ > 0) reap(/*kill_first=*/true);
}

void ForkServer::start() {
  std::lock_guard lock(fork_mutex());
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
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
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(0);  // the caller died before the line above
    serve(pair[1], handler_);
  }
  ::close(pair[1]);
  child_ = pid;
  socket_ = pair[0];
  ++forks_;
}

std::string ForkServer::reap(bool kill_first) {
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
  if (kill_first) ::kill(child_, SIGKILL);
  int status = 0;
  while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
  }
  child_ = -1;
  last_status_ = status;
  return describe_wait_status(status);
}

ForkServer::Reply ForkServer::call(std::string_view request) {
  if (child_ >= 0) {
    // Killed while idle (the OOM killer, a signal): not this request's doing.
    char byte;
    if (::recv(socket_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) reap(/*kill_first=*/true);
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
    if (status != kReply) reap(/*kill_first=*/false);  // it exits right after this reply
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
