// What makes one test fixture plugin of tests/abi differ from the next, read when it loads.
//
// Each fixture source (broken/broken_plugin.cpp, broken/contract_plugin.cpp,
// memory/memory_1_0_plugin.cpp) is compiled once and linked into every fixture made from it
// (tests/abi/CMakeLists.txt): compiling it once per fixture with its fault in a -D flag cost one
// compile per fixture, twice per CI run. So the object holds every fault, and a fixture's own
// settings (its fault, the name and version its descriptor reports, ...) are plain `key=value`
// lines in NAME.fixture, which CMake writes beside NAME.so. The library finds its own file with
// dladdr on an address inside it (the path dlopen was given, symbolic links then resolved, as the
// host resolves them before it verifies the file), so the sidecar beside it is the fixture's own.
// Fixtures made from one object with the same link options are the same bytes; only their sidecars
// tell them apart.
//
// A fixture without a readable sidecar, or with a missing or unknown value, is a mistake of the
// build, not a fixture of some default fault: it says what is wrong on stderr and aborts, in
// whatever process loads it.
#pragma once

#include <dlfcn.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace tessera::abi_test {

class FixtureConfig {
 public:
  // Reads the sidecar of the library holding `address_in_library`: pass the address of a
  // function with internal linkage, so no other library's copy can stand in for it.
  explicit FixtureConfig(const void* address_in_library) {
    Dl_info info{};
    if (dladdr(address_in_library, &info) == 0 || info.dli_fname == nullptr)
      fail("dladdr cannot tell which library this code is in");
    library_ = info.dli_fname;
    if (char* real = realpath(info.dli_fname, nullptr)) {
      library_ = real;
      std::free(real);
    }
    std::string_view stem = library_;
    if (stem.ends_with(".so")) stem.remove_suffix(3);
    file_ = std::string(stem) + ".fixture";
    std::ifstream in(file_);
    if (!in) fail("cannot read its configuration '" + file_ + "': " + std::strerror(errno));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      size_t equals = line.find('=');
      if (equals == std::string::npos) fail("'" + file_ + "': not a key=value line: " + line);
      values_[line.substr(0, equals)] = line.substr(equals + 1);
    }
  }

  // The value of `key`, valid while this configuration lives.
  const char* text(const std::string& key) const { return value(key).c_str(); }

  uint32_t number(const std::string& key) const {
    const std::string& v = value(key);
    uint32_t n = 0;
    auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (error != std::errc() || end != v.data() + v.size() || v.empty())
      fail("'" + file_ + "': " + key + "=" + v + " is not a number");
    return n;
  }

  // The choice `key` names, one of `choices` ({name, value} pairs).
  template <class Choice, size_t N>
  Choice one_of(const std::string& key,
                const std::pair<std::string_view, Choice> (&choices)[N]) const {
    const std::string& v = value(key);
    for (const auto& [name, choice] : choices)
      if (name == v) return choice;
    fail("'" + file_ + "': " + key + "=" + v + " is not one this fixture knows");
  }

 private:
  const std::string& value(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) fail("'" + file_ + "' has no " + key + "=");
    return it->second;
  }

  [[noreturn]] void fail(const std::string& why) const {
    std::fprintf(stderr, "tests/abi fixture '%s': %s\n", library_.c_str(), why.c_str());
    std::abort();
  }

  std::string library_, file_;
  std::map<std::string, std::string> values_;
};

}  // namespace tessera::abi_test
