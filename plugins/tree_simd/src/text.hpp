// Small text helpers for the plugin's messages and listings (the host's report library is not
// linked into plugins).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace tessera::plugins::tree {

// 3 significant digits with ns, us, ms or s: "2.81 us".
inline std::string seconds_text(double seconds) {
  const char* unit = "s";
  double value = seconds;
  if (seconds < 1e-6)
    value = seconds * 1e9, unit = "ns";
  else if (seconds < 1e-3)
    value = seconds * 1e6, unit = "us";
  else if (seconds < 1)
    value = seconds * 1e3, unit = "ms";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3g %s", value, unit);
  return buffer;
}

// "a, b, c"
inline std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

}  // namespace tessera::plugins::tree
