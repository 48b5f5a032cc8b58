// A small plugin of the five interfaces whose contracts the conformance kit checks beyond the
// ABI's (CostModel, Partitioner, LayoutMapper, CodeGen, MemoryModel), well behaved but for one
// fault. `none` passes the whole kit; each fault must fail the one contract it breaks, so every
// suite is seen to fail. Compiled once and linked into every tessera_contract_plugin
// (tests/abi/CMakeLists.txt); each reads its fault, name and version as it loads from NAME.fixture
// beside it (tests/abi/fixture_config.hpp).
// Written with the SDK: these are faults of behaviour, not of the ABI.
#include <algorithm>
#include <string>
#include <string_view>
#include <tessera/sdk/plugin.hpp>
#include <tessera/sdk/program_rules.hpp>
#include <utility>
#include <vector>

#include "tests/abi/fixture_config.hpp"

namespace {

enum class Fault {
  none,
  cost_not_monotone,      // an elementwise tile of over 1000 elements takes half its time
  plans_overlap,          // every tile is given to two cores
  inverse_wrong,          // inverse() answers the next element
  drops_completion,       // every 100th request never completes
  emits_broken_programs,  // CodeGen lists a program the rules forbid instead of refusing it
  digits_collide,         // core_digits put every tile of a split plan on one core
};
// The spelling of each Fault in NAME.fixture (tessera_broken_plugin's FAULT).
constexpr std::pair<std::string_view, Fault> kFaultNames[] = {
    {"none", Fault::none},
    {"cost_not_monotone", Fault::cost_not_monotone},
    {"plans_overlap", Fault::plans_overlap},
    {"inverse_wrong", Fault::inverse_wrong},
    {"drops_completion", Fault::drops_completion},
    {"emits_broken_programs", Fault::emits_broken_programs},
    {"digits_collide", Fault::digits_collide},
};

const tessera::abi_test::FixtureConfig& config() {
  static const tessera::abi_test::FixtureConfig c(reinterpret_cast<const void*>(&config));
  return c;
}

// Read as the library loads (static initialisation), before the host can call anything.
const Fault kFault = config().one_of("fault", kFaultNames);

double dtype_bytes(uint32_t dtype) {
  static const double kBytes[TESSERA_DTYPE_COUNT] = {4, 2, 2, 1, 1, 4, 8, 1.0625, 0.5625, 0.3125};
  return dtype < TESSERA_DTYPE_COUNT ? kBytes[dtype] : 4;
}

// A core of 1 GFLOP/s with a 10 GB/s memory port; links of 1 GB/s and 10 ns per hop.
class CostModel : public tessera::sdk::CostModel {
 public:
  explicit CostModel(const tessera::sdk::Params&) {}
  tessera_cost_model_info info() const override {
    return {sizeof(tessera_cost_model_info), 1e-6, 1e9, 1e9, 0, 0, 0};  // no fixed costs
  }
  double tile_seconds(const tessera_tile_query& q) const override {
    double work = std::max(q.flops, static_cast<double>(q.elements));
    if (kFault == Fault::cost_not_monotone && q.op_kind == TESSERA_OP_ELEMENTWISE &&
        q.elements > 1000)
      work /= 2;
    return 1e-7 + work / 1e9 + (q.bytes_in + q.bytes_out) / 1e10;
  }
  double transfer_seconds(const tessera_transfer_query& q) const override {
    return 1e-8 * (q.hops + 1) + q.bytes / 1e9;
  }
};

// The op's first rank split over 1, 2, 4 or 8 cores.
class Partitioner : public tessera::sdk::Partitioner {
 public:
  explicit Partitioner(const tessera::sdk::Params&) {}
  void plans(const tessera_op_desc& op,
             const std::function<bool(const tessera_partition_plan&)>& emit) const override {
    if (op.num_ranks == 0) throw tessera::sdk::unimplemented("a scalar op");
    for (uint64_t split = 1; split <= 8 && split <= op.ranks[0].extent; split *= 2) {
      std::vector<uint64_t> tile;
      for (uint32_t r = 0; r < op.num_ranks; ++r) tile.push_back(op.ranks[r].extent);
      tile[0] = (tile[0] + split - 1) / split;
      tessera_partition_plan p{};
      std::string label = std::string(op.ranks[0].name) + "/" + std::to_string(split);
      p.label = label.c_str();
      p.cores_used = static_cast<uint32_t>(kFault == Fault::plans_overlap ? 2 * split : split);
      p.num_ranks = op.num_ranks;
      p.tile_extents = tile.data();
      for (uint32_t i = 0; i < op.num_operands; ++i) {
        double whole = bytes_of(op, op.operands[i], nullptr),
               one = bytes_of(op, op.operands[i], tile.data());
        p.exec_bytes_per_core += static_cast<uint64_t>(one);
        if (op.operands[i].in_hbm) {
          p.preload_bytes_per_core += static_cast<uint64_t>(one);
          p.hbm_bytes += whole;
        }
      }
      // The split rank's tiles on consecutive cores (a stride of 0: all on core 0).
      tessera_core_digit digit{0, static_cast<uint32_t>(split),
                               kFault == Fault::digits_collide ? 0u : 1u};
      p.num_core_digits = split > 1 ? 1 : 0;
      p.core_digits = &digit;
      p.compute_s = op.flops / static_cast<double>(split) / 1e9;
      p.sync_s = 1e-6;
      if (!emit(p)) return;
    }
  }

