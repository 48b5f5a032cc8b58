// The plugin corruption suite: a copy of an in-tree plugin (library, manifest, presets) is damaged
// in one way per variant — truncated, a byte flipped in the ELF header, the program headers, the
// dynamic section or the code, another class, byte order, machine or file type, not ELF at all,
// empty, a loop of symbolic links, a directory, a named pipe — and every command that meets it
// (`targets`, `topology`, `conformance`, `compile`) must end with exit code 4 and one message that
// names the file and the reason: never a signal, an exit 5, a hang or a silent fall back to the
// built-in plugin of the same name. The undamaged copy (Pristine) passes every command, so each
// refusal is caused by its damage and not by the copying.
#include <elf.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "framework/plugin/manifest.hpp"
#include "tests/unit/temp_dir.hpp"

extern char** environ;

namespace tessera {
namespace {

namespace fs = std::filesystem;

const fs::path kTessera = TESSERA_EXE;
const fs::path kPluginDir = TESSERA_PLUGIN_DIR;
const fs::path kModel = TESSERA_SOURCE_DIR "/models/fixtures/gpt_like.onnx";
const std::string kName = "ipu_alltoall";

struct Run {
  bool exited = false;
  int code = -1;       // the exit code, or the signal when !exited
  std::string output;  // stdout and stderr, interleaved
};

// Runs tessera with `args` as a user would, both streams into one pipe.
Run tessera(const std::vector<std::string>& args) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<std::string> argv_text = {kTessera.string()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  Run run;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;)
    run.output.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  run.exited = WIFEXITED(status);
  run.code = run.exited ? WEXITSTATUS(status) : WTERMSIG(status);
  return run;
}

std::vector<std::string> lines_starting(const std::string& output, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  return lines;
}

std::string literal(const std::string& text) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, special, R"(\$&)");
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

// Where the pristine library's headers put things a flip should hit.
struct Layout {
  size_t load_filesz = 0;  // p_filesz of the first PT_LOAD program header
  size_t load_index = 0;
  size_t dynamic = 0;  // a byte of the .dynamic section
  size_t text = 0;     // a byte in the middle of the executable segment
};

Layout layout_of(const std::string& bytes) {
  Elf64_Ehdr h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  Layout layout;
  bool found_load = false;
  for (size_t i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr p;
    const size_t at = h.e_phoff + i * sizeof(Elf64_Phdr);
    std::memcpy(&p, bytes.data() + at, sizeof(p));
    if (p.p_type == PT_LOAD && !found_load) {
      layout.load_filesz = at + offsetof(Elf64_Phdr, p_filesz);
      layout.load_index = i;
      found_load = true;
    }
    if (p.p_type == PT_LOAD && (p.p_flags & PF_X)) layout.text = p.p_offset + p.p_filesz / 2;
    if (p.p_type == PT_DYNAMIC) layout.dynamic = p.p_offset + 8;
  }
  return layout;
}

// A damaged copy: `make` writes DIR/ipu_alltoall.so from the pristine bytes; `reason` is the
// expected refusal after "plugin 'ipu_alltoall': library 'DIR/ipu_alltoall.so'", a regex.
struct Context {
  fs::path dir, library, manifest;
  std::string bytes;  // the pristine library
  Layout layout;
  Manifest pristine;
};

struct Variant {
  std::string name;
  std::function<void(const Context&)> make;
  std::function<std::string(const Context&)> reason;
};

void PrintTo(const Variant& v, std::ostream* os) {
  *os << v.name;
}

std::string flipped(std::string bytes, size_t at) {
  bytes[at] = static_cast<char>(bytes[at] ^ 0xff);
  return bytes;
}

template <class Field>
std::string with_field(std::string bytes, size_t offset, Field value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(value));
  return bytes;
}

std::function<void(const Context&)> writes(std::function<std::string(const Context&)> bytes) {
  return [bytes](const Context& c) { write_bytes(c.library, bytes(c)); };
}

std::function<std::string(const Context&)> says(const std::string& reason) {
  return [reason](const Context&) { return reason; };
}

