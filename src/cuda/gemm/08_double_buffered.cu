// CUDA step 08: two shared-memory panels per operand, the next slice's global loads in flight during
// the math, and the block order from the schedule layer.
// - What changed from 07: step 07 stalled twice a slice (on its global loads, and on the second
//   barrier). Here slice s + 1's loads are issued into registers while slice s's FMAs read the other
//   panel, then stored after the math; one barrier a slice. Warp and micro-tiles are 07's.
// - Settings (its row in src/gemm/registry.cpp): policy= the block tile, one of tile_policies (gemm.hpp,
//   compiled for each); order= row|column|zigzag, which tile block b takes (schedule/block_order.hpp).
// - Prediction: the ~1 µs load latency leaves the critical path: 70-80% of the FP32 peak, 0.85-0.95x
//   cuBLAS; the block order moves under 2% (B streams at ~5% of the DRAM bandwidth in row order).
// - Outcome and the policy sweep: docs/journal/gemm.md, step 08.
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
    double_buffered_kernel(walked_problem p, operand_view a, operand_view b, float* c, bool c_vector_ok) {
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
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  double_buffered_kernel<BlockM, BlockN, BlockK>
      <<<blocks_for_tiles(p, BlockM, BlockN), shape<BlockM, BlockN, BlockK>::threads, 0, stream_of(launch_on)>>>(
          walked(p, launch_on), view_of_a(p, x.a), view_of_b(p, x.b), x.c, aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace

void double_buffered(const problem& p, const operands& x, const launch_context& launch_on) {
  static_assert(std::size(tile_policies) == 5, "every tile_policies entry has its instantiation below");
  const tile_policy policy = tile_policy_of(launch_on);
  if (policy == tile_policy{128, 128, 8}) return launch<128, 128, 8>(p, x, launch_on);
  if (policy == tile_policy{128, 128, 16}) return launch<128, 128, 16>(p, x, launch_on);
  if (policy == tile_policy{128, 256, 8}) return launch<128, 256, 8>(p, x, launch_on);
  if (policy == tile_policy{256, 128, 8}) return launch<256, 128, 8>(p, x, launch_on);
  if (policy == tile_policy{64, 128, 16}) return launch<64, 128, 16>(p, x, launch_on);
  throw usage_error("gemm/cuda/08: no kernel compiled for the tile policy " + policy_name(policy));
}

}  // namespace swath::gemm::cuda
