// Step 04 (GPU iterated stencil): step 02's temporal blocking for 3D stars, with the march's bookkeeping
// taken out of the loop. ncu put step 02 at about 64 instructions a column-sweep where a 7-point star's
// taps need 11 (4 shared loads, 7 FMAs): each sweep's plane range, the queue shifts, the boundary's tests
// and the store's conditions ran at every step of every sweep, for a depth known only at run time.
//
// Here everything the march decides once is decided once:
// - the pass depth L is a template parameter: every sweep's loop is unrolled, its ranges constants;
// - the z queues rotate by renaming: the march is unrolled by the queue's length 2r + 1, so each plane
//   stays in its register and the slot of "sweep s's plane z" is a constant of the unrolled step;
// - a block takes one of two paths, chosen once: whether its tile crosses an x-y face (the boundary's
//   neighbours, precomputed per thread, and the columns outside the grid); and each group of steps
//   one of two, whether a sweep in it may meet a z face (the planes below 0 and past the top). Most
//   steps of most blocks test nothing but the store's plane;
// - the loads and stores advance 64-bit plane offsets instead of multiplying z by the plane's stride;
// - a sweep's range needs no test in the middle: a sweep computed below or above its valid planes only
//   feeds planes of later sweeps that are themselves invalid and never stored;
// - warps whose rows the sweep does not need skip it: sweep τ is right only τ r rows in from the tile's
//   edge, so its warps outside those rows idle through it (at L = 4, r = 1, 108 of 128 row-sweeps run);
// - each thread owns two rows of its column (32 x 16 threads over the 32 x 32 tile), so the barrier,
//   the loads' addresses and the plane's bookkeeping are shared by two points, and each row's y tap
//   towards the other comes from a register.
//
// Prediction (H100, 512^3 float, 7-point, T = 64, L = 4): a column-sweep costs about 2 shared stores
// and 6 loads and 14 FMAs for two points, plus the barrier and a dozen instructions of bookkeeping:
// about 18 instructions a point where step 02 spent 64. The tile keeps 24^2 of 32^2 columns and its
// warps compute 27 of 32 rows on average: 1.5 point-sweeps computed per point-sweep kept, and 6% more
// for the chunks' overlapping z ranges. At 0.8 warp-instructions a scheduler a clock (two 512-thread
// blocks an SM), 1.75 GHz: 132 x 4 x 0.8 x 1.75e9 x 32 / (18 x 1.5 x 1.06) = 0.83 T point-sweeps/s, 2.2x
// the single-sweep roofline of 377 G/s (DRAM allows 4x at L = 4), about 1.6x the H200's 529 G/s.
// Double: half the FMA rate and twice the shared bytes, about 1.8x of its own roofline (188 G/s on an
// H100). Radius 2 in float at L = 3: 1.5x.
// Outcome (H200, copy 4234 GB/s: a roofline of 529 G/s): first 487 G/s at L = 3 (0.92x, T sweeps
// 0.93x), ncu 42.6 instructions a kept point-sweep, a third of them 64-bit address arithmetic; with the
// plane offsets and the face tests confined to the steps near a face, 564 G/s at L = 3 and 583 at L = 4:
// 1.10x the roofline, 1.19x T sweeps (double 1.13x, 1.20x). The library takes it for 3D 7-point stars.
// docs/journal/stencil.md, "Iterated sweeps on the GPU: steps 04 and 05".
#include "unrolled_march.cuh"

namespace swath::stencil::cuda {
namespace {

struct unrolled_step : march::unrolled_kernels<two_row_layout> {
  static constexpr const char* name = "iterate step 04";
};

}  // namespace

void unrolled_march(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  march::run<unrolled_step>(ip, x, launch);
}

}  // namespace swath::stencil::cuda
