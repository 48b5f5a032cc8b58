// What both MPI runners (mpi_runner.cpp, mpi_runner_stub.cpp) share: recognising an mpirun launch
// and the message for a build without MPI.
#include <cstdlib>

#include "framework/dse/mpi_runner.hpp"

namespace tessera::dse {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

std::string mpi_missing_message() {
  return "this tessera was built without MPI; install OpenMPI (Debian: apt-get install "
         "libopenmpi-dev openmpi-bin, or run scripts/setup.sh as root) and rebuild (cmake "
         "finds it), then run: mpirun -np N tessera sweep FILE";
}

}  // namespace tessera::dse
