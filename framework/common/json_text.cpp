#include "framework/common/json_text.hpp"

#include "framework/common/user_text.hpp"

namespace tessera {

namespace {

// A copy of `doc` with every string and key made valid UTF-8.
nlohmann::json with_valid_strings(const nlohmann::json& doc) {
  if (doc.is_string()) return valid_utf8(doc.get_ref<const std::string&>());
  if (doc.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : doc) out.push_back(with_valid_strings(item));
    return out;
  }
  if (doc.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : doc.items()) out[valid_utf8(key)] = with_valid_strings(value);
    return out;
  }
  return doc;
}

}  // namespace

std::string json_text(const nlohmann::json& doc, int indent) {
  // Nearly every document is UTF-8 already: copy only the one that is not.
  try {
    return doc.dump(indent);
  } catch (const nlohmann::json::type_error&) {
    return with_valid_strings(doc).dump(indent);
  }
}

}  // namespace tessera
