// write_file_atomically: writes a whole file so that a reader, or a process killed mid-write,
// never leaves a partial one: the text goes to a temporary file in the same directory (unique
// per process and call), is flushed to disk, and is renamed over `path`; the directory entry is
// then flushed too (best effort). The directory must exist.
//
// The temporary file is hidden and does not end in the final name's extension:
// ".<name>.tmp.<pid>.<n>", so a directory walk that skips dot files (or keeps *.json only) never
// mistakes one for a result. A process killed mid-write leaves one behind;
// remove_stale_temporaries() deletes those whose writer is gone.
//
// Used for every file linfault writes that another command reads back: recorded histories
// (history/recorder.h), test cases and repros (minimize/pipeline.h).
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.
//
// Thread-safety: safe to call concurrently, also for the same path (the last rename wins).

#ifndef LINFAULT_HISTORY_ATOMIC_FILE_H_
#define LINFAULT_HISTORY_ATOMIC_FILE_H_

#include <cstddef>
#include <filesystem>
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

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_ATOMIC_FILE_H_
