// The checks a plugin library passes before it is mapped: the ELF headers (elf_check.hpp) on a
// synthetic shared object changed one field at a time, the SHA-256, and the whole verification
// (library_file.hpp) on files that are not what the manifest says. Each refusal has its message.
#include "framework/plugin/library_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <vector>

#include "framework/plugin/elf_check.hpp"
#include "framework/plugin/sha256.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64, kOtherMachine = EM_AARCH64;
const char* const kHostName = "x86-64 (e_machine 62)";
const char* const kOtherName = "AArch64 (e_machine 183)";
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64, kOtherMachine = EM_X86_64;
const char* const kHostName = "AArch64 (e_machine 183)";
const char* const kOtherName = "x86-64 (e_machine 62)";
#endif

constexpr size_t kSize = 4096;

// A shared object as far as the headers go: one PT_LOAD over the whole file and a PT_DYNAMIC.
struct TinyElf {
  Elf64_Ehdr header{};
  Elf64_Phdr load{}, dynamic{};

  TinyElf() {
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_type = ET_DYN;
    header.e_machine = kHostMachine;
    header.e_version = EV_CURRENT;
    header.e_phoff = sizeof(Elf64_Ehdr);
    header.e_ehsize = sizeof(Elf64_Ehdr);
    header.e_phentsize = sizeof(Elf64_Phdr);
    header.e_phnum = 2;
    header.e_shentsize = sizeof(Elf64_Shdr);
    load = {PT_LOAD, PF_R | PF_X, 0, 0, 0, kSize, kSize, 4096};
    dynamic = {PT_DYNAMIC, PF_R, 1024, 1024, 1024, 256, 256, 8};
  }

  std::string bytes(size_t size = kSize) const {
    std::string out(kSize, '\0');
    std::memcpy(out.data(), &header, sizeof(header));
    std::memcpy(out.data() + sizeof(header), &load, sizeof(load));
    std::memcpy(out.data() + sizeof(header) + sizeof(load), &dynamic, sizeof(dynamic));
    out.resize(size);
    return out;
  }
};

// elf_problem of a file holding `bytes`: the phrase, or "" when it passes.
std::string problem_of(const std::string& bytes) {
  TempDir dir;
  fs::path file = dir.write("x.so", bytes);
  int fd = open(file.c_str(), O_RDONLY);
  auto problem = elf_problem(fd, bytes.size());
  close(fd);
  return problem.value_or("");
}

std::string problem_with(const std::function<void(TinyElf&)>& change) {
  TinyElf elf;
  change(elf);
  return problem_of(elf.bytes());
}

TEST(ElfCheck, ASharedObjectForThisHostPasses) {
  EXPECT_EQ(problem_of(TinyElf().bytes()), "");
}

TEST(ElfCheck, NotAnElfFileSaysHowItStarts) {
  EXPECT_EQ(problem_of("#!/bin/sh\necho hello\n"),
            "is not an ELF file: it starts with \"#!/bin/s\", a shared library with \"\\x7fELF\"");
  EXPECT_EQ(problem_of("\x01\x02"),
            "is not an ELF file: it starts with \"\\x01\\x02\", a shared library with "
            "\"\\x7fELF\"");
}

TEST(ElfCheck, TruncatedHeaders) {
  EXPECT_EQ(problem_of(TinyElf().bytes(10)),
            "is truncated: 10 bytes, shorter than an ELF header (64 bytes)");
  EXPECT_EQ(problem_of(TinyElf().bytes(16)),
            "is truncated: 16 bytes, shorter than an ELF header (64 bytes)");
  EXPECT_EQ(problem_of(TinyElf().bytes(100)),
            "is truncated or corrupt: its program header table (file bytes 64..176) ends past the "
            "end of the file (100 bytes)");
  EXPECT_EQ(problem_of(TinyElf().bytes(1000)),
            "is truncated or corrupt: its PT_LOAD segment at program header 0 (file bytes 0..4096) "
            "ends past the end of the file (1000 bytes)");
}

