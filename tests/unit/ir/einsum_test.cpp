#include "framework/ir/einsum.hpp"

#include <gtest/gtest.h>

namespace tessera::ir {
namespace {

TEST(IndexExpr, ParsesAndPrintsAffineForms) {
  for (const char* text : {"k", "p+r", "2*p+r-1", "4*g+r", "2047", "0", "-p+3", "$1", "s+2"}) {
    auto e = parse_index_expr(text);
    ASSERT_TRUE(e) << text << ": " << e.error().message;
    EXPECT_EQ(e->str(), text);
  }
  auto e = parse_index_expr("2*p+3*r-1").take();
  ASSERT_EQ(e.terms.size(), 2u);
  EXPECT_EQ(e.terms[0], (AffineTerm{2, "p"}));
  EXPECT_EQ(e.terms[1], (AffineTerm{3, "r"}));
  EXPECT_EQ(e.offset, -1);
}

TEST(IndexExpr, RejectsMalformedText) {
  EXPECT_EQ(parse_index_expr("p+").error().message,
            "index expression 'p+': unexpected text (expected a rank, an affine sum like "
            "2*p+r-1, a number, or $N)");
  EXPECT_FALSE(parse_index_expr(""));
  EXPECT_FALSE(parse_index_expr("p*2"));
  EXPECT_FALSE(parse_index_expr("$x"));
  EXPECT_FALSE(parse_index_expr("p+p"));
  EXPECT_FALSE(parse_index_expr("99999999999999999999"));
}

TEST(Operand, ParsesNameAndIndices) {
  auto o = parse_operand("layers.0/x[b,s,4*g+r]").take();
  EXPECT_EQ(o.tensor, "layers.0/x");
  ASSERT_EQ(o.index.size(), 3u);
  EXPECT_EQ(o.str(), "layers.0/x[b,s,4*g+r]");
  EXPECT_TRUE(parse_operand("scalar[]")->index.empty());
  EXPECT_EQ(parse_operand("x").error().message,
            "operand 'x': expected TENSOR[index,...], e.g. x[m,k] or x[] for a scalar");
}

TEST(Footprint, ClipsAffineRangesToTheTensor) {
  Einsum e;
  e.ranks = {{"p", 4}, {"r", 3}};
  // Convolution input with padding 1: rows -1 .. 4 of a 4-row tensor touch rows 0..3.
  auto padded = parse_index_expr("p+r-1").take();
  EXPECT_EQ(affine_range(e, padded), (std::pair<int64_t, int64_t>{-1, 4}));
  EXPECT_DOUBLE_EQ(footprint_elements(e, padded, 4, 0), 4.0);
  // One KV-cache slot.
  EXPECT_DOUBLE_EQ(footprint_elements(e, parse_index_expr("7").take(), 8, 0), 1.0);
  // A gather touches at most as many rows as it has indices.
  EXPECT_DOUBLE_EQ(footprint_elements(e, parse_index_expr("$0").take(), 32000, 16), 16.0);
  EXPECT_DOUBLE_EQ(footprint_elements(e, parse_index_expr("$0").take(), 10, 16), 10.0);
}

}  // namespace
}  // namespace tessera::ir
