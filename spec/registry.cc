#include "spec/registry.h"

namespace linfault::spec {
namespace {

std::string unknown_model_message(std::string_view name) {
  std::string message = "unknown model '" + std::string(name) + "' (known models:";
  for (std::string_view known : model_names()) message += " " + std::string(known);
  return message + ")";
}

}  // namespace

UnknownModel::UnknownModel(std::string_view name)
    : std::invalid_argument(unknown_model_message(name)), name_(name) {}

std::vector<std::string_view> model_names() {
  return {"register", "cas-register",  "kv",    "set",     "stack",
          "queue",    "priorityqueue", "deque", "counter", "snapshot"};
}

}  // namespace linfault::spec