TEST(ElfCheck, AnotherClassByteOrderOrVersion) {
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_ident[EI_CLASS] = ELFCLASS32; }),
            "is a 32-bit ELF file (ELFCLASS32); this host loads 64-bit libraries");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_ident[EI_CLASS] = 0xfd; }),
            "is corrupt: invalid ELF class 253");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_ident[EI_DATA] = ELFDATA2MSB; }),
            "is a big-endian ELF file; this host is little-endian");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_ident[EI_DATA] = 7; }),
            "is corrupt: invalid ELF byte order 7");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_ident[EI_VERSION] = 2; }),
            "is corrupt: ELF version 2, expected 1");
}

TEST(ElfCheck, NotASharedObjectOrAnotherMachine) {
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_type = ET_EXEC; }),
            "is an executable (ET_EXEC), not a shared library");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_type = ET_REL; }),
            "is an object file (ET_REL), not a shared library: link it");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_machine = kOtherMachine; }),
            std::string("is built for ") + kOtherName + ", but this host is " + kHostName);
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_machine = 999; }),
            std::string("is built for machine (e_machine 999), but this host is ") + kHostName);
}

TEST(ElfCheck, HeaderTablesOutsideTheFile) {
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_phentsize = 199; }),
            "is corrupt: program header entries of 199 bytes, 64-bit ELF has 56");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_phnum = 0; }),
            "is corrupt: 0 program headers");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.header.e_phoff = 0xff000040; }),
            "is truncated or corrupt: its program header table (file bytes 4278190144..4278190256) "
            "ends past the end of the file (4096 bytes)");
  EXPECT_EQ(problem_with([](TinyElf& e) {
              e.header.e_shoff = 4000;
              e.header.e_shnum = 3;
            }),
            "is truncated or corrupt: its section header table (file bytes 4000..4192) ends past "
            "the end of the file (4096 bytes)");
}

TEST(ElfCheck, SegmentsOutsideTheFile) {
  EXPECT_EQ(problem_with([](TinyElf& e) { e.dynamic.p_offset = 4000; }),
            "is truncated or corrupt: its PT_DYNAMIC segment at program header 1 (file bytes "
            "4000..4256) ends past the end of the file (4096 bytes)");
  // An offset that wraps around when the size is added is outside too.
  EXPECT_EQ(problem_with([](TinyElf& e) {
              e.load.p_offset = UINT64_MAX - 10;
            }).rfind("is truncated or corrupt: its PT_LOAD segment at program header 0", 0),
            0u);
  EXPECT_EQ(
      problem_with([](TinyElf& e) { e.load.p_memsz = 100; }),
      "is corrupt: its PT_LOAD segment at program header 0 has 4096 bytes in the file but 100 "
      "in memory");
  EXPECT_EQ(problem_with([](TinyElf& e) { e.dynamic.p_type = PT_NOTE; }),
            "has no dynamic section (PT_DYNAMIC): not a shared library");
}

TEST(Sha256, KnownDigests) {
  TempDir dir;
  for (auto [text, digest] :
       {std::pair{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        std::pair{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}}) {
    int fd = open(dir.write("f", text).c_str(), O_RDONLY);
    EXPECT_EQ(sha256_hex(fd).value_or("unreadable"), digest) << "'" << text << "'";
    close(fd);
  }
  // More than one read's worth: 200000 bytes of 'a' (the digest from Python's hashlib).
  int fd = open(dir.write("big", std::string(200000, 'a')).c_str(), O_RDONLY);
  EXPECT_EQ(sha256_hex(fd).value_or("unreadable"),
            "2287d207f24a941ff3b56c04c8a25ad56b63e3023207b3bb5b4ac0c9869d74be");
  close(fd);
}

// A library file in a scratch directory and the manifest that describes it.
class LibraryFile : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes = TinyElf().bytes();
    library = dir.write("demo.so", bytes);
    manifest.name = "demo";
    manifest.file = dir.path() / "demo.plugin.yaml";
    manifest.library = library;
    manifest.library_size = bytes.size();
    int fd = open(library.c_str(), O_RDONLY);
    manifest.library_sha256 = sha256_hex(fd).value();
    close(fd);
  }
  // The refusal's message, or "" when the file passes.
  std::string refusal() const {
    auto r = verify_library_file(manifest);
    return r ? "" : r.error().message;
  }
  std::string who() const { return "plugin 'demo': library '" + library.string() + "'"; }

  TempDir dir;
  std::string bytes;
  fs::path library;
  Manifest manifest;
};

