#include "framework/common/table.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Table, ColumnsFitTheWidestCellAndNumbersAlignRight) {
  Table t({"target", "cores"}, {Table::Align::left, Table::Align::right});
  t.add_row({"ipu_alltoall", "1472"});
  t.add_row({"tree_simd", "4096"});
  EXPECT_EQ(t.render(),
            "target        cores\n"
            "------------  -----\n"
            "ipu_alltoall   1472\n"
            "tree_simd      4096\n");
}

TEST(Table, RowOfTheWrongWidthIsABug) {
  Table t({"a", "b"});
  EXPECT_THROW(t.add_row({"only one"}), std::logic_error);
}

}  // namespace
}  // namespace tessera
