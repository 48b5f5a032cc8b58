// What the driver's tests open: the build tree's plugins, a zoo model at a given shape.
#pragma once

#include <string>

#include "framework/driver/driver.hpp"

namespace tessera::driver::fixtures {

inline PluginSet& plugins() {
  static PluginSet set(Registry::discover(plugin_search_dirs({})));
  return set;
}

inline LoadedModel zoo_model(const std::string& name, int64_t batch, int64_t seq) {
  ModelRequest request;
  request.model = name;
  request.shape.batch = batch;
  request.shape.seq = seq;
  request.shape_given = true;
  return load(request).take();
}

}  // namespace tessera::driver::fixtures
