// fuzz_replay TARGET CORPUS_DIR...: without libFuzzer (GCC builds), every fuzz target is compiled
// into this one program, which runs the named target once on every file of the corpus
// directories: the corpus is a regression test in ctest.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>

#include "tests/fuzz/fuzz_target.hpp"

namespace tessera::fuzz {
namespace {

std::map<std::string, OneInput>& targets() {
  static std::map<std::string, OneInput> by_name;
  return by_name;
}

}  // namespace

bool register_target(const char* name, OneInput one_input) {
  return targets().emplace(name, one_input).second;
}

}  // namespace tessera::fuzz

int main(int argc, char** argv) {
  const auto& targets = tessera::fuzz::targets();
  auto target = argc > 1 ? targets.find(argv[1]) : targets.end();
  if (target == targets.end()) {
    std::cerr << "usage: fuzz_replay TARGET CORPUS_DIR...; targets:";
    for (const auto& [name, _] : targets) std::cerr << ' ' << name;
    std::cerr << '\n';
    return 2;
  }
  size_t runs = 0;
  for (int a = 2; a < argc; ++a) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[a])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      target->second(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++runs;
    }
  }
  std::cout << "replayed " << runs << " inputs\n";
  return runs > 0 ? 0 : 1;
}
