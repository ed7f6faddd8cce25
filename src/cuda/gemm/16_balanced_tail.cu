// CUDA step 16: the last wave balanced. Step 15's kernel for the full waves of whole tiles, then the
// tiles left over cut along K and shared evenly over the SMs (stream-K), on step 15's producer and
// compute warps.
//
// Step 15 runs one block a 256 × 128 tile, one block an SM. 4096³ has 512 tiles for 132 SMs: three
// full waves and a fourth of 116 tiles, in which 16 SMs idle; 8192³ has 2048, fifteen full waves and a
// sixteenth of 68. Both leave 3.0% of the SMs' time idle (512 / (4 · 132) = 2048 / (16 · 132) = 0.970).
// Here the full waves run as in step 15 (one launch, one block a tile), and the R tiles of the last
// wave go to a second launch of one block an SM: their slices form one sequence, split evenly, each
// block taking a run of R · S / 132 consecutive slices (4096³: 116 · 256 / 132 ≈ 225, a tile is 256),
// which may start inside one tile and go on into the next. The producer fills the stages along the
// run across the tile boundary, and the compute warps read on without draining: at the boundary they
// leave their sums for the first tile and go on with the next tile's slices. The parts are step 11's:
// each block stores a part in its slot, takes a ticket on the tile's counter, and the last block to
// arrive adds the parts in block order (the same bits on every run) and writes C.
//
// A stream-K tail tried on step 14's kernel ran its tail 1.4x slower a slice than whole tiles
// (docs/gemm.md, "What is next"). Two things differ here: the tail's loop is step 15's with no tile
// switch inside it (the switch is between two calls of the slice loop), and 8 stages of 16-deep
// slices ask for the next slices 128 depths ahead, ~20 µs of FMAs, where a block's runs start at
// unrelated depths and their boxes come from DRAM: at 132 · 24 KiB a slice every ~2.5 µs, ~1.3 TB/s,
// under half of an H100's.
//
// Prediction (before the first run; step 15's H200 gate at be771fd99b8a, 2.594 ms at 4096³ of which
// ~40 µs the rewrite of op(A), so ~638 µs a wave; 20.29 ms at 8192³, ~1.26 ms a wave): the tail takes
// 0.879 of a wave at 4096³ (225 slices of 256) and 0.515 at 8192³ (68 · 512 / 132 = 264 of 512), plus
// the parts (each block stores one or two of 128 KiB and the last block at a tile reloads one or two:
// ~5 µs) and a second launch (~5 µs). 4096³ 2.594 → ~2.53 ms (1.030x → ~1.055x cuBLAS), 8192³ 20.29 →
// ~19.69 (1.056x → ~1.09x), if the tail's slices run at the full waves' rate; 10% slower a slice gives
// back ~55 µs at 4096³ (~1.035x).
//
// Outcome (H200, step 15 and cuBLAS in the same call; docs/gemm.md, step 16): 8192³ 20.30 → 20.16 ms
// (1.060x → 1.067x cuBLAS), 4096³ 2.594 → 2.591 (1.035x), far short of the prediction. Nsight Compute
// has the tail at 95% of the whole tiles' issue rate (2.62 cycles per issued instruction against
// 2.49; at 8192³ 702 µs for 0.515 of a wave of 1.284 ms), so the tail is not what fell short. What
// the prediction missed: step 15's part-full last wave is not a whole wave lost. Its SMs finish their tiles
// at different times (active 97.2-100% of the whole tiles' kernel), the block scheduler hands the last
// tiles to the SMs that free first, and step 15's last 68 tiles at 8192³ took ~0.85 ms, not a wave's
// 1.28; at 4096³ its last 116 took ~0.94 of a wave. An even split of the tail wins only what is left.
#include <algorithm>

#include "producer_warp.cuh"
#include "stream_k.cuh"

