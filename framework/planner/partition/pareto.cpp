// Pareto reduction (the artifact's config_dict): sort by space, then time, then index, and keep a
// point only when it is strictly faster than every smaller one kept before it.
#include <algorithm>
#include <numeric>

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner::partition {

std::vector<size_t> pareto_front(const std::vector<double>& space,
                                 const std::vector<double>& time) {
  std::vector<size_t> order(space.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (space[a] != space[b]) return space[a] < space[b];
    if (time[a] != time[b]) return time[a] < time[b];
    return a < b;
  });
  std::vector<size_t> front;
  for (size_t i : order) {
    if (!front.empty() && time[i] >= time[front.back()]) continue;
    front.push_back(i);
  }
  return front;
}

}  // namespace tessera::planner::partition
