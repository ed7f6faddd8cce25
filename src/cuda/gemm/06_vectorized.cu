// CUDA step 6: 16-byte loads, and op(A) stored transposed in shared memory. Step 5's 8 A values of a
// thread were 8 rows apart in [row][k] storage, 8 scalar shared-memory reads; stored [k][row] they are 8
// consecutive floats, two 128-bit reads, like the 8 B values. Global memory is read in four-float chunks
// along the stored rows (one 128-bit load each where the matrix is 16-byte aligned: ld a multiple of 4;
// scalar, predicated loads at the ragged edges and for unaligned leading dimensions), staged in
// registers, and stored into shared memory depth-major (panel_loader in gemm_cuda.cuh: the transpose
// of a stored-as-rows operand happens in that store). The epilogue writes C four floats at a time.
//
// Prediction: shared-memory instructions per k and thread fall from 8 + 2 (step 5, B already vectorised
// by the compiler) to 2 + 2 for 64 FMAs; global load instructions fall 4x. The 16 threads of a half-warp
// read B 32 bytes apart (a 2-way bank conflict on each 128-bit read): ~45-55% of the FP32 peak,
// 0.6-0.7x cuBLAS.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int block_m = 128, block_n = 128, block_k = 8, thread_m = 8, thread_n = 8;
constexpr int threads = block_m * block_n / (thread_m * thread_n);  // 256
using a_loader = panel_loader<block_k, block_m, threads>;
using b_loader = panel_loader<block_k, block_n, threads>;

__global__ void __launch_bounds__(threads, 2) vectorized_kernel(problem p, operand_view a, operand_view b, float* c,
                                                                bool c_vector_ok) {
  __shared__ __align__(16) float a_panel[block_k * a_loader::pitch];  // [k][row]
  __shared__ __align__(16) float b_panel[block_k * b_loader::pitch];  // [k][column]
  const int t = static_cast<int>(threadIdx.x);
  const int row_group = t / (block_n / thread_n), column_group = t % (block_n / thread_n);
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * block_m;
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * block_n;
  a_loader a_load;
  b_loader b_load;
  float sum[thread_m][thread_n] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += block_k) {
    a_load.load(a, k0, i0);
    b_load.load(b, k0, j0);
    a_load.store(a, a_panel);
    b_load.store(b, b_panel);
    __syncthreads();
    multiply_panels<block_k, a_loader::pitch, b_loader::pitch>(a_panel, b_panel, row_group * thread_m, 4,
                                                               column_group * thread_n, 4, sum);
    __syncthreads();
  }
  store_micro_tile(p, c, c_vector_ok, i0 + row_group * thread_m, 4, j0 + column_group * thread_n, 4, sum);
}

}  // namespace

void vectorized(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 grid(blocks_for(p.n, block_n), blocks_for(p.m, block_m));
  vectorized_kernel<<<grid, threads, 0, stream_of(launch)>>>(p, view_of_a(p, x.a), view_of_b(p, x.b), x.c,
                                                              aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
