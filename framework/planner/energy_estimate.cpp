#include "framework/planner/energy_estimate.hpp"

#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "framework/planner/handoff.hpp"
#include "framework/planner/op_traffic.hpp"
#include "framework/planner/partition/plan_space.hpp"

namespace tessera::planner {

namespace {

// Bytes × links of one op's transfers, on chip and between chips.
struct Links {
  double on_chip = 0, chip = 0;
  void add(const SetPrice& price, double bytes) {
    on_chip += price.on_chip_links_per_byte * bytes;
    chip += price.chip_links_per_byte * bytes;
  }
};

// The exchanges of a plan that says where its tiles are, each set priced (and cached) as the
// planner priced it.
Status add_exchanges(const OpTraffic& t, double distribute_bytes, const NetworkPricer& pricer,
                     Links& links) {
  if (!t.rotation_next.empty() && t.rotation_bytes > 0) {
    auto ring = pricer.exchange(t, Exchange::rotation, 0);
    if (!ring) return ring.error();
    links.add(*ring, t.rotation_bytes);
  }
  const int steps = t.combine_passes * t.combine_levels();
  for (int step = 0; step < steps && t.combine_bytes > 0; ++step) {
    auto level = pricer.exchange(t, Exchange::combine, step);
    if (!level) return level.error();
    links.add(*level, combine_step_bytes(t, step));
  }
  if (!t.gather_next.empty() && distribute_bytes > 0) {
    auto ring = pricer.exchange(t, Exchange::gather, 0);
    if (!ring) return ring.error();
    links.add(*ring, distribute_bytes);
  }
  return ok_status();
}

Result<Links> op_links(const partition::OpShape& shape, const OpSchedule& s, uint32_t chips,
                       const NetworkPricer* pricer) {
  Links links;
  const double exchanged = s.exec.shift_bytes + s.preload.distribute_bytes;
  if (pricer == nullptr) {
    links.on_chip = s.preload.hbm_to_core_bytes + s.hbm_write_bytes + exchanged;
    return links;
  }
  auto traffic = op_traffic(shape, s.exec, s.preload.distribute_bytes, chips);
  if (!traffic) return traffic.error();
  const OpTraffic* t = traffic->has_value() ? &**traffic : nullptr;
  auto preload = pricer->preload(s.exec.cores_used, t);
  if (!preload) return preload.error();
  // Writebacks take the preload's routes back (the simulator's writeback sets mirror them).
  links.add(*preload, s.preload.hbm_to_core_bytes + s.hbm_write_bytes);
  if (t == nullptr) {
    links.on_chip += exchanged;  // the plan does not say where its tiles are: one link a byte
    return links;
  }
  if (Status added = add_exchanges(*t, s.preload.distribute_bytes, *pricer, links); !added)
    return added.error();
  return links;
}

// What an op's compute type and transfers come to; the same for every op of its class that runs
// the same execution and preload plans (a model's layers repeat: a few dozen of these per step).
struct OpLinks {
  std::string dtype;
  Links links;
};

Result<OpLinks> op_links_of(const OpSchedule& s, const ir::Graph& graph, const Machine& machine,
                            const NetworkPricer* pricer) {
  auto shape = partition::describe_op(graph, graph.ops().at(static_cast<size_t>(s.op)));
  if (!shape) return shape.error();
  auto links = op_links(*shape, s, machine.chips, pricer);
  if (!links) return links.error();
  return OpLinks{dtype_name(shape->dtype), *links};
}

// An op's hand-off on the links, priced once per description (repeated layers share one): each
// byte from the nearest chip holding it, so one chip link a byte without a pricer.
Result<Links> handoff_links(const HandOff& handoff, uint32_t cores, const NetworkPricer* pricer,
                            std::map<std::pair<const HandOff*, uint32_t>, Links>& known) {
  auto [it, fresh] = known.try_emplace({&handoff, cores});
  if (!fresh) return it->second;
  if (pricer == nullptr) {
    it->second.chip = handoff.bytes();
    return it->second;
  }
  auto price = pricer->handoff(handoff, cores);
  if (!price) return price.error();
  it->second.add(*price, handoff.bytes());
  return it->second;
}

}  // namespace

Result<EnergyCounts> planned_counts(const DesignResult& design, const ir::Graph& graph,
                                    const Machine& machine, const NetworkPricer* pricer) {
  EnergyCounts c;
  std::map<std::tuple<int, std::string, std::string>, OpLinks> by_plan;
  std::map<std::pair<const HandOff*, uint32_t>, Links> by_handoff;
  for (const OpSchedule& s : design.ops) {
    auto key = std::make_tuple(s.op_class, s.exec.label, s.preload.label);
    auto known = s.op_class >= 0 ? by_plan.find(key) : by_plan.end();
    if (known == by_plan.end()) {
      auto found = op_links_of(s, graph, machine, pricer);
      if (!found) return found.error();
      known = s.op_class >= 0 ? by_plan.emplace(key, std::move(*found)).first
                              : by_plan.emplace(std::make_tuple(-1 - s.op, "", ""), *found).first;
    }
    const OpLinks& op = known->second;
    if (s.flops > 0) c.flops[op.dtype] += s.flops;
    const double exchanged = s.exec.shift_bytes + s.preload.distribute_bytes +
                             (s.handoff != nullptr ? s.handoff->bytes() : 0);
    c.sram_read_bytes += s.exec.cores_used * s.exec.compute_s * machine.sram_bytes_per_s_per_core +
                         s.hbm_write_bytes + exchanged;
    c.sram_write_bytes += s.preload.hbm_to_core_bytes + exchanged;
    c.on_chip_byte_links += op.links.on_chip;
    c.chip_byte_links += op.links.chip;
    if (s.handoff != nullptr) {
      auto handed = handoff_links(*s.handoff, s.exec.cores_used, pricer, by_handoff);
      if (!handed) return handed.error();
      c.on_chip_byte_links += handed->on_chip;
      c.chip_byte_links += handed->chip;
    }
    c.off_chip_bytes += s.hbm_read_bytes + s.hbm_write_bytes;
  }
  c.latency_s = design.latency_s;
  return c;
}

}  // namespace tessera::planner
