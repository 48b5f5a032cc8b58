// The link a disaggregated server moves each request's KV cache over, from its prefill group to its
// decode group (docs/serving.md, "Disaggregation"): its rate, latency and energy per byte, from a
// link preset (configs/links/NAME.yaml: 100gbe, 400gbe, pcie4-x16; each value tagged with its
// source) or a user's file of the same form (docs/formats.md, "KV links"):
//
//   name: 100gbe
//   bytes_per_s: 12.5e9   # > 0, one direction
//   latency_s: 1e-6       # >= 0, first byte in to first byte out
//   pj_per_byte: 25       # >= 0; absent: the transfer's energy is not reported
//
// A transfer of B bytes holds the link for B / bytes_per_s (first come, first served: one at a
// time) and lands latency_s after its last byte leaves.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::serve {

struct KvLink {
  std::string name;
  std::filesystem::path file;
  double bytes_per_s = 0;
  double latency_s = 0;
  std::optional<double> j_per_byte;
  // The time a transfer of `bytes` takes from its start (the link free) to its last byte landed.
  double transfer_s(double bytes) const { return bytes / bytes_per_s + latency_s; }
};

// A preset's name, or a path to a .yaml file (common/reference.hpp's rule). Errors: an unknown
// preset (the presets and the nearest name), a file that does not parse, an unknown key (the
// nearest), a missing or out-of-range value — each naming file:line and the key.
Result<KvLink> read_kv_link(const std::string& name_or_file);

// The same from a link file's text; `file` labels errors and names the link when it gives no name.
Result<KvLink> parse_kv_link_text(const std::string& text, const std::filesystem::path& file);

// <exe>/../share/tessera/links, then the source tree's configs/links.
std::vector<std::filesystem::path> kv_link_dirs();

}  // namespace tessera::serve
