// CUDA step 21: a block's tiles streamed through one pipeline (strided batches of small products).
// - What changed from 17: step 17 runs one tile a block, and a block's pipeline starts empty and ends
//   drained: it waits for its first slices with nothing to compute, and its last slices are computed
//   with nothing in flight. At 1024 × (64 × 64 × 64) every tile is four 16-deep slices, so that wait
//   is most of a block's life: 31.4 µs on an H200 against cublasSgemmStridedBatched's 23.8 (0.76x).
//   Here a block takes a run of equal length of the tiles (of every product of the batch, in order)
//   and streams their slices through one cp.async pipeline: the copies of the next tile's first slices
//   are in flight while this tile's last slices are computed, and the tile is stored from registers
//   when its last slice is done. The grid is the fewest blocks, at most the resident places, that give
//   every block the same count of tiles (`blocks=` chooses), so no SM waits on a last partial wave.
// - Settings: fit (128x128, 64x128 or 64x64, the last as 4 warps of 8 × 4; auto: the model below; the
//   other tiles run step 17), blocks (the persistent grid).
// - Prediction (H200, against cublasSgemmStridedBatched in the same run): 1024 × 64³ is 50 MB of A, B
//   and C and 0.54 GFLOP (10.7 FLOP a byte, under the H200's 14 at its copy bandwidth): bound by
//   memory at ~12 µs if every byte moved at the copy bandwidth; with the first slices' wait once a
//   block and 2 warps a scheduler, 15-20 µs, 1.2-1.6x cuBLAS. 64 × (512 × 512 × 128) (0.94x) and 256 ×
//   256³ (1.08x) gain less: their tiles are 8-16 slices, so the wait is a smaller share.
// - Outcome (H200, same-run cublasSgemmStridedBatched): 1024 × 64³ 23.4 µs, 1.005x (1.054x through
//   swath::sgemm in the suite run, 23.0 µs against 24.2; step 17 31.8). First with step 17's 64 × 64
//   tile of 2 warps: 28.2 µs, one tile a block 32.2; with 4 warps of 8 × 4, one tile a block 26.8. The
//   other cases stay with steps 16 and 17 (256 × 256³ 220 against 203 µs, 64 × (512 × 512 × 128) 123
//   against 115, 8192² × 64 255 against 238). Short of the prediction: 2.15 TB/s, 38% of the FMA peak.
//   docs/journal/gemm.md, step 21.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "async_pipeline.cuh"
#include "split_k.cuh"

namespace swath::gemm::cuda {
namespace {

// Tile `item` of a batch, in order: product item / tiles_per_product, then its tiles row-major.
struct tile_place {
  std::int64_t batch, i0, j0;
};
template <int BlockM, int BlockN>
__device__ __forceinline__ tile_place place_of(std::int64_t item, std::int64_t tiles_per_product, std::int64_t tiles_n) {
  const std::int64_t batch = item / tiles_per_product, tile = item % tiles_per_product;
  return {batch, tile / tiles_n * BlockM, tile % tiles_n * BlockN};
}

// Block b takes tiles [items · b / blocks, items · (b + 1) / blocks) and runs their K slices, tile after
// tile, as one sequence through `Stages` stages: step 10's loop (async_pipeline.cuh) with its slice
// index running on across tiles.
template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, copy_mode AMode, copy_mode BMode>
__global__ void __launch_bounds__(pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::threads,
                                  pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::blocks_per_sm)
    streamed_tiles_kernel(problem p, operand_view a, operand_view b, float* c, bool c_vector_ok, std::int64_t items) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  using a_copier = slice_copier<BlockM, BlockK, s::threads>;
  using b_copier = slice_copier<BlockN, BlockK, s::threads>;
  extern __shared__ __align__(16) float stages[];
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / s::warps_n * s::warp_m + lane / 4 * 4;
  const int column0 = warp % s::warps_n * s::warp_n + lane % 4 * 4;
  const std::int64_t tiles_n = (p.n + BlockN - 1) / BlockN;
  const std::int64_t tiles_per_product = (p.m + BlockM - 1) / BlockM * tiles_n;
  const std::int64_t first = items * blockIdx.x / gridDim.x, end = items * (blockIdx.x + 1) / gridDim.x;
  const slice_split<BlockK> split(p.k);
  const std::int64_t steps = (end - first) * split.slices;  // (tile, slice) pairs, tile-major
  const unsigned stages_address = shared_address(stages);

