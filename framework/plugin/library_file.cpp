#include "framework/plugin/library_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "framework/plugin/elf_check.hpp"
#include "framework/plugin/sha256.hpp"

namespace fs = std::filesystem;

namespace tessera {

namespace {

// More links than any installation needs; the kernel's own limit is 40.
constexpr size_t kMaxLinks = 40;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

// Follows the symbolic links that name the library, one at a time, so that a loop or a dangling
// link is named in the error (the kernel would only say ELOOP or ENOENT), then resolves the links
// of its directories. `who` starts every error.
Result<fs::path> follow_links(const fs::path& library, const std::string& who) {
  std::vector<fs::path> chain = {library};
  for (fs::path at = library;;) {
    std::error_code ec;
    fs::file_status status = fs::symlink_status(at, ec);
    if (status.type() == fs::file_type::not_found)
      return at == library ? plugin_error(who + " does not exist", StatusCode::not_found)
                           : plugin_error(who + " is a symbolic link to " + quoted(at) +
                                              ", which does not exist",
                                          StatusCode::not_found);
    if (ec) return plugin_error(who + " cannot be examined: " + ec.message());
    if (!fs::is_symlink(status)) break;
    fs::path target = fs::read_symlink(at, ec);
    if (ec) return plugin_error(who + " is a symbolic link that cannot be read: " + ec.message());
    at = (target.is_absolute() ? target : at.parent_path() / target).lexically_normal();
    if (std::find(chain.begin(), chain.end(), at) != chain.end()) {
      std::string loop;
      for (const auto& link : chain) loop += link.string() + " -> ";
      return plugin_error(who + " is a loop of symbolic links: " + loop + at.string());
    }
    if (chain.size() > kMaxLinks)
      return plugin_error(who + " is a chain of more than " + std::to_string(kMaxLinks) +
                          " symbolic links");
    chain.push_back(at);
  }
  std::error_code ec;
  fs::path resolved = fs::canonical(chain.back(), ec);
  if (ec) return plugin_error(who + " cannot be resolved: " + ec.message());
  return resolved;
}

std::string file_type_phrase(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a shared library";
  if (S_ISFIFO(mode)) return "is a named pipe, not a shared library";
  if (S_ISSOCK(mode)) return "is a socket, not a shared library";
  return "is a device, not a shared library";
}

// The manifest's size and SHA-256 against the file's.
Status check_integrity(const Manifest& m, int fd, uint64_t size, const std::string& who) {
  const std::string fix =
      ": the library changed after its manifest was written; reinstall the plugin, or rebuild it "
      "(tessera_add_plugin rewrites the manifest after every link and on install)";
  if (!m.library_size)
    return plugin_error(
        who + " cannot be verified: its manifest " + quoted(m.file) +
        " records no library_size and library_sha256; regenerate the manifest with "
        "tessera_add_plugin, or add them with `cmake -DLIBRARY=<NAME.so> -DMANIFEST=<NAME.plugin."
        "yaml> -P TesseraPluginManifest.cmake` (in TesseraSDK's CMake directory)");
  if (size != *m.library_size)
    return plugin_error(who + " is " + std::to_string(size) + " bytes, but its manifest " +
                        quoted(m.file) + " records " + std::to_string(*m.library_size) + fix);
  auto digest = sha256_hex(fd);
  if (!digest) return plugin_error(who + " cannot be read: " + std::strerror(errno));
  if (*digest != m.library_sha256)
    return plugin_error(who + " has SHA-256 " + *digest + ", but its manifest " + quoted(m.file) +
                        " records " + m.library_sha256 + fix);
  return ok_status();
}

}  // namespace

std::string quoted(const fs::path& path) {
  return "'" + path.string() + "'";
}

Result<fs::path> verify_library_file(const Manifest& m) {
  std::string who = "plugin '" + m.name + "': library " + quoted(m.library);
  auto resolved = follow_links(m.library, who + " named by " + quoted(m.file));
  if (!resolved) return resolved.error();
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(m.library, ec))) who += " (-> " + quoted(*resolved) + ")";
  // O_NONBLOCK: opening a named pipe must not wait for a writer.
  Fd file{open(resolved->c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) return plugin_error(who + " cannot be opened: " + std::strerror(errno));
  struct stat st {};
  if (fstat(file.fd, &st) != 0)
    return plugin_error(who + " cannot be examined: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return plugin_error(who + " " + file_type_phrase(st.st_mode));
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size == 0) return plugin_error(who + " is empty (0 bytes), not a shared library");
  if (auto problem = elf_problem(file.fd, size)) return plugin_error(who + " " + *problem);
  if (auto s = check_integrity(m, file.fd, size, who); !s) return s.error();
  return *resolved;
}

}  // namespace tessera
