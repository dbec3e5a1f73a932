// Crash-safe file output: a file linfault writes is either absent, its previous content, or
// complete — never partial, even when the process is killed mid-write. The text goes to a
// temporary file in the same directory (unique per process and call), is flushed to disk, and is
// renamed over `path`; the directory entry is then flushed too (best effort). The directory must
// exist. write_file_atomically writes a string; AtomicFileWriter streams (`linfault gen` of 10^7
// operations, HTML reports) and renames on commit().
//
// A path that names a symbolic link replaces the file it links to; the link stays. A path that
// names neither a regular file nor a directory (a device such as /dev/null or /dev/stdout, a
// FIFO) is written in place, without the guarantee: renaming over it would replace the device.
//
// The temporary file is hidden and does not end in the final name's extension:
// ".<name>.tmp.<pid>.<n>", so a directory walk that skips dot files (or keeps *.json only) never
// mistakes one for a result. A process killed mid-write leaves one behind;
// remove_stale_temporaries() deletes those whose writer is gone.
//
// Used for every file linfault writes: recorded histories (history/recorder.h), test cases and
// repros (minimize/pipeline.h), saved runs and summaries, reports, generated histories.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.
//
// Thread-safety: safe to call concurrently, also for the same path (the last rename wins); one
// AtomicFileWriter is used by one thread at a time.

#ifndef LINFAULT_HISTORY_ATOMIC_FILE_H_
#define LINFAULT_HISTORY_ATOMIC_FILE_H_

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace linfault::history {

// kDurable: the file and the rename are flushed to disk (fsync) before returning, so the file
// survives a power loss too. kProcessSafe: no flush; a killed process still never leaves a
// partial file (the rename is atomic), but a power loss may. It is for many files written in a
// row (a campaign's saved runs, about 10 ms less each): flush them all at once with
// flush_file_system() before a durable file that counts them.
enum class Durability { kDurable, kProcessSafe };

// Throws std::runtime_error "<path>: <what failed>: <reason>"; the temporary file is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           Durability durability = Durability::kDurable);

// Flushes every written file of the file system holding `directory` (syncfs); best effort.
void flush_file_system(const std::filesystem::path& directory);

// Whether `filename` (no directory) has the form of write_file_atomically's temporaries.
bool is_atomic_temporary(std::string_view filename);

// Removes from `directory` (not its subdirectories) the temporaries of writers that no longer
// run (their process id is gone); returns how many. Errors are ignored: it is housekeeping.
std::size_t remove_stale_temporaries(const std::filesystem::path& directory);

class AtomicFileWriter {
 public:
  // Creates the temporary file; throws std::runtime_error as write_file_atomically does.
  explicit AtomicFileWriter(std::filesystem::path path);
  // Removes the temporary file unless commit() succeeded: `path` keeps its previous content.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes the text to disk and renames it over `path` (durably); throws std::runtime_error (and
  // removes the temporary file) when a write failed.
  void commit();

 private:
  std::filesystem::path path_;  // the file renamed over (a symbolic link's target)
  bool in_place_;               // a device or FIFO: written directly, no temporary
  std::filesystem::path temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_ATOMIC_FILE_H_
