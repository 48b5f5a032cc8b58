// `tessera inspect`: a model as the compiler sees it — its ops as Einsums with FLOPs and bytes,
// identical ops and repeated layers, and totals; or the graph as YAML that reads back unchanged.
#include <iostream>

#include "framework/cli/model_options.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/common/table.hpp"
#include "framework/driver/driver.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/ir/graph_yaml.hpp"
#include "framework/ir/workload_report.hpp"

namespace tessera::cli {

namespace {

struct InspectOptions {
  std::shared_ptr<ModelOptions> model = std::make_shared<ModelOptions>();
  driver::ChipChoice chip;  // optional: the off-chip footprint against this chip
  bool list = false;
  std::string format = "table";
  std::string output;
  bool force = false;
};

int list_zoo() {
  Table table({"model", "description", "file"});
  for (const auto& e : zoo::list_zoo()) table.add_row({e.name, e.description, e.file.string()});
  std::cout << table.render();
  return kExitOk;
}

// "off-chip  168.5 GiB (...) of 96.0 GiB on ipu-mk2-hbm3e: does not fit; ..." for --target.
std::string off_chip_line(const GlobalOptions& global, const InspectOptions& o,
                          const driver::LoadedModel& model) {
  if (o.chip.target.empty()) return "";
  PluginSet plugins(global.registry());
  driver::OpenChip chip = driver::open_chip(plugins, o.chip).take();
  return "off-chip     on " + chip.models.machine.chip + ": " +
         driver::off_chip_report(model, chip).text() + "\n";
}

// The footprint part of off_chip_line ("" without --target).
std::string off_chip_report_text(const std::string& line) {
  const std::string lead = "off-chip     ";
  if (line.empty()) return "";
  return line.substr(lead.size(), line.size() - lead.size() - 1);
}

int run_inspect(const GlobalOptions& global, const InspectOptions& o) {
  if (o.list) return list_zoo();
  if (o.model->words.model.empty())
    throw Failure(
        usage_error("inspect needs MODEL (a zoo name, a .onnx or a .yaml file) or "
                    "--list"));
  driver::LoadedModel model = driver::load(model_request(*o.model)).take();
  const ir::Graph& graph = *model.graph;
  std::vector<std::string> summary = workload_summary(graph);
  std::string off_chip = off_chip_line(global, o, model);
  if (!off_chip.empty()) summary.push_back(off_chip.substr(0, off_chip.size() - 1));
  std::string text = o.format == "yaml"   ? ir::write_graph_yaml(graph, summary)
                     : o.format == "json" ? workload_json(graph, off_chip_report_text(off_chip))
                                          : render_workload_table(graph) + off_chip;
  if (o.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  write_output(o.output, text, o.force);
  return kExitOk;
}

}  // namespace

// Inspecting needs no plugins unless --target asks for the off-chip footprint on a chip.
void add_inspect_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Show a model's ops as Einsums with FLOPs and bytes, or write it as YAML");
  auto models = std::make_shared<ModelOptionSet>(cmd, o->model, false);
  cmd->add_flag("--list", o->list, "List the model zoo");
  add_chip_options(cmd, o->chip, false);
  cmd->add_option("--format", o->format,
                  "table, yaml (the graph, reads back unchanged) or json (the table's figures)")
      ->check(CLI::IsMember({"table", "yaml", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write to FILE instead of standard output")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "Overwrite an existing output file");
  cmd->callback([&global, &action, o, models] {
    models->finish();
    action = [&global, o] { return run_inspect(global, *o); };
  });
}

}  // namespace tessera::cli
