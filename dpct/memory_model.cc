#include "dpct/memory_model.h"

#include <charconv>

namespace linfault::dpct {

const char* memory_model_name(MemoryModel model) {
  return model == MemoryModel::kC11 ? "c11" : "sc";
}

std::optional<MemoryModel> parse_memory_model(std::string_view name) {
  if (name == "sc") return MemoryModel::kSequential;
  if (name == "c11") return MemoryModel::kC11;
  return std::nullopt;
}

std::string store_id_text(const StoreId& id) {
  std::string out = id.initial() ? "i" : std::to_string(id.thread) + "." + std::to_string(id.seq);
  if (id.incarnation != 0) out += "/" + std::to_string(id.incarnation);
  return out;
}

namespace {
bool parse_u32(std::string_view text, std::uint32_t& out) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}
}  // namespace

std::optional<StoreId> parse_store_id(std::string_view text) {
  StoreId id;
  if (const std::size_t slash = text.find('/'); slash != std::string_view::npos) {
    if (!parse_u32(text.substr(slash + 1), id.incarnation)) return std::nullopt;
    text = text.substr(0, slash);
  }
  if (text == "i") return id;
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || !parse_u32(text.substr(0, dot), id.thread) ||
      id.thread == StoreId::kInitialWriter || !parse_u32(text.substr(dot + 1), id.seq)) {
    return std::nullopt;
  }
  return id;
}

}  // namespace linfault::dpct
