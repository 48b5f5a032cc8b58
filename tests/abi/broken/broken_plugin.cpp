// One deliberately broken plugin per fault. Compiled once and linked into every fixture of
// tessera_broken_plugin (tests/abi/CMakeLists.txt), which writes NAME.fixture beside NAME.so; the
// library reads it as it loads (tests/abi/fixture_config.hpp):
//   fault    a Fault below; `none` is the well-behaved control plugin
//   name     the name the descriptor reports (the manifest may say another)
//   version  the version the descriptor reports
// What only the link can choose is chosen there: which entry point the library exports (both are
// defined below; a version script exports one) and whether it links a library the loader cannot
// find. Written against the raw C ABI without the SDK, because most of these faults are exactly
// what the SDK's TESSERA_DEFINE_PLUGIN and trampolines make impossible.
#include <tessera/plugin_abi.h>
#include <unistd.h>

#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "tests/abi/fixture_config.hpp"

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
  segv_in_query,         // tessera_plugin_query faults (SIGSEGV)
  abort_in_create,       // create_topology aborts (SIGABRT), as a failed assert does
  hang_in_create,        // create_topology never returns
};
// The spelling of each Fault in NAME.fixture (tessera_broken_plugin's FAULT).
constexpr std::pair<std::string_view, Fault> kFaultNames[] = {
    {"none", Fault::none},
    {"query_returns_null", Fault::query_returns_null},
    {"descriptor_major_2", Fault::descriptor_major_2},
    {"short_descriptor", Fault::short_descriptor},
    {"null_constructor", Fault::null_constructor},
    {"extra_interface", Fault::extra_interface},
    {"throwing_constructor", Fault::throwing_constructor},
    {"no_object", Fault::no_object},
    {"short_object", Fault::short_object},
    {"crash_on_load", Fault::crash_on_load},
    {"crash_in_create", Fault::crash_in_create},
    {"exit_in_create", Fault::exit_in_create},
    {"segv_in_query", Fault::segv_in_query},
    {"abort_in_create", Fault::abort_in_create},
    {"hang_in_create", Fault::hang_in_create},
};

const tessera::abi_test::FixtureConfig& config() {
  static const tessera::abi_test::FixtureConfig c(reinterpret_cast<const void*>(&config));
  return c;
}

// Read during static initialisation, while dlopen runs the library's initialisers, so that
// load_time_fault below (initialised after it: same file, defined later) already knows it.
const Fault kFault = config().one_of("fault", kFaultNames);

const tessera_host_api* host = nullptr;

// Runs while dlopen maps the library, before the host can call anything.
struct LoadTimeFault {
  LoadTimeFault() {
    if (kFault == Fault::crash_on_load) __builtin_trap();
  }
} load_time_fault;

template <class Object>
tessera_status* unimplemented(const tessera_params*, Object**) {
  return host->make_status(TESSERA_UNIMPLEMENTED, "a broken test plugin builds nothing");
}

// Faulty only in the one way its fault says: otherwise it checks its arguments like any plugin, so
// the conformance suite sees that fault rather than a crash on a NULL it passes on purpose.
tessera_status* create_topology(const tessera_params* params, tessera_topology** out) {
  if (kFault == Fault::throwing_constructor)
    throw std::runtime_error("the topology constructor exploded");
  if (params == nullptr || out == nullptr)
    return host->make_status(TESSERA_INVALID_ARGUMENT, "params and out must not be NULL");
  if (kFault == Fault::crash_in_create) __builtin_trap();
  if (kFault == Fault::exit_in_create) _exit(3);
  if (kFault == Fault::abort_in_create) std::abort();
  while (kFault == Fault::hang_in_create) sleep(1);
  if (kFault == Fault::no_object) return nullptr;
  if (kFault == Fault::short_object) {
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
  d.name = config().text("name");
  d.version = config().text("version");
  d.description = "a deliberately broken plugin for tests/abi";

  d.create_topology = &create_topology;
  if (kFault == Fault::descriptor_major_2) d.abi_major = TESSERA_ABI_MAJOR + 1;
  if (kFault == Fault::short_descriptor)
    d.struct_size = offsetof(tessera_plugin_descriptor, reserved);
  if (kFault == Fault::null_constructor) d.create_topology = nullptr;
  if (kFault == Fault::extra_interface) d.create_cost_model = &unimplemented<tessera_cost_model>;
  return d;
}

const tessera_plugin_descriptor* query(uint32_t abi_major, const tessera_host_api* host_api) {
  if (abi_major != TESSERA_ABI_MAJOR || host_api == nullptr) return nullptr;
  if (kFault == Fault::query_returns_null) return nullptr;
  if (kFault == Fault::segv_in_query) std::raise(SIGSEGV);
  host = host_api;
  static const tessera_plugin_descriptor descriptor = make_descriptor();
  return &descriptor;
}

}  // namespace

// The entry point, and the misspelling `no_entry_point` exports instead: the library exports the
// one tessera_broken_plugin's ENTRY names, through a linker version script.
extern "C" TESSERA_PLUGIN_EXPORT const tessera_plugin_descriptor* tessera_plugin_query(
    uint32_t abi_major, uint32_t, const tessera_host_api* host_api) {
  return query(abi_major, host_api);
}
extern "C" TESSERA_PLUGIN_EXPORT const tessera_plugin_descriptor* tessera_plugin_query_v1(
    uint32_t abi_major, uint32_t, const tessera_host_api* host_api) {
  return query(abi_major, host_api);
}