TEST_F(LibraryFile, TheFileTheManifestDescribesPassesAndIsReturnedResolved) {
  auto r = verify_library_file(manifest);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, fs::canonical(library));
  fs::path link = dir.path() / "link.so";
  fs::create_symlink("demo.so", link);
  manifest.library = link;
  EXPECT_EQ(verify_library_file(manifest).value(), fs::canonical(library));
}

TEST_F(LibraryFile, MissingLoopingOrDanglingLinks) {
  const std::string named_by = " named by '" + manifest.file.string() + "'";
  fs::remove(library);
  EXPECT_EQ(refusal(), who() + named_by + " does not exist");
  fs::create_symlink("gone.so", library);
  EXPECT_EQ(refusal(), who() + named_by + " is a symbolic link to '" +
                           (dir.path() / "gone.so").string() + "', which does not exist");
  fs::remove(library);
  fs::create_symlink("demo.so", library);
  EXPECT_EQ(refusal(), who() + named_by + " is a loop of symbolic links: " + library.string() +
                           " -> " + library.string());
  fs::remove(library);
  fs::create_symlink("partner", library);
  fs::create_symlink("demo.so", dir.path() / "partner");
  EXPECT_EQ(refusal(), who() + named_by + " is a loop of symbolic links: " + library.string() +
                           " -> " + (dir.path() / "partner").string() + " -> " + library.string());
}

TEST_F(LibraryFile, NotARegularFileOrEmpty) {
  fs::remove(library);
  fs::create_directory(library);
  EXPECT_EQ(refusal(), who() + " is a directory, not a shared library");
  fs::remove(library);
  ASSERT_EQ(mkfifo(library.c_str(), 0600), 0);
  EXPECT_EQ(refusal(), who() + " is a named pipe, not a shared library");  // and does not wait
  fs::remove(library);
  dir.write("demo.so", "");
  EXPECT_EQ(refusal(), who() + " is empty (0 bytes), not a shared library");
}

TEST_F(LibraryFile, AnElfProblemComesWithTheFileName) {
  dir.write("demo.so", bytes.substr(0, 16));
  EXPECT_EQ(refusal(), who() + " is truncated: 16 bytes, shorter than an ELF header (64 bytes)");
}

TEST_F(LibraryFile, ALibraryOtherThanTheManifestsIsRefused) {
  const std::string fix =
      ": the library changed after its manifest was written; reinstall the plugin, or rebuild it "
      "(tessera_add_plugin rewrites the manifest after every link and on install)";
  const std::string in = " its manifest '" + manifest.file.string() + "' records ";
  dir.write("demo.so", bytes + "x");
  EXPECT_EQ(refusal(), who() + " is 4097 bytes, but" + in + "4096" + fix);
  std::string flipped = bytes;
  flipped[2000] ^= 0x01;
  dir.write("demo.so", flipped);
  int fd = open(library.c_str(), O_RDONLY);
  const std::string digest = sha256_hex(fd).value();
  close(fd);
  EXPECT_EQ(refusal(),
            who() + " has SHA-256 " + digest + ", but" + in + manifest.library_sha256 + fix);
}

TEST_F(LibraryFile, AManifestWithoutSizeAndDigestCannotVouchForItsLibrary) {
  manifest.library_size.reset();
  manifest.library_sha256.clear();
  EXPECT_EQ(refusal(),
            who() + " cannot be verified: its manifest '" + manifest.file.string() +
                "' records no library_size and library_sha256; regenerate the manifest with "
                "tessera_add_plugin, or add them with `cmake -DLIBRARY=<NAME.so> "
                "-DMANIFEST=<NAME.plugin.yaml> -P TesseraPluginManifest.cmake` (in TesseraSDK's "
                "CMake directory)");
}

}  // namespace
}  // namespace tessera
