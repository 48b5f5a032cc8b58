// The model × workload × chip matrix, shared by tests/golden/matrix_test.cpp (which
// holds each cell's outcome) and bench/matrix_bench.cpp (which times each cell's compile).
//
// Two departures from the bare matrix, both as a user of the chip would run it:
// - DiT has no decode: its three workloads are one denoising step at batch 1 and 32 over 256
//   latent tokens (256×256 images) and at batch 1 over 1024 (512×512).
// - MN-Core 2 has no multi-chip preset: Preferred Networks documents one chip per board.
// - The IPU computes in fp32 and fp16 only: a bf16 model (Gemma 2) runs there in fp16, as Elk's
//   evaluation does (--dtype fp16).
#pragma once

#include <string>
#include <vector>

#include "framework/chip_spec/conventions.hpp"
#include "framework/frontend/zoo/builders.hpp"

namespace tessera::matrix {

struct Chip {
  std::string target, chip;
  bool computes_bf16 = true;
};

struct Workload {
  std::string name;  // "decode b1 s2048"
  zoo::Mode mode;
  int64_t batch, seq;
};

struct Cell {
  std::string name;  // "llama2-7b decode b1 s2048 on wormhole-n150"
  std::string model;
  Workload workload;
  Chip chip;
  ResidencyMode residency = ResidencyMode::off;
};

// Every zoo model × its three workloads × every chip, in that order; then one cell per chip family
// with weights and caches resident (--residency auto) where they mostly fit.
std::vector<Cell> cells();

// What a cell gives: Elk-Full's planned and simulated ms/token, or the error's text.
struct Outcome {
  double planned_ms = 0, simulated_ms = 0;
  std::string error;
};
Outcome run(const Cell& cell);

}  // namespace tessera::matrix
