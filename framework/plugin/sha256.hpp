// SHA-256 of a file, with OpenSSL's EVP digest: how the host knows that a plugin library is the
// one its manifest was written for (tessera_add_plugin records the digest after the final link).
#pragma once

#include <optional>
#include <string>

namespace tessera {

// The SHA-256 of the whole open file `fd` (read with pread from offset 0) as 64 lowercase hex
// digits; nullopt with errno set when it cannot be read.
std::optional<std::string> sha256_hex(int fd);

}  // namespace tessera
