// `tessera layout`: tree layout descriptions through a target's LayoutMapper — parse and print
// one, locate elements, invert places, draw which block holds which index range, or list the
// candidate layouts for an access pattern with their costs (docs/tree-layouts.md).
#include <iostream>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/driver/layout.hpp"
#include "framework/report/layout_report.hpp"

namespace tessera::cli {

namespace {

struct LayoutOptions {
  driver::ChipChoice chip;
  std::string layout;
  std::string shape;
  std::vector<std::string> locate;
  std::vector<std::string> inverse;
  bool map = false;
  std::string choose;
  size_t candidates = 10;
  std::string format = "text";
};

std::vector<uint64_t> parse_numbers(const std::string& text, char separator,
                                    const std::string& what) {
  std::vector<uint64_t> values;
  size_t start = 0;
  while (true) {
    size_t end = std::min(text.find(separator, start), text.size());
    std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 18 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      throw Failure(usage_error(what + " '" + text + "': expected whole numbers separated by '" +
                                separator + "'"));
    values.push_back(std::stoull(part));
    if (end == text.size()) return values;
    start = end + 1;
  }
}

int run_layout(const GlobalOptions& global, const LayoutOptions& options) {
  driver::LayoutRequest request;
  request.chip = options.chip;
  request.layout = options.layout;
  request.choose = options.choose;
  request.shape = parse_numbers(options.shape, 'x', "--shape");
  for (const auto& spec : options.locate)
    request.locate.push_back(parse_numbers(spec, ',', "--locate"));
  request.inverse = options.inverse;
  request.map = options.map;
  request.candidates = options.candidates;
  PluginSet plugins(global.registry());
  driver::LayoutAnswer answer = driver::query_layout(plugins, request).take();
  if (options.format == "json")
    std::cout << layout_json(answer);
  else
    std::cout << (answer.choice ? render_choice(*answer.choice)
                                : render_layout(*answer.description));
  return kExitOk;
}

}  // namespace

void add_layout_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<LayoutOptions>();
  CLI::App* cmd = app.add_subcommand(
      "layout", "Tree layouts: locate elements, invert places, map blocks, choose a layout");
  add_chip_options(cmd, options->chip);
  cmd->add_option("layout", options->layout,
                  "Layout description, e.g. \"((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, "
                  "25_Addr:1))\"");
  cmd->add_option("--shape", options->shape, "Tensor extents, e.g. 100x100")->required();
  cmd->add_option("--locate", options->locate, "Where index I,J,... lives (repeatable)");
  cmd->add_option("--inverse", options->inverse,
                  "Which index a place holds: LEVEL<block>,...,ADDRESS, e.g. A2,B3,411 "
                  "(repeatable)");
  cmd->add_flag("--map", options->map, "Draw which block holds which index range");
  cmd->add_option("--choose", options->choose,
                  "List candidate layouts for an access pattern (stencil3x3, row-reduce, "
                  "col-reduce, matmul-lhs, matmul-rhs, elementwise) with their costs");
  cmd->add_option("--candidates", options->candidates, "How many candidates --choose lists")
      ->capture_default_str()
      ->check(bounded("layout", "--candidates"));
  cmd->add_option("--format", options->format,
                  "text, or json: one document on standard output (docs/formats.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([&global, &action, options] {
    action = [&global, options] { return run_layout(global, *options); };
  });
}

}  // namespace tessera::cli
