#include "framework/mapper/mapspace_size.hpp"

#include <cmath>
#include <limits>

#include "framework/mapper/dataflow.hpp"

namespace tessera::mapper {

namespace {

double log10_binomial(double n, double k) {
  return (std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)) / std::log(10.0);
}

}  // namespace

double log10_factorizations(int64_t n, int k) {
  if (k <= 0) return n == 1 ? 0 : -std::numeric_limits<double>::infinity();
  double total = 0;
  for (int64_t p = 2; p * p <= n; ++p) {
    int e = 0;
    while (n % p == 0) {
      n /= p;
      ++e;
    }
    if (e) total += log10_binomial(e + k - 1, k - 1);
  }
  if (n > 1) total += log10_binomial(k, k - 1);
  return total;
}

double log10_sum(double a, double b) {
  if (std::isinf(a) && a < 0) return b;
  if (std::isinf(b) && b < 0) return a;
  double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log10(1 + std::pow(10.0, lo - hi));
}

FullSpaceSize full_space_size(const Problem& p, const Hierarchy& h, const Dataplacement& dp) {
  FullSpaceSize size;
  int slots = static_cast<int>(dp.size()) + 1;
  int ranks = 0;
  for (int r = 0; r < p.num_ranks(); ++r)
    if (p.rank_extents[r] > 1) ++ranks;
  size.log10_dataflows = slots * std::lgamma(ranks + 1.0) / std::log(10.0);
  for (int r = 0; r < p.num_ranks(); ++r) {
    int loops = slots;
    for (size_t f = 0; f < h.fanouts.size(); ++f)
      if (h.fanouts[f].allowed_rank[r]) ++loops;
    size.log10_tile_shapes += log10_factorizations(p.rank_extents[r], loops);
  }
  return size;
}

double log10_tile_shapes(const Problem& p, const LoopTree& tmpl) {
  std::vector<int> loops(p.num_ranks(), 0);
  for (const auto& n : tmpl.nodes)
    if (n.is_loop()) ++loops[n.rank];
  double total = 0;
  for (int r = 0; r < p.num_ranks(); ++r)
    total += log10_factorizations(p.rank_extents[r], loops[r]);
  return total;
}

}  // namespace tessera::mapper
