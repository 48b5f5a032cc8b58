// The arithmetic of pricing.hpp's beside-a-preload points, and a pricer's exchange by shape that
// keeps nothing.
#include "framework/planner/pricing.hpp"

namespace tessera::planner {

BusyPoint busy_point(double busy) {
  BusyPoint at;
  at.busy = std::clamp(busy, 0.0, 1.0);
  double below_busy = 0;
  for (size_t k = 0; k < kPreloadBusy.size(); ++k) {
    if (at.busy <= kPreloadBusy[k]) {
      at.segment = static_cast<int>(k);
      at.t = (at.busy - below_busy) / (kPreloadBusy[k] - below_busy);
      return at;
    }
    below_busy = kPreloadBusy[k];
  }
  return at;
}

double beside_s(double alone_s, const BesideSeconds& beside, double busy) {
  return beside_s(alone_s, beside, busy_point(busy));
}

double beside_s(double alone_s, const BesideSeconds& beside, const BusyPoint& at) {
  if (at.segment < 0) return std::max(alone_s, beside.back());
  double below_s = at.segment > 0 ? std::max(alone_s, beside[at.segment - 1]) : alone_s;
  double at_s = std::max(alone_s, beside[at.segment]);
  return below_s + at.t * (at_s - below_s);
}

void add_beside(BesideSeconds& sum, const BesideSeconds& s) {
  for (size_t k = 0; k < sum.size(); ++k) sum[k] += s[k];
}

Result<SetPrice> NetworkPricer::exchange_by_shape(
    const std::vector<uint32_t>&, Exchange kind, int level,
    const std::function<Result<const OpTraffic*>()>& lay) const {
  auto traffic = lay();
  if (!traffic) return traffic.error();
  return exchange(**traffic, kind, level);
}

}  // namespace tessera::planner
