#include "framework/parallel/compose.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "framework/ir/dtype.hpp"
#include "framework/sim/collective_sim.hpp"

namespace tessera::parallel {
namespace {

using collective::Collective;
using collective::CollectiveKind;

bool is_prefill(const ParallelModel& model) {
  return model.spec && model.request.shape.mode.value_or(zoo::Mode::decode) == zoo::Mode::prefill;
}

// The bytes of one micro-batch's hidden state (every query token) and of its logits (one row per
// user: a prefill's head reads the last token only).
struct Payload {
  double hidden_bytes = 0, logits_bytes = 0, routed_bytes = 0;
};

Payload payload(const ParallelModel& model, const Resolved& r) {
  const zoo::ModelSpec& m = *model.spec;
  double element = ir::element_bytes(model.request.shape.dtype.value_or(m.dtype));
  double queries =
      is_prefill(model) ? static_cast<double>(model.request.shape.seq.value_or(2048)) : 1;
  double tokens = static_cast<double>(r.micro_batch) * queries;
  Payload p;
  p.hidden_bytes = tokens * static_cast<double>(m.hidden) * element;
  p.logits_bytes = static_cast<double>(r.micro_batch) * static_cast<double>(m.vocab) * element;
  // Each token goes to experts_per_token experts; an all-to-all moves it to each and back.
  p.routed_bytes = p.hidden_bytes * static_cast<double>(m.experts_per_token);
  return p;
}

struct Builder {
  sim::CollectivePricer& pricer;
  const Resolved& r;
  const GroupOf& group_of;
  std::vector<CollectiveUse> uses;

