// CUDA step 8: double-buffered shared memory with the next slice's global loads in flight during the
// math, and the block order from the schedule layer. Step 7 stalled twice per slice: on the global loads
// (issued, then waited for, before any FMA of the slice) and on the second __syncthreads. Here the block
// keeps two panels of each operand: while the FMAs of slice s read panel s % 2, the global loads of slice
// s + 1 are already issued into registers; they are stored into the other panel after the math, and one
// __syncthreads per slice separates the two (a panel is only rewritten one barrier after everyone read
// it). The micro-tiles and warp tiles are step 7's.
//
// The block tile is a tile_policy (policy=, gemm.hpp): the kernel is compiled for each entry of
// tile_policies; slices 16 deep halve the per-slice overhead (barrier, loads, the transposing store)
// relative to 8.
//
// The block order: a 1D grid of tiles_x × tiles_y blocks; block b takes the tile that the problem's
// order (row-major, Column or Zigzag bands of column_width columns: schedule/block_order.hpp) maps b to.
// Blocks run roughly in index order, so the order decides which tiles of A and B are in L2 together.
//
// Prediction: the global load latency (~1 µs at 8192³ with DRAM behind it) leaves the critical path:
// ~70-80% of the FP32 peak, 0.85-0.95x cuBLAS. Block order: at 8192³ a wave of 264 resident blocks in
// row-major order spans 4 rows of tiles and all 64 columns: it streams all of B (256 MiB) from DRAM per
// 4 tile rows, ~270 MB per ~1.3 ms of math = ~0.2 TB/s, 5% of the DRAM bandwidth. A column band (the
// thesis's c = M / (u K): 60 MiB / (4 B · 8192) = 1920 columns, 15 tiles on an H200) cuts that several
// times, but from 5% of the bandwidth: a difference under 2% is expected, visible only if L2 misses
// lengthen the slices' load latency beyond what double buffering hides.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

// The block tile is a tile_policy (gemm.hpp), compiled for each entry of tile_policies: warps own
// 64 × 32 tiles, so a block_m × block_n tile takes block_m / 64 × block_n / 32 warps.
template <int BlockM, int BlockN, int BlockK>
struct shape {
  static constexpr int warp_m = 64, warp_n = 32;
  static constexpr int warps_n = BlockN / warp_n;
  static constexpr int threads = BlockM / warp_m * warps_n * 32;
  // 256 threads at ≤ 128 registers: two blocks an SM; 512 threads: one.
  static constexpr int blocks_per_sm = threads <= 256 ? 2 : 1;
  using a_loader = panel_loader<BlockK, BlockM, threads>;
  using b_loader = panel_loader<BlockK, BlockN, threads>;
};

template <int BlockM, int BlockN, int BlockK>
__global__ void __launch_bounds__(shape<BlockM, BlockN, BlockK>::threads, shape<BlockM, BlockN, BlockK>::blocks_per_sm)
    double_buffered_kernel(problem p, operand_view a, operand_view b, float* c, bool c_vector_ok) {
  using s = shape<BlockM, BlockN, BlockK>;
  using a_loader = typename s::a_loader;
  using b_loader = typename s::b_loader;
  __shared__ __align__(16) float a_panels[2 * BlockK * a_loader::pitch];
  __shared__ __align__(16) float b_panels[2 * BlockK * b_loader::pitch];
  const schedule::tile_coordinate tile = tile_for_block(p, blockIdx.x, BlockM, BlockN);
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / s::warps_n * s::warp_m + lane / 4 * 4;     // rows row0 + {0..3, 32..35}
  const int column0 = warp % s::warps_n * s::warp_n + lane % 4 * 4;  // columns column0 + {0..3, 16..19}
  const std::int64_t i0 = tile.y * BlockM, j0 = tile.x * BlockN;
  float sum[8][8] = {};
  double_buffered_slices<BlockM, BlockN, BlockK, s::threads>(p, a, b, a_panels, b_panels, i0, j0, 0, row0, column0, sum);
  store_micro_tile(p, c, c_vector_ok, i0 + row0, 32, j0 + column0, 16, sum);
}

template <int BlockM, int BlockN, int BlockK>
void launch(const problem& p, const operands& x, cudaStream_t stream) {
  double_buffered_kernel<BlockM, BlockN, BlockK>
      <<<blocks_for_tiles(p, BlockM, BlockN), shape<BlockM, BlockN, BlockK>::threads, 0, stream>>>(
          p, view_of_a(p, x.a), view_of_b(p, x.b), x.c, aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace

void double_buffered(const problem& p, const operands& x, const launch_context& launch_on) {
  static_assert(std::size(tile_policies) == 5, "every tile_policies entry has its instantiation below");
  const cudaStream_t stream = stream_of(launch_on);
  const tile_policy& policy = p.policy;
  if (policy == tile_policy{128, 128, 8}) return launch<128, 128, 8>(p, x, stream);
  if (policy == tile_policy{128, 128, 16}) return launch<128, 128, 16>(p, x, stream);
  if (policy == tile_policy{128, 256, 8}) return launch<128, 256, 8>(p, x, stream);
  if (policy == tile_policy{256, 128, 8}) return launch<256, 128, 8>(p, x, stream);
  if (policy == tile_policy{64, 128, 16}) return launch<64, 128, 16>(p, x, stream);
  throw usage_error("gemm/cuda/08: no kernel compiled for the tile policy " + policy_name(policy));
}

}  // namespace swath::gemm::cuda
