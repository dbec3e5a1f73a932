#include "spec/dynamic_model.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "spec/registry.h"

namespace linfault::spec {
namespace {

struct Registration {
  std::string name;
  std::string origin;
  DynamicModelMaker maker;
};

struct Registry {
  std::mutex mutex;
  // Behind pointers, so that the makers and names handed out stay where they are; an entry is
  // never removed, and a replaced one is kept alive in `retired`.
  std::vector<std::unique_ptr<Registration>> entries;
  std::vector<std::unique_ptr<Registration>> retired;
  std::vector<std::string> errors;  // bad registrations, reported by lookups
  // Whether `errors` is not empty, read without the lock by every visit_model().
  std::atomic<bool> any_error{false};
};

Registry& registry() {
  static Registry* instance = new Registry;  // never destroyed: used from static initializers
  return *instance;
}

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

}  // namespace

void register_dynamic_model(std::string name, DynamicModelMaker maker, std::string origin) {
  // Registrations run in static initializers, where an exception would end the program before
  // main() with no useful message: a bad one is kept and reported at the first lookup instead.
  std::string error;
  const std::vector<std::string_view> built_in = model_names_built_in();
  if (!valid_name(name)) {
    error = origin + ": bad model name '" + name + "' (letters, digits, '-' and '_' only)";
  } else if (std::find(built_in.begin(), built_in.end(), name) != built_in.end()) {
    error = origin + ": model name '" + name + "' is taken by a built-in model";
  } else if (!maker) {
    error = origin + ": model '" + name + "' has no maker";
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (!error.empty()) {
    r.errors.push_back(std::move(error));
    r.any_error = true;
    return;
  }
  for (auto& entry : r.entries) {
    if (entry->name != name) continue;
    if (entry->origin != origin) {
      r.errors.push_back(origin + ": model '" + name + "' is already registered at " +
                         entry->origin);
      r.any_error = true;
      return;
    }
    auto replacement =
        std::make_unique<Registration>(Registration{std::move(name), std::move(origin), maker});
    r.retired.push_back(std::move(entry));
    entry = std::move(replacement);
    return;
  }
  r.entries.push_back(
      std::make_unique<Registration>(Registration{std::move(name), std::move(origin), maker}));
}

void throw_bad_model_registration() {
  Registry& r = registry();
  if (!r.any_error.load()) return;
  std::lock_guard lock(r.mutex);
  throw std::invalid_argument(r.errors.front());
}

const DynamicModelMaker* find_dynamic_model(std::string_view name) {
  throw_bad_model_registration();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& entry : r.entries) {
    if (entry->name == name) return &entry->maker;
  }
  return nullptr;
}

std::vector<std::string_view> dynamic_model_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string_view> names;
  for (const auto& entry : r.entries) names.push_back(entry->name);
  return names;
}

std::optional<ErasedModel> make_dynamic_model(const ModelSpec& spec) {
  const DynamicModelMaker* maker = find_dynamic_model(spec.name);
  if (maker == nullptr) return std::nullopt;
  ModelParams params = spec.params;
  std::shared_ptr<DynamicModel> model = (*maker)(params);
  if (!model) throw ModelSpecError("model '" + spec.name + "': its maker returned no model");
  params.expect_all_taken(spec.name);
  return ErasedModel(std::move(model), spec.canonical());
}

}  // namespace linfault::spec
