// CUDA step 4: 1D block tiling. Each thread computes a column of 8 results of C instead of one, so a
// value of B read from shared memory is used 8 times from a register. Block tile 64 × 64, K in slices of
// 8; 512 threads, each loading one element of the op(A) slice (64 × 8) and one of the op(B) slice (8 × 64).
//
// Prediction: per k a warp reads one B row (one wavefront) and 8 A elements, each a broadcast within the
// warp (the 32 threads share their rows): 9 wavefronts for 8 × 32 FMAs, 28 FMAs a clock per SM, ~22% of
// the FP32 peak (~14 TFLOP/s on an H200), ~1.8x step 3. Global loads per FMA fall to 1/32 + 1/8.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int block_m = 64, block_n = 64, block_k = 8, thread_m = 8;
constexpr int threads = block_m * block_n / thread_m;  // 512

__global__ void __launch_bounds__(threads) blocktile_1d_kernel(problem p, const float* a, const float* b, float* c) {
  __shared__ float a_tile[block_m][block_k];  // [row][k]
  __shared__ float b_tile[block_k][block_n];  // [k][column]
  const int t = static_cast<int>(threadIdx.x);
  const int column = t % block_n, row_group = t / block_n;  // the thread's results: rows row_group·8 + r
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * block_m;
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * block_n;
  float sum[thread_m] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += block_k) {
    a_tile[t / block_k][t % block_k] = element_of_a(p, a, i0 + t / block_k, k0 + t % block_k);
    b_tile[t / block_n][t % block_n] = element_of_b(p, b, k0 + t / block_n, j0 + t % block_n);
    __syncthreads();
    SWATH_UNROLL
    for (int kk = 0; kk < block_k; ++kk) {
      const float b_value = b_tile[kk][column];
      SWATH_UNROLL
      for (int r = 0; r < thread_m; ++r) sum[r] += a_tile[row_group * thread_m + r][kk] * b_value;
    }
    __syncthreads();
  }
  const std::int64_t j = j0 + column;
  if (j >= p.n) return;
  SWATH_UNROLL
  for (int r = 0; r < thread_m; ++r) {
    const std::int64_t i = i0 + row_group * thread_m + r;
    if (i < p.m) store_result(p, c, i, j, sum[r]);
  }
}

}  // namespace

void blocktile_1d(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 grid(blocks_for(p.n, block_n), blocks_for(p.m, block_m));
  blocktile_1d_kernel<<<grid, threads, 0, stream_of(launch)>>>(p, x.a, x.b, x.c);
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
