// The `tessera` Python module's native part (_tessera; tessera/__init__.py is the package). It
// calls the driver — the pipeline every CLI command uses — and gives back what the CLI's
// `--format json` prints, as Python objects (json.loads of the same text: the same field names,
// the same numbers). Errors are exceptions carrying the CLI's message: tessera.UsageError,
// InputError, PluginError and InternalError, all tessera.Error. The GIL is released while the
// pipeline runs; each call opens its own plugins and chip, so calls from several Python threads
// share nothing (a Plan is immutable).
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip/topology_report.hpp"
#include "framework/common/files.hpp"
#include "framework/common/json_text.hpp"
#include "framework/driver/driver.hpp"
#include "framework/driver/layout.hpp"
#include "framework/driver/map.hpp"
#include "framework/driver/option_bounds.hpp"
#include "framework/dse/results_table.hpp"
#include "framework/dse/sweep_run.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "framework/ir/workload_report.hpp"
#include "framework/memsim/memory_report.hpp"
#include "framework/memsim/memsim.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "framework/plugin/registry.hpp"
#include "framework/report/approximation_report.hpp"
#include "framework/report/design_report.hpp"
#include "framework/report/layout_report.hpp"
#include "framework/report/map_report.hpp"
#include "framework/report/parallel_report.hpp"
#include "framework/report/residency_report.hpp"
#include "framework/report/targets_report.hpp"
#include "framework/serve/serve_request.hpp"
#include "framework/sim/sim_report.hpp"

namespace py = pybind11;

namespace tessera::python {

namespace {

// The C++ side of the exception classes (registered below under the Python names).
struct TesseraError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct UsageError : TesseraError {
  using TesseraError::TesseraError;
};
struct InputError : TesseraError {
  using TesseraError::TesseraError;
};
struct PluginError : TesseraError {
  using TesseraError::TesseraError;
};
struct InternalError : TesseraError {
  using TesseraError::TesseraError;
};

[[noreturn]] void raise(const Error& e) {
  switch (e.kind) {
    case ErrorKind::usage:
      throw UsageError(e.message);
    case ErrorKind::input:
      throw InputError(e.message);
    case ErrorKind::plugin:
      throw PluginError(e.message);
    case ErrorKind::internal:
      break;
  }
  throw InternalError(e.message);
}

// Runs `f` without the GIL: what it returns (a Result's value), or its error raised as the
// exception of its kind; a Failure the stages throw likewise, anything else as the CLI reports it
// (an internal error).
template <class F>
auto run(F&& f) {
  try {
    py::gil_scoped_release unlocked;
    auto r = f();
    if constexpr (requires { r.ok(); }) {
      if (!r.ok()) raise(r.error());
      return std::move(r).take();
    } else {
      return r;
    }
  } catch (const Failure& failure) {
    raise(failure.error());
  } catch (const TesseraError&) {
    throw;
  } catch (const std::exception& e) {
    throw InternalError(std::string("internal error: ") + e.what());
  }
}

sim::MemoryDetail memory_detail_of(const std::string& text) {
  if (text != "full" && text != "fast")
    throw UsageError("memory_detail '" + text + "': expected fast or full");
  return text == "full" ? sim::MemoryDetail::full : sim::MemoryDetail::fast;
}

// `keyword`'s value (as Python writes it: str()) within the bound the CLI's `command` puts on
// the option of the same name ('-' for '_'), or UsageError with the CLI's words.
void check_bound(const std::string& command, const std::string& keyword, const std::string& text) {
  std::string option = "--" + keyword;
  std::replace(option.begin(), option.end(), '_', '-');
  const driver::OptionBound* bound = driver::find_option_bound(command, option);
  if (!bound) throw InternalError("internal error: no bound for " + command + " " + option);
  std::string wrong = driver::bound_violation(*bound, text);
  if (!wrong.empty()) throw UsageError(keyword + ": " + wrong);
}

py::object from_json(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

// compile(residency=...): None (empty) leaves it to the chip file's `planner: residency:`.
std::optional<ResidencyMode> residency_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::optional<ResidencyMode> mode = parse_residency(text);
  if (!mode) throw UsageError("residency '" + text + "': expected " + kResidencyNames);
  return mode;
}

// compile(dispatch=...): None (empty) leaves it to the chip file's `planner: dispatch:`.
std::optional<DispatchMode> dispatch_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::optional<DispatchMode> mode = parse_dispatch(text);
  if (!mode) throw UsageError("dispatch '" + text + "': expected " + kDispatchNames);
  return mode;
}

Registry registry() {
  return Registry::discover(plugin_search_dirs({}));
}

ModelRequest model_request(const std::string& model, driver::ModelWords words) {
  words.model = model;
  return run([&] { return driver::parse_model_request(words); });
}

// A Python callable progress(stage, done, total), called with the GIL from whichever thread
// reports; the first exception it raises is kept and raised once the call returns (the pipeline
// goes on: a stage cannot be interrupted halfway).
class ProgressHook {
 public:
  explicit ProgressHook(py::object callback) : callback_(std::move(callback)) {}
  bool empty() const { return callback_.is_none(); }
  void operator()(const std::string& stage, double done, double total) {
    py::gil_scoped_acquire locked;
    if (raised_) return;
    try {
      callback_(stage, done, total);
    } catch (py::error_already_set& e) {
      raised_ = std::make_unique<py::error_already_set>(std::move(e));
    }
  }
  void rethrow() {
    if (raised_) throw std::move(*raised_);
  }

