// The plugins the conformance suites are instantiated with, and what every suite shares: the test
// parameter, the base fixture, raw calls through the C vtables, and default parameters.
//
// Suites call plugins through the RAW C ABI (not the host's guarded handles) wherever the contract
// under test is the plugin's own: a plugin must stand on its own against any host.
#pragma once

#include <gtest/gtest.h>
#include <tessera/plugin_abi.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/host_api.hpp"
#include "framework/plugin/interface.hpp"
#include "framework/plugin/library.hpp"
#include "framework/plugin/manifest.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera::conformance {

// One plugin given to run(). Every test instance of the plugin shares it (the parameter holds a
// shared_ptr), so the reload test can replace the library for the tests that follow it.
struct PluginState {
  std::string target;                            // as given: name, alias or path
  std::string label;                             // test-name suffix: [A-Za-z0-9_]+, unique
  std::optional<Manifest> manifest;              // empty when the target did not resolve
  std::shared_ptr<const PluginLibrary> library;  // empty when resolving or loading failed
  std::string error;  // why library is empty, or why the loaded plugin cannot be tested
};

struct PluginParam {
  std::shared_ptr<PluginState> state;
};

// gtest prints parameters with PrintTo (found by ADL) and names instances with PluginName.
void PrintTo(const PluginParam& param, std::ostream* os);
struct PluginName {
  std::string operator()(const testing::TestParamInfo<PluginParam>& info) const;
};

// Filled by run() BEFORE testing::InitGoogleTest: gtest evaluates the generators of
// INSTANTIATE_TEST_SUITE_P while it initialises, not when the program starts.
std::vector<PluginParam>& plugins();

// Instantiates `Suite` once per plugin. Allowed to be empty (a run filtered to other suites).
#define TESSERA_INSTANTIATE_FOR_PLUGINS(Suite)                                                     \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Suite);                                            \
  INSTANTIATE_TEST_SUITE_P(Plugins, Suite, ::testing::ValuesIn(::tessera::conformance::plugins()), \
                           ::tessera::conformance::PluginName())

// Skips every test of a plugin that did not load or whose manifest lists tests the kit does not
// have (the Load suite reports why, once), and the tests its manifest lists as unsupported.
class PluginTest : public testing::TestWithParam<PluginParam> {
 protected:
  void SetUp() override;
  PluginState& state() const { return *GetParam().state; }
  const Manifest& manifest() const { return *state().manifest; }
  const PluginLibrary& library() const { return *state().library; }
  const tessera_plugin_descriptor& descriptor() const { return library().descriptor(); }
  // The dtypes the plugin's ABI version has (0 .. this - 1): a 1.1 plugin is never asked about
  // bfp8 (1.2), as the host never sends it one.
  uint32_t dtype_count() const { return TESSERA_DTYPE_COUNT_FOR_MINOR(descriptor().abi_minor); }
  // The interfaces the manifest lists (the Load suite proves the binary agrees).
  std::vector<Interface> provided() const;
};

// Skips the test (from its body or SetUp) when the manifest does not list interface `i`.
#define TESSERA_SKIP_UNLESS_PROVIDES(i) \
  if (!manifest().provides_interface(i)) GTEST_SKIP() << "does not provide " << to_string(i)

// The parameters of the plugin's default chip for `i`: what `tessera --target NAME` would build.
// Empty when the default chip gives `i` to another plugin or has no section for it.
Result<ParamList> default_params(const Manifest& manifest, Interface i);

// A ParamList as the C ABI's tessera_params; valid while this object lives.
class CParams {
 public:
  explicit CParams(const ParamList& params);
  CParams(const CParams&) = delete;
  CParams& operator=(const CParams&) = delete;
  const tessera_params* get() const { return &c_; }

 private:
  std::vector<tessera_param> items_;
  tessera_params c_{};
};

// Runs one raw ABI call: nullopt when it returned OK, else the error of its status (freed here).
// An exception thrown across the C boundary is a test failure, reported as an INTERNAL error.
template <class Call>
std::optional<Error> invoke(const std::string& what, Call&& call) {
  tessera_status* status = nullptr;
  try {
    status = call();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " threw an exception across the C ABI: " << e.what();
    return Error{ErrorKind::plugin, StatusCode::internal, what + " threw " + e.what()};
  } catch (...) {
    ADD_FAILURE() << what << " threw an exception of unknown type across the C ABI";
    return Error{ErrorKind::plugin, StatusCode::internal, what + " threw"};
  }
  return take_status(status, what);
}

inline bool positive_finite(double x) {
  return x > 0 && std::isfinite(x);
}
inline bool non_negative_finite(double x) {
  return x >= 0 && std::isfinite(x);
}

// A number for messages: up to 6 significant digits, "inf" and "nan" as such.
std::string format_number(double x);
// "matmul", "softmax", ... for a tessera_op_kind; bytes of one element of a tessera_dtype.
std::string op_kind_name(uint32_t kind);
double dtype_bytes(uint32_t dtype);

// "OK", or the code and message of an error: compares and prints well in an EXPECT_EQ.
inline std::string outcome(const std::optional<Error>& error) {
  return error ? std::string(to_string(error->code)) + ": " + error->message : "OK";
}

// Expects `call` to fail with INVALID_ARGUMENT (not OK, not another code, not a throw) and
// returns the error's message ("" when it did not fail).
template <class Call>
std::string expect_invalid_argument(const std::string& what, Call&& call) {
  std::optional<Error> error = invoke(what, call);
  if (!error) {
    ADD_FAILURE() << what << ": returned OK, expected INVALID_ARGUMENT";
    return "";
  }
  EXPECT_STREQ(to_string(error->code), "INVALID_ARGUMENT") << error->message;
  return error->message;
}

