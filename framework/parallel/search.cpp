// search_strategies: every strategy the machine admits, each compiled, ranked (parallel.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "framework/parallel/compose.hpp"
#include "framework/parallel/parallel.hpp"

namespace tessera::parallel {
namespace {

// Flat first; then, on several chips, each tp × pp with dp filling the chips, one micro-batch and,
// where the replica's users divide into pp, pp micro-batches; for a model with experts (a zoo
// MoE, or an ONNX model's recognised MoE blocks) each ep dividing dp.
std::vector<ParallelStrategy> candidates(const ParallelModel& model, int64_t chips) {
  std::vector<ParallelStrategy> out{ParallelStrategy{}};
  if (chips == 1) return out;  // tp=pp=dp=1 on one chip is the flat compile
  const int64_t batch = model.spec ? model.request.shape.batch : 1;
  const int64_t experts = model.spec      ? model.spec->experts
                          : model.experts ? model.experts->experts
                                          : 0;  // an ONNX model's recognised MoE blocks
  for (int64_t tp : divisors(chips))
    for (int64_t pp : divisors(chips / tp)) {
      const int64_t dp = chips / tp / pp;
      std::vector<int64_t> mbs{1};
      if (pp > 1 && batch % (dp * pp) == 0) mbs.push_back(pp);
      std::vector<int64_t> eps{1};
      for (int64_t ep : divisors(dp))
        if (ep > 1 && experts > 0 && experts % ep == 0) eps.push_back(ep);
      for (int64_t mb : mbs)
        for (int64_t ep : eps) {
          ParallelStrategy s;
          s.flat = false;
          s.tp = tp;
          s.pp = pp;
          s.dp = dp;
          s.ep = ep;
          s.micro_batches = mb;
          out.push_back(s);
        }
    }
  return out;
}

// The fastest design but Ideal (the yardstick no chip runs) of a compiled candidate.
struct Figures {
  double step_s = std::numeric_limits<double>::infinity(), tokens = 0;
  std::optional<double> energy_j;
};

void fill(Candidate& c, const Figures& f) {
  if (!std::isfinite(f.step_s)) return;
  c.step_s = f.step_s;
  c.tokens_per_s = f.tokens / f.step_s;
  if (f.energy_j) c.j_per_token = *f.energy_j / f.tokens;
}

Result<Figures> flat_figures(driver::OpenChip& chip, const ParallelModel& model,
                             const driver::CompileOptions& options,
                             std::optional<driver::Compilation>& kept) {
  auto loaded = driver::load(model.request);
  if (!loaded) return loaded.error();
  auto compiled = driver::compile(chip, *loaded, options);
  if (!compiled) return compiled.error();
  kept = std::move(*compiled);
  const driver::Compilation* flat = &*kept;
  Figures f;
  const auto& shape = model.request.shape;
  bool prefill = shape.mode.value_or(zoo::Mode::decode) == zoo::Mode::prefill;
  f.tokens = model.spec ? static_cast<double>(shape.batch) *
                              (prefill ? static_cast<double>(shape.seq.value_or(2048)) : 1)
                        : 1;
  for (const auto& d : flat->designs)
    if (d.plan.result.design != planner::Design::ideal && d.plan.result.latency_s < f.step_s) {
      f.step_s = d.plan.result.latency_s;
      f.energy_j.reset();
      if (d.plan.result.energy) f.energy_j = d.plan.result.energy->total_j();
    }
  return f;
}

Result<Figures> strategy_figures(PluginSet& plugins, driver::OpenChip& chip,
                                 const ParallelModel& model, const ParallelStrategy& s,
                                 const driver::CompileOptions& options) {
  auto compiled = compile_parallel(plugins, chip, model, s, options);
  if (!compiled) return compiled.error();
  Figures f;
  for (const DesignStep& d : compiled->designs)
    if (d.design != planner::Design::ideal && d.planned_s < f.step_s) {
      f.step_s = d.planned_s;
      f.tokens = d.tokens;
      f.energy_j = d.energy_j;
    }
  return f;
}

double score(const Candidate& c, Rank rank) {
  constexpr double kWorst = std::numeric_limits<double>::infinity();
  switch (rank) {
    case Rank::latency:
      return c.step_s.value_or(kWorst);
    case Rank::throughput:
      return c.tokens_per_s ? -*c.tokens_per_s : kWorst;
    case Rank::energy:
      return c.j_per_token.value_or(kWorst);
  }
  return kWorst;
}

}  // namespace

const char* to_string(Rank rank) {
  switch (rank) {
    case Rank::latency:
      return "latency";
    case Rank::throughput:
      return "throughput";
    case Rank::energy:
      return "energy";
  }
  return "?";
}

std::optional<Rank> parse_rank(std::string_view text) {
  for (Rank rank : {Rank::latency, Rank::throughput, Rank::energy})
    if (text == to_string(rank)) return rank;
  return std::nullopt;
}

Result<Search> search_strategies(PluginSet& plugins, driver::OpenChip& chip,
                                 const ParallelModel& model, const driver::CompileOptions& options,
                                 Rank rank) {
  Search search;
  search.rank = rank;
  driver::OpPlanCache cache;
  driver::CompileOptions shared = options;
  if (!shared.op_plans) shared.op_plans = &cache;
  shared.simulate = false;
  for (const ParallelStrategy& s : candidates(model, chip.models.machine.chips)) {
    Candidate c{s, "", std::nullopt, std::nullopt, std::nullopt};
    auto figures = s.flat ? flat_figures(chip, model, shared, search.flat)
                          : strategy_figures(plugins, chip, model, s, shared);
    if (!figures && figures.error().kind != ErrorKind::input) return figures.error();
    if (figures)
      fill(c, *figures);
    else
      c.reason = figures.error().message;
    if (figures && rank == Rank::energy && !c.j_per_token)
      c.reason = chip.spec.name + " states no energy rates, and the search ranks by energy";
    search.tried.push_back(std::move(c));
  }
  for (size_t i = 0; i < search.tried.size(); ++i) {
    const Candidate& c = search.tried[i];
    if (!c.reason.empty() || !c.step_s) continue;
    if (!search.best || score(c, rank) < score(search.tried[*search.best], rank)) search.best = i;
  }
  return search;
}

}  // namespace tessera::parallel
