#pragma once
// Step 15's kernel: a producer warpgroup feeds the copy engine's stages, the eight compute warps only
// read, multiply and release. Step 16 runs its whole tiles and its tail's pieces on it. Why it is as it
// is: 15_producer_warp.cu. Compiled for sm_90a (setmaxnreg).
#include <string>

#include "../core/bulk_copy.cuh"
#include "copy_engine.cuh"

namespace swath::gemm::cuda {

// Warpgroups 0-1 compute (step 14's 8 warps and lanes), warpgroup 2 feeds the stages.
constexpr int compute_threads = 256, producer_warp_threads = compute_threads + 128;
constexpr int producer_registers = 24, compute_registers = 240;
static_assert((producer_registers + 2 * compute_registers) * 32 <= 16384, "one sub-partition's register file");

// setmaxnreg (sm_90a): every thread of a warpgroup runs it with the same count.
template <int Registers>
__device__ __forceinline__ void give_back_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void take_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
}

// The producer's step (steps 15-16): slice `slice` of the tile at (i0, j0) into stage `stage`, once
// the compute warps have released its round - 1 (the "empty" phase of parity (round - 1) & 1); then
// the next stage, and the round when the ring wraps.
template <int BlockK, int Stages>
__device__ __forceinline__ void fill_next_stage(unsigned stages_address, unsigned full, unsigned empty,
                                                const CUtensorMap* a_map, const CUtensorMap* b_map, int i0, int j0,
                                                int slice, int& stage, int& round) {
  using s = engine_shape<BlockK, Stages>;
  if (round > 0) swath::cuda::wait_phase(empty + 8 * stage, (round - 1) & 1);
  const unsigned a_panel = stages_address + static_cast<unsigned>(stage) * s::stage_bytes;
  swath::cuda::arrive_expecting(full + 8 * stage, s::stage_bytes);
  swath::cuda::tensor_load_2d(a_panel, a_map, i0, slice * BlockK, full + 8 * stage);
  swath::cuda::tensor_load_2d(a_panel + s::a_floats * 4, b_map, j0, slice * BlockK, full + 8 * stage);
  if (++stage == Stages) stage = 0, ++round;
}

// The K slices [first, first + count) of the tile numbered `tile` in block order that a block takes;
// `share` is the step 16 tail's share the piece belongs to (-1 for a whole tile).
struct tile_piece {
  std::int64_t tile;
  int first, count, share;
};

// What a block does besides step 15's walk over its whole tile (block b takes tile b). `argument` is
// the kernel's last parameter; at_start runs on thread 0 before the block barrier. Step 15: whole
// tiles, nothing besides. Where whole_tiles_only is false (step 16, which runs its whole tiles and its
// tail's pieces through this one kernel so that both run the same machine code: 16_balanced_tail.cu,
// tail_pieces): at_entry runs on every thread first; after_barrier (every thread) returns the piece
// the block takes instead; a piece of count 0 means nothing to do; a piece short of its whole tile
// leaves its sums where part_target says instead of in C and then calls settle; at_end follows (the
// compute warps).
struct tile_only {
  struct argument {};
  static constexpr bool whole_tiles_only = true;
  __device__ static void at_start(const argument&) {}
  __device__ static void at_entry(const argument&, const problem&, float*, bool) {}
  __device__ static tile_piece after_barrier(const argument&, int) { return {}; }
  __device__ static void part_target(problem&, float*&, bool&, int&, int&) {}
  __device__ static void settle() {}
  __device__ static void at_end(const argument&) {}
};

