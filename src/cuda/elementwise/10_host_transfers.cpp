// Steps 10 and 11 (CUDA): host <-> device transfers, from pageable and from pinned host memory (seed 001,
// "optimisation 3"). The copy code is the same for both; what changes is the host buffer the family
// allocates (the row's host_memory): pageable memory is staged through a driver-owned pinned buffer,
// chunk by chunk, while pinned (page-locked, cudaMallocHost) memory is read by the copy engine
// directly. Expected: pinned near the link's rate (PCIe 5.0 x16: ~50 GB/s per direction in practice),
// pageable well below it (the extra host memcpy of every byte).
#include <cuda_runtime.h>

#include "../../elementwise/steps.hpp"
#include "swath/core/error.hpp"

namespace swath::elementwise::cuda {

void copy_to_device(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_CUDA_CHECK(cudaMemcpyAsync(x.c, x.a, static_cast<std::size_t>(p.count()) * sizeof(float),
                                   cudaMemcpyHostToDevice, static_cast<cudaStream_t>(launch.stream)));
}

void copy_to_host(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_CUDA_CHECK(cudaMemcpyAsync(x.c, x.a, static_cast<std::size_t>(p.count()) * sizeof(float),
                                   cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(launch.stream)));
}

}  // namespace swath::elementwise::cuda
