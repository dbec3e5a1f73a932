// What the two Clang translation units of structure_tree (extractor.cc, rewriter.cc) share:
// parsing C++ the way linfault's build compiles it, and reporting the first error in one line.
//
//   - every parse gets the resource directory of Debian's Clang 14 and a force-included shim for
//     std::source_location, which libstdc++ defines only when the compiler has
//     __builtin_source_location (Clang 14 lacks it) and which dpct/shared.h needs;
//   - files are parsed with the compile commands of a build directory's compile_commands.json,
//     or with fixed flags (never guessed); a header given alone is parsed as C++;
//   - a parse that fails throws ExtractError with "file:line:column: error: message".
//
// Internal header; it includes Clang headers, so only those two translation units include it.
//
// Thread-safety: the functions are reentrant.

#ifndef LINFAULT_STRUCTURE_TREE_CLANG_SUPPORT_H_
#define LINFAULT_STRUCTURE_TREE_CLANG_SUPPORT_H_

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "structure_tree/extractor.h"

namespace linfault::structure_tree::clang_support {

inline constexpr const char* kResourceDir = "-resource-dir=/usr/lib/llvm-14/lib/clang/14.0.6";
inline constexpr const char* kShimPath = "/linfault-structure-shims/source_location.h";
inline constexpr const char* kShimContent = R"(
#if !__has_builtin(__builtin_source_location)
namespace std {
struct source_location {
  static constexpr source_location current(unsigned l = __builtin_LINE(),
                                           unsigned c = __builtin_COLUMN(),
                                           const char* f = __builtin_FILE(),
                                           const char* fn = __builtin_FUNCTION()) noexcept {
    source_location s; s.l_ = l; s.c_ = c; s.f_ = f; s.fn_ = fn; return s;
  }
  constexpr source_location() noexcept = default;
  constexpr unsigned line() const noexcept { return l_; }
  constexpr unsigned column() const noexcept { return c_; }
  constexpr const char* file_name() const noexcept { return f_; }
  constexpr const char* function_name() const noexcept { return fn_; }
 private:
  unsigned l_ = 0, c_ = 0; const char* f_ = ""; const char* fn_ = "";
};
}
#endif
)";

// Appended to every parse's arguments.
inline std::vector<std::string> parse_arguments() {
  // Only the first error is reported: the parse stops there (a header that refuses to be
  // included on its own fails fast).
  return {kResourceDir, "-include", kShimPath, "-Wno-everything", "-ferror-limit=1"};
}

inline std::string normal_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) absolute = path;
  fs::path canonical = fs::weakly_canonical(absolute, error);
  return (error ? absolute.lexically_normal() : canonical).string();
}

inline bool is_header(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".h" || ext == ".hh" || ext == ".hpp" || ext == ".hxx" || ext == ".inc";
}

// Records the first error of a parse, as "file:line:column: error: message". An error inside a
// header (a static_assert of linfault's binding on an unsupported parameter type) is followed by
// notes leading back to the code that caused it; the first of them in the parsed file itself is
// appended, "(required from file:line:column)", so that the message names the user's line. Code
// written in a macro's argument (LINFAULT_REGISTER_TARGET's lambda) is located where it is
// written, not at the macro's name.
class FirstErrorConsumer : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level == clang::DiagnosticsEngine::Note) {
      if (awaiting_origin_ && info.hasSourceManager() && info.getLocation().isValid()) {
        const clang::SourceManager& sources = info.getSourceManager();
        const clang::SourceLocation at = sources.getFileLoc(info.getLocation());
        if (sources.isInMainFile(at)) {
          first_ += " (required from " + location(sources, at) + ")";
          awaiting_origin_ = false;
        }
      }
      return;
    }
    awaiting_origin_ = false;  // the notes of the first error are over
    if (level < clang::DiagnosticsEngine::Error || !first_.empty()) return;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    std::string where;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sources = info.getSourceManager();
      const clang::SourceLocation at = sources.getFileLoc(info.getLocation());
      where = location(sources, at);
      if (!where.empty()) where += ": ";
      awaiting_origin_ = !sources.isInMainFile(at);
      top_include_ = top_include(sources, at);
    }
    first_ = where + "error: " + std::string(message.str());
  }
  const std::string& first() const { return first_; }
  // The file the parsed file includes that leads to the first error ("" when it is in the
  // parsed file itself).
  const std::string& first_top_include() const { return top_include_; }

 private:
  static std::string location(const clang::SourceManager& sources, clang::SourceLocation at) {
    const clang::PresumedLoc loc = sources.getPresumedLoc(at);
    if (!loc.isValid()) return "";
    return std::string(loc.getFilename()) + ':' + std::to_string(loc.getLine()) + ':' +
           std::to_string(loc.getColumn());
  }

  static std::string top_include(const clang::SourceManager& sources, clang::SourceLocation at) {
    clang::FileID file = sources.getFileID(at);
    for (clang::SourceLocation by = sources.getIncludeLoc(file); by.isValid();
         by = sources.getIncludeLoc(file)) {
      if (sources.isInMainFile(by)) {
        const clang::FileEntry* entry = sources.getFileEntryForID(file);
        return entry == nullptr ? "" : normal_path(std::string(entry->getName()));
      }
      file = sources.getFileID(by);
    }
    return "";
  }

  std::string first_;
  std::string top_include_;
  bool awaiting_origin_ = false;
};

