#pragma once
// swath bench stencil --gpus N | --distributed: the grid over several GPUs (or MPI processes on the CPU),
// verified bit for bit against one GPU running the same periods, timed against the one-GPU run of the
// same problem in the same run, with the exchange, NCCL's own point-to-point rate for the same message,
// and the scaling model's predictions (docs/distributed.md).
#include <cstdint>
#include <string>
#include <vector>

namespace swath::cli {

struct distributed_arguments {
  bool mpi = false;   // --distributed: one rank per MPI process (under mpirun)
  int gpus = 0;       // --gpus N: one process over N GPUs
  std::string device = "auto";
  std::vector<std::string> sizes;
  std::vector<std::string> parameters;
  std::string scaling = "strong";  // strong: the size is the whole grid; weak: each rank's
  int reps = 20;
  int warmup = 3;
  std::string json;
  bool overlap = false;  // --overlap: exchange during the slab's sweeps (device_domain)
  bool quiet = false;
  std::uint64_t seed = 0x5eed;
};

// Runs the benchmark; returns the exit code (0, or 1 when a rank's result differs from one GPU's).
// Throws swath::usage_error for bad arguments and when this build lacks the backend asked for.
int run_distributed_bench(const distributed_arguments& args);

// Under --distributed: MPI_Init before anything else, MPI_Finalize at the end, MPI_Abort on an error
// (so that no rank waits for one that has stopped). No-ops in builds without MPI.
void start_mpi(int* argc, char*** argv);
void finish_mpi();
[[noreturn]] void abort_mpi(int code);
int mpi_rank();

}  // namespace swath::cli