// Calls get(out) with a struct a newer host made larger, and checks the plugin writes no more than
// the struct_size it reports back (ABI rule 3).
template <class T, class Get>
void expect_honours_struct_size(const std::string& what, Get&& get) {
  constexpr size_t kExtra = 64;
  constexpr unsigned char kCanary = 0xA5;
  alignas(T) unsigned char buffer[sizeof(T) + kExtra];
  std::memset(buffer, kCanary, sizeof(buffer));
  const size_t host_size = sizeof(buffer);
  std::memcpy(buffer, &host_size, sizeof(host_size));  // struct_size comes first
  ASSERT_EQ(outcome(invoke(what, [&] { return get(reinterpret_cast<T*>(buffer)); })), "OK");
  size_t written = 0;
  std::memcpy(&written, buffer, sizeof(written));
  EXPECT_GE(written, kAbi10Size<T>) << what << ": reported struct_size smaller than ABI 1.0's";
  ASSERT_LE(written, sizeof(buffer)) << what << ": reported writing more than the host's struct";
  for (size_t i = written; i < sizeof(buffer); ++i)
    ASSERT_EQ(buffer[i], kCanary) << what << ": wrote byte " << i << " beyond struct_size "
                                  << written;
}

// ---- Raw objects of any interface
// ----------------------------------------------------------------

// Per C vtable type: its interface and its constructor slot in the descriptor.
template <class CApi>
struct Api;
#define TESSERA_CONFORMANCE_API(CApi, name)                                  \
  template <>                                                                \
  struct Api<CApi> {                                                         \
    static constexpr Interface kInterface = Interface::name;                 \
    static constexpr auto kSlot = &tessera_plugin_descriptor::create_##name; \
  };
TESSERA_CONFORMANCE_API(tessera_topology, topology)
TESSERA_CONFORMANCE_API(tessera_cost_model, cost_model)
TESSERA_CONFORMANCE_API(tessera_partitioner, partitioner)
TESSERA_CONFORMANCE_API(tessera_layout_mapper, layout_mapper)
TESSERA_CONFORMANCE_API(tessera_codegen, codegen)
TESSERA_CONFORMANCE_API(tessera_memory_model, memory_model)
#undef TESSERA_CONFORMANCE_API

template <class CApi>
struct TypeTag {
  using Type = CApi;
};

// Calls f(TypeTag<CApi>{}) with the C vtable type of `i`, so one generic lambda covers all six.
template <class F>
void visit_interface(Interface i, F&& f) {
  switch (i) {
    case Interface::topology:
      return f(TypeTag<tessera_topology>{});
    case Interface::cost_model:
      return f(TypeTag<tessera_cost_model>{});
    case Interface::partitioner:
      return f(TypeTag<tessera_partitioner>{});
    case Interface::layout_mapper:
      return f(TypeTag<tessera_layout_mapper>{});
    case Interface::codegen:
      return f(TypeTag<tessera_codegen>{});
    case Interface::memory_model:
      return f(TypeTag<tessera_memory_model>{});
  }
}

struct Releaser {
  template <class CApi>
  void operator()(CApi* object) const {
    object->release(object);
  }
};
template <class CApi>
using Owned = std::unique_ptr<CApi, Releaser>;

// Builds an object through the raw constructor and checks the vtable it returns. The object must
// be released before the library is unloaded (the caller holds the library meanwhile).
template <class CApi>
Result<Owned<CApi>> create_raw(const PluginLibrary& library, const ParamList& params) {
  const std::string what = "create_" + std::string(to_string(Api<CApi>::kInterface));
  auto ctor = library.descriptor().*Api<CApi>::kSlot;
  if (ctor == nullptr) return plugin_error(what + " is NULL", StatusCode::unimplemented);
  CParams c_params(params);
  CApi* object = nullptr;
  if (auto error = invoke(what, [&] { return ctor(c_params.get(), &object); })) return *error;
  if (object == nullptr) return plugin_error(what + " returned OK but no object");
  // Too short to hold the 1.0 vtable, or no release: cannot be used or freed, so it leaks. (A
  // vtable that grew in 1.1 may still be a 1.0 one: kAbi10Size, not sizeof.)
  if (object->struct_size < kAbi10Size<CApi> || object->release == nullptr)
    return plugin_error(what + " returned a malformed vtable: struct_size " +
                        std::to_string(object->struct_size) + ", 1.0 needs " +
                        std::to_string(kAbi10Size<CApi>));
  return Owned<CApi>(object);
}

// create_raw with the default chip's parameters.
template <class CApi>
Result<Owned<CApi>> create_default(const PluginLibrary& library) {
  auto params = default_params(library.manifest(), Api<CApi>::kInterface);
  if (!params) return params.error();
  return create_raw<CApi>(library, *params);
}

// create_default, or NULL and a test failure saying why.
template <class CApi>
Owned<CApi> make_default(const PluginLibrary& library) {
  auto object = create_default<CApi>(library);
  if (object) return std::move(object).value();
  ADD_FAILURE() << object.error().message;
  return nullptr;
}

// A short list of problems for one EXPECT: the first few in full, then how many more.
class Problems {
 public:
  void add(std::string problem);
  bool empty() const { return count_ == 0; }
  std::string summary() const;

 private:
  static constexpr size_t kShown = 10;
  std::vector<std::string> shown_;
  size_t count_ = 0;
};

}  // namespace tessera::conformance
