// The host side of the ABI's host API: statuses made for plugins, plugin log lines routed to
// spdlog, and the conversion of a returned status into a framework Error.
#pragma once

#include <tessera/plugin_abi.h>

#include <optional>
#include <string>

#include "framework/common/status.hpp"

namespace tessera {

// The host API handed to every plugin. Static storage: valid for the life of the process.
const tessera_host_api* host_api();

// Takes ownership of `status` (frees it). NULL → nullopt. The message is prefixed with `context`.
std::optional<Error> take_status(tessera_status* status, const std::string& context);

namespace detail {
// The plugin being called on this thread (nullptr outside plugin calls); set by CurrentPlugin.
extern constinit thread_local const std::string* current_plugin;
}  // namespace detail

// Names the plugin being called on this thread, so its log lines are attributed to it. Inline:
// memsim makes two or three plugin calls per simulated cycle.
class CurrentPlugin {
 public:
  explicit CurrentPlugin(const std::string& name) : previous_(detail::current_plugin) {
    detail::current_plugin = &name;
  }
  ~CurrentPlugin() { detail::current_plugin = previous_; }
  CurrentPlugin(const CurrentPlugin&) = delete;
  CurrentPlugin& operator=(const CurrentPlugin&) = delete;

 private:
  const std::string* previous_;
};

}  // namespace tessera
