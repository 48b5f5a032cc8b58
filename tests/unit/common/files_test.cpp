#include "framework/common/files.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

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

}  // namespace
}  // namespace tessera
