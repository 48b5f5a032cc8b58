#include "framework/common/files.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "tests/unit/temp_dir.hpp"

namespace tessera {
namespace {

using testing::TempDir;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Files, ListsMatchingFilesSorted) {
  TempDir dir;
  dir.write("b.plugin.yaml", "");
  dir.write("a.plugin.yaml", "");
  dir.write("c.yaml", "");
  std::filesystem::create_directories(dir.path() / "d.plugin.yaml");  // a directory, not a file
  auto files = files_with_suffix(dir.path(), ".plugin.yaml");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "a.plugin.yaml");
  EXPECT_EQ(files[1].filename(), "b.plugin.yaml");
  EXPECT_TRUE(files_with_suffix(dir.path() / "missing", ".yaml").empty());
}

TEST(Files, AtomicWriteCreatesParentsAndRefusesToClobber) {
  TempDir dir;
  auto path = dir.path() / "out" / "plan.yaml";
  ASSERT_TRUE(write_file_atomically(path, "first\n", false).ok());
  EXPECT_EQ(read(path), "first\n");
  auto again = write_file_atomically(path, "second\n", false);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "'" + path.string() +
                                       "' already exists; pass --force to overwrite it or choose "
                                       "another path");
  EXPECT_EQ(read(path), "first\n") << "a refused write must leave the file alone";
  ASSERT_TRUE(write_file_atomically(path, "second\n", true).ok());
  EXPECT_EQ(read(path), "second\n");
  EXPECT_EQ(files_with_suffix(path.parent_path(), "").size(), 1u) << "no temporary left behind";
}

TEST(Files, ReadsWholeFilesAndNamesAMissingOne) {
  TempDir dir;
  std::string bytes("a\0b\nc", 5);
  ASSERT_TRUE(write_file_atomically(dir.path() / "x.bin", bytes, false).ok());
  EXPECT_EQ(read_file(dir.path() / "x.bin").take(), bytes);
  auto missing = read_file("/nonexistent/x.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, StatusCode::not_found);
  EXPECT_EQ(missing.error().message,
            "/nonexistent/x.txt: cannot open the file (does it exist and is it readable?)");
}

TEST(Files, UnwritableDirectoryIsAnInputError) {
  TempDir dir;
  dir.write("file", "x");
  auto r = write_file_atomically(dir.path() / "file" / "sub" / "out.yaml", "x", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_EQ(r.error().message.rfind("cannot create the directory '", 0), 0u) << r.error().message;
}

namespace fs = std::filesystem;

TEST(Files, DashIsStandardOutput) {
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(write_file_atomically("-", "to stdout\n", false).ok());
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "to stdout\n");
}

TEST(Files, ACharacterDeviceIsWrittenInPlaceNeverReplaced) {
  ASSERT_TRUE(write_file_atomically("/dev/null", "x", false).ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  auto full = write_file_atomically("/dev/full", "x", true);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().kind, ErrorKind::input);
  EXPECT_EQ(full.error().message, "cannot write '/dev/full': No space left on device");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(Files, AFifoIsWrittenInPlaceAndOneWithoutAReaderIsRefused) {
  TempDir dir;
  fs::path fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto alone = write_file_atomically(fifo, "x", false);
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.error().message,
            "'" + fifo.string() + "' is a FIFO that no process is reading; start its reader first");
  std::string received;
  std::thread reader([&] { received = read(fifo); });
  Status written = write_file_atomically(fifo, "through the pipe", false);
  for (int i = 0; i < 1000 && !written.ok(); ++i) {  // until the reader has opened its end
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    written = write_file_atomically(fifo, "through the pipe", false);
  }
  reader.join();
  EXPECT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(Files, ASymlinkIsFollowedAndKept) {
  TempDir dir;
  fs::path file = dir.write("real.yaml", "old\n");
  fs::path link = dir.path() / "link.yaml";
  fs::create_symlink(file, link);
  auto refused = write_file_atomically(link, "new\n", false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("already exists; pass --force"), std::string::npos);
  ASSERT_TRUE(write_file_atomically(link, "new\n", true).ok());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link is kept";
  EXPECT_EQ(read(file), "new\n") << "the file it points to is replaced";
}

TEST(Files, ADanglingSymlinkIsRefusedEvenWithForce) {
  TempDir dir;
  fs::path link = dir.path() / "program.txt";
  fs::create_symlink(dir.path() / "gone.txt", link);
  for (bool force : {false, true}) {
    auto r = write_file_atomically(link, "x", force);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "'" + link.string() + "' is a symbolic link to '" +
                                     (dir.path() / "gone.txt").string() +
                                     "', which does not exist; remove the link or choose another "
                                     "path");
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_FALSE(fs::exists(dir.path() / "gone.txt"));
}

TEST(Files, DirectoriesAndSocketsAreRefused) {
  TempDir dir;
  auto d = write_file_atomically(dir.path(), "x", true);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message,
            "'" + dir.path().string() + "' is a directory; give the path of a file to write");
  fs::path socket_path = dir.path() / "s";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  auto s = write_file_atomically(socket_path, "x", true);
  ::close(fd);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "'" + socket_path.string() + "' is a socket; give the path of a file to write");
}

TEST(Files, ReplacingAFileKeepsItsPermissions) {
  TempDir dir;
  fs::path file = dir.write("plan.yaml", "old\n");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(write_file_atomically(file, "new\n", true).ok());
  EXPECT_EQ(fs::status(file).permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(Files, APermissionDeniedNamesThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into any directory; CI runs as root";
  TempDir dir;
  fs::path locked = dir.path() / "locked";
  fs::create_directories(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  auto r = write_file_atomically(locked / "plan.yaml", "x", false);
  fs::permissions(locked, fs::perms::owner_all);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::input);
  EXPECT_EQ(r.error().message,
            "cannot write '" + (locked / "plan.yaml").string() + "': Permission denied");
}

TEST(Files, ReadingIsBounded) {
  auto zero = read_file("/dev/zero", size_t{1} << 20);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message,
            "/dev/zero: holds more than 1 MiB, more than any input of this kind can be");
  TempDir dir;
  auto d = read_file(dir.path());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message,
            "'" + dir.path().string() + "' is a directory; give the path of a file in it");
}

}  // namespace
}  // namespace tessera
