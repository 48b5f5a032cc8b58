// A shared library the `missing_dependency` broken plugin links, built where the loader never
// looks (no RPATH leads there): dlopen fails with the loader's own reason.
extern "C" __attribute__((visibility("default"))) int broken_dependency_answer() {
  return 42;
}
