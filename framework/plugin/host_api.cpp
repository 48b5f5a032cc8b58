#include "framework/plugin/host_api.hpp"

#include <spdlog/spdlog.h>

#include <new>

// The ABI leaves tessera_status opaque to plugins; this is its only definition.
struct tessera_status {
  int32_t code;
  std::string message;
};

namespace tessera {

constinit thread_local const std::string* detail::current_plugin = nullptr;
constinit thread_local std::string_view detail::current_call;

namespace {

using detail::current_plugin;

// Returned when even the status cannot be allocated; never freed.
tessera_status out_of_memory_status{TESSERA_RESOURCE_EXHAUSTED, "out of memory"};

tessera_status* make_status(int32_t code, const char* message) {
  try {
    return new tessera_status{code, message != nullptr ? message : ""};
  } catch (...) {
    return &out_of_memory_status;
  }
}

void log_from_plugin(int32_t level, const char* message) {
  try {
    const std::string who = current_plugin != nullptr ? *current_plugin : "plugin";
    const char* text = message != nullptr ? message : "";
    switch (level) {
      case TESSERA_LOG_TRACE:
        spdlog::trace("[{}] {}", who, text);
        break;
      case TESSERA_LOG_DEBUG:
        spdlog::debug("[{}] {}", who, text);
        break;
      case TESSERA_LOG_INFO:
        spdlog::info("[{}] {}", who, text);
        break;
      case TESSERA_LOG_WARN:
        spdlog::warn("[{}] {}", who, text);
        break;
      default:
        spdlog::error("[{}] {}", who, text);
        break;
    }
  } catch (...) {
    // A log line is not worth failing the plugin's call for.
  }
}

const tessera_host_api kHostApi = {sizeof(tessera_host_api), TESSERA_ABI_MAJOR,
                                   TESSERA_ABI_MINOR,        &make_status,
                                   &log_from_plugin,         {}};

}  // namespace

const tessera_host_api* host_api() {
  return &kHostApi;
}

std::optional<Error> take_status(tessera_status* status, const std::string& context) {
  if (status == nullptr) return std::nullopt;
  int32_t raw = status->code;
  std::string message = status->message;
  if (status != &out_of_memory_status) delete status;
  StatusCode code = StatusCode::internal;
  if (raw > TESSERA_OK && raw <= TESSERA_INTERNAL) {
    code = static_cast<StatusCode>(raw);
  } else {
    message = "returned a status with invalid code " + std::to_string(raw) + ": " + message;
  }
  return Error{ErrorKind::plugin, code, context + ": " + message};
}

}  // namespace tessera
