// Step 01 (CUDA): vector add in a single thread block (seed 001, item 1).
// One block of 1024 threads strides over the whole vector. A block runs on one SM, so the kernel can
// draw at most what one SM can pull from memory: expect a few percent of the device's bandwidth
// (132 SMs on an H100 share it; one SM alone gets roughly 1/30 to 1/60 of the copy ceiling).
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

__global__ void vecadd_single_block_kernel(const float* a, const float* b, float* c, std::int64_t n) {
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}

}  // namespace

void vecadd_single_block(const problem& p, const operands& x, const launch_context& launch) {
  vecadd_single_block_kernel<<<1, 1024, 0, stream_of(launch)>>>(x.a, x.b, x.c, p.count());
  SWATH_CHECK_LAST();
}

}  // namespace swath::elementwise::cuda
