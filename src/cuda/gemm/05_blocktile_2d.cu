// CUDA step 5, the seed's register-cached outer product: each thread computes an 8 × 8 micro-tile of C.
// Per k it reads 8 values of op(A) (a column of its micro-tile's rows) and 8 of op(B) (a row) from shared
// memory into registers and adds their outer product: 64 FMAs for 16 shared-memory reads. Block tile
// 128 × 128, K in slices of 8, 256 threads, each loading 4 elements of each slice.
//
// The seed's arithmetic intensity, checked against what the code does: 8 × 8 threads each computing one
// element load "2 elements per 2 flops" (1 multiply-add from 2 values); one thread owning the 8 × 8
// outer product loads 16 values for 64 multiply-adds (128 flops): 8 flops per value read, 32x more reuse
// per read than step 3's one FMA per two reads. In bytes of shared memory: 128 flops / 64 B = 2 flops/B,
// the seed's figure. Global memory: each slice element is read once per block and used 128 times.
//
// Prediction: ALUs, not shared memory, start to matter. The A reads are 2-way bank-conflicted (a warp's
// two row groups are 64 floats apart) and the B reads 16 threads × 8 floats at a stride of 8: the
// compiler can make them 128-bit, but the 8 A values of a thread are 8 rows apart in [row][k] storage, so
// they stay scalar. ~30-40% of the FP32 peak (20-25 TFLOP/s on an H200), ~0.4-0.5x cuBLAS.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int block_m = 128, block_n = 128, block_k = 8, thread_m = 8, thread_n = 8;
constexpr int threads = block_m * block_n / (thread_m * thread_n);  // 256
constexpr int loads = block_m * block_k / threads;                  // 4 elements of each slice a thread

__global__ void __launch_bounds__(threads) blocktile_2d_kernel(problem p, const float* a, const float* b, float* c) {
  __shared__ float a_tile[block_m][block_k];  // [row][k]
  __shared__ float b_tile[block_k][block_n];  // [k][column]
  const int t = static_cast<int>(threadIdx.x);
  const int row_group = t / (block_n / thread_n), column_group = t % (block_n / thread_n);
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * block_m;
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * block_n;
  float sum[thread_m][thread_n] = {};
  float a_values[thread_m], b_values[thread_n];
  for (std::int64_t k0 = 0; k0 < p.k; k0 += block_k) {
    SWATH_UNROLL
    for (int q = 0; q < loads; ++q) {
      const int e = t + q * threads;
      a_tile[e / block_k][e % block_k] = element_of_a(p, a, i0 + e / block_k, k0 + e % block_k);
      b_tile[e / block_n][e % block_n] = element_of_b(p, b, k0 + e / block_n, j0 + e % block_n);
    }
    __syncthreads();
    SWATH_UNROLL
    for (int kk = 0; kk < block_k; ++kk) {
      SWATH_UNROLL
      for (int r = 0; r < thread_m; ++r) a_values[r] = a_tile[row_group * thread_m + r][kk];
      SWATH_UNROLL
      for (int s = 0; s < thread_n; ++s) b_values[s] = b_tile[kk][column_group * thread_n + s];
      add_outer_product(sum, a_values, b_values);
    }
    __syncthreads();
  }
  SWATH_UNROLL
  for (int r = 0; r < thread_m; ++r) {
    const std::int64_t i = i0 + row_group * thread_m + r;
    if (i >= p.m) break;
    SWATH_UNROLL
    for (int s = 0; s < thread_n; ++s) {
      const std::int64_t j = j0 + column_group * thread_n + s;
      if (j < p.n) store_result(p, c, i, j, sum[r][s]);
    }
  }
}

}  // namespace

void blocktile_2d(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 grid(blocks_for(p.n, block_n), blocks_for(p.m, block_m));
  blocktile_2d_kernel<<<grid, threads, 0, stream_of(launch)>>>(p, x.a, x.b, x.c);
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
