// The CodeGen interface of tree_simd: one listing `<program>.tree_simd.txt` per program, stamped
// with the plugin's name and version and the chip's tree:
//   * the ops with the plan each executes (label, PEs, tile);
//   * the schedule (preload_async / execute / wait / distribute / local_execute / sync);
//   * a kernel per op: for an elementwise op with two inputs, the per-PE SIMD listing of
//     codegen.hpp on the layouts its execution plan implies (the partitioner's operand layouts;
//     the op's function is taken from its name: add, sub, mul, min or max, else add stands for
//     it); for matmul-like ops the MAU tile; for the others the vector tile.
// The same program gives byte-identical output.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>

#include "tree_chip.hpp"

namespace tessera::plugins::tree {

class TreeCodeGen final : public sdk::CodeGen {
 public:
  explicit TreeCodeGen(const sdk::Params& params);

  void emit(const tessera_program& program,
            const std::function<bool(const std::string&, const std::string&)>& write) override;

  // The listing itself (what emit writes); throws INVALID_ARGUMENT for an inconsistent program or
  // one that breaks the programming model's rules (<tessera/sdk/program_rules.hpp>).
  std::string listing(const tessera_program& program) const;

 private:
  std::string kernel(const tessera_op_desc& op, const tessera_partition_plan* plan) const;

  std::shared_ptr<const TreeChip> chip_;
};

}  // namespace tessera::plugins::tree
