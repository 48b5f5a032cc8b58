// The keys DRAMsim3 reads, their types and defaults (umd-memsys/DRAMsim3 src/configuration.cc), and
// the reading of an IniFile into DramKeys. Internal to dram_config.cpp and its tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dram_config.hpp"
#include "ini_file.hpp"

namespace tessera::hbm {

// Where each key's value came from: its line, or 0 when DRAMsim3's default was used.
// Keyed by "section.key", lower-cased.
using KeyLines = std::map<std::string, int>;

struct KeyReading {
  DramKeys keys;
  KeyLines lines;
  std::vector<Diagnostic> warnings;  // messages without the "FILE:LINE: " prefix
};

KeyReading read_keys(const IniFile& file);

// "[section] key" as the table spells it, for messages about a key.
std::string key_label(const std::string& section, const std::string& key);

}  // namespace tessera::hbm
