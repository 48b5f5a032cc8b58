// Errors of the framework: a code (the ABI's status codes, kept equal by static_assert) and a
// message written for the user (what, where, how to fix). Result<T> carries a value or an error;
// infeasibility is never an error (it is a value with a reason).
#pragma once

#include <tessera/plugin_abi.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace tessera {

enum class StatusCode : int32_t {
  ok = 0,
  invalid_argument = 1,
  not_found = 2,
  out_of_range = 3,
  unimplemented = 4,
  failed_precondition = 5,
  resource_exhausted = 6,
  internal = 7,
};

static_assert(static_cast<int32_t>(StatusCode::ok) == TESSERA_OK);
static_assert(static_cast<int32_t>(StatusCode::invalid_argument) == TESSERA_INVALID_ARGUMENT);
static_assert(static_cast<int32_t>(StatusCode::not_found) == TESSERA_NOT_FOUND);
static_assert(static_cast<int32_t>(StatusCode::out_of_range) == TESSERA_OUT_OF_RANGE);
static_assert(static_cast<int32_t>(StatusCode::unimplemented) == TESSERA_UNIMPLEMENTED);
static_assert(static_cast<int32_t>(StatusCode::failed_precondition) == TESSERA_FAILED_PRECONDITION);
static_assert(static_cast<int32_t>(StatusCode::resource_exhausted) == TESSERA_RESOURCE_EXHAUSTED);
static_assert(static_cast<int32_t>(StatusCode::internal) == TESSERA_INTERNAL);

const char* to_string(StatusCode code);

// Which part of the world an error blames; the CLI maps it to an exit code (docs/cli.md).
enum class ErrorKind {
  usage,     // the command line
  input,     // a file or value the user gave (chip, model, plan)
  plugin,    // a plugin: cannot load, broken descriptor, failing call
  internal,  // a bug in Tessera
};

struct Error {
  ErrorKind kind = ErrorKind::internal;
  StatusCode code = StatusCode::internal;
  std::string message;
};

inline Error input_error(std::string message, StatusCode code = StatusCode::invalid_argument) {
  return Error{ErrorKind::input, code, std::move(message)};
}
inline Error plugin_error(std::string message, StatusCode code = StatusCode::failed_precondition) {
  return Error{ErrorKind::plugin, code, std::move(message)};
}
inline Error usage_error(std::string message) {
  return Error{ErrorKind::usage, StatusCode::invalid_argument, std::move(message)};
}

// Thrown only inside the framework where unwinding is the clearest control flow (parsers); the CLI
// catches it at the top. Never crosses a plugin boundary.
class Failure : public std::runtime_error {
 public:
  explicit Failure(Error error) : std::runtime_error(error.message), error_(std::move(error)) {}
  const Error& error() const { return error_; }

 private:
  Error error_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT
  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return checked(); }
  T& value() & { return checked(); }
  T&& value() && { return std::move(checked()); }
  const T& operator*() const& { return checked(); }
  T& operator*() & { return checked(); }
  const T* operator->() const { return &checked(); }
  T* operator->() { return &checked(); }
  const Error& error() const { return std::get<1>(state_); }
  // The value, or throws Failure with the error.
  T take() && {
    if (!ok()) throw Failure(error());
    return std::move(std::get<0>(state_));
  }

 private:
  T& checked() {
    if (!ok()) throw Failure(error());
    return std::get<0>(state_);
  }
  const T& checked() const {
    if (!ok()) throw Failure(error());
    return std::get<0>(state_);
  }
  std::variant<T, Error> state_;
};

// Result of an operation without a value.
struct Done {};
using Status = Result<Done>;
inline Status ok_status() {
  return Done{};
}

}  // namespace tessera
