// Embedded structure trees: the registry through which the trees that linfault_structure_trees()
// (cmake/LinfaultStructureTrees.cmake) compiles into a library become visible to D-PCT, with no
// code from the library's author.
//
// The generated source of each library registers its tree set's JSON text here during static
// initialization; embedded_trees() parses and merges everything registered so far. A library
// whose object files are not linked (a static archive nothing references) registers nothing, so
// linfault_add_target() builds object libraries.
//
// Internal header: tools, the GoogleTest check and `linfault run` use it through the pipeline.
//
// Thread-safety: both functions may be called from any thread, also during static
// initialization (register_embedded_trees).

#ifndef LINFAULT_STRUCTURE_TREE_EMBEDDED_H_
#define LINFAULT_STRUCTURE_TREE_EMBEDDED_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "structure_tree/tree.h"

namespace linfault::structure_tree {

// Registers the JSON form of the trees of `library` (an empty text, from a build without the
// extractor, registers nothing). `json` must outlive the program (a string literal). Registering
// the same library twice keeps the first. Returns true, for use in a static initializer.
bool register_embedded_trees(std::string_view library, std::string_view json);

// The libraries registered so far that carry trees.
std::vector<std::string> embedded_tree_libraries();

// All registered trees, merged; nullptr when none are registered. Parsed once per new
// registration; throws TreeFormatError naming the library for a malformed text.
std::shared_ptr<const TreeSet> embedded_trees();

}  // namespace linfault::structure_tree

#endif  // LINFAULT_STRUCTURE_TREE_EMBEDDED_H_
