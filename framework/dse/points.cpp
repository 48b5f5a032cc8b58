#include "framework/dse/points.hpp"

namespace tessera::dse {

std::vector<Point> enumerate_points(const SweepSpec& spec) {
  // groups[g]: the axes advancing together; every axis of a group has the same length.
  std::vector<std::vector<size_t>> groups;
  std::vector<std::string> labels;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const std::string& zip = spec.axes[a].zip;
    size_t g = groups.size();
    for (size_t i = 0; i < labels.size() && !zip.empty(); ++i)
      if (labels[i] == zip) g = i;
    if (g == groups.size()) {
      groups.emplace_back();
      labels.push_back(zip);
    }
    groups[g].push_back(a);
  }
  size_t total = 1;
  for (const auto& group : groups) total *= spec.axes[group.front()].values.size();
  std::vector<Point> points(total);
  for (size_t p = 0; p < total; ++p) {
    points[p].index = p;
    points[p].values.resize(spec.axes.size());
    size_t rest = p;
    for (size_t g = groups.size(); g-- > 0;) {
      size_t n = spec.axes[groups[g].front()].values.size();
      size_t i = rest % n;
      rest /= n;
      for (size_t a : groups[g]) points[p].values[a] = spec.axes[a].values[i];
    }
  }
  return points;
}

}  // namespace tessera::dse
