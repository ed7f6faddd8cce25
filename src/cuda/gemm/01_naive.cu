// CUDA step 1, the seed's kernel: one thread per element of C, a K-long dot product from global memory.
// Consecutive threads of a warp take consecutive *rows* of C (threadIdx.x → i), as the seed's kernel
// indexed them: a warp reads 32 elements of A that are K floats apart (32 memory transactions per
// load), reads one element of B (a broadcast), and writes C down a column.
//
// Prediction: every A load is a separate 32-byte sector for one useful float: ~8x the traffic the
// math needs per load, served mostly by L1/L2 since neighbouring k reuse the sectors. A few hundred
// GFLOP/s at most on an H200, under 1% of the FP32 peak.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int rows_per_block = 32;  // threadIdx.x
constexpr int cols_per_block = 8;   // threadIdx.y

__global__ void __launch_bounds__(rows_per_block * cols_per_block) naive_kernel(problem p, const float* a, const float* b,
                                                                               float* c) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * rows_per_block + threadIdx.x;
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.y) * cols_per_block + threadIdx.y;
  if (i >= p.m || j >= p.n) return;
  float sum = 0;
  for (std::int64_t k = 0; k < p.k; ++k) sum += a[index_of_a(p, i, k)] * b[index_of_b(p, k, j)];
  store_result(p, c, i, j, sum);
}

}  // namespace

void naive(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 grid(blocks_for(p.m, rows_per_block), blocks_for(p.n, cols_per_block));
  naive_kernel<<<grid, dim3(rows_per_block, cols_per_block), 0, stream_of(launch)>>>(p, x.a, x.b, x.c);
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
