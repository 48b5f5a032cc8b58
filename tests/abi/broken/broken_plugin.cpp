// One deliberately broken plugin per fault, chosen at compile time (tests/abi/CMakeLists.txt):
//   BROKEN_NAME     the name the descriptor reports (the manifest may say another)
//   BROKEN_VERSION  the version the descriptor reports
//   BROKEN_FAULT    a Fault below; `none` builds the well-behaved control plugin
//   BROKEN_ENTRY    the exported entry point's name (a misspelling = "no entry point")
//   BROKEN_DEPENDENCY  defined when the plugin links a library the loader cannot find
// Written against the raw C ABI without the SDK, because most of these faults are exactly what the
// SDK's TESSERA_DEFINE_PLUGIN and trampolines make impossible.
#include <tessera/plugin_abi.h>
#include <unistd.h>

#include <cstddef>
#include <stdexcept>

#ifdef BROKEN_DEPENDENCY
extern "C" int broken_dependency_answer();  // in a library off the loader's path
#endif

namespace {

enum class Fault {
  none,
  query_returns_null,    // tessera_plugin_query refuses the host's major version
  descriptor_major_2,    // descriptor claims ABI 2.x
  short_descriptor,      // struct_size stops before the constructor slots
  null_constructor,      // provides nothing the manifest lists
  extra_interface,       // provides a cost model the manifest does not list
  throwing_constructor,  // a C++ exception straight through the C ABI
  no_object,             // constructor returns OK without an object
  short_object,          // constructor returns a vtable too short for ABI 1.0
  crash_on_load,         // a static initialiser faults (SIGILL) as the library is loaded
  crash_in_create,       // create_topology faults (SIGILL) when given valid arguments
  exit_in_create,        // create_topology ends the process with _exit(3)
};
constexpr Fault kFault = Fault::BROKEN_FAULT;

#ifndef BROKEN_ENTRY
#define BROKEN_ENTRY tessera_plugin_query
#endif

const tessera_host_api* host = nullptr;

// Runs while dlopen maps the library, before the host can call anything.
struct LoadTimeFault {
  LoadTimeFault() {
    if constexpr (kFault == Fault::crash_on_load) __builtin_trap();
  }
} load_time_fault;

template <class Object>
tessera_status* unimplemented(const tessera_params*, Object**) {
  return host->make_status(TESSERA_UNIMPLEMENTED, "a broken test plugin builds nothing");
}

// Faulty only in the one way its fault says: otherwise it checks its arguments like any plugin, so
// the conformance suite sees that fault rather than a crash on a NULL it passes on purpose.
tessera_status* create_topology(const tessera_params* params, tessera_topology** out) {
  if constexpr (kFault == Fault::throwing_constructor)
    throw std::runtime_error("the topology constructor exploded");
  if (params == nullptr || out == nullptr)
    return host->make_status(TESSERA_INVALID_ARGUMENT, "params and out must not be NULL");
  if constexpr (kFault == Fault::crash_in_create) __builtin_trap();
  if constexpr (kFault == Fault::exit_in_create) _exit(3);
  if constexpr (kFault == Fault::no_object) return nullptr;
  if constexpr (kFault == Fault::short_object) {
    // Static: the host cannot release a malformed object, so nothing may leak.
    static tessera_topology truncated = [] {
      tessera_topology t{};
      t.struct_size = offsetof(tessera_topology, get_info);
      return t;
    }();
    *out = &truncated;
    return nullptr;
  }
  return unimplemented(params, out);
}

tessera_plugin_descriptor make_descriptor() {
  tessera_plugin_descriptor d{};
  d.struct_size = sizeof(d);
  d.abi_major = TESSERA_ABI_MAJOR;
  d.abi_minor = TESSERA_ABI_MINOR;
  d.name = BROKEN_NAME;
  d.version = BROKEN_VERSION;
  d.description = "a deliberately broken plugin for tests/abi";

  d.create_topology = &create_topology;
  if (kFault == Fault::descriptor_major_2) d.abi_major = TESSERA_ABI_MAJOR + 1;
  if (kFault == Fault::short_descriptor)
    d.struct_size = offsetof(tessera_plugin_descriptor, reserved);
  if (kFault == Fault::null_constructor) d.create_topology = nullptr;
  if (kFault == Fault::extra_interface) d.create_cost_model = &unimplemented<tessera_cost_model>;
  return d;
}

}  // namespace

extern "C" TESSERA_PLUGIN_EXPORT const tessera_plugin_descriptor* BROKEN_ENTRY(
    uint32_t abi_major, uint32_t, const tessera_host_api* host_api) {
  if (abi_major != TESSERA_ABI_MAJOR || host_api == nullptr) return nullptr;
  if (kFault == Fault::query_returns_null) return nullptr;
#ifdef BROKEN_DEPENDENCY
  if (broken_dependency_answer() != 42) return nullptr;  // a use, so the library is needed
#endif
  host = host_api;
  static const tessera_plugin_descriptor descriptor = make_descriptor();
  return &descriptor;
}
