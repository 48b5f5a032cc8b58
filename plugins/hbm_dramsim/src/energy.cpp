#include "energy.hpp"

#include <algorithm>

namespace tessera::hbm {

EnergyModel::EnergyModel(const DramConfig& config) {
  const DramKeys& k = config.keys;
  // V x mA x ns = pJ; every command acts on all devices of the rank.
  const double scale = k.VDD * config.devices_per_rank * k.tCK;
  const double rc = static_cast<double>(k.tRAS + k.tRP);
  act_pj = std::max(0.0, scale * (k.IDD0 * rc - (k.IDD3N * k.tRAS + k.IDD2N * k.tRP)));
  read_pj = std::max(0.0, scale * (k.IDD4R - k.IDD3N) * config.burst_cycles);
  write_pj = std::max(0.0, scale * (k.IDD4W - k.IDD3N) * config.burst_cycles);
  refresh_pj = std::max(0.0, scale * (k.IDD5AB - k.IDD3N) * k.tRFC);
  refresh_bank_pj = std::max(0.0, scale * (k.IDD5PB - k.IDD3N) * k.tRFCb);
  active_standby_pj_per_cycle = scale * k.IDD3N;
  precharge_standby_pj_per_cycle = scale * k.IDD2N;
}

}  // namespace tessera::hbm
