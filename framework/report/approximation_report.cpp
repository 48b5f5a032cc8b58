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

std::string with_approximation(const std::string& document, const ChipSpec& chip, const char* key) {
  nlohmann::json doc = nlohmann::json::parse(document);
  doc[key] = text_or_null(chip.approximation);
  return json_text(doc, 1) + "\n";
}

std::string approximation_lines(const serve::OpenedServe& opened) {
  const ChipSpec& chip = opened.machine.chip->spec;
  std::string lines = approximation_line(chip.name, chip.approximation);
  if (opened.prefill_chip)
    lines +=
        approximation_line(opened.prefill_chip->spec.name, opened.prefill_chip->spec.approximation);
  return lines;
}

std::string with_approximations(const std::string& document, const serve::OpenedServe& opened) {
  std::string out = with_approximation(document, opened.machine.chip->spec);
  if (opened.prefill_chip)
    out = with_approximation(out, opened.prefill_chip->spec, "prefill_approximation");
  return out;
}

}  // namespace tessera
