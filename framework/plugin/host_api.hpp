// The host side of the ABI's host API: statuses made for plugins, plugin log lines routed to
// spdlog, and the conversion of a returned status into a framework Error.
#pragma once

#include <tessera/plugin_abi.h>

#include <optional>
#include <string>
#include <string_view>

#include "framework/common/status.hpp"

namespace tessera {

// The host API handed to every plugin. Static storage: valid for the life of the process.
const tessera_host_api* host_api();

// Takes ownership of `status` (frees it). NULL → nullopt. The message is prefixed with `context`.
std::optional<Error> take_status(tessera_status* status, const std::string& context);

namespace detail {
// The plugin being called on this thread (nullptr outside plugin calls) and the call (e.g.
// create_topology); set by CurrentPlugin.
extern constinit thread_local const std::string* current_plugin;
extern constinit thread_local std::string_view current_call;
}  // namespace detail

// Names the plugin and the call in flight on this thread, so its log lines are attributed to it
// and a crash in it is reported as its (crash_report.hpp). Inline: memsim makes two or three
// plugin calls per simulated cycle.
class CurrentPlugin {
 public:
  CurrentPlugin(const std::string& name, std::string_view call)
      : previous_(detail::current_plugin), previous_call_(detail::current_call) {
    detail::current_plugin = &name;
    detail::current_call = call;
  }
  ~CurrentPlugin() {
    detail::current_plugin = previous_;
    detail::current_call = previous_call_;
  }
  CurrentPlugin(const CurrentPlugin&) = delete;
  CurrentPlugin& operator=(const CurrentPlugin&) = delete;

 private:
  const std::string* previous_;
  std::string_view previous_call_;
};

}  // namespace tessera
