// A plugin whose Partitioner answers only matmuls, with three fixed plans (one dominated), and
// leaves every other op to the framework (UNIMPLEMENTED): the partitioner's override path.
#include <tessera/sdk/plugin.hpp>
#include <vector>

namespace {

class FixedPlans final : public tessera::sdk::Partitioner {
 public:
  explicit FixedPlans(const tessera::sdk::Params&) {}

  void plans(const tessera_op_desc& op,
             const std::function<bool(const tessera_partition_plan&)>& emit) const override {
    if (op.op_kind != TESSERA_OP_MATMUL) throw tessera::sdk::unimplemented("matmuls only");
    struct Row {
      const char* label;
      uint64_t exec_bytes, preload_bytes;
      double compute_s;
    };
    const Row rows[] = {{"plugin fast", 4096, 1024, 2e-6},
                        {"plugin small", 2048, 512, 8e-6},
                        {"plugin dominated", 4096, 1024, 9e-6}};
    std::vector<uint64_t> tile(op.num_ranks, 1);
    for (const Row& row : rows) {
      tessera_partition_plan p{};
      p.label = row.label;
      p.cores_used = 2;
      p.num_ranks = op.num_ranks;
      p.tile_extents = tile.data();
      p.exec_bytes_per_core = row.exec_bytes;
      p.preload_bytes_per_core = row.preload_bytes;
      p.inter_core_bytes = 100;
      p.hbm_bytes = 2048;
      p.compute_s = row.compute_s;
      p.shift_s = 1e-7;
      p.distribute_s = 3e-7;
      p.sync_s = 1e-8;
      if (!emit(p)) return;
    }
  }
};

}  // namespace

TESSERA_DEFINE_PLUGIN("fixed_partitioner", "1.0.0", "test: fixed plans for matmuls",
                      tessera::sdk::provides_partitioner<FixedPlans>)
