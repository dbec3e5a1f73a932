// The structure-tree extractor: reads a concurrent object's C++ source with Clang (libTooling)
// and builds the structure tree (structure_tree/tree.h) of each of its operations.
//
// Shared-memory instructions are exactly the instrumented accesses of dpct/shared.h: the member
// calls load/store/exchange/compare_exchange/fetch_add/fetch_sub of dpct::Atomic, load/store of
// dpct::Var, lock/try_lock/unlock of dpct::Mutex, a dpct::LockGuard declaration, and
// dpct::spin_hint(). docs/structure-trees.md states every policy; in short:
//   - operations: the public, non-static, named member functions of each class whose body is in
//     one of the input files (constructors, destructors and operators are not operations);
//   - loops (for, range-for, while, do) are L units; theta is the trip count when it is a
//     compile-time constant (counted for loops, range-for over fixed-size arrays, do-while(false));
//   - if/switch/?: and the right operand of &&/|| are C units with one B per branch; an absent
//     else/default is an empty B; an `if constexpr` contributes only its instantiated branch;
//   - L and C units that contain no shared-memory instruction are pruned, so the S units around
//     them merge; statements after a return/break/continue/throw in the same block are dead and
//     ignored;
//   - a locked block (LockGuard to the end of its scope; mutex.lock() to the next unlock() in the
//     same block, or the end of it) is ONE atomic instruction whose points are the lock, every
//     access inside (control flow inside is flattened) and the unlock;
//   - calls to functions with a body outside system headers and outside dpct are followed: the
//     callee's units are inlined at the call site (recursion is cut at the second entry);
//   - templates: trees come from instantiations (RecursiveASTVisitor skips patterns), one per
//     class template and method, from the first instantiation in name order; a template without
//     an instantiation in the parsed sources yields no tree (add `template class X<int>;`);
//   - lambdas: a lambda's body counts where it is called (its operator() is an ordinary followed
//     call); a lambda passed to a function that is not followed (a std algorithm) is an L unit
//     with unknown theta at that call, since it may run any number of times.
//
// Locations follow g++'s std::source_location convention for a defaulted parameter (the column
// of the '(' of a call, of the ')' or '}' closing a constructor's initializer), so that the
// runtime maps each scheduling point to its instruction.
//
// Thread-safety: the functions are reentrant; each call parses on its own.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_STRUCTURE_TREE_EXTRACTOR_H_
#define LINFAULT_STRUCTURE_TREE_EXTRACTOR_H_

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "structure_tree/tree.h"

namespace linfault::structure_tree {

struct ExtractOptions {
  std::vector<std::string> classes;  // only these classes (unqualified names); empty: all
};

// A source that does not compile, a missing compilation database, an unreadable file. The
// message is one line: "file:line:column: problem" when a position is known.
class ExtractError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses `code` as if it were the file `file_name` with compiler arguments `args` (without the
// compiler name, e.g. {"-std=c++20", "-I/path/to/linfault"}).
TreeSet extract_from_code(const std::string& code, const std::string& file_name,
                          const std::vector<std::string>& args, const ExtractOptions& options);

// Parses `files` with the compile commands of `build_dir`'s compile_commands.json, or with
// `fixed_flags` (the arguments after "--" on a command line). Exactly one of the two must be
// given; there is no guessing of flags. Headers among `files` are parsed only when no other file is
// given; they still select the classes and methods to extract.
TreeSet extract_from_files(const std::vector<std::string>& files, const std::string& build_dir,
                           const std::optional<std::vector<std::string>>& fixed_flags,
                           const ExtractOptions& options);

}  // namespace linfault::structure_tree

#endif  // LINFAULT_STRUCTURE_TREE_EXTRACTOR_H_