 private:
  // Bytes of `operand` over the whole op, or over one tile; its indexing names ranks ("m,k").
  static double bytes_of(const tessera_op_desc& op, const tessera_operand& operand,
                         const uint64_t* tile) {
    double elements = 1;
    std::string indexing = operand.indexing;
    for (size_t start = 0; start <= indexing.size();) {
      size_t end = std::min(indexing.find(',', start), indexing.size());
      std::string name = indexing.substr(start, end - start);
      for (uint32_t r = 0; r < op.num_ranks; ++r)
        if (name == op.ranks[r].name)
          elements *= static_cast<double>(tile != nullptr ? tile[r] : op.ranks[r].extent);
      start = end + 1;
    }
    return elements * dtype_bytes(operand.dtype);
  }
};

// "blocks N": the tensor row-major, cut into N equal runs, one per block.
class BlocksLayout : public tessera::sdk::Layout {
 public:
  BlocksLayout(uint64_t blocks, std::vector<uint64_t> shape)
      : blocks_(blocks), shape_(std::move(shape)) {
    uint64_t elements = 1;
    for (uint64_t e : shape_) elements *= e;
    per_block_ = (elements + blocks_ - 1) / blocks_;
  }
  uint64_t blocks_, per_block_ = 0;
  std::vector<uint64_t> shape_;
};

class LayoutMapper : public tessera::sdk::LayoutMapper {
 public:
  explicit LayoutMapper(const tessera::sdk::Params&) {}
  std::unique_ptr<tessera::sdk::Layout> parse(const std::string& text,
                                              const std::vector<uint64_t>& shape) const override {
    const std::string word = "blocks ";
    if (text.compare(0, word.size(), word) != 0)
      throw tessera::sdk::invalid_argument("column 1: expected 'blocks N'");
    size_t digits = text.find_first_not_of("0123456789", word.size());
    if (digits != std::string::npos || text.size() == word.size() || text[word.size()] == '0')
      throw tessera::sdk::invalid_argument("column " + std::to_string(word.size() + 1) +
                                           ": expected a number of blocks, at least 1");
    return std::make_unique<BlocksLayout>(std::stoull(text.substr(word.size())), shape);
  }
  std::string format(const tessera::sdk::Layout& layout) const override {
    return "blocks " + std::to_string(of(layout).blocks_);
  }
  tessera_location locate(const tessera::sdk::Layout& layout,
                          const uint64_t* index) const override {
    const BlocksLayout& l = of(layout);
    uint64_t flat = 0;
    for (size_t a = 0; a < l.shape_.size(); ++a) flat = flat * l.shape_[a] + index[a];
    tessera_location where{};
    where.num_levels = 1;
    where.core = where.blocks[0] = static_cast<uint32_t>(flat / l.per_block_);
    where.address = flat % l.per_block_;
    return where;
  }
  void inverse(const tessera::sdk::Layout& layout, const tessera_location& location,
               uint64_t* index) const override {
    const BlocksLayout& l = of(layout);
    uint64_t flat = location.core * l.per_block_ + location.address;
    if (kFault == Fault::inverse_wrong) ++flat;
    for (size_t a = l.shape_.size(); a-- > 0;) {
      index[a] = flat % l.shape_[a];
      flat /= l.shape_[a];
    }
  }
  uint32_t rank(const tessera::sdk::Layout& layout) const override {
    return static_cast<uint32_t>(of(layout).shape_.size());
  }

