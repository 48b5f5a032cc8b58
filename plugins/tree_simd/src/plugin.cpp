#include <tessera/sdk/plugin.hpp>

#include "cost_model.hpp"
#include "layout_mapper.hpp"
#include "partitioner.hpp"
#include "program_codegen.hpp"
#include "topology.hpp"

namespace tree = tessera::plugins::tree;

TESSERA_DEFINE_PLUGIN(TESSERA_PLUGIN_NAME, TESSERA_PLUGIN_VERSION, TESSERA_PLUGIN_DESCRIPTION,
                      tessera::sdk::provides_topology<tree::TreeTopology>,
                      tessera::sdk::provides_cost_model<tree::TreeCostModel>,
                      tessera::sdk::provides_partitioner<tree::TreePartitioner>,
                      tessera::sdk::provides_layout_mapper<tree::TreeLayoutMapper>,
                      tessera::sdk::provides_codegen<tree::TreeCodeGen>)
