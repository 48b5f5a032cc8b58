#include "framework/mapper/dataplacement.hpp"

#include <algorithm>

namespace tessera::mapper {

namespace {

// Every ordered choice of tensors for one level: must-keeps plus any subset of may-keeps, in
// every order.
std::vector<std::vector<int>> level_choices(const Level& level, int tensors) {
  std::vector<int> optional;
  std::vector<int> required;
  for (int t = 0; t < tensors; ++t) {
    if (level.must_keep[t])
      required.push_back(t);
    else if (level.may_keep[t])
      optional.push_back(t);
  }
  std::vector<std::vector<int>> out;
  for (unsigned mask = 0; mask < (1u << optional.size()); ++mask) {
    std::vector<int> chosen = required;
    for (size_t i = 0; i < optional.size(); ++i)
      if (mask & (1u << i)) chosen.push_back(optional[i]);
    std::sort(chosen.begin(), chosen.end());
    do out.push_back(chosen);
    while (std::next_permutation(chosen.begin(), chosen.end()));
  }
  return out;
}

}  // namespace

std::vector<Dataplacement> enumerate_dataplacements(const Problem& p, const Hierarchy& h) {
  std::vector<Dataplacement> all{{}};
  for (int l = 1; l < h.num_levels(); ++l) {
    auto choices = level_choices(h.levels[l], p.num_tensors());
    std::vector<Dataplacement> next;
    next.reserve(all.size() * choices.size());
    for (const auto& prefix : all)
      for (const auto& choice : choices) {
        Dataplacement dp = prefix;
        for (int t : choice) dp.push_back({l, t});
        next.push_back(std::move(dp));
      }
    all = std::move(next);
  }
  return all;
}

}  // namespace tessera::mapper
