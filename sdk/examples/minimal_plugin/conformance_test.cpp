// The conformance kit linked into a test program of the plugin's own (TesseraSDK::conformance):
// what `tessera conformance` runs, without needing the tessera executable, and a place for tests
// of the vendor's own (any GoogleTest test linked in runs with the kit's).
//   minimal_conformance PLUGIN.so... [--gtest_filter=...]
#include <string>
#include <tessera/conformance.hpp>

int main(int argc, char** argv) {
  tessera::conformance::Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    (arg.rfind("--gtest", 0) == 0 ? options.gtest_args : options.plugins).push_back(arg);
  }
  return tessera::conformance::run(options);
}
