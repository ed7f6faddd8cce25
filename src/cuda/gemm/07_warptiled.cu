// CUDA step 7: warp tiles. Step 6 gave each thread 8 consecutive rows and columns, so a warp (2 row
// groups × 16 column groups) covered a 16 × 128 strip of C and its 16 threads read B 32 bytes apart.
// Here each warp owns a compact 64 × 32 tile of the 128 × 128 block tile (2 × 4 warps), and inside it
// each lane an 8 × 8 micro-tile split into 2 × 2 blocks of 4 × 4: rows lane_row·4 + {0..3} and the
// same + 32, columns lane_column·4 + {0..3} and the same + 16 (8 lane rows × 4 lane columns). Per k a
// warp's A reads are 8 distinct 16-byte chunks, 128 contiguous bytes, and its B reads 4: every
// 128-bit shared-memory read is conflict-free and mostly broadcast, 4 wavefronts per 2048 FMAs.
//
// Prediction: with shared-memory reads no longer the limit, the FMAs dominate the issue slots (64 FMA
// to 4 LDS.128 per k); the remaining stalls are the two __syncthreads per slice and the global loads
// exposed before each slice. ~55-65% of the FP32 peak, 0.7-0.8x cuBLAS.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int block_m = 128, block_n = 128, block_k = 8;
constexpr int warp_m = 64, warp_n = 32;
constexpr int warps_n = block_n / warp_n;                           // 4
constexpr int threads = (block_m / warp_m) * warps_n * 32;          // 256
using a_loader = panel_loader<block_k, block_m, threads>;
using b_loader = panel_loader<block_k, block_n, threads>;

__global__ void __launch_bounds__(threads, 2) warptiled_kernel(problem p, operand_view a, operand_view b, float* c,
                                                               bool c_vector_ok) {
  __shared__ __align__(16) float a_panel[block_k * a_loader::pitch];
  __shared__ __align__(16) float b_panel[block_k * b_loader::pitch];
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / warps_n * warp_m + lane / 4 * 4;     // first of rows row0 + {0..3, 32..35}
  const int column0 = warp % warps_n * warp_n + lane % 4 * 4;  // first of columns column0 + {0..3, 16..19}
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * block_m;
  const std::int64_t j0 = static_cast<std::int64_t>(blockIdx.x) * block_n;
  a_loader a_load;
  b_loader b_load;
  float sum[8][8] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += block_k) {
    a_load.load(a, k0, i0);
    b_load.load(b, k0, j0);
    a_load.store(a, a_panel);
    b_load.store(b, b_panel);
    __syncthreads();
    multiply_panels<block_k, a_loader::pitch, b_loader::pitch>(a_panel, b_panel, row0, 32, column0, 16, sum);
    __syncthreads();
  }
  store_micro_tile(p, c, c_vector_ok, i0 + row0, 32, j0 + column0, 16, sum);
}

}  // namespace

void warptiled(const problem& p, const operands& x, const launch_context& launch) {
  const dim3 grid(blocks_for(p.n, block_n), blocks_for(p.m, block_m));
  warptiled_kernel<<<grid, threads, 0, stream_of(launch)>>>(p, view_of_a(p, x.a), view_of_b(p, x.b), x.c,
                                                             aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
