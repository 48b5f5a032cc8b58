// `tessera topology`: what a target's chip is made of, and how a transfer crosses it.
#include <iostream>
#include <optional>

#include "framework/chip/topology_report.hpp"
#include "framework/cli/options.hpp"
#include "framework/common/json_text.hpp"
#include "framework/common/user_text.hpp"
#include "framework/driver/driver.hpp"
#include "framework/report/approximation_report.hpp"

namespace tessera::cli {

namespace {

struct TopologyOptions {
  driver::ChipChoice chip;
  std::vector<std::string> routes;
  std::string format = "text";
};

// An endpoint by index or by exact name.
uint32_t find_endpoint(const Topology& topology, const TopologyInfo& info,
                       const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    std::optional<uint64_t> index = whole_number(text);
    if (index && *index < info.num_endpoints) return static_cast<uint32_t>(*index);
    throw Failure(usage_error("--route: endpoint " + printable(text) +
                              " is out of range (this chip has " +
                              std::to_string(info.num_endpoints) + " endpoints: 0 to " +
                              std::to_string(info.num_endpoints - 1) + ")"));
  }
  for (uint32_t e = 0; e < info.num_endpoints; ++e)
    if (topology.endpoint(e).value().name == text) return e;
  throw Failure(usage_error("--route: no endpoint named " + in_quotes(text) +
                            " (give an index, or a name as `tessera topology` prints it)"));
}

std::vector<std::pair<uint32_t, uint32_t>> parse_routes(const Topology& topology,
                                                        const TopologyInfo& info,
                                                        const std::vector<std::string>& specs) {
  std::vector<std::pair<uint32_t, uint32_t>> routes;
  for (const auto& spec : specs) {
    size_t colon = spec.find(':');
    if (colon == std::string::npos)
      throw Failure(usage_error("--route " + in_quotes(spec) + ": expected SRC:DST, e.g. 0:1471"));
    routes.emplace_back(find_endpoint(topology, info, spec.substr(0, colon)),
                        find_endpoint(topology, info, spec.substr(colon + 1)));
  }
  return routes;
}

int run_topology(const GlobalOptions& global, const TopologyOptions& options) {
  PluginSet plugins(global.registry());
  driver::ResolvedChip resolved = driver::resolve_chip(plugins, options.chip).take();
  const Manifest& manifest = resolved.target;
  const ChipSpec& chip = resolved.spec;
  Topology topology = build_topology(plugins, chip).take();
  TopologyInfo info = topology.info().take();
  auto routes = options.routes.empty() ? example_routes(topology, info)
                                       : parse_routes(topology, info, options.routes);
  TopologySummary summary = summarize(topology, routes).take();
  // A plugin that provides a topology alone has its peaks reported without a fidelity.
  auto cost_model = build_cost_model(plugins, chip);
  if (cost_model)
    add_peak_fidelities(summary, *cost_model).take();
  else if (cost_model.error().code != StatusCode::unimplemented)
    throw Failure(cost_model.error());
  if (options.format == "json") {
    auto j = render_json(summary);
    j["target"] = manifest.name;
    j["chip_file"] = chip.file.string();
    j["approximation"] = text_or_null(chip.approximation);
    std::cout << json_text(j, 2) << "\n";
    return kExitOk;
  }
  std::cout << "target       " << manifest.name << " " << manifest.version << " ("
            << manifest.library.string() << ")\n";
  if (!chip.file.empty()) std::cout << "chip file    " << chip.file.string() << "\n";
  if (!chip.description.empty()) std::cout << "description  " << chip.description << "\n";
  std::cout << approximation_line(chip) << render_text(summary);
  return kExitOk;
}

}  // namespace

void add_topology_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topology", "Summarise a target chip: cores, memory, compute, links, example routes");
  add_chip_options(cmd, options->chip);
  cmd->add_option("--route", options->routes,
                  "Describe the route SRC:DST (endpoint indices or names; repeatable)");
  cmd->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_topology(global, *options); };
  });
}

}  // namespace tessera::cli
