#include "structure_tree/embedded.h"

#include <mutex>
#include <utility>

namespace linfault::structure_tree {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string_view>> texts;
  std::shared_ptr<const TreeSet> merged;  // of all of `texts`, or null when out of date
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

bool register_embedded_trees(std::string_view library, std::string_view json) {
  if (json.empty()) return true;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& [name, text] : r.texts) {
    if (name == library) return true;
  }
  r.texts.emplace_back(std::string(library), json);
  r.merged.reset();
  return true;
}

std::vector<std::string> embedded_tree_libraries() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& entry : r.texts) names.push_back(entry.first);
  return names;
}

std::shared_ptr<const TreeSet> embedded_trees() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.texts.empty()) return nullptr;
  if (!r.merged) {
    auto merged = std::make_shared<TreeSet>();
    for (const auto& [name, text] : r.texts) {
      merged->merge(parse_tree_set(text, "the embedded structure trees of " + name));
    }
    r.merged = std::move(merged);
  }
  return r.merged;
}

}  // namespace linfault::structure_tree
