#include "history/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>

namespace linfault::history {
namespace {

[[noreturn]] void write_error(const std::filesystem::path& path, const std::string& what,
                              int error) {
  throw std::runtime_error(path.string() + ": " + what + ": " +
                           std::generic_category().message(error));
}

void write_all(int fd, std::string_view text, const std::filesystem::path& path) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      write_error(path, "cannot write", errno);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  static std::atomic<std::uint64_t> temporaries{0};
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(temporaries++);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) write_error(path, "cannot create " + temporary.string(), errno);
  std::error_code ec;
  try {
    try {
      write_all(fd, text, temporary);
      if (::fsync(fd) != 0) write_error(path, "cannot flush " + temporary.string(), errno);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) write_error(path, "cannot close " + temporary.string(), errno);
    std::filesystem::rename(temporary, path, ec);
    if (ec) write_error(path, "cannot rename " + temporary.string() + " to it", ec.value());
  } catch (...) {
    std::filesystem::remove(temporary, ec);
    throw;
  }
  // Makes the rename itself durable; failing to is not an error (some file systems refuse it).
  const std::filesystem::path directory =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  if (const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace linfault::history
