#include "framework/plugin/crash_report.hpp"

#include <unistd.h>

#include <array>
#include <csignal>
#include <string_view>
#include <utility>

#include "framework/plugin/host_api.hpp"

namespace tessera {

namespace {

constexpr std::array<std::pair<int, std::string_view>, 5> kSignals{{{SIGSEGV, "SIGSEGV"},
                                                                    {SIGBUS, "SIGBUS"},
                                                                    {SIGFPE, "SIGFPE"},
                                                                    {SIGILL, "SIGILL"},
                                                                    {SIGABRT, "SIGABRT"}}};

// Set once before any handler can run.
int crash_exit_code = 1;

// Only write(2) and _exit(2): a crashed process may hold the allocator's lock.
void say(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

void on_fatal_signal(int received) {
  const std::string* plugin = detail::current_plugin;
  if (plugin == nullptr) {
    std::signal(received, SIG_DFL);
    std::raise(received);
    return;
  }
  std::string_view name = "a fatal signal";
  for (const auto& [number, text] : kSignals)
    if (number == received) name = text;
  say("error: plugin '");
  say(*plugin);
  say("' crashed with ");
  say(name);
  say(" in ");
  say(detail::current_call);
  say(" (a bug in the plugin; report it to its vendor)\n");
  ::_exit(crash_exit_code);
}

}  // namespace

void report_plugin_crashes(int exit_code) {
  crash_exit_code = exit_code;
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  // SA_NODEFER: the handler's own raise of the default action must not wait behind itself.
  action.sa_flags = SA_NODEFER;
  for (const auto& [number, text] : kSignals) sigaction(number, &action, nullptr);
}

void default_fatal_signals() {
  for (const auto& [number, text] : kSignals) std::signal(number, SIG_DFL);
}

}  // namespace tessera
