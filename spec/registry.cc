#include "spec/registry.h"

#include <algorithm>

namespace linfault::spec {
namespace {

std::string unknown_model_message(std::string_view name) {
  std::string message = "unknown model '" + std::string(name) + "' (known models:";
  for (std::string_view known : model_names()) message += " " + std::string(known);
  return message + ")";
}

}  // namespace

UnknownModel::UnknownModel(std::string_view name)
    : ModelSpecError(unknown_model_message(name)), name_(name) {}

std::vector<std::string_view> model_names_built_in() {
  return {"register", "cas-register",   "kv",    "set",     "stack",
          "queue",    "priorityqueue",  "deque", "counter", "snapshot",
          "mutex",    "multi-register", "bag"};
}

std::vector<std::string_view> model_names() {
  std::vector<std::string_view> names = model_names_built_in();
  for (std::string_view name : dynamic_model_names()) names.push_back(name);
  return names;
}

std::string canonical_model_spec(std::string_view spec_text) {
  return visit_model(spec_text, [](const auto& model) { return std::string(model.name()); });
}

bool same_model(std::string_view a, std::string_view b) {
  if (a == b) return true;  // also for specs only the program that wrote them can resolve
  try {
    return canonical_model_spec(a) == canonical_model_spec(b);
  } catch (const ModelSpecError&) {
    return false;
  }
}

std::optional<std::string> call_problem(std::string_view spec_text, const history::Call& call) {
  history::Operation pending;
  pending.call = call;
  pending.outcome = history::Outcome::kPending;
  return visit_model(spec_text, [&](const auto& model) -> std::optional<std::string> {
    auto compiled = model.compile(pending);
    if (const ModelError* error = std::get_if<ModelError>(&compiled)) return error->message;
    return std::nullopt;
  });
}

std::vector<std::string> method_aliases(std::string_view spec_text, const std::string& method) {
  history::Operation probe;
  probe.call = history::Call{method, {}};
  probe.outcome = history::Outcome::kPending;
  std::vector<std::string> aliases;
  {
    const AliasCapture capture(aliases);
    visit_model(spec_text, [&](const auto& model) {
      (void)model.compile(probe);
      return 0;
    });
  }
  if (std::find(aliases.begin(), aliases.end(), method) == aliases.end()) {
    aliases.insert(aliases.begin(), method);
  }
  return aliases;
}

std::string model_spec_with_init(std::string_view spec_text, const history::Value& value) {
  ModelSpec spec = parse_model_spec(spec_text);
  spec.params.set("init", value);
  return canonical_model_spec(spec.canonical());
}

}  // namespace linfault::spec
