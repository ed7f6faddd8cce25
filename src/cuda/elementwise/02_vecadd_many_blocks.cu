// Step 02 (CUDA): one thread per element, as many 256-thread blocks as it takes (seed 001, item 2).
// Changed from 01: every SM gets blocks, so all of the device's memory bandwidth is available.
// Expected: 20-60x step 01, close to the copy ceiling; what is left is the scheduling of ~10^6 short
// blocks and 4-byte loads (each warp asks for 128 bytes per operand at a time).
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

constexpr int threads_per_block = 256;

__global__ void vecadd_many_blocks_kernel(const float* a, const float* b, float* c, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

}  // namespace

void vecadd_many_blocks(const problem& p, const operands& x, const launch_context& launch) {
  const std::int64_t n = p.count();
  vecadd_many_blocks_kernel<<<blocks_for(n, threads_per_block), threads_per_block, 0, stream_of(launch)>>>(
      x.a, x.b, x.c, n);
  SWATH_CHECK_LAST();
}

}  // namespace swath::elementwise::cuda
