// The MPI runner of a build without MPI: everything else builds and runs; asking for MPI says
// how to get it.
#include "framework/dse/mpi_runner.hpp"

namespace tessera::dse {

bool mpi_built() {
  return false;
}

Result<MpiRun> run_mpi(const std::function<Result<SweepSession*>()>&, const Registry&, unsigned) {
  return usage_error(mpi_missing_message());
}

}  // namespace tessera::dse
