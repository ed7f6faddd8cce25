#pragma once
// Step 15's kernel: a producer warpgroup feeds the copy engine's stages, the eight compute warps only
// read, multiply and release. Step 16 launches it for its full waves of whole tiles. Why it is as it
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

// What a block does besides its tile, at its start (thread 0, before the block barrier) and after the
// block barrier (every thread): nothing in step 15; step 16 records where and when it started and lets
// its tail launch (16_balanced_tail.cu, record_start).
struct tile_only {
  __device__ static void at_start() {}
  __device__ static void after_barrier() {}
};

template <int BlockK, int Stages, class Besides = tile_only>
__global__ void __launch_bounds__(producer_warp_threads, 1)
    producer_warp_kernel(problem p, const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                         float* c, bool c_vector_ok) {
  using s = engine_shape<BlockK, Stages>;
  extern __shared__ __align__(1024) float ring[];  // the stages (a name of its own: extern arrays share one symbol)
  float* const stages = ring;
  const unsigned stages_address = shared_address(stages);
  const unsigned full = stages_address + s::barriers_at, empty = full + Stages * 8;
  const schedule::tile_coordinate tile = tile_for_block(p, blockIdx.x, tile_m, tile_n);
  const int i0 = static_cast<int>(tile.y) * tile_m, j0 = static_cast<int>(tile.x) * tile_n;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int slices = static_cast<int>((p.k + BlockK - 1) / BlockK);

  if (t == 0) {
    Besides::at_start();
    for (int stage = 0; stage < Stages; ++stage) {
      swath::cuda::init_barrier(full + 8 * stage, 1);
      swath::cuda::init_barrier(empty + 8 * stage, compute_threads);
    }
    swath::cuda::fence_barrier_init();
  }
  __syncthreads();  // the only block barrier: the mbarriers exist before anyone waits on them
  Besides::after_barrier();

  if (warp >= compute_threads / 32) {
    // The producer.
    give_back_registers<producer_registers>();
    if (t != compute_threads) return;
    int stage = 0, round = 0;
    for (int slice = 0; slice < slices; ++slice) {
      fill_next_stage<BlockK, Stages>(stages_address, full, empty, &a_map, &b_map, i0, j0, slice, stage, round);
    }
    return;
  }

  // The compute warps: step 14's loop without thread 0's work.
  take_registers<compute_registers>();
  const int row0 = warp / 2 * 64 + lane / 4 * 4, column0 = warp % 2 * 64 + lane % 4 * 4;
  float sum[8][16] = {};
  multiply_slices<BlockK, Stages>(stages, full, empty, slices, row0, column0, sum, [](int) {}, [](int) {});
  store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
}

// The first `blocks` tiles in block order, one block each.
template <int BlockK, int Stages, class Besides = tile_only>
void launch_whole_tiles(const problem& p, const slice_maps& maps, float* c, cudaStream_t stream, unsigned blocks) {
  using s = engine_shape<BlockK, Stages>;
  constexpr auto kernel = producer_warp_kernel<BlockK, Stages, Besides>;
  static const int blocks_per_sm = prepare_kernel(kernel, producer_warp_threads, s::shared_bytes);
  (void)blocks_per_sm;
  kernel<<<blocks, producer_warp_threads, s::shared_bytes, stream>>>(p, maps.a, maps.b, c, aligned16(c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