// A parse that failed: ExtractError's one line, and the file the parsed file includes that led
// to the error ("" when the error is in the parsed file itself or unknown).
class UnitError : public ExtractError {
 public:
  UnitError(const std::string& message, std::string top_include)
      : ExtractError(message), top_include_(std::move(top_include)) {}
  const std::string& top_include() const { return top_include_; }

 private:
  std::string top_include_;
};

inline void check_unit(const std::unique_ptr<clang::ASTUnit>& unit,
                       const FirstErrorConsumer& errors, const std::string& file) {
  if (!unit) {
    throw UnitError(file + ": " + (errors.first().empty() ? "could not be parsed" : errors.first()),
                    errors.first_top_include());
  }
  if (unit->getDiagnostics().hasErrorOccurred()) {
    throw UnitError(errors.first().empty() ? file + ": does not compile" : errors.first(),
                    errors.first_top_include());
  }
}

// Parses `code` as the file `file_name` with `args` plus parse_arguments().
inline std::unique_ptr<clang::ASTUnit> parse_code(const std::string& code,
                                                  const std::string& file_name,
                                                  const std::vector<std::string>& args) {
  std::vector<std::string> all_args = args;
  for (const std::string& extra : parse_arguments()) all_args.push_back(extra);
  FirstErrorConsumer errors;
  const clang::tooling::FileContentMappings shims = {{kShimPath, kShimContent}};
  std::unique_ptr<clang::ASTUnit> unit = clang::tooling::buildASTFromCodeWithArgs(
      code, all_args, file_name, "linfault-structure",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), shims, &errors);
  check_unit(unit, errors, file_name);
  return unit;
}

// The files a run is about (`owned`, normalized) and the ones to parse: the sources among them,
// or the headers when there is no source.
struct Inputs {
  std::set<std::string> owned;
  std::vector<std::string> sources;
};

inline Inputs inputs_of(const std::vector<std::string>& files) {
  if (files.empty()) throw ExtractError("no input files");
  Inputs inputs;
  for (const std::string& file : files) {
    if (!std::filesystem::exists(file)) throw ExtractError(file + ": cannot open (no such file)");
    inputs.owned.insert(normal_path(file));
    if (!is_header(file)) inputs.sources.push_back(normal_path(file));
  }
  if (inputs.sources.empty()) {
    for (const std::string& file : files) inputs.sources.push_back(normal_path(file));
  }
  return inputs;
}

// Parses each of `sources` with the compile commands of `build_dir` or with `fixed_flags`
// (exactly one of them), and calls `use` on each unit. `virtual_files` (path -> text) are files
// the parses see without their being on disk: a source among them is parsed from its text (a
// build directory's compile commands give it those of the nearest source they list).
inline void for_each_unit(
    const std::vector<std::string>& sources, const std::string& build_dir,
    const std::optional<std::vector<std::string>>& fixed_flags,
    const std::function<void(clang::ASTUnit&)>& use,
    const std::vector<std::pair<std::string, std::string>>& virtual_files = {}) {
  if (build_dir.empty() == !fixed_flags.has_value()) {
    throw ExtractError(build_dir.empty() ? "no compilation database: give -p BUILD_DIR (holding "
                                           "compile_commands.json) or the compiler flags after --"
                                         : "give either -p BUILD_DIR or flags after --, not both");
  }
  std::unique_ptr<clang::tooling::CompilationDatabase> database;
  if (!build_dir.empty()) {
    std::string message;
    database = clang::tooling::CompilationDatabase::loadFromDirectory(build_dir, message);
    if (!database) {
      throw ExtractError(build_dir + ": no usable compile_commands.json (" + message + ")");
    }
  } else {
    database = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", *fixed_flags);
  }
  for (const std::string& source : sources) {
    clang::tooling::ClangTool tool(*database, {source});
    tool.mapVirtualFile(kShimPath, kShimContent);
    for (const auto& [path, text] : virtual_files) tool.mapVirtualFile(path, text);
    tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        parse_arguments(), clang::tooling::ArgumentInsertPosition::END));
    if (is_header(source)) {
      // Without a compile command of its own a header would be parsed as C.
      tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
          {"-x", "c++"}, clang::tooling::ArgumentInsertPosition::BEGIN));
    }
    FirstErrorConsumer errors;
    tool.setDiagnosticConsumer(&errors);
    std::vector<std::unique_ptr<clang::ASTUnit>> units;
    tool.buildASTs(units);
    if (units.empty()) check_unit(nullptr, errors, source);
    for (const auto& unit : units) {
      check_unit(unit, errors, source);
      use(*unit);
    }
  }
}

}  // namespace linfault::structure_tree::clang_support

#endif  // LINFAULT_STRUCTURE_TREE_CLANG_SUPPORT_H_
