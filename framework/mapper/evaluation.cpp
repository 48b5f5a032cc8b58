#include "framework/mapper/evaluation.hpp"

#include <algorithm>

namespace tessera::mapper {

double level_seconds(const Level& level, double read_bytes, double write_bytes) {
  double read_s = read_bytes / level.read_bytes_per_s;  // unlimited bandwidth: 0
  double write_s = write_bytes / level.write_bytes_per_s;
  return level.shared_port ? read_s + write_s : std::max(read_s, write_s);
}

Metrics aggregate(const Hierarchy& h, double points, const Traffic& traffic) {
  Metrics m;
  m.latency_seconds = traffic.compute_steps() / h.ops_per_s;
  double energy = points * h.joules_per_op;
  for (int l = 0; l < h.num_levels(); ++l) {
    const Level& level = h.levels[l];
    energy += traffic.at(Traffic::total_read, l) * level.read_joules_per_byte +
              traffic.at(Traffic::total_write, l) * level.write_joules_per_byte;
    m.latency_seconds =
        std::max(m.latency_seconds,
                 level_seconds(level, traffic.at(Traffic::read, l), traffic.at(Traffic::write, l)));
  }
  m.energy_joules = energy;
  return m;
}

}  // namespace tessera::mapper
