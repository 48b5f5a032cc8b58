// `tessera targets`: the plugins a registry found, each loaded once to prove it usable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/plugin/registry.hpp"

namespace tessera {

// "ok", or why the plugin's library cannot be used. The library is loaded in a child process: a
// plugin whose initialisers or query crash is reported as broken, and the caller goes on.
std::string load_status(const Manifest& manifest);

// `tessera targets --format json` (and tessera.targets() in Python): one object per plugin
// (name, version, description, aliases, abi, provides, default_chip, chips, library, status),
// then one per broken manifest (name, file, status). `unusable` gets the names of those whose
// status is not "ok".
nlohmann::json targets_json(const Registry& registry, std::vector<std::string>& unusable);

}  // namespace tessera
