// Step 11: stars on step 10's march (plane_march.cuh), for the grids the copy engine cannot take (rows
// that do not start on 16 bytes, periodic boundaries, 2D grids), where the library ran step 07.
// - What changed from 10: the shape is a template parameter, and a star's taps lie on the axes, so
//   once the loops unroll the off-axis taps are skipped at no cost: at radius 1 in 3D a thread's step
//   is 56 FFMAs (2 rows × 4 points × 7 taps) where the box's is 216; the ring, the copies (shifted rows
//   included), the running sums and the stores are step 10's.
// - Against 07 (which reads each of its 2r + 1 planes' values for every output plane): each input plane
//   is read once, its window for the x taps and its centre for the others.
// - Prediction (H200, against the same run's copy bandwidth; before its first run): step 10's box at
//   radius 1 issues ~340 warp instructions a step (216 FFMAs) and reaches 0.78 at 512^3 in float; the
//   star's ~180 should leave it bound by memory, ~0.85 at 512^3 (step 08: 0.92), ~0.5 at 509 x 509 x
//   511 in float (4-byte copies, as 10) against 07's 0.38 and 06's 0.46; 2D 5-point stars at 8192 x
//   4096 ~0.82 against 07's 0.72, at 8191 x 4097 ~0.65 against 07's 0.49 (shifted rows).
// - Outcome (H200, steps 06, 07, 08 and 11 in one run, before the chunk below): 512^3 0.79 in float
//   and 0.82 in double (08: 0.93, 0.95); 509 x 509 x 511 at radius 1 0.46 in float (4-byte copies;
//   06 0.46, 07 0.39) and 0.77 in double (shifted rows; 06 0.60, 07 0.42); periodic 512^3 0.78 and
//   0.81 (07: 0.53, 0.51); 2D 8192 x 4096 0.79 (07: 0.71), 8191 x 4097 0.63 (07: 0.50), 16383 x 8193
//   0.78 in float and 0.85 in double (07: 0.51, 0.65). Radius 2 in 3D lost to one-wave chunks at
//   ragged widths (508 wide 0.794 ms against 0.390 at 512^3): 16-plane chunks took it to 0.466. Radius
//   3-4 in 2D (the ring's plain march) trail 07 by 3-13%. The library runs it for the stars the copy
//   engine cannot take at radius 1-2, 3D floats at radius 3 and doubles at radius 4 (509 wide at radius
//   1 in double: 0.650 ms against 07's 1.210). docs/journal/stencil.md, "Step 11: star planes".

#include "plane_march.cuh"

namespace swath::stencil::cuda {

void star_planes(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.form == shape::star, "star_planes: star stencils only (boxes run on step 10)");
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star) run_instance<T, R, Dims, shape::star>(p, x, launch);
  });
}

}  // namespace swath::stencil::cuda
