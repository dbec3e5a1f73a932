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

constexpr std::string_view kTemporaryInfix = ".tmp.";

[[noreturn]] void write_error(const std::filesystem::path& path, const std::string& what,
                              int error) {
  throw std::runtime_error(path.string() + ": " + what + ": " +
                           std::generic_category().message(error));
}

std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> temporaries{0};
  std::filesystem::path temporary = path;
  temporary += std::string(kTemporaryInfix) + std::to_string(::getpid()) + "." +
               std::to_string(temporaries++);
  return temporary;
}

// fsync of the temporary, rename over `path`, fsync of the directory (best effort).
void publish(const std::filesystem::path& temporary, const std::filesystem::path& path) {
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) write_error(path, "cannot reopen " + temporary.string(), errno);
  const bool synced = ::fsync(fd) == 0;
  const int sync_error = errno;
  ::close(fd);
  if (!synced) write_error(path, "cannot flush " + temporary.string(), sync_error);
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) write_error(path, "cannot rename " + temporary.string() + " to it", ec.value());
  // Makes the rename itself durable; failing to is not an error (some file systems refuse it).
  const std::filesystem::path directory =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  if (const int dir = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

bool is_temporary_file_name(std::string_view file_name) {
  const std::size_t infix = file_name.rfind(kTemporaryInfix);
  if (infix == std::string_view::npos) return false;
  std::string_view rest = file_name.substr(infix + kTemporaryInfix.size());
  const std::size_t dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size()) return false;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (i != dot && (rest[i] < '0' || rest[i] > '9')) return false;
  }
  return true;
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path)
    : path_(std::move(path)), temporary_(temporary_path_for(path_)) {
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) write_error(path_, "cannot create " + temporary_.string(), errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  out_.close();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicFileWriter::commit() {
  try {
    out_.flush();
    if (!out_) write_error(path_, "cannot write " + temporary_.string(), errno);
    out_.close();
    if (out_.fail()) write_error(path_, "cannot close " + temporary_.string(), errno);
    publish(temporary_, path_);
    committed_ = true;
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    committed_ = true;  // nothing left for the destructor to remove
    throw;
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  AtomicFileWriter writer(path);
  writer.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  writer.commit();
}

}  // namespace linfault::history
