// `tessera inspect`: a model as the compiler sees it — its ops as Einsums with FLOPs and bytes,
// identical ops and repeated layers, and totals; or the graph as YAML that reads back unchanged.
#include <iostream>

#include "framework/cli/model_options.hpp"
#include "framework/cli/options.hpp"
#include "framework/common/files.hpp"
#include "framework/frontend/model_source.hpp"
#include "framework/frontend/zoo/zoo.hpp"
#include "framework/ir/graph_yaml.hpp"
#include "framework/report/table.hpp"
#include "framework/report/workload_report.hpp"

namespace tessera::cli {

namespace {

struct InspectOptions {
  std::shared_ptr<ModelOptions> model = std::make_shared<ModelOptions>();
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

int run_inspect(const InspectOptions& o) {
  if (o.list) return list_zoo();
  if (o.model->model.empty())
    throw Failure(
        usage_error("inspect needs MODEL (a zoo name, a .onnx or a .yaml file) or "
                    "--list"));
  ir::Graph graph = load_model(model_request(*o.model)).take();
  std::string text = o.format == "yaml" ? ir::write_graph_yaml(graph, workload_summary(graph))
                                        : render_workload_table(graph);
  if (o.output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  write_file_atomically(o.output, text, o.force).take();
  std::cerr << "wrote " << o.output << "\n";
  return kExitOk;
}

}  // namespace

// Inspecting needs no plugins, so the global options are not read.
void add_inspect_command(CLI::App& app, const GlobalOptions& /*global*/, Action& action) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Show a model's ops as Einsums with FLOPs and bytes, or write it as YAML");
  auto models = std::make_shared<ModelOptionSet>(cmd, o->model, false);
  cmd->add_flag("--list", o->list, "List the model zoo");
  cmd->add_option("--format", o->format, "table or yaml")
      ->check(CLI::IsMember({"table", "yaml"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write to FILE instead of standard output")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "Overwrite an existing output file");
  cmd->callback([&action, o, models] {
    models->finish();
    action = [o] { return run_inspect(*o); };
  });
}

}  // namespace tessera::cli
