// `tessera inspect`: a model as the compiler sees it — its ops as Einsums with FLOPs and bytes,
// identical ops and repeated layers, and totals; or the graph as YAML that reads back unchanged.
#include <charconv>
#include <iostream>

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
  std::string model;
  bool list = false;
  std::vector<std::string> dims;
  int64_t batch = 1;
  int64_t seq = 0;
  std::string mode;
  std::string format = "table";
  std::string output;
  bool force = false;
  bool skip_unsupported = false;
  bool shape_given = false;
};

std::pair<std::string, int64_t> parse_dim(const std::string& text) {
  size_t eq = text.find('=');
  int64_t value = 0;
  if (eq != std::string::npos && eq > 0) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data() + eq + 1, end, value);
    if (ec == std::errc() && ptr == end && value >= 1) return {text.substr(0, eq), value};
  }
  throw Failure(usage_error("--dim '" + text +
                            "': expected NAME=VALUE with VALUE >= 1, e.g. "
                            "--dim batch=16"));
}

int list_zoo() {
  Table table({"model", "description", "file"});
  for (const auto& e : zoo::list_zoo()) table.add_row({e.name, e.description, e.file.string()});
  std::cout << table.render();
  return kExitOk;
}

int run_inspect(const InspectOptions& o) {
  if (o.list) return list_zoo();
  if (o.model.empty())
    throw Failure(
        usage_error("inspect needs MODEL (a zoo name, a .onnx or a .yaml file) or "
                    "--list"));
  ModelRequest request;
  request.model = o.model;
  for (const auto& d : o.dims) {
    auto [name, value] = parse_dim(d);
    if (!request.onnx.dims.emplace(name, value).second)
      throw Failure(usage_error("--dim " + name + " is given twice"));
  }
  request.onnx.skip_unsupported = o.skip_unsupported;
  request.shape.batch = o.batch;
  if (o.seq > 0) request.shape.seq = o.seq;
  if (!o.mode.empty())
    request.shape.mode = o.mode == "decode" ? zoo::Mode::decode : zoo::Mode::prefill;
  request.shape_given = o.shape_given;
  ir::Graph graph = load_model(request).take();
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
  cmd->add_option("MODEL", o->model, "Zoo model name, or a .onnx or workload .yaml file");
  cmd->add_flag("--list", o->list, "List the model zoo");
  cmd->add_option("--dim", o->dims, "Bind a symbolic ONNX dimension: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  auto* batch = cmd->add_option("--batch", o->batch, "Zoo models: sequences per step")
                    ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  auto* seq = cmd->add_option("--seq", o->seq,
                              "Zoo models: KV positions (decode), tokens (prefill), latent "
                              "tokens (DiT)")
                  ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  auto* mode = cmd->add_option("--mode", o->mode, "Zoo models: decode (default) or prefill")
                   ->check(CLI::IsMember({"decode", "prefill"}));
  cmd->add_option("--format", o->format, "table or yaml")
      ->check(CLI::IsMember({"table", "yaml"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write to FILE instead of standard output")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "Overwrite an existing output file");
  cmd->add_flag("--skip-unsupported", o->skip_unsupported,
                "ONNX: import unsupported ops as zero-cost placeholders (with a warning)");
  cmd->callback([&action, o, batch, seq, mode] {
    o->shape_given = batch->count() + seq->count() + mode->count() > 0;
    action = [o] { return run_inspect(*o); };
  });
}

}  // namespace tessera::cli
