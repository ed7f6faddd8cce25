// Step 09: step 08's ring at radius 3 and 4, each compute warp computing two output planes a step.
//
// At radius 4 step 08 is bound by the shared-memory pipe (ncu on an H200 at 512^3: 76% busy in
// float, 85% in double, L1/shared 81% and 90%; docs/stencil.md). A step reads, per 16-byte vector of a
// row, 3 vectors of the x window (5 in double), 2r y taps and 2r z taps: 19 loads of 16 bytes at radius
// 4 in float, 76 shared-memory wavefronts per 128 points, plus the copy engine's 8.5 for the box.
// Two output planes z and z + 1 in one step share their z taps: planes z - r ... z + 1 + r are each
// read once for both (the two output planes' own rows come from their x windows), so the step reads
// 2 · 3 (windows) + 2r (the other planes) + 2 · 2r (y taps) = 30 vectors for two planes, 15 a plane
// instead of 19 (double 17 instead of 21; radius 3 in float 12 instead of 15).
// Expected at radius 4: the shared-memory wavefronts per 128 points from 84.5 to 68.5 (0.81x); if
// the pipe stayed the limit at the same busy share, 0.438 -> ~0.36 ms in float at 512^3 on an H200
// (0.58x -> ~0.71x of the copy bandwidth), and double alike. The ring must hold the 2r + 2 planes a
// step reads and a step in flight (12 of the 13 slots that fit at radius 4 with 2 blocks an SM).
//
// Measured (H200, one call, median ms against 08's; docs/stencil.md, step 09): a fifth fewer shared
// loads gave 3-8%, not 19%: radius 4 float 0.412 against 0.438 at 512^3, 0.396 against 0.431 at
// 508 x 509 x 511, double 0.839 and 0.836 against 0.865 and 0.859. Two tile rows a warp as well
// (16-row tiles, one block an SM) did better at radius 3 (float 0.330 against 0.375, double 0.699
// against 0.756) and worse at radius 4 on the ragged grid (0.421), so radius 3 takes that shape and
// radius 4 the one-row shape. Three and four planes a step (one block an SM, one row) were slower
// than 08. Radius 1 and 2 gained nothing (float radius 1 0.274 against 0.275, double 0.552 against
// 0.543): 08 runs them.

#include "tma_planes.cuh"

namespace swath::stencil::cuda {

void plane_pairs(const problem& p, const operands& x, const launch_context& launch) {
  const support fits = aligned_wide_star_3d(p);
  SWATH_EXPECTS(fits.ok(), "plane_pairs: " + std::string(fits.why));
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star && Dims == 3 && R >= 3) {
      // Radius 3: two tile rows a warp (they share their y taps as well), one block an SM for the
      // registers (144 in float). Radius 4: one row, two blocks an SM. Chunks of 8r planes, as 08.
      constexpr int rows = R == 3 ? 2 : 1;
      constexpr int blocks = R == 3 ? 1 : 2;
      tma::run<T, R, rows, 2, blocks>(p, x, launch, 8 * R);
    }
  });
}

}  // namespace swath::stencil::cuda
