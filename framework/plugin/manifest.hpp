// NAME.plugin.yaml: what a plugin is, read BEFORE its library is loaded, so a plugin for another
// ABI or platform is refused without running any of its code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/interface.hpp"

namespace tessera {

// A conformance test a manifest names, as Suite.Test (the kit's gtest name without the plugin),
// and the manifest line naming it.
struct TestEntry {
  std::string test;
  int line = 0;
};

// A layout text for the conformance kit's LayoutMapper suite, with the shape of its tensor.
struct LayoutSample {
  std::string text;
  std::vector<uint64_t> shape;
  int line = 0;
};

struct Manifest {
  std::filesystem::path file;  // the manifest itself
  std::string name;
  std::string version;
  std::string description;
  std::vector<std::string> aliases;
  std::filesystem::path library;  // absolute
  // What the library must be, checked before it is loaded (tessera_add_plugin writes both after
  // the final link and again on install): its size in bytes and its SHA-256 in lowercase hex.
  // Absent (nullopt, "") in a hand-written manifest, whose library the host then refuses.
  std::optional<uint64_t> library_size;
  std::string library_sha256;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::string platform;
  std::set<Interface> provides;
  std::string default_chip;         // may be empty
  std::filesystem::path chips_dir;  // absolute; empty when the plugin ships no presets
  // For the conformance kit (docs/plugin-authoring.md): tests skipped as unsupported, tests known
  // to fail, and (`conformance:`) layouts valid on the default chip and malformed ones.
  std::vector<TestEntry> unsupported;
  std::vector<TestEntry> expected_failures;
  std::vector<LayoutSample> conformance_layouts;
  std::vector<LayoutSample> conformance_malformed_layouts;

  bool provides_interface(Interface i) const { return provides.count(i) != 0; }
};

// Reads and validates a manifest. Errors name the file, line and key.
Result<Manifest> read_manifest(const std::filesystem::path& file);
// The same from text; `file` locates the library and presets and labels errors.
Result<Manifest> parse_manifest(const std::string& text, const std::filesystem::path& file);

// The platform string this host was built for, e.g. "linux-x86_64".
std::string host_platform();

}  // namespace tessera