 private:
  py::object callback_;
  std::unique_ptr<py::error_already_set> raised_;
};

// One design's plan, as plan.yaml holds it.
struct Plan {
  planner::Plan plan;
  std::string design() const { return planner::to_string(plan.result.design); }
  std::string yaml() const { return planner::write_plan_yaml(plan); }
  // The compile JSON's "residency" (null when off).
  std::string residency() const { return json_text(residency_json(plan.result.residency)); }
};

// pybind11 lets Plan.__new__(Plan) make a Python object whose C++ Plan is never constructed (its
// memory is allocated on first use, uninitialised): every use checks that one was.
const Plan& made(py::handle plan) {
  auto* instance = reinterpret_cast<py::detail::instance*>(plan.ptr());
  bool constructed =
      py::isinstance<Plan>(plan) && instance->get_value_and_holder().holder_constructed();
  if (!constructed)
    throw UsageError("this Plan was not made by tessera.compile or tessera.load_plan");
  return plan.cast<const Plan&>();
}

py::dict compile(const std::string& model, const std::string& target, const std::string& chip,
                 const std::string& design, bool simulate, const driver::ModelWords& words,
                 unsigned threads, const std::string& memory_detail, const std::string& objective,
                 const std::string& core_cost, py::object progress, const std::string& residency,
                 const std::string& dispatch) {
  driver::DesignChoice choice = run([&] { return driver::parse_design_choice(design); });
  driver::PlanObjective goal = run([&] { return driver::parse_plan_objective(objective); });
  std::optional<ResidencyMode> resident = residency_of(residency);
  std::optional<DispatchMode> commands = dispatch_of(dispatch);
  std::optional<CoreCost> cores = core_cost.empty() ? std::nullopt : parse_core_cost(core_cost);
  if (!core_cost.empty() && !cores)
    throw UsageError("core_cost '" + core_cost + "': expected plugin or tcm (or None: the chip's)");
  sim::MemoryDetail memory = memory_detail_of(memory_detail);
  ModelRequest request = model_request(model, words);
  ProgressHook hook(std::move(progress));
  auto [text, plans] = run([&] {
    Registry found = registry();
    PluginSet plugins(found);
    driver::OpenChip open = driver::open_chip(plugins, driver::ChipChoice{target, chip}).take();
    if (cores) driver::choose_core_cost(open, *cores).take();
    driver::LoadedModel loaded = driver::load(request).take();
    driver::CompileOptions options;
    options.designs = driver::planned_designs(choice, open.spec.conventions.vendor);
    options.threads = threads;
    options.simulate = simulate;
    options.sim.memory = memory;
    options.objective = goal;
    options.residency = resident;
    options.dispatch = commands;
    if (!hook.empty())
      options.progress = [&hook](const std::string& stage) -> driver::Progress {
        return [&hook, stage](double done, double total) { hook(stage, done, total); };
      };
    driver::Compilation c = driver::compile(open, loaded, options).take();
    // The document first: it reads the plans (their residency) that are then moved out.
    std::string document =
        with_approximation(compile_json(c, open.models.machine, memory), open.spec);
    std::vector<Plan> kept;
    for (auto& d : c.designs) kept.push_back({std::move(d.plan)});
    return std::pair{std::move(document), std::move(kept)};
  });
  hook.rethrow();
  py::dict out = from_json(text);
  py::dict by_design;
  for (Plan& p : plans) by_design[py::str(p.design())] = py::cast(std::move(p));
  out["plans"] = by_design;
  return out;
}

parallel::Rank rank_of(const std::string& rank) {
  if (auto ranked = parallel::parse_rank(rank)) return *ranked;
  throw UsageError("rank '" + rank + "': expected " + parallel::kRankNames);
}

// compile(parallel=...): the strategy's document (tessera-parallel-4); for "auto" with the search
// beside it, or, when flat wins, {"search": ..., "flat": true} for the caller to compile flat.
py::dict compile_parallel(const std::string& model, const std::string& target,
                          const std::string& chip, const std::string& design, bool simulate,
                          const driver::ModelWords& words, unsigned threads,
                          const std::string& objective, const std::string& strategy_text,
                          const std::string& rank, const std::string& residency,
                          const std::string& dispatch) {
  driver::DesignChoice choice = run([&] { return driver::parse_design_choice(design); });
  driver::PlanObjective goal = run([&] { return driver::parse_plan_objective(objective); });
  std::optional<ResidencyMode> resident = residency_of(residency);
  std::optional<DispatchMode> commands = dispatch_of(dispatch);
  parallel::ParallelStrategy strategy =
      run([&] { return parallel::parse_strategy(strategy_text); });
  parallel::Rank ranked = rank_of(rank);
  ModelRequest request = model_request(model, words);
  std::string text = run([&] {
    Registry found = registry();
    PluginSet plugins(found);
    driver::OpenChip open = driver::open_chip(plugins, driver::ChipChoice{target, chip}).take();
    driver::CompileOptions options;
    options.designs = driver::planned_designs(choice, open.spec.conventions.vendor);
    options.threads = threads;
    options.simulate = simulate;
    options.objective = goal;
    options.residency = resident;
    options.dispatch = commands;
    auto parallel_model = parallel::parallel_model(request).take();
    std::optional<parallel::Search> search;
    if (strategy.automatic) {
      search = parallel::search_strategies(plugins, open, parallel_model, options, ranked).take();
      if (!search->best)
        throw Failure(input_error("parallel='auto': no strategy fits " + model + " on " +
                                  open.spec.name + "; each row of the search says why"));
      strategy = search->tried[*search->best].strategy;
      if (strategy.flat)
        return Result<std::string>("{\"flat\": true, \"search\": " + search_json(*search) + "}");
    }
    auto compiled =
        parallel::compile_parallel(plugins, open, parallel_model, strategy, options).take();
    return Result<std::string>(
        parallel_json(compiled, open.models.machine, search ? &*search : nullptr));
  });
  return from_json(text);
}

// A saved plan.yaml (read_plan_yaml's input errors).
Plan load_plan(const std::string& path) {
  return {run([&] { return planner::read_plan_yaml(path); })};
}

// The plan's program on the simulator, as `tessera simulate --format json` (the plan's residency
// beside the report, under "residency"); `trace`: also write the Chrome trace there (never over an
// existing file unless `force`).
py::dict simulate(py::handle given, const std::string& memory_detail, const std::string& trace,
                  bool force) {
  const Plan& plan = made(given);
  sim::MemoryDetail memory = memory_detail_of(memory_detail);
  std::string text = run([&] {
    Registry found = registry();
    PluginSet plugins(found);
    driver::Reopened reopened = driver::reopen(plugins, plan.plan, "the plan").take();
    sim::SimOptions options;
    options.memory = memory;
    options.record_trace = !trace.empty();
    driver::SimulatedDesign run =
        driver::simulate(plan.plan, reopened.chip, *reopened.graph, options).take();
    if (!trace.empty())
      write_file_atomically(trace, sim::trace_json(run.result, run.program, driver::power_w(run)),
                            force)
          .take();
    return with_approximation(
        with_first_token(sim::sim_report_json(run.result, run.program, reopened.chip.models.machine,
                                              run.energy, plan.plan.result.energy),
                         driver::first_token_read(reopened.chip.spec, reopened.model),
                         run.result.latency_s),
        reopened.chip.spec);
  });
  py::dict out = from_json(text);
  out["residency"] = from_json(plan.residency());
  return out;
}

// tessera.serve: `tessera serve --format json`, or with `rates` its load sweep's document.
// serve()'s progress through `hook`: the grid's points as each is simulated, then the requests
// finished (once per request that finishes, not per step: a run of 10,000 requests takes
// hundreds of thousands of steps), each stage named as compile's are ("NAME (UNITS)").
serve::ServeProgress serve_progress(ProgressHook& hook, const std::string& load) {
  if (hook.empty()) return {};
  return {[&hook](int done, int total) { hook("step-cost grid (points)", done, total); },
          [&hook, label = "serving" + load + " (requests)",
           reported = int64_t{-1}](const serve::RunProgress& p) mutable {
            if (p.finished == reported) return;
            reported = p.finished;
            hook(label, static_cast<double>(p.finished), static_cast<double>(p.requests));
          }};
}

py::object serve_model(const serve::ServeRequest& request, const std::vector<double>& rates,
                       py::object progress) {
  ProgressHook hook(std::move(progress));
  std::string json = run([&]() -> Result<std::string> {
    Registry found = registry();
    PluginSet plugins(found);
    auto opened = serve::open_serve(plugins, request);
    if (!opened) return opened.error();
    if (rates.empty()) {
      auto served = serve::serve_opened(*opened, serve_progress(hook, ""));
      if (!served) return served.error();
      return with_approximations(serve::serve_json(opened->header, *served), *opened);
    }
    if (!request.trace.empty())
      return usage_error("rates: a load sweep takes synthetic arrivals, not a trace");
    std::vector<serve::Served> points;
    std::vector<serve::ServeHeader> headers;
    for (double rate : rates) {
      std::get<serve::SyntheticLoad>(opened->source).rate_per_s = rate;
      auto served =
          serve::serve_opened(*opened, serve_progress(hook, fmt::format(" at {:g} req/s", rate)));
      if (!served) return served.error();
      points.push_back(std::move(*served));
      headers.push_back(serve::header_at(request, *opened, rate));
    }
    return with_approximations(serve::serve_load_json(headers, points), *opened);
  });
  hook.rethrow();
  return from_json(json);
}

py::dict inspect(const std::string& model, const driver::ModelWords& words) {
  ModelRequest request = model_request(model, words);
  return from_json(run([&] {
    driver::LoadedModel loaded = driver::load(request).take();
    return workload_json(*loaded.graph, "");
  }));
}

// The chip's topology summary (as `tessera topology --format json` without routes) and the
// Machine the planner reads off it.
py::dict chip(const std::string& target, const std::string& chip_name) {
  std::string text = run([&] {
    Registry found = registry();
    PluginSet plugins(found);
    driver::OpenChip open =
        driver::open_chip(plugins, driver::ChipChoice{target, chip_name}).take();
    TopologySummary summary = summarize(open.models.topology, {}).take();
    add_peak_fidelities(summary, open.models.cost_model).take();
    nlohmann::json j = render_json(summary);
    const Machine& m = open.models.machine;
    j["target"] = open.target.name;
    j["approximation"] = text_or_null(open.spec.approximation);
    j["machine"] = {{"chip", m.chip},
                    {"cores", m.cores},
                    {"chips", m.chips},
                    {"sram_bytes_per_core", m.sram_bytes_per_core},
                    {"clock_hz", m.clock_hz},
                    {"peak_flops_per_s", m.peak_flops_per_s},
                    {"hbm_bytes_per_s", m.hbm_bytes_per_s},
                    {"hbm_peak_bytes_per_s", m.hbm_peak_bytes_per_s},
                    {"hbm_controllers", m.hbm_controllers},
                    {"off_chip_bytes", m.off_chip_bytes},
                    {"interconnect_bytes_per_s", m.interconnect_bytes_per_s}};
    return json_text(j);
  });
  return from_json(text);
}

// A sweep (a file, or its text: JSON is YAML too) run here into `run_dir`, resumable as
// `tessera sweep`'s; its results.json document.
py::dict sweep(const std::string& file, const std::string& text, const std::string& run_dir,
               unsigned threads, bool force) {
  return from_json(run([&] {
    dse::SweepSpec spec = text.empty() ? dse::read_sweep(file).take()
                                       : dse::parse_sweep_text(text, "the sweep").take();
    Registry found = registry();
    dse::RunOptions options;
    options.force = force;
    options.threads = threads;
    auto session = dse::SweepSession::start(spec, found, run_dir, options).take();
    driver::OpPlanCache cache;
    dse::run_local(*session, found, cache, threads).take();
    return dse::results_json(spec, session->results());
  }));
}

// A memory model alone on generated traffic or a trace, as `tessera memsim --format json`.
py::dict run_memsim(const memsim::MemsimOptions& options) {
  if (options.generator.empty() == options.trace.empty())
    throw UsageError("memsim needs gen='stream' or 'random', or trace=FILE");
  if (!options.generator.empty() && options.generator != "stream" && options.generator != "random")
    throw UsageError("gen '" + options.generator + "': expected stream or random");
  return from_json(run([&] {
    Registry found = registry();
    PluginSet plugins(found);
    return json_text(render_json(memsim::run_memsim(plugins, options)));
  }));
}

// The plugins found, as `tessera targets --format json` (each loaded once, in a child process,
// to prove it usable: "status" says why one is not).
py::list targets() {
  return from_json(run([&] {
    std::vector<std::string> unusable;
    return json_text(targets_json(registry(), unusable));
  }));
}

// TCM's optimal mapping (or random sampling) of one Einsum, as `tessera map --format json`;
// `output`: also write the mapping file there, as `tessera map -o` does.
py::dict map(driver::MapRequest request, const std::string& output, bool force,
             py::object progress) {
  ProgressHook hook(std::move(progress));
  if (!hook.empty())
    request.progress = [&hook](const mapper::MapperProgress& p) {
      hook("mapping (dataplacements)", static_cast<double>(p.dataplacements_done),
           static_cast<double>(p.dataplacements));
    };
  std::string text = run([&] {
    driver::Mapping m = driver::map_einsum(request).take();
    if (!output.empty()) write_file_atomically(output, driver::mapping_file_text(m), force).take();
    return map_json(m);
  });
  hook.rethrow();
  return from_json(text);
}

// A saved mapping file evaluated, as `tessera map --evaluate FILE --format json`.
py::dict evaluate_mapping(const std::string& path) {
  return from_json(run([&] { return map_json(driver::evaluate_mapping_file(path).take()); }));
}

// A tree layout through the target's LayoutMapper, as `tessera layout --format json`.
py::dict layout(const driver::LayoutRequest& request) {
  return from_json(run([&] {
    Registry found = registry();
    PluginSet plugins(found);
    return layout_json(driver::query_layout(plugins, request).take());
  }));
}

}  // namespace

}  // namespace tessera::python

