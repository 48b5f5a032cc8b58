// `tessera serve`: many users on one machine — a discrete-event server (framework/serve/serve.hpp)
// whose steps cost what the compiler plans and simulates for them, and the latencies, throughput,
// goodput and energy it reaches at a load.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string_view>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/report/approximation_report.hpp"
#include "framework/serve/serve_request.hpp"

namespace tessera::cli {

namespace {

struct ServeCommand {
  serve::ServeRequest request;
  std::string format = "table";
  std::vector<double> rates;  // --rates: a load sweep
  std::string per_request, occupancy;
  bool force = false;
  bool progress = false;  // --progress: on standard error even when it is not a terminal
};

// How often the run's line is redrawn: a run of 10,000 requests takes under a second, in steps of
// microseconds each.
constexpr auto kRedraw = std::chrono::milliseconds(100);

std::string progress_bar(int64_t done, int64_t total) {
  constexpr int64_t kWidth = 30;
  const int64_t filled = total > 0 ? kWidth * done / total : kWidth;
  return "[" + std::string(static_cast<size_t>(filled), '#') +
         std::string(static_cast<size_t>(kWidth - filled), '.') + "]";
}

// Progress on standard error, never standard output (the report, or --format json's document): the
// grid's build, then the run's requests done and simulated time. On a terminal, one line redrawn
// in place; elsewhere (--progress) a line per redraw, for a log. `label` names a load sweep's
// point.
serve::ServeProgress progress_lines(bool forced, const std::string& label) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  if (!terminal && !forced) return {};
  auto draw = [terminal, label](const std::string& line, bool last) {
    std::cerr << (terminal ? "\r\033[K" : "") << label << line << (last || !terminal ? "\n" : "")
              << std::flush;
  };
  auto drawn = std::make_shared<std::chrono::steady_clock::time_point>();
  return {[draw](int done, int total) {
            draw(fmt::format("step-cost grid {} {}/{} steps compiled and simulated",
                             progress_bar(done, total), done, total),
                 done == total);
          },
          [draw, drawn](const serve::RunProgress& p) {
            const auto now = std::chrono::steady_clock::now();
            const bool last = p.finished == p.requests;
            if (!last && now - *drawn < kRedraw) return;
            *drawn = now;
            draw(fmt::format("serving {} {}/{} requests done, {:.1f} s simulated",
                             progress_bar(p.finished, p.requests), p.finished, p.requests,
                             p.simulated_s),
                 last);
          }};
}

// An SLO given with a unit ("50ms", "1s") is refused with how to write it, before its bound.
CLI::Validator slo_milliseconds(const char* option) {
  CLI::Validator bound = bounded("serve", option);
  return CLI::Validator(
      [bound, option](std::string& text) -> std::string {
        // "1s", "50ms", "2min", "1h": a number with a unit of time after it.
        bool unit = text.size() > 1 &&
                    std::string_view("smh").find(text.back()) != std::string_view::npos &&
                    std::isdigit(static_cast<unsigned char>(text.front())) != 0;
        if (unit)
          return fmt::format(
              "{} takes milliseconds as a bare number, got '{}': write 1000 for 1 s, 50 for 50 ms",
              option, text);
        return bound(text);
      },
      "MS");
}

// --rates: the same requests' lengths and seed at each rate; the grid built once, then read from
// the cache.
int run_load_sweep(ServeCommand& c, serve::OpenedServe& opened) {
  if (!c.per_request.empty() || !c.occupancy.empty())
    throw Failure(usage_error(
        "--per-request and --occupancy write one run's rows; give --rate instead of --rates"));
  std::vector<serve::Served> points;
  std::vector<serve::ServeHeader> headers;
  for (size_t i = 0; i < c.rates.size(); ++i) {
    const double rate = c.rates[i];
    std::get<serve::SyntheticLoad>(opened.source).rate_per_s = rate;
    const std::string label = fmt::format("rate {}/{} ({:g} req/s): ", i + 1, c.rates.size(), rate);
    points.push_back(serve::serve_opened(opened, progress_lines(c.progress, label)).take());
    headers.push_back(serve::header_at(c.request, opened, rate));
  }
  if (c.format == "json") {
    std::cout << with_approximations(serve::serve_load_json(headers, points), opened);
    return kExitOk;
  }
  // The machine and the grid as the heaviest load reached them.
  std::cout << serve::machine_text(headers.back(), points.back())
            << tessera::approximation_lines(opened) << serve::serve_load_text(points);
  return kExitOk;
}

int run_serve(const GlobalOptions& global, ServeCommand& c) {
  PluginSet plugins(global.registry());
  serve::OpenedServe opened = serve::open_serve(plugins, c.request).take();
  if (!c.rates.empty()) return run_load_sweep(c, opened);
  serve::Served served = serve::serve_opened(opened, progress_lines(c.progress, "")).take();
  std::ostream& report = report_stream({c.per_request, c.occupancy});
  report << (c.format == "json"
                 ? with_approximations(serve::serve_json(opened.header, served), opened)
                 : serve::serve_text(opened.header, served, tessera::approximation_lines(opened)));
  report.flush();
  if (!c.per_request.empty())
    write_output(c.per_request,
                 c.per_request.ends_with(".json") ? serve::requests_json(served.run)
                                                  : serve::requests_csv(served.run),
                 c.force);
  if (!c.occupancy.empty())
    write_output(c.occupancy, serve::occupancy_csv(served.run, 2000), c.force);
  return kExitOk;
}

void add_load_options(CLI::App* cmd, ServeCommand& c) {
  auto* rate =
      cmd->add_option("--rate", c.request.load.rate_per_s, "Requests per second, on average")
          ->check(bounded("serve", "--rate"))
          ->capture_default_str();
  auto* trace = cmd->add_option("--trace", c.request.trace,
                                "Requests from a trace file instead (.csv or .jsonl: arrival_s, "
                                "prompt_tokens, output_tokens; docs/formats.md)")
                    ->type_name("FILE");
  rate->excludes(trace);
  cmd->add_option("--rates", c.rates,
                  "A load sweep: several rates, comma-separated (one row each; the step-cost "
                  "grid is built once)")
      ->delimiter(',')
      ->check(bounded("serve", "--rate"))
      ->excludes(trace)
      ->excludes(rate);
  cmd->add_option("--arrivals", c.request.arrivals, "poisson, or gamma (gaps of coefficient --cv)")
      ->check(CLI::IsMember({"poisson", "gamma"}))
      ->capture_default_str()
      ->excludes(trace);
  cmd->add_option("--cv", c.request.load.gamma_cv,
                  "--arrivals gamma: the gaps' coefficient of variation")
      ->check(bounded("serve", "--cv"))
      ->capture_default_str()
      ->excludes(trace);
  cmd->add_option("--prompt", c.request.prompt,
                  "Prompt lengths: fixed:N, uniform:LO:HI, normal:MEAN:SD, "
                  "lognormal:MEDIAN:SIGMA or zipf:S:MAX (tokens)")
      ->capture_default_str()
      ->excludes(trace);
  cmd->add_option("--output", c.request.output, "Output lengths, as --prompt")
      ->capture_default_str()
      ->excludes(trace);
  cmd->add_option("--requests", c.request.load.requests, "Requests to simulate")
      ->check(bounded("serve", "--requests"))
      ->capture_default_str()
      ->excludes(trace);
  cmd->add_option("--seed", c.request.load.seed, "Seed of the arrivals and lengths")
      ->check(bounded("serve", "--seed"))
      ->capture_default_str()
      ->excludes(trace);
}

}  // namespace

