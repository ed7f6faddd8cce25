// CUDA step 2, the seed's coalescing fix without its transpose. The seed copied B into column-major
// order so that a thread's dot product walked B contiguously; that transpose reads and writes all of B
// once more (8·K·N bytes, ~0.13 ms for 8192² on an H200) and fixes the wrong thing: what matters is what
// the 32 threads of a warp read *together*. Swapping the index mapping (threadIdx.x → column j) does it
// for free: at each k a warp reads 32 consecutive floats of a row of B (one 128-byte line), one element
// of A (a broadcast), and writes 32 consecutive elements of C.
//
// Prediction: the loads per FMA stay at two, but each warp load is 1 line instead of 32 sectors:
// several times step 1, bound by L1/L2 load throughput; still a few % of the FP32 peak (no reuse in
// registers or shared memory yet). With op(B) = B^T the mapping loses its advantage (B is read down
// a column again): the same kernel, measured on op=nt, shows it.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int cols_per_block = 32;  // threadIdx.x
constexpr int rows_per_block = 8;   // threadIdx.y

__global__ void __launch_bounds__(rows_per_block * cols_per_block) coalesced_kernel(problem p, const float* a,
                                                                                   const float* b, float* c) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * cols_per_block + threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * rows_per_block + threadIdx.y;
  if (i >= p.m || j >= p.n) return;
  float sum = 0;
  for (std::int64_t k = 0; k < p.k; ++k) sum += a[index_of_a(p, i, k)] * b[index_of_b(p, k, j)];
  store_result(p, c, i, j, sum);
}

}  // namespace

void coalesced(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 grid(blocks_for(p.n, cols_per_block), blocks_for(p.m, rows_per_block));
  coalesced_kernel<<<grid, dim3(cols_per_block, rows_per_block), 0, stream_of(launch)>>>(p, x.a, x.b, x.c);
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
