// Result tables: the CSV's columns and cells exactly, failed points, quoting, each row's chip's
// approximation, and the JSON a point travels in (run directory, MPI) read back unchanged.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "framework/dse/point_result.hpp"
#include "framework/dse/results_table.hpp"

namespace tessera::dse {
namespace {

SweepSpec spec() {
  return parse_sweep_text(R"(name: t
base: {model: llama2-7b, target: ipu_alltoall, batch: 2, designs: [basic, ideal]}
axes:
  - {path: memory.bandwidth_bytes_per_s, values: [1e12, 2e12]}
  - {path: batch, values: [2]}
plots: [breakdown]
)",
                          "s.yaml")
      .take();
}

PointResult ok_point() {
  PointResult r;
  r.index = 0;
  r.values = {"1e12", "2"};
  r.ok = true;
  r.model = "llama2-7b";
  r.target = "ipu_alltoall";
  r.chip = "ipu-mk2";
  r.batch = 2;
  r.strategy = "flat";
  r.tokens = 2;
  r.residency = "auto";
  r.resident_bytes_per_core = 137216;
  r.cores = 1472;
  r.hbm_peak_bytes_per_s = 1e12;
  r.hbm_sustained_bytes_per_s = 0.8e12;
  r.interconnect_bytes_per_s = 7e12;
  r.peak_flops_per_s = 2.5e14;
  DesignRow basic{
      "basic", {2e-3, 0.5, 0.25, 0, 1e12, 1e-3, 0.5e-3, 0.25e-3, 0.25e-3, 0.5, 250},    1,
      true,    {2.5e-3, 0.4, 0.2, 0.1, 0.8e12, 1e-3, 1e-3, 0.25e-3, 0.25e-3, 0.6, 240}, {}};
  // No energy rates: 0 J, written as empty cells.
  DesignRow ideal{"ideal", {1e-3, 1, 0.5, 0, 2e12, 0.5e-3, 0.5e-3, 0, 0, 0, 0}, 1, false, {}, {}};
  r.rows = {basic, ideal};
  r.wall_s = 1.5;
  return r;
}

// A point at `bandwidth` (the spec's first axis) that failed before its chip was read.
PointResult failed_point(size_t index, const std::string& bandwidth, const std::string& reason) {
  PointResult failed;
  failed.index = index;
  failed.values = {bandwidth, "2"};
  failed.target = "ipu_alltoall";
  failed.reason = reason;
  return failed;
}

TEST(ResultsTable, CsvHasTheAxesThenEveryMetricPerDesign) {
  PointResults results;
  results[0] = ok_point();
  results[1] = failed_point(1, "2e12", "op 'x' needs 8 MiB, \"more\" than the chip");
  std::string csv = results_csv(spec(), results);
  std::string header =
      "point,status,reason,memory.bandwidth_bytes_per_s,model,target,chip,approximation,batch,seq,"
      "mode,dtype,"
      "strategy,residency,design,cores,hbm_peak_bytes_per_s,hbm_sustained_bytes_per_s,"
      "interconnect_bytes_per_s,peak_flops_per_s,planned_ms,speedup_vs_basic,of_ideal,hbm_util,"
      "noc_util,tflops,"
      "exec_only_ms,overlap_ms,stall_ms,congest_ms,orders,planned_mj,planned_w,sim_ms,"
      "sim_hbm_util,sim_noc_util,sim_sram_util,sim_tflops,sim_exec_only_ms,sim_overlap_ms,"
      "sim_stall_ms,sim_congest_ms,sim_mj,sim_w,tokens,tokens_per_s,sim_tokens_per_s,"
      "collective_ms,bubble,resident_bytes_per_core,sim_same_as,ttft_ms,sim_ttft_ms\n";
  std::string basic =
      "0,ok,,1e12,llama2-7b,ipu_alltoall,ipu-mk2,,2,,,,flat,auto,basic,1472,1000000000000,"
      "800000000000,7000000000000,250000000000000,2,1,0.5,0.5,0.25,1,1,0.5,0.25,0.25,1,500,250,2.5,"
      "0.4,0.2,0.1,0.8,1,1,0.25,0.25,600,240,2,1000,800,,,137216,,,\n";
  std::string ideal =
      "0,ok,,1e12,llama2-7b,ipu_alltoall,ipu-mk2,,2,,,,flat,auto,ideal,1472,1000000000000,"
      "800000000000,7000000000000,250000000000000,1,2,1,1,0.5,2,0.5,0.5,0,0,1,,,,,,,,,,,,,,2,2000,"
      ",,,137216,,,\n";
  std::string fail_row =
      "1,failed,\"op 'x' needs 8 MiB, \"\"more\"\" than the chip\",2e12,,ipu_alltoall,,,,,,,,";
  EXPECT_EQ(csv.substr(0, header.size()), header);
  EXPECT_NE(csv.find(basic), std::string::npos) << csv;
  EXPECT_NE(csv.find(ideal), std::string::npos) << csv;
  EXPECT_NE(csv.find(fail_row + ",basic" + std::string(38, ',') + "\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(fail_row + ",ideal,"), std::string::npos) << csv;
}

// A strategy's row: the machine's step, energy, tokens and collectives; no per-chip figures.
TEST(ResultsTable, AStrategysRowHasTheMachinesStepAndNoPerChipFigures) {
  PointResult r = ok_point();
  r.strategy = "tp=8,pp=1,dp=1";
  r.tokens = 32;
  r.rows[0].planned = {};
  r.rows[0].planned.latency_s = 4e-3;
  r.rows[0].planned.energy_j = 2;
  r.rows[0].planned.power_w = 500;
  r.rows[0].simulated_metrics = {};
  r.rows[0].simulated_metrics.latency_s = 5e-3;
  r.strategy_rows = {{1e-3, 0.25}, {0.5e-3, 0}};
  PointResults results;
  results[0] = r;
  std::string csv = results_csv(spec(), results);
  std::string row =
      "\"tp=8,pp=1,dp=1\",auto,basic,1472,1000000000000,800000000000,7000000000000,"
      "250000000000000,4,1,0.25,,,,,,,,,2000,500,5,,,,,,,,,,,32,8000,6400,1,0.25,,,,\n";
  EXPECT_NE(csv.find(row), std::string::npos) << csv;
  auto json = nlohmann::json::parse(results_json(spec(), results));
  EXPECT_EQ(json["rows"][0]["strategy"], "tp=8,pp=1,dp=1");
  EXPECT_EQ(json["rows"][0]["collective_ms"], 1.0);
  EXPECT_EQ(json["rows"][0]["hbm_util"], nullptr);
  EXPECT_EQ(json["rows"][0]["residency"], "auto");
  EXPECT_EQ(json["rows"][0]["resident_bytes_per_core"], nullptr) << "each stage has its own homes";
  auto back = read_point_json(point_json(r), "p.json").take();
  EXPECT_EQ(point_json(back), point_json(r));
  EXPECT_EQ(back.strategy_rows[0].bubble, 0.25);
}

TEST(ResultsTable, JsonCarriesTheSweepAndTheSameRows) {
  PointResults results;
  results[0] = ok_point();
  auto json = nlohmann::json::parse(results_json(spec(), results));
  EXPECT_EQ(json["sweep"]["name"], "t");
  EXPECT_EQ(json["sweep"]["plots"], nlohmann::json::array({"breakdown"}));
  EXPECT_EQ(json["axes"][0]["path"], "memory.bandwidth_bytes_per_s");
  ASSERT_EQ(json["rows"].size(), 2u);
  EXPECT_EQ(json["rows"][0]["planned_ms"], 2.0);
  EXPECT_EQ(json["rows"][1]["sim_ms"], nullptr);
  EXPECT_EQ(json["rows"][0]["memory.bandwidth_bytes_per_s"], "1e12");
  EXPECT_EQ(json["rows"][0]["residency"], "auto");
  EXPECT_EQ(json["rows"][0]["resident_bytes_per_core"], 137216.0);
}

TEST(PointResult, JsonRoundTripIsExact) {
  PointResult r = ok_point();
  r.rows[0].planned.latency_s = 0.1 + 0.2;  // not a short decimal
  auto back = read_point_json(point_json(r), "p.json").take();
  EXPECT_EQ(point_json(back), point_json(r));
  EXPECT_EQ(back.rows[0].planned.latency_s, 0.1 + 0.2);
  EXPECT_TRUE(back.rows[0].simulated);
  EXPECT_FALSE(back.rows[1].simulated);
}

// A design whose program ran alike an earlier one's shares its simulation, and says whose.
TEST(ResultsTable, ASharedSimulationSaysWhose) {
  PointResult r = ok_point();
  r.rows[0].sim_same_as = "static";
  PointResults results;
  results[0] = r;
  auto json = nlohmann::json::parse(results_json(spec(), results));
  EXPECT_EQ(json["rows"][0]["sim_same_as"], "static");
  EXPECT_EQ(json["rows"][1]["sim_same_as"], nullptr);
  EXPECT_EQ(read_point_json(point_json(r), "p.json").take().rows[0].sim_same_as, "static");
}

// A prefill point on a chip stating the host's read rate: each row's time to first token, planned
// and simulated, in its own columns (its point file keeps the host's part; a decode's has none).
TEST(ResultsTable, APrefillsRowsGiveTheirTimeToFirstToken) {
  PointResults results;
  results[0] = ok_point();
  results[0].first_token_host_s = 0.004;
  std::string csv = results_csv(spec(), results);
  EXPECT_NE(csv.find(",137216,,6,6.5\n"), std::string::npos) << csv;  // basic: 2 + 4 ms, 2.5 + 4
  EXPECT_NE(csv.find(",137216,,5,\n"), std::string::npos) << csv;     // ideal: not simulated
  EXPECT_EQ(read_point_json(point_json(results[0]), "p.json").take().first_token_host_s, 0.004);
  EXPECT_EQ(point_json(ok_point()).find("first_token_host_s"), std::string::npos);
}

// A point written before sim_same_as existed reads back as simulated for each design.
TEST(PointResult, AnOlderPointReadsBackWithoutSharedSimulations) {
  nlohmann::json old = nlohmann::json::parse(point_json(ok_point()));
  for (auto& row : old["rows"]) row.erase("sim_same_as");
  auto back = read_point_json(old.dump(), "p.json").take();
  EXPECT_EQ(back.rows[0].sim_same_as, "");
  EXPECT_TRUE(back.rows[0].simulated);
}

// A chip file's approximation (chip_spec.hpp) beside each of its rows; empty (null) beside the
// rows of a chip that states none, and in a row whose point failed before reading its chip.
TEST(ResultsTable, EachRowSaysItsChipsApproximation) {
  const std::string blocks = "blocks of 4 x 4 cores, \"within 3 %\"";
  PointResults results;
  results[0] = ok_point();
  results[0].approximation = blocks;
  PointResult exact = ok_point();
  exact.index = 1;
  exact.values = {"2e12", "2"};
  exact.chip = "ipu-mk2-hbm3e";
  results[1] = exact;
  results[2] = failed_point(2, "3e12", "no chip");
  std::string csv = results_csv(spec(), results);
  EXPECT_NE(csv.find("0,ok,,1e12,llama2-7b,ipu_alltoall,ipu-mk2,\"blocks of 4 x 4 cores, "
                     "\"\"within 3 %\"\"\",2,,,,flat,auto,basic,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("1,ok,,2e12,llama2-7b,ipu_alltoall,ipu-mk2-hbm3e,,2,,,,flat,auto,basic,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("2,failed,no chip,3e12,,ipu_alltoall,,,,,,,,,basic,"), std::string::npos)
      << csv;
  auto json = nlohmann::json::parse(results_json(spec(), results));
  EXPECT_EQ(json["columns"][7], "approximation");
  ASSERT_EQ(json["rows"].size(), 6u);
  for (int row : {0, 1}) EXPECT_EQ(json["rows"][row]["approximation"], blocks);
  for (int row : {2, 3, 4, 5}) EXPECT_EQ(json["rows"][row]["approximation"], nullptr);
  auto back = read_point_json(point_json(results[0]), "p.json").take();
  EXPECT_EQ(back.approximation, blocks);
}

// A point file written before `approximation` existed cannot say whether its figures were
// approximate: it is refused (run again), never read back as exact.
TEST(PointResult, AnOlderPointWithoutItsApproximationIsRunAgain) {
  nlohmann::json old = nlohmann::json::parse(point_json(ok_point()));
  old.erase("approximation");
  auto back = read_point_json(old.dump(), "RUN/points/000000.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("'approximation' not found"), std::string::npos)
      << back.error().message;
  EXPECT_TRUE(back.error().message.ends_with("); delete the file to run the point again"));
}

TEST(PointResult, ADamagedFileSaysWhichAndWhatToDo) {
  auto r = read_point_json(R"({"index": 3})", "RUN/points/000003.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.substr(0, 52),
            "RUN/points/000003.json: not a sweep point result ([j");
  EXPECT_TRUE(r.error().message.ends_with("); delete the file to run the point again"));
}

}  // namespace
}  // namespace tessera::dse
