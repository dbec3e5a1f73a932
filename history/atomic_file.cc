#include "history/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <limits>
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

// The process id of a temporary's writer, or 0 when `filename` is not a temporary.
pid_t temporary_writer(std::string_view filename) {
  constexpr std::string_view marker = ".tmp.";
  if (filename.size() < 2 || filename[0] != '.') return 0;
  const std::size_t at = filename.rfind(marker);
  if (at == std::string_view::npos || at < 2) return 0;
  const std::string_view numbers = filename.substr(at + marker.size());
  const std::size_t dot = numbers.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == numbers.size()) return 0;
  const auto all_digits = [](std::string_view text) {
    return !text.empty() && text.size() <= 18 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!all_digits(numbers.substr(0, dot)) || !all_digits(numbers.substr(dot + 1))) return 0;
  const long long pid = std::stoll(std::string(numbers.substr(0, dot)));
  return pid > 0 && pid <= std::numeric_limits<pid_t>::max() ? static_cast<pid_t>(pid) : 0;
}

std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> temporaries{0};
  return path.parent_path() / ("." + path.filename().string() + ".tmp." +
                               std::to_string(::getpid()) + "." + std::to_string(temporaries++));
}

// Makes a rename durable; failing to is not an error (some file systems refuse it).
void flush_directory_of(const std::filesystem::path& path) {
  const std::filesystem::path directory =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  if (const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

// A path naming something other than a regular file or a directory, such as /dev/null,
// /dev/stdout or a FIFO, is written in place: a temporary renamed over it would replace the
// device with a regular file (for root, /dev/null itself).
bool written_in_place(const std::filesystem::path& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  return !error && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
         !std::filesystem::is_directory(status);
}

// Where the temporary is renamed to: the file a symbolic link names (the link stays a link), or
// `path` itself.
std::filesystem::path rename_target(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, error))) return path;
  const std::filesystem::path target = std::filesystem::weakly_canonical(path, error);
  return error ? path : target;
}

}  // namespace

bool is_atomic_temporary(std::string_view filename) { return temporary_writer(filename) != 0; }

std::size_t remove_stale_temporaries(const std::filesystem::path& directory) {
  std::size_t removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    const pid_t writer = temporary_writer(it->path().filename().string());
    if (writer == 0) continue;
    // Alive (or not ours to signal): leave it; ESRCH: the writer is gone.
    if (writer != ::getpid() && ::kill(writer, 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      if (std::filesystem::remove(it->path(), ignored)) ++removed;
    }
  }
  return removed;
}

void flush_file_system(const std::filesystem::path& directory) {
  const std::filesystem::path dir = directory.empty() ? std::filesystem::path(".") : directory;
  if (const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::syncfs(fd);
    ::close(fd);
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           Durability durability) {
  if (written_in_place(path)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) write_error(path, "cannot open", errno);
    try {
      write_all(fd, text, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) write_error(path, "cannot close", errno);
    return;
  }
  const std::filesystem::path target = rename_target(path);
  const bool durable = durability == Durability::kDurable;
  const std::filesystem::path temporary = temporary_path_for(target);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) write_error(path, "cannot create " + temporary.string(), errno);
  std::error_code ec;
  try {
    try {
      write_all(fd, text, temporary);
      if (durable && ::fsync(fd) != 0)
        write_error(path, "cannot flush " + temporary.string(), errno);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) write_error(path, "cannot close " + temporary.string(), errno);
    std::filesystem::rename(temporary, target, ec);
    if (ec) write_error(path, "cannot rename " + temporary.string() + " to it", ec.value());
  } catch (...) {
    std::filesystem::remove(temporary, ec);
    throw;
  }
  if (durable) flush_directory_of(target);
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path)
    : path_(std::move(path)), in_place_(written_in_place(path_)) {
  if (in_place_) {
    out_.open(path_, std::ios::binary);
    if (!out_) write_error(path_, "cannot open", errno);
    return;
  }
  path_ = rename_target(path_);
  temporary_ = temporary_path_for(path_);
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) write_error(path_, "cannot create " + temporary_.string(), errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  out_.close();
  if (in_place_) return;  // a device: nothing of ours to remove
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicFileWriter::commit() {
  if (in_place_) {
    committed_ = true;
    out_.flush();
    if (!out_) write_error(path_, "cannot write", errno);
    out_.close();
    if (out_.fail()) write_error(path_, "cannot close", errno);
    return;
  }
  try {
    out_.flush();
    if (!out_) write_error(path_, "cannot write " + temporary_.string(), errno);
    out_.close();
    if (out_.fail()) write_error(path_, "cannot close " + temporary_.string(), errno);
    const int fd = ::open(temporary_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) write_error(path_, "cannot reopen " + temporary_.string(), errno);
    const bool synced = ::fsync(fd) == 0;
    const int sync_error = errno;
    ::close(fd);
    if (!synced) write_error(path_, "cannot flush " + temporary_.string(), sync_error);
    std::error_code ec;
    std::filesystem::rename(temporary_, path_, ec);
    if (ec) write_error(path_, "cannot rename " + temporary_.string() + " to it", ec.value());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    committed_ = true;  // nothing left for the destructor to remove
    throw;
  }
  committed_ = true;
  flush_directory_of(path_);
}

}  // namespace linfault::history
