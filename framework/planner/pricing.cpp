// The arithmetic of pricing.hpp's beside-a-preload points.
#include "framework/planner/pricing.hpp"

namespace tessera::planner {

double beside_s(double alone_s, const BesideSeconds& beside, double busy) {
  busy = std::clamp(busy, 0.0, 1.0);
  double below_busy = 0, below_s = alone_s;
  for (size_t k = 0; k < kPreloadBusy.size(); ++k) {
    double at_s = std::max(alone_s, beside[k]);
    if (busy <= kPreloadBusy[k]) {
      double t = (busy - below_busy) / (kPreloadBusy[k] - below_busy);
      return below_s + t * (at_s - below_s);
    }
    below_busy = kPreloadBusy[k];
    below_s = at_s;
  }
  return below_s;
}

void add_beside(BesideSeconds& sum, const BesideSeconds& s) {
  for (size_t k = 0; k < sum.size(); ++k) sum[k] += s[k];
}

}  // namespace tessera::planner
