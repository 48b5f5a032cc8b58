#include "framework/driver/choices.hpp"

#include "framework/planner/planner.hpp"

namespace tessera::driver {

using planner::Design;

Result<DesignChoice> parse_design_choice(const std::string& text) {
  DesignChoice choice;
  if (text == "all") {
    choice.planned = {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full,
                      Design::ideal};
    choice.write_each = true;
    return choice;
  }
  auto design = planner::parse_design(text);
  if (!design)
    return usage_error("--design '" + text +
                       "': unknown design; valid: " + planner::design_names() + ", all");
  choice.written = *design;
  choice.planned = {Design::basic};
  if (*design != Design::basic && *design != Design::ideal) choice.planned.push_back(*design);
  choice.planned.push_back(Design::ideal);
  return choice;
}

}  // namespace tessera::driver