const char* const kPastEnd = R"(ends past the end of the file \()";
const std::string kChanged = literal(
    ": the library changed after its manifest was written; reinstall the plugin, or rebuild it "
    "(tessera_add_plugin rewrites the manifest after every link and on install)");

std::string truncated_segment(const Context&, size_t size) {
  return R"( is truncated or corrupt: its PT_LOAD segment at program header \d+ \(file bytes \d+\.\.\d+\) )" +
         std::string(kPastEnd) + std::to_string(size) + R"( bytes\))";
}

std::string digest_differs(const Context& c) {
  return " has SHA-256 [0-9a-f]{64}, but its manifest " + literal("'" + c.manifest.string() + "'") +
         " records " + c.pristine.library_sha256 + kChanged;
}

std::string named_by(const Context& c) {
  return literal(" named by '" + c.manifest.string() + "'");
}

const std::vector<Variant> kVariants = {
    {"empty", writes([](const Context&) { return std::string(); }),
     says(" is empty \\(0 bytes\\), not a shared library")},
    {"truncated_to_16_bytes", writes([](const Context& c) { return c.bytes.substr(0, 16); }),
     says(R"( is truncated: 16 bytes, shorter than an ELF header \(64 bytes\))")},
    {"truncated_to_1_kib", writes([](const Context& c) { return c.bytes.substr(0, 1024); }),
     [](const Context& c) { return truncated_segment(c, 1024); }},
    {"truncated_to_half",
     writes([](const Context& c) { return c.bytes.substr(0, c.bytes.size() / 2); }),
     [](const Context& c) { return truncated_segment(c, c.bytes.size() / 2); }},
    {"grown_by_one_byte", writes([](const Context& c) { return c.bytes + '\0'; }),
     [](const Context& c) {
       return " is " + std::to_string(c.bytes.size() + 1) + " bytes, but its manifest " +
              literal("'" + c.manifest.string() + "'") + " records " +
              std::to_string(c.bytes.size()) + kChanged;
     }},
    {"flipped_ident_class", writes([](const Context& c) { return flipped(c.bytes, EI_CLASS); }),
     says(" is corrupt: invalid ELF class 253")},
    {"flipped_ident_byte_order", writes([](const Context& c) { return flipped(c.bytes, EI_DATA); }),
     says(" is corrupt: invalid ELF byte order 254")},
    {"flipped_ident_padding", writes([](const Context& c) { return flipped(c.bytes, EI_PAD); }),
     digest_differs},
    {"flipped_machine",
     writes([](const Context& c) { return flipped(c.bytes, offsetof(Elf64_Ehdr, e_machine)); }),
     says(R"( is built for machine \(e_machine 193\), but this host is x86-64 \(e_machine 62\))")},
    {"flipped_program_header_size",
     writes([](const Context& c) { return flipped(c.bytes, offsetof(Elf64_Ehdr, e_phentsize)); }),
     says(" is corrupt: program header entries of 199 bytes, 64-bit ELF has 56")},
    {"flipped_program_header_offset",
     writes([](const Context& c) { return flipped(c.bytes, offsetof(Elf64_Ehdr, e_phoff) + 3); }),
     [](const Context& c) {
       return R"( is truncated or corrupt: its program header table \(file bytes \d+\.\.\d+\) )" +
              std::string(kPastEnd) + std::to_string(c.bytes.size()) + R"( bytes\))";
     }},
    {"flipped_segment_size",
     writes([](const Context& c) { return flipped(c.bytes, c.layout.load_filesz + 3); }),
     [](const Context& c) {
       return " is truncated or corrupt: its PT_LOAD segment at program header " +
              std::to_string(c.layout.load_index) + R"( \(file bytes \d+\.\.\d+\) )" + kPastEnd +
              std::to_string(c.bytes.size()) + R"( bytes\))";
     }},
    {"flipped_dynamic_section",
     writes([](const Context& c) { return flipped(c.bytes, c.layout.dynamic); }), digest_differs},
    {"flipped_code", writes([](const Context& c) { return flipped(c.bytes, c.layout.text); }),
     digest_differs},
    {"wrong_class_32_bit",
     writes([](const Context& c) { return with_field<unsigned char>(c.bytes, EI_CLASS, 1); }),
     says(R"( is a 32-bit ELF file \(ELFCLASS32\); this host loads 64-bit libraries)")},
    {"wrong_byte_order",
     writes([](const Context& c) { return with_field<unsigned char>(c.bytes, EI_DATA, 2); }),
     says(" is a big-endian ELF file; this host is little-endian")},
    {"wrong_machine_aarch64", writes([](const Context& c) {
       return with_field<uint16_t>(c.bytes, offsetof(Elf64_Ehdr, e_machine), EM_AARCH64);
     }),
     says(R"( is built for AArch64 \(e_machine 183\), but this host is x86-64 \(e_machine 62\))")},
    {"an_executable", writes([](const Context& c) {
       return with_field<uint16_t>(c.bytes, offsetof(Elf64_Ehdr, e_type), ET_EXEC);
     }),
     says(R"( is an executable \(ET_EXEC\), not a shared library)")},
    {"a_text_file", writes([](const Context&) { return std::string("#!/bin/sh\necho hi\n"); }),
     says(R"( is not an ELF file: it starts with "#!/bin/s", a shared library with "\\x7fELF")")},
    {"symlink_to_itself",
     [](const Context& c) { fs::create_symlink(c.library.filename(), c.library); },
     [](const Context& c) {
       return named_by(c) + " is a loop of symbolic links: " +
              literal(c.library.string() + " -> " + c.library.string());
     }},
    {"symlink_loop_of_two",
     [](const Context& c) {
       fs::create_symlink("partner", c.library);
       fs::create_symlink(c.library.filename(), c.dir / "partner");
     },
     [](const Context& c) {
       return named_by(c) + " is a loop of symbolic links: " +
              literal(c.library.string() + " -> " + (c.dir / "partner").string() + " -> " +
                      c.library.string());
     }},
    {"dangling_symlink", [](const Context& c) { fs::create_symlink("gone.so", c.library); },
     [](const Context& c) {
       return named_by(c) + " is a symbolic link to " +
              literal("'" + (c.dir / "gone.so").string() + "'") + ", which does not exist";
     }},
    {"symlink_to_a_truncated_copy",
     [](const Context& c) {
       write_bytes(c.dir / "real.bin", c.bytes.substr(0, 16));
       fs::create_symlink("real.bin", c.library);
     },
     [](const Context& c) {
       return literal(" (-> '" + fs::canonical(c.dir / "real.bin").string() + "')") +
              R"( is truncated: 16 bytes, shorter than an ELF header \(64 bytes\))";
     }},
    {"a_directory", [](const Context& c) { fs::create_directory(c.library); },
     says(" is a directory, not a shared library")},
    {"a_named_pipe", [](const Context& c) { ASSERT_EQ(mkfifo(c.library.c_str(), 0600), 0); },
     says(" is a named pipe, not a shared library")},
};

class Corruption : public ::testing::Test {
 protected:
  // The pristine copy, made once: the library, its manifest and its presets.
  static void SetUpTestSuite() {
    scratch_ = new testing::TempDir();
    fs::path pristine = scratch_->path() / "pristine";
    fs::create_directories(pristine);
    for (const char* suffix : {".so", ".plugin.yaml"})
      fs::copy_file(kPluginDir / (kName + suffix), pristine / (kName + suffix));
    fs::copy(kPluginDir / (kName + ".chips"), pristine / (kName + ".chips"),
             fs::copy_options::recursive);
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }

  // DIR with the pristine manifest and presets, and no library yet.
  static Context context(const std::string& name) {
    Context c;
    c.dir = scratch_->path() / name;
    fs::create_directories(c.dir);
    const fs::path pristine = scratch_->path() / "pristine";
    c.library = c.dir / (kName + ".so");
    c.manifest = c.dir / (kName + ".plugin.yaml");
    fs::copy_file(pristine / (kName + ".plugin.yaml"), c.manifest);
    fs::create_directory_symlink(pristine / (kName + ".chips"), c.dir / (kName + ".chips"));
    c.bytes = read_bytes(pristine / (kName + ".so"));
    c.layout = layout_of(c.bytes);
    c.pristine = read_manifest(c.manifest).value();
    return c;
  }

  static testing::TempDir* scratch_;
};

testing::TempDir* Corruption::scratch_ = nullptr;

class Damaged : public Corruption, public ::testing::WithParamInterface<Variant> {};

// The four commands on one plugin directory: by name through --plugin-path (which must not fall
// back to the built-in plugin of that name), and by path to the library.
struct Commands {
  Run targets, topology, conformance, compile;
};

Commands run_all(const Context& c, const std::vector<std::string>& conformance_extra = {}) {
  std::vector<std::string> conformance = {"conformance", "--plugin", c.library.string()};
  conformance.insert(conformance.end(), conformance_extra.begin(), conformance_extra.end());
  return {tessera({"--plugin-path", c.dir.string(), "targets"}),
          tessera({"--plugin-path", c.dir.string(), "topology", "--target", kName}),
          tessera(conformance),
          tessera({"compile", kModel.string(), "--dim", "batch=1", "--dim", "seq=8", "--target",
                   c.library.string(), "--design", "basic"})};
}

// Exit code 4, not a signal; `lines` (the lines with `prefix`) are exactly `expected`.
void expect_refusal(const char* command, const Run& run, const std::string& prefix,
                    const std::vector<std::string>& expected) {
  SCOPED_TRACE(command);
  ASSERT_TRUE(run.exited) << "killed by signal " << run.code << "\n" << run.output;
  EXPECT_EQ(run.code, 4) << run.output;
  std::vector<std::string> lines = lines_starting(run.output, prefix);
  ASSERT_EQ(lines.size(), expected.size()) << run.output;
  for (size_t i = 0; i < lines.size(); ++i)
    EXPECT_TRUE(std::regex_match(lines[i], std::regex(expected[i])))
        << "line:     " << lines[i] << "\nexpected: " << expected[i];
}

TEST_P(Damaged, EveryCommandRefusesItWithTheReason) {
  const Variant& v = GetParam();
  Context c = context(v.name);
  v.make(c);
  const std::string refusal =
      literal("plugin '" + kName + "': library '" + c.library.string() + "'") + v.reason(c);
  Commands run = run_all(c);
  expect_refusal("targets", run.targets, "warning: ", {"warning: " + refusal});
  expect_refusal(
      "targets", run.targets, "error: ",
      {R"(error: 1 plugin found cannot be used: ipu_alltoall \(see the warnings above\))"});
  expect_refusal("topology", run.topology, "error: ", {"error: " + refusal});
  expect_refusal("conformance", run.conformance, "conformance: ",
                 {"conformance: ipu_alltoall 1\\.0\\.0 — did not load: " + refusal});
  expect_refusal("conformance", run.conformance, "error: ", {});
  expect_refusal("compile", run.compile, "error: ", {"error: " + refusal});
}

std::string variant_name(const ::testing::TestParamInfo<Variant>& param) {
  return param.param.name;
}

INSTANTIATE_TEST_SUITE_P(Library, Damaged, ::testing::ValuesIn(kVariants), variant_name);

// The control: the same copy undamaged passes every command (conformance: its load and ABI
// suites), so the refusals above come from the damage.
TEST_F(Corruption, ThePristineCopyPassesEveryCommand) {
  Context c = context("pristine_control");
  fs::copy_file(scratch_->path() / "pristine" / (kName + ".so"), c.library);
  Commands run = run_all(c, {"--gtest=--gtest_filter=*Load.*:*Abi.*"});
  for (const auto& [command, r] :
       {std::pair{"targets", &run.targets}, std::pair{"topology", &run.topology},
        std::pair{"conformance", &run.conformance}, std::pair{"compile", &run.compile}}) {
    EXPECT_TRUE(r->exited && r->code == 0) << command << ":\n" << r->output;
    EXPECT_EQ(lines_starting(r->output, "error: ").size(), 0u) << command << ":\n" << r->output;
  }
  EXPECT_NE(run.topology.output.find("target       ipu_alltoall 1.0.0"), std::string::npos)
      << run.topology.output;
  EXPECT_NE(run.conformance.output.find("conformance: ipu_alltoall 1.0.0 — 6 passed, 0 failed, "
                                        "0 skipped"),
            std::string::npos)
      << run.conformance.output;
}

}  // namespace
}  // namespace tessera
