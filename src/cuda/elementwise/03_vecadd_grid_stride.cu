// Step 03 (CUDA): grid-stride loop, 1024-thread blocks, grid capped at 16 blocks per SM (the seed's
// latency-tolerance note).
// Changed from 02: fewer, longer-lived blocks; each thread adds n / (threads in the grid) elements.
// An SM holds at most 2048 threads, i.e. 2 of these blocks at once, so 16 per SM means the blocks
// still arrive in 8 waves. Expected: about the same as step 02 (within a few percent): block
// scheduling was not the bottleneck; bytes in flight per SM are the same (2048 threads × 12 B).
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

constexpr int threads_per_block = 1024;
constexpr int max_blocks_per_sm = 16;

__global__ void vecadd_grid_stride_kernel(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

}  // namespace

void vecadd_grid_stride(const problem& p, const operands& x, const launch_context& launch) {
  const std::int64_t n = p.count();
  const unsigned cap = static_cast<unsigned>(max_blocks_per_sm * launch.sm_count);
  const unsigned blocks = std::min(blocks_for(n, threads_per_block), cap);
  vecadd_grid_stride_kernel<<<blocks, threads_per_block, 0, stream_of(launch)>>>(x.a, x.b, x.c, n);
  SWATH_CHECK_LAST();
}

}  // namespace swath::elementwise::cuda