  // The copies' position in the sequence: tile copy_item, its slice copy_slice, and that tile's place.
  std::int64_t copy_item = first, copy_slice = 0;
  tile_place copy_at = place_of<BlockM, BlockN>(first, tiles_per_product, tiles_n);
  operand_view a_at = a, b_at = b;
  a_at.data = a.data + copy_at.batch * p.stride_a;
  b_at.data = b.data + copy_at.batch * p.stride_b;
  bool interior = copy_at.i0 + BlockM <= a.wide && copy_at.j0 + BlockN <= b.wide;
  // The next (tile, slice) of the sequence into stage `stage`, if any is left.
  const auto copy_next = [&](int stage) {
    if (copy_item >= end) return;
    const std::int64_t depth0 = split.depth0(copy_slice);
    const int depth_count = split.depth_count(copy_slice);
    const unsigned a_panel = stages_address + static_cast<unsigned>(stage * s::stage_floats) * 4;
    const unsigned b_panel = a_panel + s::a_floats * 4;
    if (interior && depth_count == BlockK) {
      a_copier::template copy<false, AMode>(a_at, depth0, copy_at.i0, BlockK, a_panel);
      b_copier::template copy<false, BMode>(b_at, depth0, copy_at.j0, BlockK, b_panel);
    } else {
      a_copier::template copy<true, AMode>(a_at, depth0, copy_at.i0, depth_count, a_panel);
      b_copier::template copy<true, BMode>(b_at, depth0, copy_at.j0, depth_count, b_panel);
    }
    if (++copy_slice == split.slices) {
      copy_slice = 0;
      if (++copy_item < end) {
        copy_at = place_of<BlockM, BlockN>(copy_item, tiles_per_product, tiles_n);
        a_at.data = a.data + copy_at.batch * p.stride_a;
        b_at.data = b.data + copy_at.batch * p.stride_b;
        interior = copy_at.i0 + BlockM <= a.wide && copy_at.j0 + BlockN <= b.wide;
      }
    }
  };

  SWATH_UNROLL
  for (int stage = 0; stage < Stages - 1; ++stage) {
    copy_next(stage);
    commit_copies();  // empty groups too: group g always holds step g
  }
  wait_copies<Stages - 2>();
  __syncthreads();

