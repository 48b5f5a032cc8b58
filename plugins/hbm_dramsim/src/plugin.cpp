#include <tessera/sdk/plugin.hpp>

#include "hbm_model.hpp"

TESSERA_DEFINE_PLUGIN(TESSERA_PLUGIN_NAME, TESSERA_PLUGIN_VERSION, TESSERA_PLUGIN_DESCRIPTION,
                      tessera::sdk::provides_memory_model<tessera::hbm::HbmModel>)
