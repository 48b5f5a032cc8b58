#include "framework/cli/number_checks.hpp"

#include <stdexcept>
#include <string>

#include "framework/driver/option_bounds.hpp"

namespace tessera::cli {

CLI::Validator bounded(std::string_view command, std::string_view option) {
  const driver::OptionBound* bound = driver::find_option_bound(command, option);
  if (!bound)
    throw std::logic_error("no bound for " + std::string(option) + " of " + std::string(command));
  return CLI::Validator(
      [bound](std::string& text) -> std::string { return driver::bound_violation(*bound, text); },
      std::string(bound->whole ? "INT" : "NUMBER") + " in " + driver::range_text(*bound));
}

}  // namespace tessera::cli
