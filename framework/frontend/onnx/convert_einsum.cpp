// The Einsum op is already an Einsum: each letter of the equation becomes a rank, "..." the
// broadcast leading dims. Two operands multiply-accumulate (a matmul, batched when a letter is
// kept in both and the output); one operand sums its dropped letters (a reduction) or, dropping
// none, is a transpose or diagonal (a copy).
#include <map>

#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;

struct Term {
  std::string letters;  // one per dimension; '.' for each dim the ellipsis covers
};

// Splits "ab,bc->ac" (spaces ignored) into input terms and the output (implicit when absent:
// the ellipsis, then the letters used once, in alphabetical order).
std::vector<Term> parse_terms(const NodeContext& ctx, std::string eq, Term& output) {
  std::erase(eq, ' ');
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back().letters += c;
  }
  if (arrow != std::string::npos) {
    output.letters = eq.substr(arrow + 2);
    return terms;
  }
  std::map<char, int> uses;
  for (char c : lhs)
    if (std::isalpha(static_cast<unsigned char>(c))) ++uses[c];
  output.letters = lhs.find("...") != std::string::npos ? "..." : "";
  for (const auto& [c, n] : uses)
    if (n == 1) output.letters += c;
  if (output.letters.find_first_not_of(".abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
      std::string::npos)
    throw ctx.fail("the equation has characters other than letters, ',', '->' and '...'");
  return terms;
}

// The letters of a term with "..." expanded to `ellipsis` dims named '0', '1', ... (right-aligned
// with the longest ellipsis, as broadcasting aligns them).
std::string expand(const NodeContext& ctx, const std::string& letters, size_t rank,
                   size_t ellipsis_rank) {
  size_t dots = letters.find("...");
  if (dots == std::string::npos) {
    if (letters.size() != rank)
      throw ctx.fail("a term has " + letters + " for rank " + std::to_string(rank));
    return letters;
  }
  size_t named = letters.size() - 3;
  if (named > rank) throw ctx.fail("a term has more letters than its operand has dimensions");
  size_t covered = rank - named;
  std::string dims;
  for (size_t i = ellipsis_rank - covered; i < ellipsis_rank; ++i)
    dims += static_cast<char>('0' + i);
  return letters.substr(0, dots) + dims + letters.substr(dots + 3);
}

void einsum(NodeContext& ctx) {
  Term output;
  auto terms = parse_terms(ctx, attr_string(ctx.node(), "equation", ""), output);
  if (static_cast<int>(terms.size()) != ctx.inputs() || terms.size() > 2)
    throw ctx.fail("only one or two operands matching the equation's terms are supported");
  size_t ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].letters.find("...") != std::string::npos)
      ellipsis =
          std::max(ellipsis, ctx.shape(static_cast<int>(i)).size() - (terms[i].letters.size() - 3));
  if (ellipsis > 10) throw ctx.fail("the ellipsis covers too many dimensions");
  std::map<char, int64_t> extent;
  std::vector<std::string> letters;
  std::vector<ir::Rank> ranks;
  for (size_t i = 0; i < terms.size(); ++i) {
    Dims shape = ctx.shape(static_cast<int>(i));
    letters.push_back(expand(ctx, terms[i].letters, shape.size(), ellipsis));
    for (size_t d = 0; d < shape.size(); ++d) {
      char c = letters.back()[d];
      auto [it, fresh] = extent.emplace(c, shape[d]);
      if (fresh) ranks.push_back({std::string("e") + c, shape[d]});
      if (!fresh && it->second == 1) it->second = shape[d];
      if (shape[d] != it->second && shape[d] != 1)
        throw ctx.fail(std::string("letter '") + c + "' has different extents");
    }
  }
  for (auto& r : ranks) r.extent = extent[r.name[1]];
  size_t out_dims = output.letters.size();
  if (output.letters.find("...") != std::string::npos) out_dims += ellipsis - 3;
  std::string out_letters = expand(ctx, output.letters, out_dims, ellipsis);
  if (!ctx.has_out_shape()) {  // libonnx 1.12 infers only the output's rank
    Dims shape;
    for (char c : out_letters) shape.push_back(extent.count(c) ? extent[c] : 0);
    ctx.set_out_shape(0, shape);
  }
  std::vector<ir::Operand> inputs;
  for (size_t i = 0; i < terms.size(); ++i) {
    Dims shape = ctx.shape(static_cast<int>(i));
    ir::Operand o{ctx.in(static_cast<int>(i)), {}};
    for (size_t d = 0; d < shape.size(); ++d)
      o.index.push_back(shape[d] == 1 && extent[letters[i][d]] != 1
                            ? constant(0)
                            : rank(std::string("e") + letters[i][d]));
    inputs.push_back(std::move(o));
  }
  ir::Operand out{ctx.out(), {}};
  for (char c : out_letters) {
    if (!extent.count(c)) throw ctx.fail(std::string("output letter '") + c + "' is in no input");
    out.index.push_back(rank(std::string("e") + c));
  }
  bool reduces = out_letters.size() < extent.size();
  bool batched = false;
  if (terms.size() == 2)
    for (char c : out_letters)
      batched = batched || (letters[0].find(c) != std::string::npos &&
                            letters[1].find(c) != std::string::npos && extent[c] > 1);
  OpKind kind = terms.size() == 2 ? (batched ? OpKind::batched_matmul : OpKind::matmul)
                                  : (reduces ? OpKind::reduction : OpKind::data_movement);
  std::string fn = terms.size() == 2 ? "mac" : (reduces ? "sum" : "copy");
  ctx.op(kind, fn, std::move(ranks), std::move(inputs), std::move(out));
}

}  // namespace

void add_einsum_converter(ConverterTable& t) {
  t["Einsum"] = einsum;
}

}  // namespace tessera::onnx_import
