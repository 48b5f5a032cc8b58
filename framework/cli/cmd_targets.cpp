// `tessera targets`: the plugins found on the search path, with what each provides and whether it
// loads. Exit 4 when one of them cannot be used, each with a warning saying why.
#include <iostream>

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/cli/options.hpp"
#include "framework/common/json_text.hpp"
#include "framework/common/table.hpp"
#include "framework/report/targets_report.hpp"

namespace tessera::cli {

namespace {

struct TargetsOptions {
  std::string format = "table";
};

std::string provides_list(const Manifest& m) {
  std::string out;
  for (Interface i : m.provides) {
    if (!out.empty()) out += ',';
    out += to_string(i);
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The closing line when some plugins cannot be used, and the exit code.
int verdict(const std::vector<std::string>& unusable) {
  if (unusable.empty()) return kExitOk;
  std::cerr << "error: " << unusable.size() << (unusable.size() == 1 ? " plugin" : " plugins")
            << " found cannot be used: " << join(unusable) << " (see the warnings above)\n";
  return kExitPlugin;
}

int print_json(const Registry& registry) {
  std::vector<std::string> unusable;
  std::cout << json_text(targets_json(registry, unusable), 2) << "\n";
  return verdict(unusable);
}

int print_table(const Registry& registry) {
  Table table({"target", "version", "abi", "provides", "chips (default first)", "status", "path"});
  std::vector<std::string> unusable;
  for (const auto& m : registry.manifests()) {
    std::vector<std::string> chips = chip_presets(m);
    std::erase(chips, m.default_chip);
    if (!m.default_chip.empty()) chips.insert(chips.begin(), m.default_chip);
    std::string status = load_status(m);
    table.add_row(
        {m.name, m.version, std::to_string(m.abi_major) + "." + std::to_string(m.abi_minor),
         provides_list(m), join(chips), status == "ok" ? "ok" : "BROKEN", m.library.string()});
    if (status != "ok") {
      std::cerr << "warning: " << status << "\n";
      unusable.push_back(m.name);
    }
  }
  std::cout << table.render();
  if (registry.manifests().empty()) {
    std::cout << "(no plugins found; searched:";
    for (const auto& d : registry.dirs()) std::cout << " " << d.string();
    std::cout << ")\n";
  }
  for (const auto& b : registry.broken()) {
    std::cerr << "warning: broken plugin '" << b.name << "': " << b.reason << "\n";
    unusable.push_back(b.name);
  }
  for (const auto& s : registry.shadowed())
    std::cerr << "note: " << s.file.string() << " is shadowed by an earlier plugin named '"
              << s.name << "'\n";
  return verdict(unusable);
}

}  // namespace

void add_targets_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto options = std::make_shared<TargetsOptions>();
  CLI::App* cmd =
      app.add_subcommand("targets", "List the target plugins found, with what each provides");
  cmd->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([&global, &action, options] {
    action = [&global, options] {
      Registry registry = global.registry();
      return options->format == "json" ? print_json(registry) : print_table(registry);
    };
  });
}

}  // namespace tessera::cli
