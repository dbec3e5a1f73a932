// History file formats: loading a History from any of the formats linfault reads.
//
// Formats (docs/formats.md has the details and the exact semantics chosen for each):
//   json        linfault's own JSON form (history/json_format.h), lossless.
//   jepsen-log  a Jepsen console log; only `INFO jepsen.util - <process> :<type> :<f> <value>`
//               lines count (e.g. Porcupine's etcd logs); implies the cas-register model when its
//               methods are read/write/cas, mutex for acquire/release, multi-register for txn.
//   edn         Jepsen/Knossos operation maps ({:process 0, :type :invoke, :f :read, ...}): bare,
//               one per line or spread over lines, or in one top-level vector or list, possibly
//               tagged (#jepsen.history.Op{...}); implies the kv model when operations carry a
//               :key, else as jepsen-log does.
//   fastlin     `# stack|queue|priorityqueue|set|deque` then `method value start end` lines;
//               implies the model named in the header.
//   snapshot    one line of `startUpdate!p,v;endUpdate!p,v;startScan!p;endScan!p,x0,x1` actions;
//               implies the snapshot model.
//   auto        recognizes each of the above by content, never by file name.
//
// Every error is a history::InputError whose what() is "file:line: problem"; a file that cannot be
// opened is an OpenError (a subclass), so callers can tell "bad data" from "no data".
//
// Thread-safety: all functions are reentrant; they share no state.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_HISTORY_FORMATS_H_
#define LINFAULT_HISTORY_FORMATS_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "history/history.h"

namespace linfault::history {

enum class Format { kAuto, kJson, kJepsenLog, kEdn, kFastlin, kSnapshot };

// "auto", "json", "jepsen-log", "edn", "fastlin", "snapshot"; nullopt for anything else.
std::optional<Format> parse_format_name(std::string_view name);
const char* format_name(Format format);
// All names accepted by parse_format_name, in a stable order.
std::vector<std::string_view> format_names();

struct LoadedHistory {
  History history;
  Format format = Format::kAuto;  // the format actually read (never kAuto)
  // The model the file itself implies, if any (see above), as a spec/registry.h model name.
  std::optional<std::string> model;
};

// The input file could not be opened or read; what() is "file: cannot open: reason".
class OpenError : public InputError {
 public:
  using InputError::InputError;
};

// The whole content of the file at `path`, read in one go (one allocation of the file's size for
// a regular file; pipes and character devices are read in chunks). Throws OpenError
// "path: cannot open: reason" when it cannot be opened (missing, a directory, no permission) or
// read. Every command reads its input files through it (JSON documents: read_json_file of
// history/json_format.h).
std::string read_file(const std::string& path);

// Recognizes the format of `text` by its content. Throws InputError naming `origin` when the
// content matches none of the formats (including empty input).
Format detect_format(std::string_view text, const std::string& origin);

// Loads a history; `origin` names the input in messages and becomes History::origin().
LoadedHistory load_history_text(std::string_view text, const std::string& origin, Format format);
LoadedHistory load_history(std::istream& in, const std::string& origin, Format format);
// Throws OpenError if `path` cannot be read, InputError if its content is malformed.
LoadedHistory load_history_file(const std::string& path, Format format = Format::kAuto);

}  // namespace linfault::history

#endif  // LINFAULT_HISTORY_FORMATS_H_