void add_serve_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto c = std::make_shared<ServeCommand>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve many users on a machine: a discrete-event LLM server (static, continuous or chunked "
      "batching, a paged KV cache) whose steps cost what the compiler simulates; TTFT, TPOT, "
      "throughput, goodput and energy at a load (docs/serving.md)");
  cmd->add_option("MODEL", c->request.model.model, "Zoo decoder")->required();
  cmd->add_option("--dtype", c->request.model.dtype,
                  "Element type of weights, activations and KV cache")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "fp8"}));
  cmd->add_option("--weight-dtype", c->request.model.weight_dtype,
                  "Storage type of the weights alone")
      ->check(CLI::IsMember({"fp16", "bf16", "fp8", "bfp8"}));
  cmd->add_option("--precision", c->request.model.precision, "A precision file (docs/formats.md)")
      ->type_name("FILE");
  add_chip_options(cmd, c->request.chip);
  cmd->add_option("--design", c->request.design, "The design each step is planned with")
      ->capture_default_str();
  cmd->add_option("--parallel", c->request.parallel,
                  "How each step is divided over the chips (as tessera compile --parallel); "
                  "default flat")
      ->type_name("STRATEGY");
  cmd->add_option("--scheduler", c->request.scheduler,
                  "static, continuous (vLLM-like) or chunked "
                  "(Sarathi-like chunked prefill)")
      ->check(CLI::IsMember({"static", "continuous", "chunked"}))
      ->capture_default_str();
  cmd->add_option("--preemption", c->request.preemption,
                  "Out of KV blocks, the latest sequence is preempted by recompute (prefilled "
                  "again) or swap (its KV moved off at the off-chip memory's rate and back)")
      ->check(CLI::IsMember({"recompute", "swap"}))
      ->capture_default_str();
  cmd->add_flag(
      "--disaggregate", c->request.disaggregate,
      "Prefill on --prefill-chip, decode on --chip, each request's KV cache moved between "
      "them over --kv-link (docs/serving.md, \"Disaggregation\")");
  cmd->add_option("--prefill-target", c->request.prefill_chip.target,
                  "--disaggregate: the prefill chip's target plugin (default --target's)");
  cmd->add_option("--prefill-chip", c->request.prefill_chip.chip,
                  "--disaggregate: the chips that prefill (preset name or chip file)");
  cmd->add_option("--prefill-parallel", c->request.prefill_parallel,
                  "--disaggregate: how each prefill step is divided over the prefill chips "
                  "(default flat)")
      ->type_name("STRATEGY");
  cmd->add_option("--kv-link", c->request.kv_link,
                  "--disaggregate: the link the KV cache crosses: 100gbe, 400gbe, pcie4-x16 "
                  "(configs/links) or a link file (docs/formats.md)")
      ->type_name("NAME|FILE");
  cmd->add_option("--router", c->request.router,
                  "Under --parallel dp=D (D independent servers): each arriving request to the "
                  "replica with the fewest outstanding tokens (least-loaded), or in turn "
                  "(round-robin)")
      ->check(CLI::IsMember({"least-loaded", "round-robin"}))
      ->capture_default_str();
  cmd->add_option("--max-batch", c->request.options.scheduler.max_batch,
                  "Sequences running at once (on each replica)")
      ->check(bounded("serve", "--max-batch"))
      ->capture_default_str();
  cmd->add_option("--token-budget", c->request.options.scheduler.token_budget,
                  "--scheduler chunked: tokens per step, decodes and prompt chunks")
      ->check(bounded("serve", "--token-budget"))
      ->capture_default_str();
  cmd->add_option("--block-tokens", c->request.options.block_tokens,
                  "KV cache block size, in positions")
      ->check(bounded("serve", "--block-tokens"))
      ->capture_default_str();
  add_load_options(cmd, *c);
  cmd->add_option("--slo-ttft-ms", c->request.slo_ttft_ms,
                  "Time-to-first-token SLO for goodput (ms)")
      ->check(slo_milliseconds("--slo-ttft-ms"));
  cmd->add_option("--slo-tpot-ms", c->request.slo_tpot_ms,
                  "Time-per-output-token SLO for goodput (ms)")
      ->check(slo_milliseconds("--slo-tpot-ms"));
  cmd->add_option("--cache-dir", c->request.cache_dir,
                  "Where step-cost grids are kept (default $TESSERA_CACHE_DIR/serve, else "
                  "$XDG_CACHE_HOME/tessera/serve, else ~/.cache/tessera/serve)")
      ->type_name("DIR");
  cmd->add_option("--format", c->format, "table, or json: one JSON document on standard output")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--per-request", c->per_request,
                  "Write each request's row here (.csv, or .json; '-': standard output)")
      ->type_name("FILE");
  cmd->add_option("--occupancy", c->occupancy,
                  "Write waiting, running and KV use over time here (CSV)")
      ->type_name("FILE");
  cmd->add_flag("--force", c->force, "Overwrite existing output files");
  cmd->add_flag("--progress", c->progress,
                "Show progress on standard error even when it is not a terminal (on a terminal "
                "it is shown anyway)");
  cmd->callback([&global, &action, c] { action = [&global, c] { return run_serve(global, *c); }; });
}

}  // namespace tessera::cli