template <int BlockK, int Stages, class Besides = tile_only>
__global__ void __launch_bounds__(producer_warp_threads, 1)
    producer_warp_kernel(walked_problem p, const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                         float* c, bool c_vector_ok, const typename Besides::argument besides) {
  using s = engine_shape<BlockK, Stages>;
  // The policy's work at entry (step 16's tail: its plan and piece), before anything is held in
  // registers.
  if constexpr (!Besides::whole_tiles_only) Besides::at_entry(besides, p, c, c_vector_ok);
  extern __shared__ __align__(1024) float ring[];  // the stages (a name of its own: extern arrays share one symbol)
  float* const stages = ring;
  const unsigned stages_address = shared_address(stages);
  const unsigned full = stages_address + s::barriers_at, empty = full + Stages * 8;
  const int slices = static_cast<int>((p.k + BlockK - 1) / BlockK);
  // Block b's whole tile, unless the policy hands out another piece after the barrier.
  tile_piece piece{static_cast<std::int64_t>(blockIdx.x), 0, slices, -1};
  schedule::tile_coordinate tile = tile_for_block(p, piece.tile, tile_m, tile_n);
  int i0 = static_cast<int>(tile.y) * tile_m, j0 = static_cast<int>(tile.x) * tile_n;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;

  if (t == 0) {
    Besides::at_start(besides);
    for (int stage = 0; stage < Stages; ++stage) {
      swath::cuda::init_barrier(full + 8 * stage, 1);
      swath::cuda::init_barrier(empty + 8 * stage, compute_threads);
    }
    swath::cuda::fence_barrier_init();
  }
  __syncthreads();  // the only block barrier of the walk: the mbarriers exist before anyone waits on them
  if constexpr (!Besides::whole_tiles_only) {
    piece = Besides::after_barrier(besides, slices);
    tile = tile_for_block(p, piece.tile, tile_m, tile_n);
    i0 = static_cast<int>(tile.y) * tile_m, j0 = static_cast<int>(tile.x) * tile_n;
  }

  if (warp >= compute_threads / 32) {
    // The producer.
    give_back_registers<producer_registers>();
    if (t != compute_threads) return;
    int stage = 0, round = 0;
    for (int slice = piece.first; slice < piece.first + piece.count; ++slice) {
      fill_next_stage<BlockK, Stages>(stages_address, full, empty, &a_map, &b_map, i0, j0, slice, stage, round);
    }
    return;
  }

  // The compute warps: step 14's loop without thread 0's work.
  take_registers<compute_registers>();
  if constexpr (!Besides::whole_tiles_only) {
    if (piece.count == 0) {
      Besides::at_end(besides);
      return;
    }
  }
  const int row0 = warp / 2 * 64 + lane / 4 * 4, column0 = warp % 2 * 64 + lane % 4 * 4;
  float sum[8][16] = {};
  multiply_slices<BlockK, Stages>(stages, full, empty, piece.count, row0, column0, sum, [](int) {}, [](int) {});
  if constexpr (Besides::whole_tiles_only) {
    store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
  } else {
    // A piece short of its tile leaves its sums where the policy says (part_target), through the same
    // stores as C's, and the policy settles the tile. Both take what they need from the policy's shared
    // memory: other stores here, or values held in registers across the loop for them, moved ptxas's
    // schedule of the loop (docs/journal/gemm.md, step 16 v3).
    const bool whole = piece.count == slices;
    problem target = p;
    float* out = c;
    bool out_vector_ok = c_vector_ok;
    int out_i0 = i0, out_j0 = j0;
    if (!whole) Besides::part_target(target, out, out_vector_ok, out_i0, out_j0);
    store_tile(target, out, out_vector_ok, out_i0, out_j0, row0, column0, sum);
    if (!whole) Besides::settle();
    Besides::at_end(besides);
  }
}

// The kernel on `blocks` blocks (step 15: the first `blocks` tiles in block order, one block each).
// With `dependent`, as the programmatic dependent of the grid before it on the stream: its blocks may
// start while that grid ends, and wait for it where the policy says (step 16).
template <int BlockK, int Stages, class Besides = tile_only>
void launch_producer_warp(const walked_problem& p, const slice_maps& maps, float* c, cudaStream_t stream, unsigned blocks,
                          const typename Besides::argument& besides = {}, bool dependent = false) {
  using s = engine_shape<BlockK, Stages>;
  constexpr auto kernel = producer_warp_kernel<BlockK, Stages, Besides>;
  const int blocks_per_sm = prepare_kernel(kernel, producer_warp_threads, s::shared_bytes);
  (void)blocks_per_sm;
  launch_kernel(kernel, blocks, producer_warp_threads, s::shared_bytes, stream, dependent, p, maps.a, maps.b, c,
                aligned16(c, p.ldc), besides);
}

}  // namespace swath::gemm::cuda
