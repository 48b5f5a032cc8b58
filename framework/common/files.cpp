#include "framework/common/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>

#include "framework/common/user_text.hpp"

namespace fs = std::filesystem;

namespace tessera {

std::vector<fs::path> files_with_suffix(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        entry.is_regular_file(ec))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // deterministic whatever the filesystem's order
  return files;
}

Result<std::string> read_file(const fs::path& path, size_t max_bytes) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return input_error(in_quotes(path.string()) + " is a directory; give the path of a file in it");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return input_error(
        printable(path.string()) + ": cannot open the file (does it exist and is it readable?)",
        StatusCode::not_found);
  std::string bytes;
  // Sized once: appending an ONNX export (inception_v3's is 95 MB) chunk by chunk copied it
  // again at each doubling, onto fresh pages (1 % of googlenet's compile). A size that cannot be
  // read is left to the appends.
  if (auto size = fs::file_size(path, ec); !ec) bytes.reserve(std::min<uintmax_t>(size, max_bytes));
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), chunk.size());
    bytes.append(chunk.data(), static_cast<size_t>(in.gcount()));
    if (bytes.size() > max_bytes)
      return input_error(printable(path.string()) + ": holds more than " +
                         std::to_string(max_bytes >> 20) +
                         " MiB, more than any input of this kind can be");
  }
  if (in.bad())
    return input_error(printable(path.string()) +
                       ": cannot read the file: " + std::strerror(errno));
  return bytes;
}

namespace {

Error system_error(const std::string& what, const fs::path& path, int err) {
  return input_error("cannot " + what + " " + in_quotes(path.string()) + ": " + std::strerror(err));
}

// Writes all of `contents` to `fd`: 0, or the errno of the failure.
int write_all(int fd, const std::string& contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

Status write_stdout(const std::string& contents) {
  errno = 0;
  std::cout.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  std::cout.flush();
  if (std::cout) return ok_status();
  int err = errno;
  return input_error(std::string("cannot write to standard output") +
                     (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
}

// A device or FIFO keeps its identity: it is opened and written, never replaced. A FIFO is opened
// without blocking, so one that nobody reads is an error rather than a hang.
Status write_in_place(const fs::path& path, const std::string& contents, bool fifo) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fd < 0 && fifo && errno == ENXIO)
    return input_error(in_quotes(path.string()) +
                       " is a FIFO that no process is reading; start its reader first");
  if (fd < 0) return system_error("open", path, errno);
  if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int err = write_all(fd, contents);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return system_error("write", path, err);
  return ok_status();
}

// A temporary beside `target`, written in full, then renamed over it. `mode`: the permissions of
// the file it replaces, kept.
Status replace_atomically(const fs::path& target, const std::string& contents,
                          std::optional<fs::perms> mode) {
  std::random_device rd;
  fs::path temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = target;
    temp += ".tmp-" + std::to_string(rd());
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return system_error("write", target, errno);
  }
  if (fd < 0) return system_error("write", target, EEXIST);
  if (mode) ::fchmod(fd, static_cast<mode_t>(*mode));
  int err = write_all(fd, contents);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(temp.c_str(), target.c_str()) != 0) err = errno;
  if (err == 0) return ok_status();
  ::unlink(temp.c_str());
  return system_error("write", target, err);
}

Status write_new(const fs::path& path, const std::string& contents) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec)
    return input_error("cannot create the directory " + in_quotes(path.parent_path().string()) +
                       ": " + ec.message());
  return replace_atomically(path, contents, std::nullopt);
}

Status write_existing(const fs::path& path, const fs::path& target, fs::file_status status,
                      const std::string& contents, bool force) {
  const std::string named = in_quotes(path.string());
  switch (status.type()) {
    case fs::file_type::regular:
      if (!force)
        return input_error(named +
                           " already exists; pass --force to overwrite it or choose another path");
      return replace_atomically(target, contents, status.permissions());
    case fs::file_type::character:
      return write_in_place(target, contents, false);
    case fs::file_type::fifo:
      return write_in_place(target, contents, true);
    case fs::file_type::directory:
      return input_error(named + " is a directory; give the path of a file to write");
    case fs::file_type::block:
      return input_error(named + " is a block device; give the path of a file to write");
    case fs::file_type::socket:
      return input_error(named + " is a socket; give the path of a file to write");
    default:
      return input_error(named + " is not a regular file; give the path of a file to write");
  }
}

}  // namespace

Status write_file_atomically(const fs::path& path, const std::string& contents, bool force) {
  if (path == "-") return write_stdout(contents);
  std::error_code ec;
  fs::file_status status = fs::symlink_status(path, ec);
  if (status.type() == fs::file_type::not_found) return write_new(path, contents);
  if (ec) return system_error("write", path, ec.value());
  fs::path target = path;
  if (fs::is_symlink(status)) {
    status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found) {
      fs::path to = fs::read_symlink(path, ec);
      return input_error(in_quotes(path.string()) + " is a symbolic link to " +
                         in_quotes(to.string()) +
                         ", which does not exist; remove the link or choose another path");
    }
    target = fs::canonical(path, ec);
    if (ec) return system_error("write", path, ec.value());
  }
  return write_existing(path, target, status, contents, force);
}

namespace {

std::optional<std::filesystem::path>& prefix_set_by_host() {
  static std::optional<std::filesystem::path> prefix;
  return prefix;
}

}  // namespace

std::optional<std::filesystem::path> install_prefix() {
  if (prefix_set_by_host()) return prefix_set_by_host();
  boost::dll::fs::error_code ec;
  auto exe = boost::dll::program_location(ec);
  if (ec) return std::nullopt;
  return std::filesystem::path(exe.string()).parent_path() / "..";
}

void set_install_prefix(std::filesystem::path prefix) {
  prefix_set_by_host() = std::move(prefix);
}

}  // namespace tessera
