// A plugin that crashes in-process (a segfault or abort in its own code) takes the command down
// with it; this says whose code it was. The handler knows the call in flight from the marker every
// call into a plugin sets (host_api.hpp's CurrentPlugin).
#pragma once

namespace tessera {

// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT. Inside a call into a plugin
// one writes "plugin 'X' crashed with SIGSEGV in create_topology" to standard error and exits with
// `exit_code`; outside one the signal takes its default action (Tessera's own bug dumps core as
// before).
void report_plugin_crashes(int exit_code);

// Gives those signals back their default action: in a child process (child_process.hpp) a crash
// is the parent's to report, from how the child ended.
void default_fatal_signals();

}  // namespace tessera