namespace swath::gemm::cuda {
namespace {

// The tail: block b of the grid takes slices [share_start(b), share_start(b + 1)) of the last tiles,
// numbered after plan.whole_tiles in block order.
template <int BlockK, int Stages>
__global__ void __launch_bounds__(producer_warp_threads, 1)
    balanced_tail_kernel(problem p, const __grid_constant__ CUtensorMap a_map,
                         const __grid_constant__ CUtensorMap b_map, float* c, bool c_vector_ok, stream_k_plan plan) {
  using s = engine_shape<BlockK, Stages>;
  extern __shared__ __align__(1024) float tail_ring[];  // the stages (extern arrays share one symbol)
  float* const stages = tail_ring;
  const unsigned stages_address = shared_address(stages);
  const unsigned full = stages_address + s::barriers_at, empty = full + Stages * 8;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const std::int64_t grid = gridDim.x;
  const std::int64_t begin = plan.share_start(blockIdx.x, grid), end = plan.share_start(blockIdx.x + 1, grid);

  if (t == 0) {
    for (int stage = 0; stage < Stages; ++stage) {
      swath::cuda::init_barrier(full + 8 * stage, 1);
      swath::cuda::init_barrier(empty + 8 * stage, compute_threads);
    }
    swath::cuda::fence_barrier_init();
  }
  __syncthreads();  // the only block-wide barrier: the mbarriers exist before anyone waits on them

  if (warp >= compute_threads / 32) {
    // The producer, along the run: slice g is slice g mod S of the run's tile g / S.
    give_back_registers<producer_registers>();
    if (t != compute_threads) return;
    int stage = 0, round = 0, i0 = 0, j0 = 0;
    std::int64_t tile = -1;
    for (std::int64_t g = begin; g < end; ++g) {
      const std::int64_t shared = g / plan.slices;
      const int slice = static_cast<int>(g - shared * plan.slices);
      if (shared != tile) {
        tile = shared;
        const schedule::tile_coordinate at = tile_for_block(p, plan.whole_tiles + shared, tile_m, tile_n);
        i0 = static_cast<int>(at.y) * tile_m, j0 = static_cast<int>(at.x) * tile_n;
      }
      fill_next_stage<BlockK, Stages>(stages_address, full, empty, &a_map, &b_map, i0, j0, slice, stage, round);
    }
    return;
  }

  // The compute warps: step 15's loop (multiply_slices in copy_engine.cuh), with the reading position
  // kept from one part of the run to the next. It is written out here rather than shared: holding
  // that position in a struct or in the caller's variables changed ptxas's register allocation of
  // steps 14 and 15's FMAs, whose timings stand as measured.
  take_registers<compute_registers>();
  const int row0 = warp / 2 * 64 + lane / 4 * 4, column0 = warp % 2 * 64 + lane % 4 * 4;
  float a_values[2][8], b_values[2][16];
  const auto read_fragments = [&](const float* at, int kk, float(&a_out)[8], float(&b_out)[16]) {
    read_eight(at + kk * tile_m + row0, 32, a_out);
    SWATH_UNROLL
    for (int j = 0; j < 4; ++j) {
      const float4 four = *reinterpret_cast<const float4*>(at + s::a_floats + kk * tile_n + column0 + 16 * j);
      b_out[4 * j] = four.x, b_out[4 * j + 1] = four.y, b_out[4 * j + 2] = four.z, b_out[4 * j + 3] = four.w;
    }
  };
  int stage = 0;
  unsigned parity = 0;
  const float* reading = stages;
  if (begin < end) {
    swath::cuda::wait_phase(full, 0);
    read_fragments(reading, 0, a_values[0], b_values[0]);
  }
  for (std::int64_t g = begin; g < end;) {
    // The run's part of tile `shared`: its slices [slice_begin, slice_end).
    const std::int64_t shared = g / plan.slices;
    const std::int64_t slice_begin = g - shared * plan.slices;
    const std::int64_t slice_end = std::min(plan.slices, slice_begin + (end - g));
    const int count = static_cast<int>(slice_end - slice_begin);
    const bool more_after = g + count < end;  // the run goes on into the next tile
    float sum[8][16] = {};
    for (int slice = 0; slice < count; ++slice) {
      bool next_landed = false;
      SWATH_UNROLL
      for (int kk = 0; kk < BlockK; ++kk) {
        if (kk == 1) {
          const int next = stage + 1 == Stages ? 0 : stage + 1;
          next_landed = (slice + 1 < count || more_after) &&
                        swath::cuda::phase_complete(full + 8 * next, next == 0 ? parity ^ 1 : parity);
        }
        if (kk == BlockK - 1) {
          swath::cuda::arrive(empty + 8 * stage);
          if (++stage == Stages) stage = 0, parity ^= 1;
          if ((slice + 1 < count || more_after) && !next_landed) swath::cuda::wait_phase(full + 8 * stage, parity);
          reading = stages + stage * s::stage_floats;
        }
        // After the run's last slice this reads a stage nobody fills any more: harmless.
        read_fragments(reading, (kk + 1) % BlockK, a_values[(kk + 1) % 2], b_values[(kk + 1) % 2]);
        SWATH_UNROLL
        for (int q = 0; q < 16; ++q) {
          SWATH_UNROLL
          for (int r = 0; r < 8; ++r) sum[r][q] += a_values[kk % 2][r] * b_values[kk % 2][q];
        }
      }
    }
    const schedule::tile_coordinate at = tile_for_block(p, plan.whole_tiles + shared, tile_m, tile_n);
    const std::int64_t i0 = at.y * tile_m, j0 = at.x * tile_n;
    if (slice_begin == 0 && slice_end == plan.slices) {
      store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
    } else {
      store_part<compute_threads>(plan, shared, sum);
      settle_shared_tile<compute_threads, 16, false>(p, c, c_vector_ok, plan, shared, i0, j0, row0, column0);
    }
    g += count;
  }
}

// The tiles of the last, part-full wave (all of them when there are fewer than the grid); none when
// the tiles fill whole waves or a block's share would be shorter than smallest_share slices.
std::int64_t last_wave_tiles(std::int64_t tiles, std::int64_t grid, std::int64_t slices) {
  const std::int64_t shared = tiles < grid ? tiles : tiles % grid;
  return shared * slices / grid < smallest_share ? 0 : shared;
}

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  using s = engine_shape<BlockK, Stages>;
  const cudaStream_t stream = stream_of(launch_on);
  const slice_maps maps = slice_maps_of<BlockK>(p, x, stream);
  const std::int64_t tiles = blocks_for_tiles(p, tile_m, tile_n);
  // One block an SM (one fits), or blocks=N (the tests cut tiles on small grids).
  const std::int64_t grid = p.persistent_blocks > 0 ? p.persistent_blocks : std::max(launch_on.sm_count, 1);
  SWATH_EXPECTS(grid <= 0x7fffffff, "gemm: more blocks than a grid holds");
  stream_k_plan plan;
  plan.slices = (p.k + BlockK - 1) / BlockK;
  plan.shared_tiles = last_wave_tiles(tiles, grid, plan.slices);
  plan.whole_tiles = tiles - plan.shared_tiles;
  if (plan.whole_tiles > 0) launch_whole_tiles<BlockK, Stages>(p, maps, x.c, stream, static_cast<unsigned>(plan.whole_tiles));
  if (plan.shared_tiles == 0) return;
  const workspace held = workspace_for(grid, compute_threads * 8 * 16);
  plan.partials = held.partials, plan.arrivals = held.arrivals;
  constexpr auto kernel = balanced_tail_kernel<BlockK, Stages>;
  static const int blocks_per_sm = prepare_kernel(kernel, producer_warp_threads, s::shared_bytes);
  (void)blocks_per_sm;
  kernel<<<static_cast<unsigned>(grid), producer_warp_threads, s::shared_bytes, stream>>>(p, maps.a, maps.b, x.c,
                                                                                         aligned16(x.c, p.ldc), plan);
  SWATH_CHECK_LAST();
}

}  // namespace

// Where step 14's rule sends a problem to the copy engine (tma=auto|on|off), these kernels; else step
// 13. blocks=N sets the tail's grid.
void balanced_tail(const problem& p, const operands& x, const launch_context& launch_on) {
  if (copy_engine_chosen(p, x, launch_on)) {
    launch<16, 8>(p, x, launch_on);
  } else {
    wave_fitted_tiles(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
