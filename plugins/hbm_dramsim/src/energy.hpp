// Energy of DRAM commands and standby, from the IDD currents, with DRAMsim3's formulas
// (src/configuration.cc, InitPowerParams): voltage x current increment x duration x devices per
// rank. One difference: DRAMsim3 multiplies mA by *cycles* and calls the result pJ, which holds
// only for tCK = 1 ns; here the duration is cycles x tCK, so the unit is pJ for every clock.
#pragma once

#include "dram_config.hpp"

namespace tessera::hbm {

struct EnergyModel {
  explicit EnergyModel(const DramConfig& config);

  double act_pj = 0;      // one ACT+PRE pair: VDD (IDD0 tRC - IDD3N tRAS - IDD2N tRP)
  double read_pj = 0;     // one RD burst: VDD (IDD4R - IDD3N) burst
  double write_pj = 0;    // one WR burst: VDD (IDD4W - IDD3N) burst
  double refresh_pj = 0;  // one all-bank REF: VDD (IDD5AB - IDD3N) tRFC
  // One per-bank REF: VDD (IDD5PB - IDD3N) tRFCb. DRAMsim3's default IDD5PB (5 mA) is below IDD3N,
  // which would make a refresh give energy back; clamped at 0.
  double refresh_bank_pj = 0;
  double active_standby_pj_per_cycle = 0;     // a rank with an open bank: VDD IDD3N
  double precharge_standby_pj_per_cycle = 0;  // a rank with every bank closed: VDD IDD2N
};

}  // namespace tessera::hbm
