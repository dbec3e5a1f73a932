// Crash-safe file output: a file linfault writes is either absent, its previous content, or
// complete — never partial, even when the process is killed mid-write. The text goes to a
// temporary file in the same directory (named `<path>.tmp.<pid>.<n>`, unique per process and
// call), is flushed to disk, and is renamed over `path`; the directory entry is then flushed too
// (best effort). The directory must exist.
//
// write_file_atomically writes a string; AtomicFileWriter streams (`linfault gen` of 10^7
// operations, HTML reports) and renames on commit(). Used for every file linfault writes:
// recorded histories, test cases, repros, reports, generated histories, saved runs.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.
//
// Thread-safety: safe to call concurrently, also for the same path (the last rename wins); one
// AtomicFileWriter is used by one thread at a time.

#ifndef LINFAULT_HISTORY_ATOMIC_FILE_H_
#define LINFAULT_HISTORY_ATOMIC_FILE_H_

#include <filesystem>
#include <fstream>
#include <string_view>

namespace linfault::history {

// Throws std::runtime_error "<path>: <what failed>: <reason>"; the temporary file is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// True for the name of a temporary file of a write that has not completed (`x.json.tmp.12.3`):
// directory scans skip such files.
bool is_temporary_file_name(std::string_view file_name);

class AtomicFileWriter {
 public:
  // Creates the temporary file; throws std::runtime_error as write_file_atomically does.
  explicit AtomicFileWriter(std::filesystem::path path);
  // Removes the temporary file unless commit() succeeded: `path` keeps its previous content.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes the text to disk and renames it over `path`; throws std::runtime_error (and removes
  // the temporary file) when a write failed.
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_ATOMIC_FILE_H_
