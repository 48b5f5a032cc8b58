// What the child process testing one plugin tells the parent (framework/plugin/child_process.hpp),
// one record per event, so that the parent can count the results and, when the child dies, say
// what it was doing. The first field names the record:
//   loading                      the library is about to be loaded (its initialisers run)
//   load_failed KIND MESSAGE     PluginLibrary::load refused it (KIND: ErrorKind as a number)
//   untested MESSAGE             it loaded, but its manifest's test lists cannot be used
//   start TEST                   Suite.Test began
//   end LABEL OUTCOME            it ended (LABEL: the plugin's, "" for a test of the program's
//                                own; OUTCOME: Outcome as a number)
//   outside_failure              a failure outside any test (a global set-up)
//   done                         every test ran; the child exits next
#pragma once

namespace tessera::conformance::record {

inline constexpr const char* kLoading = "loading";
inline constexpr const char* kLoadFailed = "load_failed";
inline constexpr const char* kUntested = "untested";
inline constexpr const char* kStart = "start";
inline constexpr const char* kEnd = "end";
inline constexpr const char* kOutsideFailure = "outside_failure";
inline constexpr const char* kDone = "done";

}  // namespace tessera::conformance::record