  // The strategy's algorithm where the kind has it; else (a send, an all-to-all: direct only;
  // ring_2d for an all-gather) the kind's cheapest.
  collective::CollectiveAlgorithm algorithm(CollectiveKind kind) const {
    auto available = collective::algorithms_of(kind);
    bool has = std::find(available.begin(), available.end(), r.algorithm) != available.end();
    return has ? r.algorithm : collective::CollectiveAlgorithm::automatic;
  }
  // One use on the tensor-parallel group of stage s, with each replica's copy beside it.
  Status tensor(size_t s, std::string where, CollectiveKind kind, double bytes, int64_t count) {
    std::vector<Collective> copies;
    for (int64_t rep = 0; rep < r.dp; ++rep)
      copies.push_back(Collective{kind, algorithm(kind), bytes, group_of(rep, s)});
    return add(s, std::move(where), std::move(copies), count);
  }
  // Experts over ep replicas: the chips of the same stage and tensor rank in ep consecutive
  // replicas.
  Status experts(size_t s, std::string where, double bytes, int64_t count) {
    std::vector<Collective> copies;
    for (int64_t first = 0; first < r.dp; first += r.ep)
      for (int64_t t = 0; t < r.tp; ++t) {
        std::vector<uint32_t> group;
        for (int64_t rep = first; rep < first + r.ep; ++rep) group.push_back(group_of(rep, s)[t]);
        copies.push_back(Collective{CollectiveKind::all_to_all,
                                    algorithm(CollectiveKind::all_to_all), bytes, group});
      }
    return add(s, std::move(where), std::move(copies), count);
  }
  // Stage s's tensor rank t sends its 1/tp of the hidden state to stage s+1's rank t.
  Status send(size_t s, double bytes) {
    std::vector<Collective> copies;
    for (int64_t rep = 0; rep < r.dp; ++rep)
      for (int64_t t = 0; t < r.tp; ++t)
        copies.push_back(Collective{CollectiveKind::send_recv,
                                    algorithm(CollectiveKind::send_recv),
                                    bytes / static_cast<double>(r.tp),
                                    {group_of(rep, s)[t], group_of(rep, s + 1)[t]}});
    return add(s, fmt::format("to stage {}", s + 1), std::move(copies), 1);
  }
  // Every copy runs the algorithm copy 0 was priced with, as the simulator then moves them.
  Status add(size_t s, std::string where, std::vector<Collective> copies, int64_t count) {
    auto planned = pricer.price(copies);
    if (!planned) return planned.error();
    for (Collective& c : copies) c.algorithm = planned->algorithm;
    uses.push_back(CollectiveUse{s, std::move(where), copies.front(), std::move(copies), count,
                                 *planned, std::nullopt});
    return ok_status();
  }
};

Status stage_uses(Builder& b, const ParallelModel& model, size_t s, const Payload& p) {
  const Resolved& r = b.r;
  const int64_t layers = r.stage_layers[s];
  const bool last = s + 1 == r.stage_layers.size();
  Status status = ok_status();
  auto then = [&](Status next) {
    if (status) status = std::move(next);
  };
  if (r.tp > 1) {
    if (s == 0) then(b.tensor(s, "embedding", CollectiveKind::all_reduce, p.hidden_bytes, 1));
    if (layers > 0) {
      then(b.tensor(s, "after attention", CollectiveKind::all_reduce, p.hidden_bytes, layers));
      then(b.tensor(s, "after MLP", CollectiveKind::all_reduce, p.hidden_bytes, layers));
    }
    if (last) then(b.tensor(s, "LM head", CollectiveKind::all_gather, p.logits_bytes, 1));
  }
  if (r.ep > 1 && model.spec->experts > 0 && layers > 0) {
    then(b.experts(s, "expert dispatch", p.routed_bytes, layers));
    then(b.experts(s, "expert combine", p.routed_bytes, layers));
  }
  if (!last) then(b.send(s, p.hidden_bytes));
  return status;
}

// An ONNX model runs whole on each replica, which exchange nothing; under ep its MoE blocks
// exchange each replica's routed tokens (each token's hidden state once per expert it picks).
Result<std::vector<CollectiveUse>> onnx_expert_uses(Builder& b, const ParallelModel& model) {
  if (!model.experts || b.r.ep == 1) return std::move(b.uses);
  const onnx_import::MoeBlocks& m = *model.experts;
  const double routed_bytes = static_cast<double>(m.tokens * m.top_k) * m.token_bytes;
  for (const char* where : {"expert dispatch", "expert combine"})
    if (auto s = b.experts(0, where, routed_bytes, m.blocks); !s) return s.error();
  return std::move(b.uses);
}

double step_s(const std::vector<double>& stage_s, const std::vector<double>& send_s, int64_t mb,
              bool prefill) {
  double through = 0, slowest = 0;
  for (size_t s = 0; s < stage_s.size(); ++s) {
    through += stage_s[s] + send_s[s];
    slowest = std::max(slowest, stage_s[s]);
  }
  const double m = static_cast<double>(mb);
  return prefill ? through + (m - 1) * slowest : std::max(through, m * slowest);
}

}  // namespace

Placement placement(const collective::ChipGraph& graph, const Resolved& resolved) {
  std::vector<uint32_t> all(resolved.chips);
  std::iota(all.begin(), all.end(), 0u);
  return Placement{collective::ring_order(graph, all), resolved.tp,
                   static_cast<int64_t>(resolved.stage_layers.size())};
}

Result<std::vector<CollectiveUse>> stage_collectives(sim::CollectivePricer& pricer,
                                                     const ParallelModel& model,
                                                     const ParallelCompilation& compiled,
                                                     const GroupOf& group_of) {
  Builder b{pricer, compiled.strategy, group_of, {}};
  if (!model.spec) return onnx_expert_uses(b, model);
  Payload p = payload(model, compiled.strategy);
  for (size_t s = 0; s < compiled.strategy.stage_layers.size(); ++s)
    if (auto status = stage_uses(b, model, s, p); !status) return status.error();
  return std::move(b.uses);
}

Result<std::optional<driver::FirstTokenRead>> first_token_of(const ChipSpec& spec,
                                                             const ParallelModel& model) {
  if (!model.spec || model.request.shape.mode != zoo::Mode::prefill)
    return std::optional<driver::FirstTokenRead>{};
  auto whole = driver::load(model.request);
  if (!whole) return whole.error();
  return driver::first_token_read(spec, *whole);
}

Status simulate_uses(const collective::ChipGraph& graph, ParallelCompilation& compiled) {
  for (CollectiveUse& use : compiled.collectives) {
    auto run = sim::simulate_collectives(graph, use.concurrent);
    if (!run) return run.error();
    use.simulated_s = *std::max_element(run->seconds.begin(), run->seconds.end());
  }
  return ok_status();
}

void set_simulated_collectives(planner::DesignResult& plan, const std::vector<CollectiveUse>& uses,
                               size_t s) {
  for (const CollectiveUse& use : uses) {
    if (use.stage != s || !use.simulated_s) continue;
    for (planner::OpSchedule& op : plan.ops)
      for (planner::CollectiveOp& c : op.collectives)
        if (c.where == use.where) c.simulated_s = *use.simulated_s;
  }
}

std::vector<DesignStep> compose_steps(const ParallelCompilation& c, const ParallelModel& model,
                                      const std::optional<EnergyRates>& energy) {
  const Resolved& r = c.strategy;
  const bool prefill = is_prefill(model);
  const size_t stages = c.stages.size();
  std::vector<DesignStep> steps;
  for (size_t d = 0; d < c.compilations.front().designs.size(); ++d) {
    DesignStep step;
    step.design = c.compilations.front().designs[d].plan.result.design;
    std::vector<double> planned(stages, 0), simulated(stages, 0), send_planned(stages, 0),
        send_simulated(stages, 0);
    bool all_simulated = true;
    std::optional<double> energy_j = energy ? std::optional<double>(0) : std::nullopt;
    double collective_j = 0;
    for (size_t s = 0; s < stages; ++s) {
      const driver::CompiledDesign& design = c.compilations[c.stages[s].compilation].designs[d];
      planned[s] = design.plan.result.latency_s;
      all_simulated = all_simulated && design.simulated.has_value();
      if (design.simulated) simulated[s] = design.simulated->summary.latency_s;
      if (energy_j && design.plan.result.energy)
        *energy_j += design.plan.result.energy->total_j() *
                     static_cast<double>(r.tp * r.dp * r.micro_batches);
      else
        energy_j.reset();
    }
    // The stage plans hold their collectives as ops (planned and simulated inside t_s); a send
    // follows its stage. Energy: every collective's bytes on the chip links.
    for (size_t s = 0; s < stages; ++s)
      step.collective_planned_s +=
          c.compilations[c.stages[s].compilation].designs[d].plan.result.collective_exposed_s *
          static_cast<double>(r.micro_batches);
    for (const CollectiveUse& use : c.collectives) {
      const double count = static_cast<double>(use.per_micro_batch);
      if (use.op.kind == CollectiveKind::send_recv) {
        send_planned[use.stage] += count * use.planned.seconds;
        send_simulated[use.stage] += count * use.simulated_s.value_or(0);
        step.collective_planned_s +=
            count * static_cast<double>(r.micro_batches) * use.planned.seconds;
      }
      if (energy)
        collective_j += count * use.planned.link_bytes *
                        static_cast<double>(use.concurrent.size()) *
                        static_cast<double>(r.micro_batches) * energy->chip_link_j_per_byte;
    }
    step.stage_planned_s = planned;
    step.planned_s = step_s(planned, send_planned, r.micro_batches, prefill);
    // Ideal is a bound no chip runs (its preloads on their own network): planned only, as the
    // flat compile's simulated table shows it.
    const bool ideal = step.design == planner::Design::ideal;
    if (!ideal && all_simulated && (c.collectives.empty() || c.collectives.front().simulated_s)) {
      step.stage_simulated_s = simulated;
      step.simulated_s = step_s(simulated, send_simulated, r.micro_batches, prefill);
    }
    double busy = 0;
    for (double t : planned) busy += t * static_cast<double>(r.micro_batches);
    step.bubble = 1 - busy / (static_cast<double>(stages) * step.planned_s);
    double seq = static_cast<double>(model.request.shape.seq.value_or(2048));
    step.tokens = static_cast<double>(r.batch) * (prefill ? seq : 1);
    if (energy_j) {
      step.energy_j = *energy_j + collective_j;
      step.collective_j = collective_j;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace tessera::parallel