  float a_values[2][8], b_values[2][ThreadN];
  const auto read_fragments = [&](const float* stage, int kk, float(&a_out)[8], float(&b_out)[ThreadN]) {
    read_eight(stage + kk * s::a_pitch + row0, 32, a_out);
    SWATH_UNROLL
    for (int j = 0; j < ThreadN / 4; ++j) {
      const float4 four = *reinterpret_cast<const float4*>(stage + s::a_floats + kk * s::b_pitch + column0 + 16 * j);
      b_out[4 * j] = four.x, b_out[4 * j + 1] = four.y, b_out[4 * j + 2] = four.z, b_out[4 * j + 3] = four.w;
    }
  };
  int read_stage = 0, write_stage = Stages - 1;
  const float* reading = stages;
  read_fragments(reading, 0, a_values[0], b_values[0]);
  float sum[8][ThreadN] = {};
  std::int64_t item = first, slice = 0;  // the FMAs' position
  for (std::int64_t step = 0; step < steps; ++step) {
    // The stage refilled here was last read in step - 1, before the barrier that ended it.
    copy_next(write_stage);
    commit_copies();
    SWATH_UNROLL
    for (int kk = 0; kk < BlockK; ++kk) {
      if (kk == BlockK - 1) {
        wait_copies<Stages - 2>();  // step + 1 has landed (this thread's copies)...
        __syncthreads();            // ...everyone's, and nobody reads this step's stage any more
        read_stage = read_stage + 1 == Stages ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == Stages ? 0 : write_stage + 1;
        reading = stages + read_stage * s::stage_floats;
      }
      read_fragments(reading, (kk + 1) % BlockK, a_values[(kk + 1) % 2], b_values[(kk + 1) % 2]);
      SWATH_UNROLL
      for (int q = 0; q < ThreadN; ++q) {
        SWATH_UNROLL
        for (int r = 0; r < 8; ++r) sum[r][q] += a_values[kk % 2][r] * b_values[kk % 2][q];
      }
    }
    if (++slice == split.slices) {
      // The tile's last slice: store it (the next tile's first slices are in flight) and start the next.
      const tile_place at = place_of<BlockM, BlockN>(item, tiles_per_product, tiles_n);
      store_tile(p, c + at.batch * p.stride_c, c_vector_ok, at.i0, at.j0, row0, column0, sum);
      SWATH_UNROLL
      for (int r = 0; r < 8; ++r) {
        SWATH_UNROLL
        for (int q = 0; q < ThreadN; ++q) sum[r][q] = 0;
      }
      slice = 0;
      ++item;
    }
  }
  wait_copies<0>();
}

// The tiles compiled here: step 17's 128 × 128 and 64 × 128 (split_k.cuh, with their model weights),
// and 64 × 64 as 4 warps of 8 × 4 a thread where step 17 has 2 warps of 8 × 8. At 1024 × 64³ the tiles
// are 7.8 an SM: with 2 tiles a block, step 17's 64 × 64 gave an SM 8 warps (28.2 µs on an H200, blocks
// of 64 threads); with 4 warps a tile, 16. Its efficiency is step 17's 64 × 64's, its occupancy doubled.
struct streamed_tile {
  int block_m, block_n, warps, resident;
  double efficiency;
};
constexpr streamed_tile streamed_tiles_compiled[] = {{128, 128, 4, 2, 0.66}, {64, 128, 4, 4, 0.55}, {64, 64, 4, 4, 0.45}};

// The grid for `items` tiles on `places` resident blocks: the fewest blocks that give every block
// ceil(items / places) tiles (the last block no more than the others), or the chosen count.
std::int64_t streamed_blocks(std::int64_t items, std::int64_t places, std::int64_t chosen) {
  if (chosen > 0) return std::min(chosen, items);
  const std::int64_t per_block = (items + places - 1) / places;
  return (items + per_block - 1) / per_block;
}

// The model's time for a tile: the busiest SM's blocks × tiles a block × a tile's FMAs at the tile's
// measured efficiency (split_k.cuh) and the SM's occupancy, plus one pipeline fill.
double streamed_seconds(const problem& p, const streamed_tile& tile, int sms) {
  const std::int64_t items = (p.m + tile.block_m - 1) / tile.block_m * ((p.n + tile.block_n - 1) / tile.block_n) * p.batch;
  const std::int64_t places = static_cast<std::int64_t>(sms) * tile.resident;
  const std::int64_t blocks = streamed_blocks(items, places, 0);
  const std::int64_t per_block = (items + blocks - 1) / blocks;
  const std::int64_t busiest = (blocks + sms - 1) / sms;
  const double occupancy = std::min(1.0, static_cast<double>(busiest * tile.warps) / 8);
  const double fmas = static_cast<double>(busiest * per_block) * tile.block_m * tile.block_n * static_cast<double>(p.k);
  return fmas / (128 * 1.75e9 * tile.efficiency * occupancy) + 1e-6;
}

template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages>
void launch_streamed(const problem& p, const operands& x, std::int64_t blocks_chosen, const launch_context& launch) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  const std::int64_t items = (p.m + BlockM - 1) / BlockM * ((p.n + BlockN - 1) / BlockN) * p.batch;
  // A product's 16-byte copies need its own rows aligned: every product's, so the strides too.
  operand_view a = view_of_a(p, x.a), b = view_of_b(p, x.b);
  a.vector_ok = a.vector_ok && (p.batch == 1 || p.stride_a % 4 == 0);
  b.vector_ok = b.vector_ok && (p.batch == 1 || p.stride_b % 4 == 0);
  const bool c_vector_ok = c_takes_vectors(p, x.c);
  with_copy_modes(a, b, [&](auto a_mode, auto b_mode) {
    constexpr auto kernel = streamed_tiles_kernel<BlockM, BlockN, BlockK, ThreadN, Stages, a_mode.value, b_mode.value>;
    const int resident = std::max(prepare_kernel(kernel, s::threads, s::shared_bytes), 1);
    const std::int64_t places = static_cast<std::int64_t>(std::max(launch.sm_count, 1)) * resident;
    const std::int64_t blocks = streamed_blocks(items, places, blocks_chosen);
    SWATH_EXPECTS(blocks <= 0x7fffffff, "gemm/cuda/21_streamed_tiles: more blocks than a grid holds");
    kernel<<<static_cast<unsigned>(blocks), s::threads, s::shared_bytes, stream_of(launch)>>>(p, a, b, x.c, c_vector_ok, items);
    SWATH_CHECK_LAST();
  });
}

}  // namespace

void streamed_tiles(const problem& p, const operands& x, const launch_context& launch) {
  if (p.k == 0) return split_k(p, x, launch);  // C = beta C for every product: no slice to stream
  const split_choice chosen = split_choice_of(launch);
  const std::int64_t blocks = persistent_blocks_of(launch);
  int best = -1;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (int index = 0; index < static_cast<int>(std::size(streamed_tiles_compiled)); ++index) {
    const streamed_tile& tile = streamed_tiles_compiled[index];
    if (chosen.block_m != 0 && (tile.block_m != chosen.block_m || tile.block_n != chosen.block_n)) continue;
    const double seconds = streamed_seconds(p, tile, std::max(launch.sm_count, 1));
    if (seconds < best_seconds) best = index, best_seconds = seconds;
  }
  if (best < 0) return split_k(p, x, launch);  // 256 × 128, 64 × 256 and 128 × 64: step 17's, one tile a block
  switch (best) {
    case 0: return launch_streamed<128, 128, 16, 16, 4>(p, x, blocks, launch);
    case 1: return launch_streamed<64, 128, 16, 8, 4>(p, x, blocks, launch);
    default: return launch_streamed<64, 64, 16, 4, 4>(p, x, blocks, launch);
  }
}

}  // namespace swath::gemm::cuda
