// A functional model of a tree chip's memories (JP7770865B2's writing, element value reading and
// auxiliary writing units): the memory of every block of every level that has one, sized by the
// chip, holding values (as double, whatever the dtype) and the tensor that owns each address.
// Memories are allocated as they are first written, so a large chip costs nothing until used.
//
// Not thread-safe. Errors throw sdk::Error: INVALID_ARGUMENT for bad arguments (wrong number of
// values, unknown tensor, shapes that do not broadcast), FAILED_PRECONDITION when a write would
// overlap a live tensor, RESOURCE_EXHAUSTED past the model's size limit.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "layout.hpp"
#include "layout_cost.hpp"

namespace tessera::plugins::tree {

class FunctionalModel {
 public:
  using TensorId = uint32_t;  // 0 is never a tensor

  struct WriteReport {
    TensorId id = 0;
    uint64_t elements = 0;  // of the tensor
    uint64_t stored = 0;    // values written, copies and padding included
    uint64_t padded = 0;    // padding values written
  };
  struct BroadcastReport {
    WriteReport write;
    Traffic traffic;  // moving every stored value from where the source keeps it
  };

  explicit FunctionalModel(std::shared_ptr<const TreeChip> chip);

  // Places every element of `values` (row-major, as many as the layout's shape has) at every
  // copy the layout gives it, and `pad_value` at every padding position.
  WriteReport write(const std::string& name, std::shared_ptr<const TreeLayout> layout,
                    const std::vector<double>& values, double pad_value = 0);
  // The element at `index` (from its first copy).
  double read(TensorId id, const std::vector<uint64_t>& index) const;
  // Every element, row-major.
  std::vector<double> read_all(TensorId id) const;
  // "" when every copy equals the first and every padding value is `pad_value`; otherwise where
  // the first disagreement is.
  std::string check_copies(TensorId id, double pad_value) const;
  // The tensor's addresses become free (values stay until overwritten).
  void free(TensorId id);

  // A new tensor of `dst`'s shape whose every element is the element of `src` at the broadcast
  // index (axes aligned from the last; a source extent of 1 repeats, a missing leading axis
  // too), read from where `src` lives on the chip.
  BroadcastReport broadcast(TensorId src, const std::string& name,
                            std::shared_ptr<const TreeLayout> dst);

  // Raw memory for executing generated code. `block` is the flat index within `level`.
  double load(uint32_t level, uint64_t block, uint64_t address) const;
  void store(uint32_t level, uint64_t block, uint64_t address, double value);

  const TreeChip& chip() const { return *chip_; }

 private:
  struct Tensor {
    std::string name;
    std::shared_ptr<const TreeLayout> layout;
  };
  struct Memory {
    std::vector<double> values;
    std::vector<TensorId> owners;
  };

  const Tensor& tensor(TensorId id) const;
  Memory& memory(uint32_t level, uint64_t block, uint64_t address);
  const Memory* find_memory(uint32_t level, uint64_t block) const;
  void check_address(uint32_t level, uint64_t block, uint64_t address) const;
  void check_free(const Tensor& incoming) const;

  std::shared_ptr<const TreeChip> chip_;
  std::vector<std::unordered_map<uint64_t, Memory>> memories_;  // per level, by block
  std::map<TensorId, Tensor> live_;
  TensorId next_id_ = 1;
};

}  // namespace tessera::plugins::tree
