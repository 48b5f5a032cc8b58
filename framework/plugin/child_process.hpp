// Running plugin code in a child process, so that a plugin that crashes (a fault in its static
// initialisers, its query or any call) ends the child and not the host: `tessera conformance` runs
// each plugin's suites this way and `tessera targets` loads each plugin this way.
//
// The child is a fork() of the caller and runs `body`, which reports what it does as records (a
// list of strings, sent at once through a pipe, unbuffered: a record sent before a crash arrives).
// The parent collects the records and how the child ended. Works under ASan/LSan: the child exits
// through exit(), so the sanitizers' reports run in it, and their exit status reaches the parent.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera {

// The child's end of the pipe.
class ChildReporter {
 public:
  explicit ChildReporter(int fd) : fd_(fd) {}
  // Sends one record. Fields may hold any bytes; the parent receives them as sent.
  void send(const std::vector<std::string>& fields) const;

 private:
  int fd_;
};

struct ChildOutcome {
  std::vector<std::vector<std::string>> records;  // in the order sent
  bool exited = false;                            // exited normally (exit_status) ...
  int exit_status = 0;
  int signal = 0;      // ... or was killed by this signal
  int deadline_s = 0;  // non-zero: it ran past this deadline, and the parent killed it

  // "exited with status 3", "crashed with SIGSEGV (Segmentation fault)", "was killed by SIGKILL
  // (Killed)", "did not finish within 300 s and was killed".
  std::string how_it_ended() const;
};

// Runs `body` in a forked child whose exit status is body's return value (5 if it throws). Flushes
// the standard streams first, so the child does not repeat the parent's buffered output. With a
// `deadline_s` above 0 the child is killed (SIGKILL) when it has not finished that many seconds
// after it started: a plugin looping forever must not hang the parent. An error only when the
// child cannot be started.
Result<ChildOutcome> run_in_child(const std::function<int(const ChildReporter&)>& body,
                                  int deadline_s = 0);

}  // namespace tessera
