// The serve parts of a sweep file (`kind: serve`, sweep_spec.hpp): its base of serve words, its
// axes' values, and its goal, each checked with the file, line and key, as sweep_spec.cpp checks
// a compile sweep. They throw the Failure of the node at fault (yaml_reader.hpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/common/yaml_reader.hpp"
#include "framework/dse/sweep_spec.hpp"

namespace tessera::dse {

// A finite number, else the node's failure (sweep_spec.cpp).
double as_number(const YamlNode& node);

// The base's words as written, each one serve_word_problem accepts; model and target required.
std::map<std::string, std::string> parse_serve_base(const YamlNode& node);
// Every axis path a serve word (not target: one per sweep), every value one it takes.
void check_serve_axes(const YamlNode& axes_node, const std::vector<Axis>& axes);
// A trace with any word of a synthetic load (synthetic_load_words), which it would make void.
void check_trace_alone(const YamlNode& root, const SweepSpec& spec);
// The goal of `spec` (its base and axes already read).
ServeGoal parse_goal(const YamlNode& node, const SweepSpec& spec);

}  // namespace tessera::dse
