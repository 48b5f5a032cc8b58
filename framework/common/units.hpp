// Human-readable numbers with units, for terminal reports. Binary prefixes for memory sizes
// (KiB, MiB), decimal for rates and FLOP/s (GB/s, TFLOP/s), as vendors quote them.
#pragma once

#include <cstdint>
#include <string>

namespace tessera {

std::string format_bytes(double bytes);              // 624.0 KiB
std::string format_bytes_per_s(double bytes_per_s);  // 5.30 GB/s
std::string format_flops_per_s(double flops_per_s);  // 169.6 GFLOP/s
std::string format_seconds(double seconds);          // 9.00 ns
std::string format_hz(double hz);                    // 1.325 GHz
std::string format_joules(double joules);            // 48.7 uJ, 1.234 mJ (fJ to GJ)

}  // namespace tessera
