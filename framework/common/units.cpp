#include "framework/common/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tessera {

namespace {

// Scales `value` by `step` until it is below `step`, picking the matching prefix.
template <size_t N>
std::string scaled(double value, double step, const std::array<const char*, N>& units,
                   const char* format) {
  size_t i = 0;
  double v = value;
  while (std::fabs(v) >= step && i + 1 < N) {
    v /= step;
    ++i;
  }
  return fmt::format(fmt::runtime(format), v, units[i]);
}

}  // namespace

std::string format_bytes(double bytes) {
  static const std::array<const char*, 6> units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (std::fabs(bytes) < 1024) return fmt::format("{:.0f} B", bytes);
  return scaled(bytes, 1024.0, units, "{:.1f} {}");
}

std::string format_bytes_per_s(double bytes_per_s) {
  static const std::array<const char*, 6> units = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
  return scaled(bytes_per_s, 1000.0, units, "{:.2f} {}");
}

std::string format_flops_per_s(double flops_per_s) {
  static const std::array<const char*, 6> units = {"FLOP/s",  "kFLOP/s", "MFLOP/s",
                                                   "GFLOP/s", "TFLOP/s", "PFLOP/s"};
  return scaled(flops_per_s, 1000.0, units, "{:.1f} {}");
}

std::string format_hz(double hz) {
  static const std::array<const char*, 4> units = {"Hz", "kHz", "MHz", "GHz"};
  return scaled(hz, 1000.0, units, "{:.4g} {}");
}

std::string format_joules(double joules) {
  static const char* prefixes[] = {"f", "p", "n", "u", "m", "", "k", "M", "G"};
  if (joules == 0) return "0 J";
  int e = static_cast<int>(std::floor(std::log10(std::fabs(joules)) / 3));
  e = std::max(-5, std::min(3, e));
  return fmt::format("{:.4g} {}J", joules / std::pow(1000.0, e), prefixes[e + 5]);
}

std::string format_seconds(double seconds) {
  double a = std::fabs(seconds);
  if (a == 0) return "0 s";
  if (a < 1e-6) return fmt::format("{:.2f} ns", seconds * 1e9);
  if (a < 1e-3) return fmt::format("{:.2f} us", seconds * 1e6);
  if (a < 1) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

}  // namespace tessera
