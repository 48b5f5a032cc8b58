#include "framework/common/status.hpp"

namespace tessera {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::ok:
      return "OK";
    case StatusCode::invalid_argument:
      return "INVALID_ARGUMENT";
    case StatusCode::not_found:
      return "NOT_FOUND";
    case StatusCode::out_of_range:
      return "OUT_OF_RANGE";
    case StatusCode::unimplemented:
      return "UNIMPLEMENTED";
    case StatusCode::failed_precondition:
      return "FAILED_PRECONDITION";
    case StatusCode::resource_exhausted:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::internal:
      return "INTERNAL";
  }
  return "UNKNOWN";
}

}  // namespace tessera
