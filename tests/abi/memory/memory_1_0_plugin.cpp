// A memory model as a plugin binary built for ABI 1.0 provides it: the descriptor reports 1.0,
// the vtable ends where 1.0's ended (struct_size = offsetof(channel_of), what 1.0's sizeof gave)
// and get_info fills no more than 1.0's tessera_memory_info. The host must keep loading and using
// it and call neither 1.1 method (tests/abi/memory_test.cpp). Written against the raw C ABI:
// today's SDK builds 1.1 objects. The model is FixedLatencyMemory.
//
// Compiled once, linked twice (tests/abi/CMakeLists.txt). Each library reads NAME.fixture beside
// it (tests/abi/fixture_config.hpp): `name` and `description` for its descriptor, and
// `descriptor_minor`, the descriptor's ABI minor: 0 for the honest 1.0 plugin, 1 for one that
// claims 1.1 with a 1.0 vtable.
#include <tessera/plugin_abi.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/params.hpp>
#include <tuple>

#include "fixed_latency.hpp"
#include "tests/abi/fixture_config.hpp"

namespace {

using tessera::abi_test::FixedLatencyMemory;

constexpr size_t kVtableSize10 = offsetof(tessera_memory_model, channel_of);
constexpr size_t kInfoSize10 = offsetof(tessera_memory_info, description);

const tessera_host_api* host = nullptr;

const tessera::abi_test::FixtureConfig& config() {
  static const tessera::abi_test::FixtureConfig c(reinterpret_cast<const void*>(&config));
  return c;
}

// What a plugin must do at every entry: nothing thrown crosses the C boundary.
template <class Body>
tessera_status* guarded(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const tessera::sdk::Error& e) {
    return host->make_status(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return host->make_status(TESSERA_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception& e) {
    return host->make_status(TESSERA_INTERNAL, e.what());
  }
}

void require(const void* p, const char* what) {
  if (p == nullptr) throw tessera::sdk::invalid_argument(std::string(what) + " must not be NULL");
}

struct Box {
  tessera_memory_model api;  // first: the host holds a pointer to it
  FixedLatencyMemory model;
};

FixedLatencyMemory& of(const tessera_memory_model* self) {
  require(self, "self");
  return reinterpret_cast<Box*>(const_cast<tessera_memory_model*>(self))->model;
}

// Copies at most `size_10` bytes of `value`, as a 1.0 binary whose sizeof was `size_10` does.
template <class T>
void copy_10(T* out, T value, size_t size_10) {
  require(out, "out");
  if (out->struct_size < sizeof(size_t))
    throw tessera::sdk::invalid_argument("struct_size of the output is too small");
  value.struct_size = out->struct_size < size_10 ? out->struct_size : size_10;
  std::memcpy(out, &value, value.struct_size);
}

void release(tessera_memory_model* self) {
  delete reinterpret_cast<Box*>(self);
}

tessera_status* get_info(const tessera_memory_model* self, tessera_memory_info* out) {
  return guarded([&] { copy_10(out, of(self).info(), kInfoSize10); });
}

tessera_status* submit(tessera_memory_model* self, const tessera_memory_request* requests,
                       size_t count, size_t* accepted) {
  return guarded([&] {
    FixedLatencyMemory& m = of(self);
    require(accepted, "accepted");
    if (count > 0) require(requests, "requests");
    *accepted = m.submit(requests, count);
  });
}

tessera_status* advance(tessera_memory_model* self, uint64_t cycles,
                        tessera_completion_sink* sink) {
  return guarded([&] {
    FixedLatencyMemory& m = of(self);
    require(sink, "sink");
    if (sink->complete == nullptr)
      throw tessera::sdk::invalid_argument("sink->complete must not be NULL");
    m.advance(cycles,
              [&](const tessera_memory_completion& done) { sink->complete(sink->context, &done); });
  });
}

tessera_status* get_stats(const tessera_memory_model* self, tessera_memory_stats* out) {
  return guarded([&] { copy_10(out, of(self).stats(), sizeof(tessera_memory_stats)); });
}

tessera_status* sustained(tessera_memory_model* self, uint32_t streams, double* bytes_per_s,
                          double* latency_s) {
  return guarded([&] {
    const FixedLatencyMemory& m = of(self);
    require(bytes_per_s, "bytes_per_s");
    require(latency_s, "latency_s");
    if (streams == 0) throw tessera::sdk::invalid_argument("streams must be at least 1");
    std::tie(*bytes_per_s, *latency_s) = m.sustained();
  });
}

tessera_status* create(const tessera_params* params, tessera_memory_model** out) {
  return guarded([&] {
    require(params, "params");
    require(out, "out");
    tessera::sdk::Params p(*params);
    auto box = std::unique_ptr<Box>(new Box{tessera_memory_model{}, FixedLatencyMemory(p)});
    p.reject_unknown("memory_model");
    tessera_memory_model& api = box->api;
    api.struct_size = kVtableSize10;
    api.release = &release;
    api.get_info = &get_info;
    api.submit = &submit;
    api.advance = &advance;
    api.get_stats = &get_stats;
    api.sustained = &sustained;
    *out = &box.release()->api;
  });
}

}  // namespace

extern "C" TESSERA_PLUGIN_EXPORT const tessera_plugin_descriptor* tessera_plugin_query(
    uint32_t abi_major, uint32_t, const tessera_host_api* host_api) {
  if (abi_major != TESSERA_ABI_MAJOR || host_api == nullptr) return nullptr;
  if (host == nullptr) host = host_api;
  static const tessera_plugin_descriptor descriptor = [] {
    tessera_plugin_descriptor d{};
    d.struct_size = sizeof(d);  // the descriptor did not grow in 1.1
    d.abi_major = 1;
    d.abi_minor = config().number("descriptor_minor");
    d.name = config().text("name");
    d.version = "1.0.0";
    d.description = config().text("description");
    d.create_memory_model = &create;
    return d;
  }();
  return &descriptor;
}
