// The hand-off in the choice of execution plans: a design's decisions (schedule.hpp) pick each
// op's execution plan for its own time and SRAM, blind to the activations it must take from the
// chips where its producers left them (handoff.hpp). This pass re-chooses them with the hand-offs
// in view, in graph order: each op takes, of its execution plans that need no more SRAM than the
// one chosen (with a preload plan no larger than the one chosen, so every allocation the design
// made still fits), the plan with the least
//   execution + distribution + its own hand-off from its producers' plans (as chosen so far)
//   + the hand-offs of the ops reading what it writes (with their plans as chosen so far),
// each hand-off priced by HandOffTimes (the timeline's prices); readers beyond `costs`' ops (the
// order screening's slice of the model) are left out. Ties keep the plan chosen. A machine that
// hands nothing off (HandOffTimes absent or inactive) keeps every decision. The planner
// (planner.cpp) runs it on every design's decisions, and on each preload order Elk-Full screens,
// and keeps it where the timeline finds the step cheaper.
#pragma once

#include "framework/planner/schedule.hpp"

namespace tessera::planner {

Decisions with_handoffs_weighed(const CostContext& costs, Decisions decisions);

}  // namespace tessera::planner
