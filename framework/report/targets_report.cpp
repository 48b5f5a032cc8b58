#include "framework/report/targets_report.hpp"

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/plugin/child_process.hpp"
#include "framework/plugin/library.hpp"

namespace tessera {

std::string load_status(const Manifest& m) {
  auto outcome = run_in_child([&m](const ChildReporter& reporter) {
    auto lib = PluginLibrary::load(m);
    reporter.send({lib ? "ok" : lib.error().message});
    return 0;
  });
  if (!outcome) return outcome.error().message;
  if (outcome->exited && outcome->exit_status == 0 && outcome->records.size() == 1 &&
      outcome->records[0].size() == 1)
    return outcome->records[0][0];
  return "plugin '" + m.name + "': library '" + m.library.string() + "' " +
         outcome->how_it_ended() + " while being loaded";
}

nlohmann::json targets_json(const Registry& registry, std::vector<std::string>& unusable) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : registry.manifests()) {
    std::string status = load_status(m);
    if (status != "ok") unusable.push_back(m.name);
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
                   {"status", status}});
  }
  for (const auto& b : registry.broken()) {
    out.push_back({{"name", b.name}, {"file", b.file.string()}, {"status", b.reason}});
    unusable.push_back(b.name);
  }
  return out;
}

}  // namespace tessera
