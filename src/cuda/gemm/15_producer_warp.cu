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
#include "producer_warp.cuh"

namespace swath::gemm::cuda {
namespace {

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, cudaStream_t stream) {
  const slice_maps maps = slice_maps_of<BlockK>(p, x, stream);
  launch_producer_warp<BlockK, Stages>(p, maps, x.c, stream, blocks_for_tiles(p, tile_m, tile_n));
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
