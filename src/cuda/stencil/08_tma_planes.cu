// Step 08: step 07's tile, each plane brought into shared memory by the copy engine (TMA), one warp
// feeding eight that compute, with no block barrier. 3D stars, radius 1-4, float or double, clamp, copy
// and constant; rows a whole number of 16-byte vectors apart (pitch=lines makes any width so).
// - What changed from 07: one producer thread asks for each plane's tile as one box into a ring slot;
//   compute warps wait only on the newest plane's mbarrier and free the oldest by arriving; up to radius
//   2 a warp computes two rows. Halo columns of a whole line, short z-chunks, split rows for widths of
//   an odd number of 16 bytes, aligned stores, tile rows in wave groups.
// - Prediction: ~60 warp instructions per 128 points at radius 1, so DRAM-bound.
// - Outcome (H200): the first form 0.74x of the copy bandwidth (137 instructions); with two rows a warp,
//   short chunks and line-aligned boxes 0.93x float, 0.94x double; H100 gate 0.974x / 0.977x at 512^3.
// - The kernel, ring and boundary rules are in tma_ring/, shared with step 09; the whole story:
//   docs/journal/stencil.md, step 08.

#include "tma_ring/dispatch.cuh"

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
      // (docs/journal/stencil.md). The resident blocks (~3 rows of chunks at 512^2) then span fewer planes, so the
      // halo rows and the 2r planes each chunk re-reads are more likely still in the L2 when a neighbour
      // or the next chunk reads them; longer chunks let blocks drift further apart in z. They lost on a
      // plane wider than one wave of blocks too (2048 x 1100 x 1000, 200-plane chunks: 5.32 ms against
      // 5.08 in float; docs/journal/stencil.md, "Grids beyond 2^31 points"). 6r was chosen on an H200; where the
      // DRAM is slow beside the SMs (an H100) 5r ran faster: radius 1 at 512^3 96.5% -> 97.4% of the copy
      // bandwidth in float and 97.0% -> 97.8% in double, radius 2 in float 93.8% -> 95.2%, at 1000 x 700
      // x 300 and 2048 x 1100 x 160 radius 1 by 0.7-1.4 points; radius 2 there lost 0.05-0.4 (H100, the
      // chunk trials in docs/journal/stencil.md). On the H200 5r lost 0.8-1.1 points to 6r.
      const int per_radius = tma::dram_slow_beside_sms() ? 5 : 6;
      tma::run<T, R, tma::ring_policy{.rows = rows, .planes = 1, .blocks = blocks}>(p, x, launch, R <= 2 ? per_radius * R : 8 * R);
    }
  });
}

}  // namespace swath::stencil::cuda
