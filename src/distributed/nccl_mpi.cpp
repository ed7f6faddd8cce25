// nccl_communicator: an NCCL communicator over an MPI communicator's ranks (rank 0's unique id by MPI_Bcast).
#include <string>

#include "nccl_check.hpp"
#include "swath/distributed.hpp"

namespace swath::distributed {

ncclComm_t nccl_communicator(MPI_Comm comm) {
  int rank = 0, ranks = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &ranks) != MPI_SUCCESS) {
    throw error("swath::distributed::nccl_communicator: MPI_Comm_rank or MPI_Comm_size failed");
  }
  ncclUniqueId id{};
  if (rank == 0) SWATH_NCCL_CHECK(ncclGetUniqueId(&id));
  if (MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm) != MPI_SUCCESS) {
    throw error("swath::distributed::nccl_communicator: MPI_Bcast of the NCCL id failed");
  }
  ncclComm_t result = nullptr;
  SWATH_NCCL_CHECK(ncclCommInitRank(&result, ranks, id, rank));
  return result;
}

}  // namespace swath::distributed