 private:
  static const BlocksLayout& of(const tessera::sdk::Layout& l) {
    return static_cast<const BlocksLayout&>(l);
  }
};

// One listing per program: its instructions, one per line.
class CodeGen : public tessera::sdk::CodeGen {
 public:
  explicit CodeGen(const tessera::sdk::Params&) {}
  void emit(const tessera_program& program,
            const std::function<bool(const std::string&, const std::string&)>& write) override {
    if (program.num_instructions > 0 && program.instructions == nullptr)
      throw tessera::sdk::invalid_argument("instructions is NULL");
    if (kFault != Fault::emits_broken_programs) tessera::sdk::require_program_rules(program);
    std::string text;
    for (size_t i = 0; i < program.num_instructions; ++i)
      text += std::to_string(program.instructions[i].kind) + " " +
              std::to_string(program.instructions[i].op) + "\n";
    write("programs/listing.txt", text);
  }
};

// One channel taking a 64-byte request per cycle, each done 20 cycles after it is issued.
class MemoryModel : public tessera::sdk::MemoryModel {
 public:
  explicit MemoryModel(const tessera::sdk::Params&) {}
  tessera_memory_info info() const override {
    return {sizeof(tessera_memory_info),
            1e9,
            64e9,
            1,
            kBurst,
            uint64_t{1} << 30,
            "fixed-latency test memory, 1 channel",
            nullptr};
  }
  size_t submit(const tessera_memory_request* requests, size_t count) override {
    size_t taken = std::min(count, kQueue - pending_.size());
    for (size_t i = 0; i < taken; ++i) {
      next_issue_ = std::max(next_issue_, now_);
      pending_.push_back({requests[i].id, next_issue_, next_issue_ + kLatency});
      ++next_issue_;
      ++(requests[i].is_write ? writes_ : reads_);
    }
    return taken;
  }
  void advance(uint64_t cycles,
               const std::function<void(const tessera_memory_completion&)>& done) override {
    now_ += cycles;
    while (!pending_.empty() && pending_.front().done_cycle <= now_) {
      if (kFault != Fault::drops_completion || ++finished_ % 100 != 0) done(pending_.front());
      pending_.erase(pending_.begin());
    }
  }
  tessera_memory_stats stats() const override {
    tessera_memory_stats s{};
    s.cycles = now_;
    s.reads = reads_;
    s.writes = writes_;
    double seconds = static_cast<double>(now_) / 1e9;
    s.bytes_per_s = now_ == 0 ? 0 : static_cast<double>((reads_ + writes_) * kBurst) / seconds;
    s.avg_read_latency_cycles = kLatency;
    return s;
  }
  std::pair<double, double> sustained(uint32_t) override { return {60e9, kLatency / 1e9}; }

 private:
  static constexpr uint32_t kBurst = 64;
  static constexpr uint64_t kLatency = 20;
  static constexpr size_t kQueue = 64;
  std::vector<tessera_memory_completion> pending_;
  uint64_t now_ = 0, next_issue_ = 0, reads_ = 0, writes_ = 0, finished_ = 0;
};

}  // namespace

// The name and version outlive every call: they are the configuration's, read once.
TESSERA_DEFINE_PLUGIN(config().text("name"), config().text("version"),
                      "a plugin with one broken contract",
                      tessera::sdk::provides_cost_model<CostModel>,
                      tessera::sdk::provides_partitioner<Partitioner>,
                      tessera::sdk::provides_layout_mapper<LayoutMapper>,
                      tessera::sdk::provides_codegen<CodeGen>,
                      tessera::sdk::provides_memory_model<MemoryModel>)
