// Step 08: step 07's tile, each plane brought into shared memory by the copy engine (TMA), one warp
// feeding eight that compute, with no block barrier. 3D star stencils, radius 1-4, float or double,
// boundaries clamp, copy and constant; rows a whole number of 16-byte vectors apart (the copy engine's
// row pitch must be a multiple of 16 bytes: a width that is a multiple of 4 floats or 2 doubles, or
// any width in a pitched grid, pitch=lines).
//
// Step 07 left per-plane fixed costs as the limit (docs/stencil.md): each thread issued its own
// 16-byte cp.async per tile row piece (4 issue slots each: the compiler pads every LDGSTS with three
// predicated-off shared loads), and every plane every warp met at cp.async.wait_group and a block
// barrier (24% and 19% of the stalls). Here (the ring in tma_planes.cuh):
//  - one thread of a ninth warp (the producer) asks the copy engine for each plane's whole tile, as
//    one box of a 3D tensor map, landing in a ring slot and completing that slot's mbarrier;
//  - the eight compute warps wait only on the barrier of the newest plane they read, and free the
//    oldest by arriving on its "empty" barrier: no block barrier, no copy instructions.
//  - up to radius 2 each compute warp computes two tile rows (16-row tiles): the rows share their
//    y taps (a row's neighbour is the other's centre) and the per-plane wait and arrive, and the
//    y halo is 2r rows per 16 instead of per 8. Radius 3 and 4 keep one row (registers).
// Expected at radius 1 in float, one row per warp: ~7 shared loads, 28 FMAs, one 16-byte store, a
// barrier test and an arrive, ~60 warp instructions per 128 points against the ~250 that 4 issue
// slots per SM-clock allow at 0.95x the copy bandwidth, so DRAM should limit. Measured on an H200:
// 0.74x of the copy bandwidth (07: 0.63x), ncu: 137 warp instructions per 128 points, 59% issue
// active, 46% of stalls long scoreboard (here: the mbarrier wait), DRAM reads 1.45x the input (no
// L2 promotion: 1.26x, the same time). Two rows per warp: 0.76x float, 0.80x double; short
// z-chunks (below): 0.80x and 0.81x; halo columns of a whole 128-byte line, so that the box's
// rows start on a line (tma::config::pad), and 6-plane chunks: 0.93x and 0.94x. A ragged width whose
// rows are an odd number of 16 bytes (508 floats) starts every other row mid-sector; those grids'
// planes come as two boxes, the rows of either parity, each starting on a sector ("split rows" in
// tma_planes.cuh): 508 x 509 x 511 in float, radius 1 0.297 -> 0.283 ms, radius 2 0.314 -> 0.300.
// Their rows that start mid-sector are then computed and stored a vector to the left, so that each
// warp's store is whole sectors (tma_planes.cuh, AlignedStores): on an H100, radius 1 0.3744 -> 0.3717 ms.
// Where a plane's tiles exceed a wave (radius 3-4 in double: 512 tiles of 8 rows at 2 blocks an SM), the
// tile rows go in groups whose z-chunks run in turn (tma_planes.cuh; 09 v7): double radius 3 at 512^3 on an
// H100 0.881 -> 0.824 ms, radius 4 0.941 -> 0.891.
//
// The kernel, its ring and its boundary rules are in tma_planes.cuh, shared with step 09.

#include "tma_planes.cuh"

namespace swath::stencil::cuda {

void tma_planes(const problem& p, const operands& x, const launch_context& launch) {
  const support fits = aligned_star_3d(p);
  SWATH_EXPECTS(fits.ok(), "tma_planes: " + std::string(fits.why));
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star && Dims == 3) {
      // Two tile rows a warp up to radius 2, one from radius 3 (registers); blocks per SM as the
      // registers and the ring allow.
      constexpr int rows = R <= 2 ? 2 : 1;
      constexpr int blocks = R == 1 ? 3 : 2;
      // Short z-chunks, not the few long ones plan_marching picks to fill one wave. Measured at 512^3
      // in float with the line pad: 6-plane chunks at radius 1 (0.273 ms against 0.289 with 16), 12 at
      // radius 2 (0.289 against 0.296), 8r from radius 3, whose 2r re-read planes weigh more
      // (docs/stencil.md). The resident blocks (~3 rows of chunks at 512^2) then span fewer planes, so the
      // halo rows and the 2r planes each chunk re-reads are more likely still in the L2 when a neighbour
      // or the next chunk reads them; longer chunks let blocks drift further apart in z. They lost on a
      // plane wider than one wave of blocks too (2048 x 1100 x 1000, 200-plane chunks: 5.32 ms against
      // 5.08 in float; docs/stencil.md, "Grids beyond 2^31 points"). 6r was chosen on an H200; where the
      // DRAM is slow beside the SMs (an H100) 5r ran faster: radius 1 at 512^3 96.5% -> 97.4% of the copy
      // bandwidth in float and 97.0% -> 97.8% in double, radius 2 in float 93.8% -> 95.2%, at 1000 x 700
      // x 300 and 2048 x 1100 x 160 radius 1 by 0.7-1.4 points; radius 2 there lost 0.05-0.4 (H100, the
      // chunk trials in docs/stencil.md). On the H200 5r lost 0.8-1.1 points to 6r.
      const int per_radius = tma::dram_slow_beside_sms() ? 5 : 6;
      tma::run<T, R, rows, 1, blocks>(p, x, launch, R <= 2 ? per_radius * R : 8 * R);
    }
  });
}

}  // namespace swath::stencil::cuda
