// CodeGen contracts. For programs the programming model's rules allow
// (<tessera/sdk/program_rules.hpp>) over three small ops (ops.hpp: a matmul and a bias add with HBM
// operands, a softmax), emit succeeds and writes at least one file, each under a relative
// '/'-separated path without "..", the same bytes every time and from another object; it stops when
// the sink says so. A program that breaks a rule is refused with INVALID_ARGUMENT, nothing written.
//
// Each op's plan is the plugin's own Partitioner's first, when it has one and plans the op, else
// all of the op on one core.
#include <sstream>
#include <tessera/sdk/program_rules.hpp>

#include "sdk/conformance/ops.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_codegen_suite() {}

namespace {

// A program over the first `ops` ops: "P0 E0 P1 E1 E2" is preload_async(0), execute(0), ...
struct ProgramText {
  size_t ops;
  const char* text;
  bool valid;  // under the rules
};

const ProgramText kValid[] = {
    {1, "P0 E0", true}, {3, "P0 P1 E0 E1 E2", true}, {3, "P0 E0 P1 E1 E2", true}};
const ProgramText kBreaksARule[] = {
    {1, "E0 P0", false},           // execute(0) would wait forever for its preload (rules 1, 3)
    {3, "P0 P1 E1 E0 E2", false},  // not in graph order
    {1, "P0 E0 E0", false},        // op 0 twice
    {3, "P0 P1 E0 E1", false},     // op 2 never executed
};

std::vector<tessera_instruction> instructions(const char* text) {
  std::vector<tessera_instruction> code;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    code.push_back(
        {word[0] == 'P' ? uint32_t{TESSERA_INSTR_PRELOAD_ASYNC} : uint32_t{TESSERA_INSTR_EXECUTE},
         static_cast<uint32_t>(std::stoul(word.substr(1)))});
  return code;
}

struct File {
  std::string path, bytes;
  bool operator==(const File& o) const { return path == o.path && bytes == o.bytes; }
};

struct Emitted {
  std::optional<Error> error;
  std::vector<File> files;
  size_t stop_after = SIZE_MAX;
  bool null_path = false;
};

// Called from plugin code: nothing may be thrown back across the C ABI.
int on_write(void* context, const char* path, const void* bytes, size_t size) noexcept try {
  auto* e = static_cast<Emitted*>(context);
  if (path == nullptr) e->null_path = true;
  e->files.push_back(
      {path != nullptr ? path : "", std::string(static_cast<const char*>(bytes), size)});
  return e->files.size() >= e->stop_after ? 1 : 0;
} catch (...) {
  return 1;
}

// Why `path` is not relative, '/'-separated and free of "..", or "".
std::string path_problem(const std::string& path) {
  if (path.empty()) return "is empty";
  if (path.front() == '/') return "is absolute";
  if (path.find('\\') != std::string::npos) return "uses '\\'; paths separate with '/'";
  for (size_t start = 0; start <= path.size();) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string part = path.substr(start, end - start);
    if (part.empty()) return "has an empty component ('//' or a trailing '/')";
    if (part == "..") return "climbs out with '..'";
    start = end + 1;
  }
  return "";
}

class CodeGenContract : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::codegen);
    codegen_ = make_default<tessera_codegen>(library());
    ASSERT_TRUE(codegen_);
    ops_ = program_ops();
    for (const auto& op : ops_) {
      descs_.push_back(op->desc());
      plans_.push_back(plan_for(*op));
    }
    for (const PlanCopy& p : plans_) views_.push_back(p.view());
  }

  PlanCopy plan_for(const KitOp& op) const {
    if (manifest().provides_interface(Interface::partitioner)) {
      auto partitioner = create_default<tessera_partitioner>(library());
      if (partitioner) {
        PlansAnswer answer = plans_of(partitioner->get(), op.desc(), 1);
        if (!answer.error && !answer.plans.empty()) return answer.plans.front();
      }
    }
    return single_core_plan(op);
  }

  // Emits `p` through `g` (the test's object by default); the sink stops after `stop_after` files.
  Emitted emit(const ProgramText& p, tessera_codegen* g = nullptr,
               size_t stop_after = SIZE_MAX) const {
    if (g == nullptr) g = codegen_.get();
    std::vector<tessera_instruction> code = instructions(p.text);
    tessera_program program{sizeof(tessera_program), "conformance", p.ops,       descs_.data(),
                            views_.data(),           views_.data(), code.size(), code.data()};
    // The kit's own programs must be what it says they are.
    EXPECT_EQ(sdk::rule_violations(sdk::program_steps(program), p.ops, nullptr).empty(), p.valid)
        << "the kit's program '" << p.text << "'";
    Emitted e;
    e.stop_after = stop_after;
    tessera_file_sink sink{&e, &on_write};
    e.error = invoke("emit", [&] { return g->emit(g, &program, &sink); });
    return e;
  }

  Owned<tessera_codegen> codegen_;
  KitOps ops_;
  std::vector<tessera_op_desc> descs_;
  std::vector<PlanCopy> plans_;
  std::vector<tessera_partition_plan> views_;
};

TEST_P(CodeGenContract, EmitsFilesForValidPrograms) {
  for (const ProgramText& p : kValid) {
    Emitted e = emit(p);
    EXPECT_EQ(outcome(e.error), "OK") << "program '" << p.text << "'";
    EXPECT_FALSE(e.files.empty()) << "program '" << p.text << "': emit wrote no file";
    EXPECT_FALSE(e.null_path) << "program '" << p.text << "': a file with a NULL path";
    Problems problems;
    for (size_t i = 0; i < e.files.size(); ++i) {
      if (std::string why = path_problem(e.files[i].path); !why.empty())
        problems.add("'" + e.files[i].path + "' " + why);
      for (size_t j = 0; j < i; ++j)
        if (e.files[j].path == e.files[i].path)
          problems.add("'" + e.files[i].path + "' written twice; the second would overwrite");
    }
    EXPECT_TRUE(problems.empty()) << "program '" << p.text << "':" << problems.summary();
  }
}

TEST_P(CodeGenContract, OutputIsDeterministic) {
  Owned<tessera_codegen> other = make_default<tessera_codegen>(library());
  ASSERT_TRUE(other);
  for (const ProgramText& p : kValid) {
    Emitted first = emit(p);
    EXPECT_TRUE(emit(p).files == first.files)
        << "program '" << p.text << "': the same object emitted different files";
    EXPECT_TRUE(emit(p, other.get()).files == first.files)
        << "program '" << p.text << "': a second object emitted different files";
  }
}

TEST_P(CodeGenContract, RefusesProgramsThatBreakTheRules) {
  for (const ProgramText& p : kBreaksARule) {
    Emitted e = emit(p);
    ASSERT_TRUE(e.error) << "program '" << p.text
                         << "' breaks the programming model's rules, yet emit returned OK";
    EXPECT_STREQ(to_string(e.error->code), "INVALID_ARGUMENT") << e.error->message;
    EXPECT_TRUE(e.files.empty()) << "program '" << p.text << "': refused, yet it wrote '"
                                 << e.files.front().path << "'";
  }
}

TEST_P(CodeGenContract, StopsWhenTheSinkAsksTo) {
  const ProgramText& p = kValid[1];
  if (emit(p).files.size() < 2) GTEST_SKIP() << "one file per program: nothing to stop";
  EXPECT_EQ(emit(p, nullptr, 1).files.size(), 1u)
      << "the sink returned non-zero after the first file, yet it got more";
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(CodeGenContract);

}  // namespace tessera::conformance
