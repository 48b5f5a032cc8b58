#include "framework/report/approximation_report.hpp"

#include "framework/common/json_text.hpp"

namespace tessera {

namespace {

constexpr const char* kLabel = "chip model   ";

}  // namespace

std::string approximation_line(const ChipSpec& chip) {
  return chip.approximation.empty() ? "" : kLabel + chip.approximation + "\n";
}

std::string approximation_line(const std::string& chip_name, const std::string& approximation) {
  return approximation.empty() ? "" : kLabel + chip_name + ": " + approximation + "\n";
}

std::string with_approximation(const std::string& document, const ChipSpec& chip) {
  nlohmann::json doc = nlohmann::json::parse(document);
  doc["approximation"] = text_or_null(chip.approximation);
  return json_text(doc, 1) + "\n";
}

}  // namespace tessera
