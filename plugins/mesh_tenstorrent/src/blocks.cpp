#include "blocks.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace tessera::plugins::mesh {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw sdk::invalid_argument("parameter 'tile_edge': " + what);
}

// One axis: PE coordinate -> node coordinate.
class AxisFold {
 public:
  AxisFold(int32_t lo, int32_t hi, uint32_t size, uint32_t edge, const char* axis)
      : lo_(lo), hi_(hi), edge_(static_cast<int32_t>(edge)), before_(lo > 0 ? 1 : 0) {
    int32_t span = hi - lo + 1;
    if (span % edge_ != 0)
      fail("the workers span " + std::to_string(span) + " " + axis + " (" + std::to_string(lo) +
           " to " + std::to_string(hi) + "), not a multiple of " + std::to_string(edge) +
           "; choose an edge that divides it");
    blocks_ = span / edge_;
    size_ = static_cast<uint32_t>(before_ + blocks_ + (hi < static_cast<int32_t>(size) - 1));
  }
  int32_t operator()(int32_t p) const {
    if (p < lo_) return 0;
    if (p > hi_) return before_ + blocks_;
    return before_ + (p - lo_) / edge_;
  }
  uint32_t size() const { return size_; }

 private:
  int32_t lo_, hi_, edge_, before_, blocks_ = 0;
  uint32_t size_ = 0;
};

std::vector<Node> unique_sorted(std::vector<Node> nodes) {
  std::sort(nodes.begin(), nodes.end(),
            [](Node a, Node b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

}  // namespace

Fabric fold_into_blocks(const Fabric& fabric, uint32_t edge) {
  if (edge <= 1) return fabric;
  auto [min_x, max_x] = std::minmax_element(fabric.cores.begin(), fabric.cores.end(),
                                            [](Node a, Node b) { return a.x < b.x; });
  auto [min_y, max_y] = std::minmax_element(fabric.cores.begin(), fabric.cores.end(),
                                            [](Node a, Node b) { return a.y < b.y; });
  AxisFold fx(min_x->x, max_x->x, fabric.grid_x, edge, "columns");
  AxisFold fy(min_y->y, max_y->y, fabric.grid_y, edge, "rows");
  auto fold = [&](Node n) { return Node{fx(n.x), fy(n.y)}; };
  Fabric out;
  out.grid_x = fx.size();
  out.grid_y = fy.size();
  std::map<std::pair<int32_t, int32_t>, uint32_t> workers;  // node -> worker PEs in it
  for (Node n : fabric.cores) {
    Node b = fold(n);
    ++workers[{b.x, b.y}];
    out.cores.push_back(b);
  }
  for (const auto& [node, count] : workers)
    if (count != edge * edge)
      fail("the block at " + std::to_string(node.first) + "-" + std::to_string(node.second) +
           " holds " + std::to_string(count) + " worker PEs of " + std::to_string(edge * edge) +
           "; the workers must fill whole " + std::to_string(edge) + "x" + std::to_string(edge) +
           " blocks");
  out.cores = unique_sorted(std::move(out.cores));
  for (const auto& tiles : fabric.dram_tiles) {  // in their order: earlier tiles win ties
    std::vector<Node> folded;
    for (Node n : tiles)
      if (Node b = fold(n); std::find(folded.begin(), folded.end(), b) == folded.end())
        folded.push_back(b);
    out.dram_tiles.push_back(std::move(folded));
  }
  return out;
}

}  // namespace tessera::plugins::mesh
