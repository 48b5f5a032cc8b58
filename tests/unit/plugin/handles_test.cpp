// The host-side handles through a real plugin .so from the build tree: values survive the C
// boundary, batches come back in order, errors come back as Results.
#include <gtest/gtest.h>

#include "framework/plugin/plugin_set.hpp"

namespace tessera {
namespace {

class Handles : public ::testing::Test {
 protected:
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
};

TEST_F(Handles, CostModelBatchesQueriesInOrder) {
  auto lib = plugins.library("ipu_alltoall");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  auto model = create_cost_model(*lib, {});
  ASSERT_TRUE(model.ok()) << model.error().message;
  tessera_tile_query small{}, large{};
  small.op_kind = large.op_kind = TESSERA_OP_MATMUL;
  small.dtype = large.dtype = TESSERA_DTYPE_FP16;
  small.batch = large.batch = 1;
  small.m = 6, small.k = 16, small.n = 16;   // 24 + 514 + 113 + 173 = 824 cycles
  large.m = 12, large.k = 32, large.n = 16;  // 24·2·2 + 514·2 + 113 + 173 = 1410 cycles
  auto seconds = model->tile_seconds({small, large, small});
  ASSERT_TRUE(seconds.ok()) << seconds.error().message;
  ASSERT_EQ(seconds->size(), 3u);
  EXPECT_DOUBLE_EQ((*seconds)[0], 824 / 1.325e9);
  EXPECT_DOUBLE_EQ((*seconds)[1], 1410 / 1.325e9);
  EXPECT_DOUBLE_EQ((*seconds)[2], (*seconds)[0]);
  auto info = model->info();
  ASSERT_TRUE(info.ok());
  EXPECT_DOUBLE_EQ(info->sync_s, 118 / 1.325e9);
}

TEST_F(Handles, BadTransferClassIsAnInvalidArgumentResult) {
  auto model = create_cost_model(plugins.library("mesh_tenstorrent").value(), {});
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto seconds = model->transfer_seconds({tessera_transfer_query{99, 0, 1024, 0}});
  ASSERT_FALSE(seconds.ok());
  EXPECT_EQ(seconds.error().code, StatusCode::invalid_argument);
  EXPECT_EQ(seconds.error().message,
            "plugin 'mesh_tenstorrent': cost_model.transfer_seconds: link_class 99 is not a "
            "tessera_link_class");
}

TEST_F(Handles, InterfaceNotProvidedIsUnimplemented) {
  auto mapper = create_layout_mapper(plugins.library("ipu_alltoall").value(), {});
  ASSERT_FALSE(mapper.ok());
  EXPECT_EQ(mapper.error().code, StatusCode::unimplemented);
  EXPECT_EQ(
      mapper.error().message.rfind("plugin 'ipu_alltoall' does not provide a layout_mapper", 0),
      0u);
}

}  // namespace
}  // namespace tessera
