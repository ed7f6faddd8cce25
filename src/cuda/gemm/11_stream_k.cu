// CUDA step 11: stream-K. Step 10's pipeline and tile on one block a resident slot, the last tiles'
// K slices shared out evenly so that every SM finishes together.
// - What changed from 10: the first full rounds of tiles are taken whole; the rest are cut along K into
//   one sequence of slices, split evenly; a block covering part of a tile stores it in its slot and
//   takes a ticket, the last to arrive adds the parts in block order (the same bits every run). Shares
//   under 16 slices are not split; blocks=auto sends waves at least 90% full to step 10.
// - Settings: blocks= the grid (auto: one block a resident slot).
// - Prediction (H200): 1000 × 3000 × 700 0.140 → ~0.105 ms, 8191 × 257 × 4099 0.81 → ~0.60 ms, the
//   large squares −3%. Outcome: 0.60 ms as predicted, 0.123 ms (20 µs short), the squares 3% slower
//   when split, so they run step 10. The register-allocator notes and the story: docs/journal/gemm.md.
#include <algorithm>

#include "stream_k.cuh"

namespace swath::gemm::cuda {
namespace {

template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, copy_mode AMode, copy_mode BMode>
__global__ void __launch_bounds__(pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::threads,
                                  pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::blocks_per_sm)
    stream_k_kernel(walked_problem p, operand_view a, operand_view b, float* c, bool c_vector_ok, stream_k_plan plan) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  extern __shared__ __align__(16) float stages[];
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / s::warps_n * s::warp_m + lane / 4 * 4;
  const int column0 = warp % s::warps_n * s::warp_n + lane % 4 * 4;
  const std::int64_t grid = gridDim.x, block = blockIdx.x;

  // One loop over the block's work, so that the pipeline is inlined once: whole tiles block, block +
  // grid, ... below whole_tiles, then the runs of slices in [share_start(block), share_start(block + 1)).
  std::int64_t whole = block;
  std::int64_t g = plan.share_start(block, grid);
  const std::int64_t end = plan.share_start(block + 1, grid);
  float sum[8][ThreadN];
  while (whole < plan.whole_tiles || g < end) {
    const bool taking_whole = whole < plan.whole_tiles;
    const std::int64_t shared = taking_whole ? 0 : g / plan.slices;  // the shared tile's number
    const std::int64_t slice_begin = taking_whole ? 0 : g - shared * plan.slices;
    const std::int64_t slice_end = taking_whole ? plan.slices : std::min(plan.slices, slice_begin + (end - g));
    const schedule::tile_coordinate tile =
        tile_for_block(p, taking_whole ? whole : plan.whole_tiles + shared, BlockM, BlockN);
    const std::int64_t i0 = tile.y * BlockM, j0 = tile.x * BlockN;
    SWATH_UNROLL
    for (int r = 0; r < 8; ++r) {
      SWATH_UNROLL
      for (int q = 0; q < ThreadN; ++q) sum[r][q] = 0.0f;
    }
    accumulate_slices<BlockM, BlockN, BlockK, ThreadN, Stages, AMode, BMode>(a, b, stages, p.k, i0, j0, slice_begin,
                                                                            slice_end, row0, column0, sum);
    if (slice_begin == 0 && slice_end == plan.slices) {
      store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
    } else {
      store_part<s::threads>(plan, shared, sum);
      settle_shared_tile<s::threads, ThreadN>(p, c, c_vector_ok, plan, shared, i0, j0, row0, column0);
    }
    if (taking_whole) {
      whole += grid;
    } else {
      g += slice_end - slice_begin;
    }
    __syncthreads();  // everyone is done with the stages before the next tile's copies
  }
}

template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages>
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  const cudaStream_t stream = stream_of(launch_on);
  with_copy_modes(p, x, [&](auto a_mode, auto b_mode) {
    constexpr auto kernel = stream_k_kernel<BlockM, BlockN, BlockK, ThreadN, Stages, a_mode.value, b_mode.value>;
    // One block per resident slot unless blocks=N says otherwise.
    const int resident_per_sm = prepare_kernel(kernel, s::threads, s::shared_bytes);
    const std::int64_t tiles = blocks_for_tiles(p, BlockM, BlockN);
    const std::int64_t chosen_blocks = persistent_blocks_of(launch_on);
    std::int64_t grid = chosen_blocks > 0 ? chosen_blocks
                                          : static_cast<std::int64_t>(std::max(launch_on.sm_count, 1)) * resident_per_sm;
    stream_k_plan plan;
    plan.slices = (p.k + BlockK - 1) / BlockK;
    plan.shared_tiles = tiles_to_share(tiles, grid, plan.slices);
    plan.whole_tiles = tiles - plan.shared_tiles;
    if (chosen_blocks == 0 && (plan.shared_tiles == 0 || wave_fill(tiles, grid) >= full_enough)) {
      async_pipeline(p, x, launch_on);  // step 10: one block a tile
      return;
    }
    if (plan.shared_tiles == 0) {
      grid = std::min(grid, tiles);  // whole tiles only: no block without one
    } else {
      const workspace held = workspace_for(grid, s::threads * 8 * ThreadN, stream);
      plan.partials = held.partials, plan.arrivals = held.arrivals;
    }
    SWATH_EXPECTS(grid <= 0x7fffffff, "gemm: more blocks than a grid holds");
    kernel<<<static_cast<unsigned>(grid), s::threads, s::shared_bytes, stream>>>(
        walked(p, launch_on), view_of_a(p, x.a), view_of_b(p, x.b), x.c, aligned16(x.c, p.ldc), plan);
    SWATH_CHECK_LAST();
  });
}

}  // namespace

void stream_k(const problem& p, const operands& x, const launch_context& launch_on) {
  launch<256, 128, 8, 16, 3>(p, x, launch_on);
}

}  // namespace swath::gemm::cuda
