// Errors inside a C++ plugin, and how they become ABI statuses at the boundary.
//
// Plugin code throws tessera::sdk::Error (or lets any std::exception escape); the trampolines in
// <tessera/sdk/plugin.hpp> catch everything and turn it into a status made by the host. Nothing
// thrown ever crosses into the host.
#pragma once

#include <tessera/plugin_abi.h>

#include <new>
#include <stdexcept>
#include <string>

namespace tessera::sdk {

class Error : public std::runtime_error {
 public:
  Error(tessera_status_code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  tessera_status_code code() const noexcept { return code_; }

 private:
  tessera_status_code code_;
};

inline Error invalid_argument(const std::string& message) {
  return Error(TESSERA_INVALID_ARGUMENT, message);
}
inline Error unimplemented(const std::string& message) {
  return Error(TESSERA_UNIMPLEMENTED, message);
}

namespace detail {

// The host API of this library's host. One per plugin library: the SDK is header-only and plugins
// are built with hidden visibility, so every `.so` has its own copy of this variable.
inline const tessera_host_api*& host_api() noexcept {
  static const tessera_host_api* api = nullptr;
  return api;
}

inline tessera_status* make_status(tessera_status_code code, const char* message) noexcept {
  const tessera_host_api* api = host_api();
  if (api == nullptr || api->make_status == nullptr) return nullptr;  // no host: cannot report
  return api->make_status(static_cast<int32_t>(code), message);
}

// Runs `body` and converts whatever it throws into a status. The one place exceptions stop.
template <class Body>
tessera_status* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const Error& e) {
    return make_status(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return make_status(TESSERA_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception& e) {
    return make_status(TESSERA_INTERNAL,
                       (std::string("unexpected exception: ") + e.what()).c_str());
  } catch (...) {
    return make_status(TESSERA_INTERNAL, "unexpected exception of unknown type");
  }
}

template <class T>
void require_non_null(const T* p, const char* what) {
  if (p == nullptr) throw invalid_argument(std::string(what) + " must not be NULL");
}

// Copies a plugin-side struct into a host-provided one that may be shorter (older host) or longer
// (newer host): only the common prefix is written; struct_size reports what was written.
template <class T>
void copy_sized(T* out, T value) {
  size_t host_size = out->struct_size;
  if (host_size < sizeof(size_t)) throw invalid_argument("struct_size of the output is too small");
  value.struct_size = host_size < sizeof(T) ? host_size : sizeof(T);
  const auto* src = reinterpret_cast<const unsigned char*>(&value);
  auto* dst = reinterpret_cast<unsigned char*>(out);
  for (size_t i = 0; i < value.struct_size; ++i) dst[i] = src[i];
}

}  // namespace detail

// Logs through the host (attributed to this plugin). Safe before the host is known: dropped.
inline void log(tessera_log_level level, const std::string& message) noexcept {
  const tessera_host_api* api = detail::host_api();
  if (api != nullptr && api->log != nullptr) api->log(level, message.c_str());
}

}  // namespace tessera::sdk
