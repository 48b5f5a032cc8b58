// `tessera memsim`: a memory model on its own, fed by a generator or a DRAMsim3 trace
// (framework/memsim/memsim.hpp).
#include <iostream>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/common/json_text.hpp"
#include "framework/memsim/memsim.hpp"

namespace tessera::cli {

namespace {

struct MemsimCommand {
  memsim::MemsimOptions run;
  uint32_t stacks = 1;  // passed to the model only when given
  std::string format = "text";
};

int run_memsim_command(const GlobalOptions& global, const MemsimCommand& command) {
  if (command.run.generator.empty() == command.run.trace.empty())
    throw Failure(usage_error("memsim needs --gen stream|random or --trace FILE"));
  PluginSet plugins(global.registry());
  MemoryRunReport report = memsim::run_memsim(plugins, command.run);
  if (command.format == "json")
    std::cout << json_text(render_json(report), 2) << "\n";
  else
    std::cout << render_text(report);
  return kExitOk;
}

}  // namespace

void add_memsim_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto command = std::make_shared<MemsimCommand>();
  memsim::MemsimOptions& o = command->run;
  CLI::App* cmd = app.add_subcommand(
      "memsim", "Run a memory model (default hbm_dramsim) alone on generated traffic or a trace");
  cmd->add_option("-t,--target", o.target,
                  "Plugin providing memory_model: name, alias or path to NAME.so")
      ->capture_default_str();
  cmd->add_option("--config", o.config,
                  "The model's config parameter, passed only when given; hbm_dramsim: a "
                  "DRAMsim3-format .ini (a path, or a name in configs/memory, e.g. hbm3e_8hi.ini; "
                  "default: built-in HBM3E)");
  auto* gen = cmd->add_option("--gen", o.generator, "Generated traffic: stream or random")
                  ->check(CLI::IsMember({"stream", "random"}));
  auto* trace = cmd->add_option("--trace", o.trace,
                                "DRAMsim3 trace: one '<hex address> READ|WRITE <cycle>' per line");
  gen->excludes(trace);
  cmd->add_option("--cycles", o.cycles, "Cycles to simulate (of the memory clock)")
      ->required()
      ->check(bounded("memsim", "--cycles"));
  cmd->add_option("--rate", o.rate, "Requests offered per cycle (default: as fast as accepted)")
      ->check(bounded("memsim", "--rate"));
  cmd->add_option("--streams", o.streams, "Interleaved sequential streams (--gen stream)")
      ->check(bounded("memsim", "--streams"))
      ->capture_default_str();
  cmd->add_option("--write-fraction", o.write_fraction, "Share of generated requests that write")
      ->check(bounded("memsim", "--write-fraction"))
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of the generators")
      ->check(bounded("memsim", "--seed"))
      ->capture_default_str();
  auto* stacks = cmd->add_option("--stacks", command->stacks,
                                 "The model's stacks parameter, passed only when given; "
                                 "hbm_dramsim: identical devices, interleaved (default 1)")
                     ->check(bounded("memsim", "--stacks"));
  cmd->add_flag("--strict", o.strict,
                "The model's strict parameter, passed only when given; hbm_dramsim: warnings "
                "about the .ini (unknown keys, ...) are errors");
  cmd->add_option("--format", command->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([&global, &action, command, stacks] {
    if (stacks->count() > 0) command->run.stacks = command->stacks;
    action = [&global, command] { return run_memsim_command(global, *command); };
  });
}

}  // namespace tessera::cli