PYBIND11_MODULE(_tessera, m) {
  using namespace tessera;
  using namespace tessera::python;
  // The plugins, chips and zoo are under the prefix the module sits in, not the interpreter's:
  // PREFIX/lib/python3/dist-packages/tessera/ installed, BUILD/python/tessera/ in a build tree
  // (whose lib/tessera/plugins the CLI finds from BUILD/bin).
  namespace fs = std::filesystem;
  boost::dll::fs::error_code ec;
  fs::path package = fs::path(boost::dll::this_line_location(ec).string()).parent_path();
  for (fs::path prefix : {package / ".." / ".." / ".." / "..", package / ".." / ".."})
    if (!ec && fs::exists(prefix / "lib" / "tessera" / "plugins")) {
      set_install_prefix(prefix.lexically_normal());
      break;
    }

  m.doc() = "Tessera's compile and simulate pipeline (see the tessera package)";
  // Shown as tessera.InputError etc. in tracebacks (the package re-exports them).
  auto error = py::register_exception<TesseraError>(m, "Error");
  error.attr("__module__") = "tessera";
  py::object kinds[] = {py::register_exception<UsageError>(m, "UsageError", error.ptr()),
                        py::register_exception<InputError>(m, "InputError", error.ptr()),
                        py::register_exception<PluginError>(m, "PluginError", error.ptr()),
                        py::register_exception<InternalError>(m, "InternalError", error.ptr())};
  for (py::object& kind : kinds) kind.attr("__module__") = "tessera";

  py::class_<driver::ModelWords>(m, "ModelWords")
      .def(py::init<>())
      .def_readwrite("model", &driver::ModelWords::model)
      .def_readwrite("dims", &driver::ModelWords::dims)
      .def_readwrite("batch", &driver::ModelWords::batch)
      .def_readwrite("seq", &driver::ModelWords::seq)
      .def_readwrite("mode", &driver::ModelWords::mode)
      .def_readwrite("dtype", &driver::ModelWords::dtype)
      .def_readwrite("weight_dtype", &driver::ModelWords::weight_dtype)
      .def_readwrite("precision", &driver::ModelWords::precision)
      .def_readwrite("expert_skew", &driver::ModelWords::expert_skew)
      .def_readwrite("skip_unsupported", &driver::ModelWords::skip_unsupported);
  py::class_<Plan>(m, "Plan")
      .def_property_readonly("design", [](py::handle p) { return made(p).design(); })
      .def_property_readonly("residency",
                             [](py::handle p) { return from_json(made(p).residency()); })
      .def("yaml", [](py::handle p) { return made(p).yaml(); })
      .def(
          "write",
          [](py::handle p, const std::string& path, bool force) {
            std::string text = made(p).yaml();
            run([&] { return write_file_atomically(path, text, force); });
          },
          py::arg("path"), py::arg("force") = false);
  m.def("compile_parallel", &compile_parallel, py::arg("model"), py::arg("target"), py::arg("chip"),
        py::arg("design"), py::arg("simulate"), py::arg("words"), py::arg("threads"),
        py::arg("objective"), py::arg("parallel"), py::arg("rank"), py::arg("residency"),
        py::arg("dispatch"));
  m.def("load_plan", &load_plan, py::arg("path"));
  m.def("check_bound", &check_bound, py::arg("command"), py::arg("keyword"), py::arg("text"));
  m.def("compile", &compile, py::arg("model"), py::arg("target"), py::arg("chip"),
        py::arg("design"), py::arg("simulate"), py::arg("words"), py::arg("threads"),
        py::arg("memory_detail"), py::arg("objective"), py::arg("core_cost"), py::arg("progress"),
        py::arg("residency"), py::arg("dispatch"));
  m.def("simulate", &simulate, py::arg("plan"), py::arg("memory_detail"), py::arg("trace"),
        py::arg("force"));
  m.def("inspect", &inspect, py::arg("model"), py::arg("words"));
  py::class_<serve::ServeRequest>(m, "ServeRequest")
      .def(py::init<>())
      .def_readwrite("model", &serve::ServeRequest::model)
      .def_readwrite("design", &serve::ServeRequest::design)
      .def_readwrite("parallel", &serve::ServeRequest::parallel)
      .def_readwrite("scheduler", &serve::ServeRequest::scheduler)
      .def_readwrite("preemption", &serve::ServeRequest::preemption)
      .def_readwrite("router", &serve::ServeRequest::router)
      .def_readwrite("arrivals", &serve::ServeRequest::arrivals)
      .def_readwrite("prompt", &serve::ServeRequest::prompt)
      .def_readwrite("output", &serve::ServeRequest::output)
      .def_readwrite("trace", &serve::ServeRequest::trace)
      .def_readwrite("slo_ttft_ms", &serve::ServeRequest::slo_ttft_ms)
      .def_readwrite("slo_tpot_ms", &serve::ServeRequest::slo_tpot_ms)
      .def_readwrite("cache_dir", &serve::ServeRequest::cache_dir)
      .def("set_chip",
           [](serve::ServeRequest& r, const std::string& target, const std::string& chip) {
             r.chip = driver::ChipChoice{target, chip};
           })
      .def("set_disaggregation",
           [](serve::ServeRequest& r, const std::string& target, const std::string& chip,
              const std::string& parallel, const std::string& kv_link) {
             r.disaggregate = true;
             r.prefill_chip = driver::ChipChoice{target, chip};
             r.prefill_parallel = parallel;
             r.kv_link = kv_link;
           })
      .def("set_load",
           [](serve::ServeRequest& r, double rate, int64_t requests, uint64_t seed, double cv) {
             r.load.rate_per_s = rate;
             r.load.requests = requests;
             r.load.seed = seed;
             r.load.gamma_cv = cv;
           })
      .def("set_batching", [](serve::ServeRequest& r, int64_t max_batch, int64_t token_budget,
                              int64_t block_tokens) {
        r.options.scheduler.max_batch = max_batch;
        r.options.scheduler.token_budget = token_budget;
        r.options.block_tokens = block_tokens;
      });
  m.def("serve", &serve_model, py::arg("request"), py::arg("rates"), py::arg("progress"));
  m.def("targets", &targets);
  m.def("chip", &chip, py::arg("target"), py::arg("chip"));
  py::class_<memsim::MemsimOptions>(m, "MemsimOptions")
      .def(py::init<>())
      .def_readwrite("target", &memsim::MemsimOptions::target)
      .def_readwrite("config", &memsim::MemsimOptions::config)
      .def_readwrite("stacks", &memsim::MemsimOptions::stacks)
      .def_readwrite("strict", &memsim::MemsimOptions::strict)
      .def_readwrite("generator", &memsim::MemsimOptions::generator)
      .def_readwrite("trace", &memsim::MemsimOptions::trace)
      .def_readwrite("rate", &memsim::MemsimOptions::rate)
      .def_readwrite("streams", &memsim::MemsimOptions::streams)
      .def_readwrite("write_fraction", &memsim::MemsimOptions::write_fraction)
      .def_readwrite("seed", &memsim::MemsimOptions::seed)
      .def_readwrite("cycles", &memsim::MemsimOptions::cycles);
  m.def("memsim", &tessera::python::run_memsim, py::arg("options"));
  py::class_<driver::MapRequest>(m, "MapRequest")
      .def(py::init<>())
      .def_readwrite("arch", &driver::MapRequest::arch)
      .def_readwrite("workload", &driver::MapRequest::workload)
      .def_readwrite("model", &driver::MapRequest::model)
      .def_readwrite("op", &driver::MapRequest::op)
      .def_readwrite("pareto_level", &driver::MapRequest::pareto_level)
      .def_readwrite("time_limit_seconds", &driver::MapRequest::time_limit_seconds)
      .def_readwrite("seed", &driver::MapRequest::seed)
      .def_readwrite("threads", &driver::MapRequest::threads)
      .def(
          "set_objective",
          [](driver::MapRequest& r, const std::string& text) {
            auto objective = mapper::parse_objective(text);
            if (!objective)
              throw UsageError("objective '" + text + "': expected energy, latency, edp or pareto");
            r.objective = *objective;
          })
      .def("set_search", [](driver::MapRequest& r, const std::string& text) {
        if (text != "tcm" && text != "random")
          throw UsageError("search '" + text + "': expected tcm or random");
        r.search = text == "tcm" ? driver::MapSearch::tcm : driver::MapSearch::random;
      });
  m.def("map", &tessera::python::map, py::arg("request"), py::arg("output"), py::arg("force"),
        py::arg("progress"));
  m.def("evaluate_mapping", &evaluate_mapping, py::arg("path"));
  py::class_<driver::LayoutRequest>(m, "LayoutRequest")
      .def(py::init<>())
      .def_readwrite("chip", &driver::LayoutRequest::chip)
      .def_readwrite("layout", &driver::LayoutRequest::layout)
      .def_readwrite("choose", &driver::LayoutRequest::choose)
      .def_readwrite("shape", &driver::LayoutRequest::shape)
      .def_readwrite("locate", &driver::LayoutRequest::locate)
      .def_readwrite("inverse", &driver::LayoutRequest::inverse)
      .def_readwrite("map", &driver::LayoutRequest::map)
      .def_readwrite("candidates", &driver::LayoutRequest::candidates);
  py::class_<driver::ChipChoice>(m, "ChipChoice")
      .def(py::init<std::string, std::string>(), py::arg("target"), py::arg("chip"));
  m.def("layout", &layout, py::arg("request"));
  m.def("sweep", &sweep, py::arg("file"), py::arg("text"), py::arg("run_dir"), py::arg("threads"),
        py::arg("force"));
}
