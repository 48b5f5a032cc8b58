#include "framework/plugin/library.hpp"

#include <dlfcn.h>

#include <cstddef>

#include "framework/plugin/host_api.hpp"
#include "framework/plugin/library_file.hpp"

namespace tessera {

namespace {

// The descriptor fields of ABI 1.0, up to and including the last constructor slot.
constexpr size_t kDescriptorSize10 =
    offsetof(tessera_plugin_descriptor, create_memory_model) + sizeof(void*);

Status check_manifest(const Manifest& m) {
  if (m.platform != host_platform())
    return plugin_error("plugin '" + m.name + "' (" + quoted(m.file) + ") is built for platform '" +
                        m.platform + "', but this host is '" + host_platform() +
                        "': install the plugin built for " + host_platform());
  if (m.abi_major != TESSERA_ABI_MAJOR)
    return plugin_error("plugin '" + m.name + "' (" + quoted(m.file) + ") uses plugin ABI " +
                        std::to_string(m.abi_major) + "." + std::to_string(m.abi_minor) +
                        ", but this host speaks ABI " + std::to_string(TESSERA_ABI_MAJOR) + "." +
                        std::to_string(TESSERA_ABI_MINOR) +
                        ": rebuild the plugin against TesseraSDK " +
                        std::to_string(TESSERA_ABI_MAJOR) + ".x");
  return ok_status();
}

const void* constructor_slot(const tessera_plugin_descriptor& d, Interface i) {
  switch (i) {
    case Interface::topology:
      return reinterpret_cast<const void*>(d.create_topology);
    case Interface::cost_model:
      return reinterpret_cast<const void*>(d.create_cost_model);
    case Interface::partitioner:
      return reinterpret_cast<const void*>(d.create_partitioner);
    case Interface::layout_mapper:
      return reinterpret_cast<const void*>(d.create_layout_mapper);
    case Interface::codegen:
      return reinterpret_cast<const void*>(d.create_codegen);
    case Interface::memory_model:
      return reinterpret_cast<const void*>(d.create_memory_model);
  }
  return nullptr;
}

}  // namespace

void PluginLibrary::Unload::operator()(void* handle) const {
  dlclose(handle);
}

Result<std::shared_ptr<PluginLibrary>> PluginLibrary::load(const Manifest& manifest) {
  if (auto s = check_manifest(manifest); !s) return s.error();
  auto file = verify_library_file(manifest);
  if (!file) return file.error();
  std::shared_ptr<PluginLibrary> lib(new PluginLibrary());
  lib->manifest_ = manifest;
  // dlopen itself, not Boost.DLL: Boost.DLL reports every failure as "Bad file descriptor" and
  // drops dlerror(), the loader's reason.
  dlerror();  // clear a stale error
  lib->handle_.reset(dlopen(file->c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib->handle_) {
    const char* why = dlerror();
    return plugin_error("plugin '" + manifest.name + "': cannot load " + quoted(manifest.library) +
                        ": " + (why != nullptr ? why : "the dynamic loader gave no reason"));
  }
  void* entry = dlsym(lib->handle_.get(), TESSERA_PLUGIN_QUERY_SYMBOL);
  if (entry == nullptr)
    return plugin_error("plugin '" + manifest.name + "': " + quoted(manifest.library) +
                        " does not export '" TESSERA_PLUGIN_QUERY_SYMBOL
                        "' (build it with tessera_add_plugin and TESSERA_DEFINE_PLUGIN)");
  lib->query_ = reinterpret_cast<tessera_plugin_query_fn>(entry);
  const tessera_plugin_descriptor* d = nullptr;
  Status queried = lib->call("tessera_plugin_query", [&]() -> tessera_status* {
    d = lib->query_(TESSERA_ABI_MAJOR, TESSERA_ABI_MINOR, host_api());
    return nullptr;
  });
  if (!queried) return queried.error();
  if (d == nullptr)
    return plugin_error(
        "plugin '" + manifest.name + "': tessera_plugin_query returned NULL for ABI " +
        std::to_string(TESSERA_ABI_MAJOR) + "." + std::to_string(TESSERA_ABI_MINOR) +
        " (the plugin cannot serve this host; rebuild it against this SDK)");
  lib->descriptor_ = d;
  if (auto s = lib->check_descriptor(); !s) return s.error();
  return lib;
}

Status PluginLibrary::check_descriptor() const {
  const auto& d = *descriptor_;
  const std::string who = "plugin '" + manifest_.name + "' (" + quoted(manifest_.library) + ")";
  if (d.struct_size < kDescriptorSize10)
    return plugin_error(who + ": descriptor is too short: struct_size " +
                        std::to_string(d.struct_size) + ", ABI 1.0 needs at least " +
                        std::to_string(kDescriptorSize10) + " bytes");
  if (d.abi_major != TESSERA_ABI_MAJOR)
    return plugin_error(who + ": descriptor reports ABI major " + std::to_string(d.abi_major) +
                        ", the host asked for " + std::to_string(TESSERA_ABI_MAJOR));
  // The manifest's ABI version is what the host checks before loading (and what `tessera targets`
  // lists); a binary of another minor means the manifest was written for another build.
  if (d.abi_minor != manifest_.abi_minor)
    return plugin_error(who + ": descriptor reports ABI " + std::to_string(d.abi_major) + "." +
                        std::to_string(d.abi_minor) + ", but the manifest " +
                        quoted(manifest_.file) + " says " + std::to_string(manifest_.abi_major) +
                        "." + std::to_string(manifest_.abi_minor) +
                        "; regenerate the manifest with tessera_add_plugin");
  std::string name = d.name != nullptr ? d.name : "";
  if (name != manifest_.name)
    return plugin_error(who + ": descriptor name '" + name + "' disagrees with the manifest " +
                        quoted(manifest_.file) + " (name '" + manifest_.name +
                        "'); regenerate the manifest with tessera_add_plugin");
  std::string version = d.version != nullptr ? d.version : "";
  if (version != manifest_.version)
    return plugin_error(who + ": descriptor version '" + version +
                        "' disagrees with the manifest " + quoted(manifest_.file) + " (version '" +
                        manifest_.version + "')");
  for (Interface i : kAllInterfaces) {
    bool in_manifest = manifest_.provides_interface(i);
    bool in_binary = constructor_slot(d, i) != nullptr;
    if (in_manifest && !in_binary)
      return plugin_error(who + ": the manifest says it provides " + std::string(to_string(i)) +
                          ", but the descriptor's create_" + std::string(to_string(i)) +
                          " is NULL");
    if (!in_manifest && in_binary)
      return plugin_error(who + ": the descriptor provides " + std::string(to_string(i)) +
                          ", but the manifest " + quoted(manifest_.file) +
                          " does not list it under 'provides'");
  }
  return ok_status();
}

Status finish_plugin_call(const PluginLibrary& library, std::string_view what,
                          tessera_status* status, const char* exception_what, bool threw) {
  if (!threw && status == nullptr) return ok_status();
  const std::string context = "plugin '" + library.name() + "': " + std::string(what);
  if (threw)
    return plugin_error(
        context + " threw an exception across the C ABI" +
            (exception_what != nullptr ? std::string(" (") + exception_what + ")" : std::string()) +
            "; a plugin must return a status (the SDK trampolines do this)",
        StatusCode::internal);
  if (auto error = take_status(status, context)) return *error;
  return ok_status();
}

}  // namespace tessera
