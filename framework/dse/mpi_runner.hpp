// `tessera sweep` across MPI ranks (OpenMPI; an optional build component, docs/dse.md): rank 0
// owns the session and the run directory and hands points out one at a time to whichever rank
// asks (points differ in cost by orders of magnitude, so static slices would idle most ranks);
// the others evaluate them, each up to `threads` points at once as a local run does, and send
// back each result's JSON, the same text a local run writes. Under OpenMPI start it with
// `--bind-to none`: by default it binds each of up to two ranks to one core, and a worker rank
// that may run on fewer CPUs than `threads` says so on standard error.
#pragma once

#include <functional>
#include <memory>

#include "framework/common/status.hpp"
#include "framework/dse/sweep_run.hpp"

namespace tessera::dse {

// Whether this build has the MPI runner (mpi_runner.cpp) or the stub (mpi_runner_stub.cpp).
bool mpi_built();
// Set by mpirun/mpiexec (OpenMPI, MPICH, PMIx launchers): the process is one of several ranks.
bool launched_by_mpi();
// What to tell a user who asked for MPI in a build without it.
std::string mpi_missing_message();

struct MpiRun {
  bool root = true;  // only rank 0 reports
  int ranks = 1;
};

// Every rank calls this. `start` runs on rank 0 only and returns a session the caller owns; its
// error (or a failure to record a result) is returned there, and the other ranks return quietly.
// With one rank, rank 0 evaluates the points itself (run_local). Errors: the stub's
// mpi_missing_message (usage), start's, record's.
Result<MpiRun> run_mpi(const std::function<Result<SweepSession*>()>& start,
                       const Registry& registry, unsigned threads);

}  // namespace tessera::dse
