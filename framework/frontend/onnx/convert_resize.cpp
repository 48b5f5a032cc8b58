// Resize and Upsample. Per dimension the output and input extents O and I have ratio p/q in lowest
// terms, so both split into J = gcd(O, I) blocks: output position p*j + r reads input positions
// q*j + t over the mode's taps t (nearest 1, linear 2, cubic 4). For integer ratios (p or q is
// 1) that is exactly the positions interpolation reads; otherwise every output of a block reads
// the block's q inputs and the taps around them. Nearest copies; linear and cubic multiply-add
// every tap (`interpolate`, 2 FLOPs a tap).
#include <numeric>

#include "framework/common/user_text.hpp"
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

int64_t taps_of(const NodeContext& ctx) {
  std::string mode = attr_string(ctx.node(), "mode", "nearest");
  if (mode == "nearest") return 1;
  if (mode == "linear" || mode == "bilinear") return 2;
  if (mode == "cubic") return 4;
  throw ctx.fail("unknown mode " + in_quotes(mode) + " (expected nearest, linear or cubic)");
}

void resize(NodeContext& ctx) {
  Dims x = ctx.shape(0), y = ctx.out_shape();
  if (x.size() != y.size()) throw ctx.fail("the output rank differs from the input's");
  int64_t taps = taps_of(ctx);
  std::vector<ir::Rank> ranks;
  std::vector<ir::IndexExpr> xi, yi;
  for (size_t d = 0; d < x.size(); ++d) {
    std::string j = "j" + std::to_string(d), r = "r" + std::to_string(d),
                t = "t" + std::to_string(d);
    if (x[d] == y[d]) {
      ranks.push_back({j, x[d]});
      xi.push_back(rank(j));
      yi.push_back(rank(j));
      continue;
    }
    int64_t g = std::gcd(x[d], y[d]), p = y[d] / g, q = x[d] / g;
    int64_t window = p == 1 || q == 1 ? taps : q + taps - 1;
    ranks.push_back({j, g});
    if (p > 1) ranks.push_back({r, p});
    if (window > 1) ranks.push_back({t, window});
    yi.push_back(p > 1 ? affine({{p, j}, {1, r}}, 0) : rank(j));
    std::vector<ir::AffineTerm> terms{{q, j}};
    if (window > 1) terms.push_back({1, t});
    xi.push_back(affine(terms, -(taps / 2 - (taps > 1 ? 1 : 0))));
  }
  std::string in = ctx.in(0), out = ctx.out();
  ctx.op(ir::OpKind::data_movement, taps == 1 ? "copy" : "interpolate", ranks,
         {ir::Operand{in, xi}}, ir::Operand{out, yi});
}

}  // namespace

void add_resize_converters(ConverterTable& t) {
  t["Resize"] = resize;
  t["Upsample"] = resize;
}

}  // namespace tessera::onnx_import
