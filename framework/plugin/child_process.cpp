#include "framework/plugin/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "framework/plugin/crash_report.hpp"

namespace tessera {

namespace {

constexpr int kExitThrew = 5;

using Clock = std::chrono::steady_clock;

Error child_error(const std::string& what) {
  return Error{ErrorKind::internal, StatusCode::internal, what + ": " + std::strerror(errno)};
}

// A record is one line: fields separated by tabs, with '\\', '\t' and '\n' escaped.
std::string encode(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += '\t';
    for (char c : fields[i]) {
      if (c == '\\') {
        line += "\\\\";
      } else if (c == '\t') {
        line += "\\t";
      } else if (c == '\n') {
        line += "\\n";
      } else {
        line += c;
      }
    }
  }
  return line + '\n';
}

std::vector<std::string> decode(const std::string& line) {
  std::vector<std::string> fields(1);
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\t') {
      fields.emplace_back();
    } else if (line[i] == '\\' && i + 1 < line.size()) {
      char next = line[++i];
      fields.back() += next == 't' ? '\t' : next == 'n' ? '\n' : next;
    } else {
      fields.back() += line[i];
    }
  }
  return fields;
}

// Everything the child writes, until it exits (and its end of the pipe closes).
// Reads what the child sends until it closes the pipe (true), or until `deadline` passes (false).
bool read_all(int fd, std::optional<Clock::time_point> deadline, std::string& data) {
  char buffer[4096];
  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) return false;
      wait_ms = static_cast<int>(std::min<int64_t>(left.count(), INT_MAX));
    }
    pollfd ready{fd, POLLIN, 0};
    int n_ready = poll(&ready, 1, wait_ms);
    if (n_ready == 0 || (n_ready < 0 && errno == EINTR)) continue;
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    data.append(buffer, static_cast<size_t>(n));
  }
}

[[noreturn]] void run_child(int fd, const std::function<int(const ChildReporter&)>& body) {
  int status = kExitThrew;
  try {
    status = body(ChildReporter(fd));
  } catch (const std::exception& e) {
    std::cerr << "internal error in the child process: " << e.what() << "\n";
  }
  std::cout.flush();
  std::cerr.flush();
  std::exit(status);  // not _exit: the sanitizers' leak check runs at exit
}

}  // namespace

void ChildReporter::send(const std::vector<std::string>& fields) const {
  const std::string line = encode(fields);
  for (size_t done = 0; done < line.size();) {
    ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nobody to tell
    done += static_cast<size_t>(n);
  }
}

std::string ChildOutcome::how_it_ended() const {
  if (deadline_s > 0)
    return "did not finish within " + std::to_string(deadline_s) + " s and was killed";
  if (exited) return "exited with status " + std::to_string(exit_status);
  // Signals of a fault in the child's own code "crash" it; others (SIGKILL, SIGTERM) come from
  // outside.
  const bool fault = signal == SIGSEGV || signal == SIGBUS || signal == SIGILL ||
                     signal == SIGFPE || signal == SIGABRT || signal == SIGTRAP || signal == SIGSYS;
  const char* abbrev = sigabbrev_np(signal);
  const char* text = strsignal(signal);
  return (fault ? "crashed with " : "was killed by ") +
         (abbrev != nullptr ? "SIG" + std::string(abbrev) : "signal " + std::to_string(signal)) +
         (text != nullptr ? " (" + std::string(text) + ")" : "");
}

Result<ChildOutcome> run_in_child(const std::function<int(const ChildReporter&)>& body,
                                  int deadline_s) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return child_error("cannot create a pipe to a child process");
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    Error error = child_error("cannot start a child process");
    close(fds[0]);
    close(fds[1]);
    return error;
  }
  if (pid == 0) {
    close(fds[0]);
    default_fatal_signals();
    run_child(fds[1], body);
  }
  close(fds[1]);
  std::optional<Clock::time_point> deadline;
  if (deadline_s > 0) deadline = Clock::now() + std::chrono::seconds(deadline_s);
  std::string data;
  const bool finished = read_all(fds[0], deadline, data);
  close(fds[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildOutcome outcome;
  for (size_t start = 0, end; (end = data.find('\n', start)) != std::string::npos; start = end + 1)
    outcome.records.push_back(decode(data.substr(start, end - start)));
  outcome.exited = WIFEXITED(status);
  outcome.exit_status = outcome.exited ? WEXITSTATUS(status) : 0;
  outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  outcome.deadline_s = finished ? 0 : deadline_s;
  return outcome;
}

}  // namespace tessera
