#include "functional_model.hpp"

#include <tessera/sdk/error.hpp>

#include "broadcast.hpp"

namespace tessera::plugins::tree {

namespace {

// Row-major position of `index` in `shape`.
uint64_t flat_index(const std::vector<uint64_t>& shape, const uint64_t* index) {
  uint64_t flat = 0;
  for (size_t a = 0; a < shape.size(); ++a) flat = flat * shape[a] + index[a];
  return flat;
}

// Calls f(index) for every index of `shape`, row-major.
template <class F>
void for_each_index(const std::vector<uint64_t>& shape, F&& f) {
  std::vector<uint64_t> index(shape.size(), 0);
  while (true) {
    f(index);
    size_t a = shape.size();
    while (a > 0 && ++index[a - 1] == shape[a - 1]) index[--a] = 0;
    if (a == 0) return;
  }
}

}  // namespace

FunctionalModel::FunctionalModel(std::shared_ptr<const TreeChip> chip)
    : chip_(std::move(chip)), memories_(chip_->num_levels()) {}

const FunctionalModel::Tensor& FunctionalModel::tensor(TensorId id) const {
  auto it = live_.find(id);
  if (it == live_.end())
    throw sdk::invalid_argument("no live tensor with id " + std::to_string(id));
  return it->second;
}

void FunctionalModel::check_address(uint32_t level, uint64_t block, uint64_t address) const {
  if (level >= chip_->num_levels())
    throw sdk::invalid_argument("level " + std::to_string(level) + " does not exist");
  const TreeLevel& l = chip_->level(level);
  uint64_t capacity = chip_->capacity_elements(level);
  if (block >= l.nodes || address >= capacity)
    throw sdk::invalid_argument(l.name + " block " + std::to_string(block) + " address " +
                                std::to_string(address) + " does not exist (" +
                                std::to_string(l.nodes) + " blocks of " + std::to_string(capacity) +
                                " elements)");
}

FunctionalModel::Memory& FunctionalModel::memory(uint32_t level, uint64_t block, uint64_t address) {
  check_address(level, block, address);
  Memory& m = memories_[level][block];
  if (m.values.size() <= address) {
    m.values.resize(address + 1, 0.0);
    m.owners.resize(address + 1, 0);
  }
  return m;
}

const FunctionalModel::Memory* FunctionalModel::find_memory(uint32_t level, uint64_t block) const {
  auto it = memories_[level].find(block);
  return it == memories_[level].end() ? nullptr : &it->second;
}

double FunctionalModel::load(uint32_t level, uint64_t block, uint64_t address) const {
  check_address(level, block, address);
  const Memory* m = find_memory(level, block);
  return m != nullptr && address < m->values.size() ? m->values[address] : 0.0;
}

void FunctionalModel::store(uint32_t level, uint64_t block, uint64_t address, double value) {
  memory(level, block, address).values[address] = value;
}

void FunctionalModel::check_free(const Tensor& incoming) const {
  const TreeLayout& layout = *incoming.layout;
  uint32_t level = layout.memory_level();
  for_each_place(layout, [&](const uint64_t*, bool, const TreeLayout::Place& p) {
    const Memory* m = find_memory(level, p.core);
    if (m == nullptr || p.address >= m->owners.size() || m->owners[p.address] == 0) return;
    auto owner = live_.find(m->owners[p.address]);
    if (owner == live_.end()) return;
    throw sdk::Error(TESSERA_FAILED_PRECONDITION,
                     "tensor '" + incoming.name + "' would overwrite live tensor '" +
                         owner->second.name + "' at " + chip_->path_text(level, p.core) +
                         " address " + std::to_string(p.address) + "; free '" + owner->second.name +
                         "' first or give '" + incoming.name + "' another base address (@N)");
  });
}

FunctionalModel::WriteReport FunctionalModel::write(const std::string& name,
                                                    std::shared_ptr<const TreeLayout> layout,
                                                    const std::vector<double>& values,
                                                    double pad_value) {
  if (values.size() != layout->elements())
    throw sdk::invalid_argument("write '" + name + "': " + std::to_string(values.size()) +
                                " values for a tensor of " + std::to_string(layout->elements()) +
                                " elements (shape " + shape_text(layout->shape()) + ")");
  Tensor incoming{name, std::move(layout)};
  check_free(incoming);
  WriteReport report{next_id_++, incoming.layout->elements(), 0, 0};
  uint32_t level = incoming.layout->memory_level();
  const auto& shape = incoming.layout->shape();
  for_each_place(*incoming.layout,
                 [&](const uint64_t* index, bool real, const TreeLayout::Place& p) {
                   Memory& m = memory(level, p.core, p.address);
                   m.values[p.address] = real ? values[flat_index(shape, index)] : pad_value;
                   m.owners[p.address] = report.id;
                   ++report.stored;
                   if (!real) ++report.padded;
                 });
  live_.emplace(report.id, std::move(incoming));
  return report;
}

double FunctionalModel::read(TensorId id, const std::vector<uint64_t>& index) const {
  const TreeLayout& layout = *tensor(id).layout;
  if (index.size() != layout.rank())
    throw sdk::invalid_argument("read: " + std::to_string(index.size()) +
                                " index values for a tensor of rank " +
                                std::to_string(layout.rank()));
  tessera_location where = layout.locate(index.data());
  return load(layout.memory_level(), where.core, where.address);
}

std::vector<double> FunctionalModel::read_all(TensorId id) const {
  const TreeLayout& layout = *tensor(id).layout;
  std::vector<double> values;
  values.reserve(layout.elements());
  for_each_index(layout.shape(),
                 [&](const std::vector<uint64_t>& index) { values.push_back(read(id, index)); });
  return values;
}

std::string FunctionalModel::check_copies(TensorId id, double pad_value) const {
  const Tensor& t = tensor(id);
  const TreeLayout& layout = *t.layout;
  std::string problem;
  for_each_place(layout, [&](const uint64_t* index, bool real, const TreeLayout::Place& p) {
    if (!problem.empty()) return;
    double want =
        real ? load(layout.memory_level(), layout.place(index).core, layout.place(index).address)
             : pad_value;
    double have = load(layout.memory_level(), p.core, p.address);
    if (have != want)
      problem = "'" + t.name + "' at " + chip_->path_text(layout.memory_level(), p.core) +
                " address " + std::to_string(p.address) + " holds " + std::to_string(have) +
                ", expected " + std::to_string(want) + (real ? "" : " (padding)");
  });
  return problem;
}

void FunctionalModel::free(TensorId id) {
  tensor(id);
  live_.erase(id);
}

FunctionalModel::BroadcastReport FunctionalModel::broadcast(TensorId src, const std::string& name,
                                                            std::shared_ptr<const TreeLayout> dst) {
  const TreeLayout& from = *tensor(src).layout;
  const auto& s = from.shape();
  const auto& d = dst->shape();
  check_broadcast(s, d, "'" + tensor(src).name + "'");
  auto source_index = [&](const uint64_t* index) { return broadcast_index(s, d, index); };
  std::vector<double> values;
  for_each_index(d, [&](const std::vector<uint64_t>& index) {
    values.push_back(read(src, source_index(index.data())));
  });
  BroadcastReport report{{}, Traffic(*chip_)};
  for_each_place(*dst, [&](const uint64_t* index, bool real, const TreeLayout::Place& p) {
    if (!real) return;
    std::vector<uint64_t> si = source_index(index);
    report.traffic.add_move(from.memory_level(), from.place(si.data()).core, dst->memory_level(),
                            p.core);
  });
  report.write = write(name, std::move(dst), values);
  return report;
}

}  // namespace tessera::plugins::tree
