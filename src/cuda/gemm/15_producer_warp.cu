// CUDA step 15: a producer warpgroup feeds the stages; the eight compute warps only read, multiply
// and release.
//
// Step 14's thread 0 both computes and feeds the copy engine: twice a slice it asks whether a stage is
// free to refill and, when one is, arms the stage's "full" mbarrier and asks for two boxes; at the end
// of a slice it makes sure the next slice was asked for. Those paths are in the unrolled slice loop
// of every warp (the other warps branch around them), and warp 0 runs them. In step 14's SASS the
// 32-deep slice is 4487 instructions: 4096 FFMA, 192 LDS, and 199 others, of which ~120 are thread
// 0's three refill paths (warp 0 only) and ~50 the branches and bookkeeping around them that every
// warp runs. Warp 0 shares scheduler 0 with warp 4, so scheduler 0 issues ~1.4% more than the others
// a slice, and with the stages shared by all eight warps the block moves at its pace.
//
// Here a third warpgroup feeds the stages (one thread of it works): it waits on a stage's "empty"
// mbarrier, arms its "full" one and asks for the boxes, slice after slice. The compute warps ask early
// whether the next stage has landed (as step 14), arrive on "empty" after their last read of a stage,
// and nothing else. Without thread 0's paths a slice's bookkeeping is a few instructions, so slices
// can be short: 16 deep, in 8 stages of 24 KiB (step 14's 32-deep slice is 70 KB of unrolled code, and
// missed the instruction cache: 0.20 "no instruction" stalls per issued instruction).
//
// The producer needs its own warpgroup for the registers. A sub-partition's register file (16384)
// holds the warps it schedules: with a ninth warp, one sub-partition has three, and ptxas caps every
// thread at 168 registers; the compute warps need ~185-230. With three warpgroups (384 threads) the
// kernel starts at 168 (65536 / 384, in eights) and setmaxnreg (sm_90a) moves them: the producer keeps
// 24, the compute warps take 240 (a sub-partition: one producer warp at 24 and two compute warps at
// 240, 16128 registers).
//
// Prediction (before the first run; SASS counted here, nvcc 13.0 for sm_90a, 168 registers at entry,
// the compute warps' code within 185): the 32-deep slice is 4335 instructions (4096 FFMA, 192 LDS, 47
// others) for every warp, against step 14's ~4367 for warps 1-7 and ~4487 for warp 0. Scheduler 0's
// extra 1.4% goes, and 0.7% of every warp's: at step 14's issue rate the loop runs 1.5-2% faster,
// 8192³ 1.005x → ~1.02x cuBLAS on the H200 (~1.01x on the H100), 4096³ 0.96x → ~0.975x. The 16-deep
// slice (2191 instructions, 35 KB of code) and the 8-deep one (1119, 18 KB) take 94 and 188
// bookkeeping instructions per 32 depths against 47; if step 14's 0.20 "no instruction" stalls go with
// the shorter code and no others take their place, up to ~5% more, else 1-2% less. The persistent
// form saves a tile's start (block launch and the first boxes' latency, 5-15 µs of step 14's ~18 µs a
// tile not spent in the loop): 4096³ up to −1.5%, 8192³ up to −0.7%.
//
// Outcome (H100, four calls, step 14 and cuBLAS in each; docs/gemm.md, step 15): the 32-deep slice
// with the producer warpgroup ran 2.6% faster than step 14 at 4096³ and 3.0% at 8192³, above the
// prediction; 16-deep slices 6.3% and 4.7% (2.612 and 20.37 ms in 8 stages: 1.018x and 1.046x cuBLAS).
// 8-deep slices and 12- and 24-deep ones lost to 16, and the stage count (4-9) moved nothing beyond
// 0.5%. The persistent form lost to one block a tile at 16 deep (2.637 and 20.64 ms). op(A) read as
// stored (no rewrite; rows of 16 depths with the copy engine's 64-byte swizzle, a lane's 8 rows read 4
// depths at a time) was correct and 9% slower: a lane's 8 values of one depth then sit in registers 4
// apart, in one register bank; the FMA order with B inner recovered half of the 19% that rows inner lost.
#include <string>

