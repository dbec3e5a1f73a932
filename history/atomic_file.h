// write_file_atomically: writes a whole file so that a reader, or a process killed mid-write,
// never leaves a partial one: the text goes to a temporary file in the same directory (unique
// per process and call), is flushed to disk, and is renamed over `path`; the directory entry is
// then flushed too (best effort). The directory must exist.
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

#include <filesystem>
#include <string_view>

namespace linfault::history {

// Throws std::runtime_error "<path>: <what failed>: <reason>"; the temporary file is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_ATOMIC_FILE_H_
