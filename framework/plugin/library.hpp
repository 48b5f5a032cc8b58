// A loaded plugin library: its manifest, the dlopen handle and the validated descriptor.
//
// LIFETIME: every object a plugin creates holds a shared_ptr to its PluginLibrary, so the code of
// the object's methods (and of its `release`) stays mapped until the last object is gone. The
// library is unloaded when the last PluginLibrary reference drops.
#pragma once

#include <tessera/plugin_abi.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/host_api.hpp"
#include "framework/plugin/manifest.hpp"

namespace tessera {

// Parameters for an object's constructor, owned by the host (converted to tessera_params).
struct ParamList {
  std::vector<std::pair<std::string, std::string>> items;
  std::string base_dir;
};

class PluginLibrary {
 public:
  // Checks the manifest against this host (ABI major, platform) and the library file against the
  // manifest (library_file.hpp) before loading it, loads it, calls tessera_plugin_query and checks
  // the descriptor against the manifest. Each failure has its own message naming the file and
  // what to do; a load the dynamic loader refuses carries its dlerror().
  static Result<std::shared_ptr<PluginLibrary>> load(const Manifest& manifest);

  const Manifest& manifest() const { return manifest_; }
  const std::string& name() const { return manifest_.name; }
  const tessera_plugin_descriptor& descriptor() const { return *descriptor_; }
  // The entry point, for tests that check it is idempotent.
  tessera_plugin_query_fn query_function() const { return query_; }

  // Runs a call into the plugin: attributes its log lines, catches anything thrown across the C
  // boundary (a plugin bug), and converts the returned status. `what` names the call in errors
  // (a view: memory models are called per request, and a name is copied only into an error).
  template <class Call>
  Status call(std::string_view what, Call&& call_plugin) const;

 private:
  PluginLibrary() = default;
  Status check_descriptor() const;

  // dlclose, when the last reference to the library drops.
  struct Unload {
    void operator()(void* handle) const;
  };

  Manifest manifest_;
  std::unique_ptr<void, Unload> handle_;
  tessera_plugin_query_fn query_ = nullptr;
  const tessera_plugin_descriptor* descriptor_ = nullptr;
};

// Defined here because it is a template; the non-template part lives in library.cpp.
Status finish_plugin_call(const PluginLibrary& library, std::string_view what,
                          tessera_status* status, const char* exception_what, bool threw);

template <class Call>
Status PluginLibrary::call(std::string_view what, Call&& call_plugin) const {
  CurrentPlugin attribute(name(), what);
  tessera_status* status = nullptr;
  try {
    status = call_plugin();
  } catch (const std::exception& e) {
    return finish_plugin_call(*this, what, nullptr, e.what(), true);
  } catch (...) {
    return finish_plugin_call(*this, what, nullptr, nullptr, true);
  }
  // Inline when it succeeded: memsim makes two or three calls per simulated cycle.
  if (status == nullptr) return ok_status();
  return finish_plugin_call(*this, what, status, nullptr, false);
}

}  // namespace tessera