#include "../core/bulk_copy.cuh"
#include "copy_engine.cuh"

namespace swath::gemm::cuda {
namespace {

using swath::cuda::arrive;
using swath::cuda::arrive_expecting;
using swath::cuda::fence_barrier_init;
using swath::cuda::init_barrier;
using swath::cuda::phase_complete;
using swath::cuda::tensor_load_2d;
using swath::cuda::wait_phase;

// Warpgroups 0-1 compute (step 14's 8 warps and lanes), warpgroup 2 feeds the stages.
constexpr int compute_threads = 256, threads = compute_threads + 128;
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

template <int BlockK, int Stages>
__global__ void __launch_bounds__(threads, 1)
    producer_warp_kernel(problem p, const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                         float* c, bool c_vector_ok) {
  using s = engine_shape<BlockK, Stages>;
  extern __shared__ __align__(1024) float stages[];
  const unsigned stages_address = shared_address(stages);
  const unsigned full = stages_address + s::barriers_at, empty = full + Stages * 8;
  const schedule::tile_coordinate tile = tile_for_block(p, blockIdx.x, tile_m, tile_n);
  const int i0 = static_cast<int>(tile.y) * tile_m, j0 = static_cast<int>(tile.x) * tile_n;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int slices = static_cast<int>((p.k + BlockK - 1) / BlockK);

  if (t == 0) {
    for (int stage = 0; stage < Stages; ++stage) {
      init_barrier(full + 8 * stage, 1);
      init_barrier(empty + 8 * stage, compute_threads);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the only block barrier: the mbarriers exist before anyone waits on them

  if (warp >= compute_threads / 32) {
    // The producer. Round r of a stage is refilled once the compute warps have released round r - 1,
    // the "empty" phase of parity (r - 1) & 1.
    give_back_registers<producer_registers>();
    if (t != compute_threads) return;
    int stage = 0, round = 0;
    for (int slice = 0; slice < slices; ++slice) {
      if (round > 0) wait_phase(empty + 8 * stage, (round - 1) & 1);
      const unsigned a_panel = stages_address + static_cast<unsigned>(stage) * s::stage_bytes;
      arrive_expecting(full + 8 * stage, s::stage_bytes);
      tensor_load_2d(a_panel, &a_map, i0, slice * BlockK, full + 8 * stage);
      tensor_load_2d(a_panel + s::a_floats * 4, &b_map, j0, slice * BlockK, full + 8 * stage);
      if (++stage == Stages) stage = 0, ++round;
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

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, cudaStream_t stream) {
  using s = engine_shape<BlockK, Stages>;
  SWATH_EXPECTS(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff - BlockK,
                "gemm step 15: the copy engine's coordinates are 32-bit");
  const operand_view a = view_of_a(p, x.a), b = view_of_b(p, x.b);
  const CUtensorMap a_map = slices_of(deep_major_of(a, 0, stream), p.m, p.k, tile_m, BlockK);
  const CUtensorMap b_map = slices_of(deep_major_of(b, 1, stream), p.n, p.k, tile_n, BlockK);
  constexpr auto kernel = producer_warp_kernel<BlockK, Stages>;
  static const int blocks_per_sm = prepare_kernel(kernel, threads, s::shared_bytes);
  (void)blocks_per_sm;
  kernel<<<blocks_for_tiles(p, tile_m, tile_n), threads, s::shared_bytes, stream>>>(p, a_map, b_map, x.c,
                                                                                     aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace

// Where step 14's rule sends a problem to the copy engine (tma=auto|on|off), this kernel; else step 13.
void producer_warp(const problem& p, const operands& x, const launch_context& launch_on) {
  if (copy_engine_chosen(p, x, launch_on)) {
    // 16-deep slices in 8 stages of 24 KiB: the fastest of the shapes timed (8-32 deep, 3-12 stages;
    // docs/gemm.md, step 15), within 0.5% of 4-9 stages.
    launch<16, 8>(p, x, stream_of(launch_on));
  } else {
    wave_fitted_tiles(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
