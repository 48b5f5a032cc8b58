// `tessera compile` with a core's tiles mapped (--core-cost tcm, chip/core_cost.hpp): per class of
// ops of one design, the step tile one core computes, the cost model plugin's time for it next to
// the mapper's optimum (the comparison of docs/mapper.md "Cores of a chip"), the mapping's
// utilisation, and the LoopTree the core runs.
#pragma once

#include <string>

#include "framework/driver/driver.hpp"

namespace tessera {

// Empty when no op of `result` has a core mapping. Plugin errors from timing the tiles.
Result<std::string> core_mappings_text(const planner::DesignResult& result,
                                       const driver::OpenChip& chip);

}  // namespace tessera
