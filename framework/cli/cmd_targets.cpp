// `tessera targets`: the plugins found on the search path, with what each provides.
#include <iostream>
#include <nlohmann/json.hpp>

#include "framework/chip/chip_spec.hpp"
#include "framework/cli/options.hpp"
#include "framework/plugin/library.hpp"
#include "framework/report/table.hpp"

namespace tessera::cli {

namespace {

struct TargetsOptions {
  std::string format = "table";
};

std::string provides_list(const Manifest& m) {
  std::string out;
  for (Interface i : m.provides) out += (out.empty() ? "" : ",") + std::string(to_string(i));
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Loads the library to prove it is usable; the manifest alone could lie.
std::string load_status(const Manifest& m) {
  auto lib = PluginLibrary::load(m);
  return lib ? "ok" : lib.error().message;
}

int print_json(const Registry& registry) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : registry.manifests()) {
    nlohmann::json provides = nlohmann::json::array();
    for (Interface i : m.provides) provides.push_back(std::string(to_string(i)));
    out.push_back({{"name", m.name},
                   {"version", m.version},
                   {"description", m.description},
                   {"aliases", m.aliases},
                   {"abi", std::to_string(m.abi_major) + "." + std::to_string(m.abi_minor)},
                   {"provides", provides},
                   {"default_chip", m.default_chip},
                   {"chips", chip_presets(m)},
                   {"library", m.library.string()},
                   {"status", load_status(m)}});
  }
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

int print_table(const Registry& registry) {
  Table table({"target", "version", "abi", "provides", "chips (default first)", "status", "path"});
  for (const auto& m : registry.manifests()) {
    std::vector<std::string> chips = chip_presets(m);
    std::erase(chips, m.default_chip);
    if (!m.default_chip.empty()) chips.insert(chips.begin(), m.default_chip);
    std::string status = load_status(m);
    table.add_row(
        {m.name, m.version, std::to_string(m.abi_major) + "." + std::to_string(m.abi_minor),
         provides_list(m), join(chips), status == "ok" ? "ok" : "BROKEN", m.library.string()});
    if (status != "ok") std::cerr << "warning: " << status << "\n";
  }
  std::cout << table.render();
  if (registry.manifests().empty()) {
    std::cout << "(no plugins found; searched:";
    for (const auto& d : registry.dirs()) std::cout << " " << d.string();
    std::cout << ")\n";
  }
  for (const auto& b : registry.broken())
    std::cerr << "warning: ignoring " << b.file.string() << ": " << b.reason << "\n";
  for (const auto& s : registry.shadowed())
    std::cerr << "note: " << s.file.string() << " is shadowed by an earlier plugin named '"
              << s.name << "'\n";
  return kExitOk;
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
