#include <tessera/sdk/plugin.hpp>

#include "cost_model.hpp"
#include "topology.hpp"

TESSERA_DEFINE_PLUGIN(TESSERA_PLUGIN_NAME, TESSERA_PLUGIN_VERSION, TESSERA_PLUGIN_DESCRIPTION,
                      tessera::sdk::provides_topology<tessera::plugins::mesh::MeshTopology>,
                      tessera::sdk::provides_cost_model<tessera::plugins::mesh::TensixCostModel>)
