// Step 10: boxes, each input plane's taps summed once into the 2r + 1 output planes it feeds. Box
// stencils, radius 1-4, 2D or 3D, float or double, every boundary and row pitch.
// - What changed from 06 (which ran every box until now): step 07's ring of planes, 16 bytes a thread,
//   and the plane's taps turned around. 06 computed each output point from its (2r + 1)^3 taps, one
//   4-byte shared load each (27 a point at radius 1). Here a thread holds, for each of its rows, the
//   running sums of the 2r + 1 output planes z - r ... z + r that input plane z feeds. When plane z
//   lands, the thread reads each of its rows' windows in that plane once (the rows ± r, its 4 floats
//   and r each side) and adds every weight of the plane's offset dz = z - z' into sum z'. After plane
//   z, output plane z - r has all its taps: it is stored, and the sums move down one. Each input plane
//   is read once from shared memory, three 16-byte or narrower loads a row, where 06 read it (2r + 1)
//   times a point; the ring holds the newest plane, the one r below it (boundary=copy's own values)
//   and those in flight. In 3D two output rows a thread up to radius 2 (their input rows shared), one
//   from radius 3 (registers).
// - Prediction (H200, 512³ float, radius 1, copy bandwidth ~4250 GB/s): 06 runs at 0.33 of the copy
//   bandwidth. A thread's step is ~216 FFMAs (27 taps × 8 points), 12 shared loads, ~3 copies (4
//   issue slots each), a barrier and ~20 bookkeeping instructions: ~260 warp instructions a step for
//   256 points. At 0.9 of the copy bandwidth (479 G points a second) that is 487 G warp instructions
//   a second, 47% of the SMs' 1045 G issue slots. So DRAM, not issue, should bound it: ~0.8-0.9 of the
//   copy bandwidth (2.5x 06). Double: 27 DFMAs a point at half the FP32 rate, the same share of
//   issue per byte; ~0.8x. Radius 2 (125 taps) ~0.45-0.55x, bound by the FMA rate: 125 × 479 G = 60
//   T FMAs a second would be twice the H200's 30 T.
// - Outcome (H200, against 06 in the same run): 512³ radius 1 0.65 of the copy bandwidth in float
//   (1.98x 06), 0.77 in double (1.81x): short of the prediction, bound by neither DRAM nor the FMA
//   units (29% busy): ~440 warp instructions a step where ~260 were counted, and a one-wave grid's tail
//   (ncu). 3D radius 2-4 1.9-3.2x 06, at 52-61% of the FMA peak in float.
//   3D float at 508 × 509 × 511 0.93x 06 (the last tile column copies element by element) and 2D
//   double at radius 1 0.86-0.90x. docs/journal/stencil.md, "Step 10: box planes".
// - v2, the lean march (plane_copies in plane_march.cuh; 2D at radius 1-2 and 3D floats at radius 1): the faces in
//   x and y resolved once into each piece's offset within a plane, a plane pointer moved on a step, a
//   store pointer likewise, inner tiles compiled apart, and z-chunks of 16 planes (3D) or 32 rows (2D).
//   Predicted from the SASS (~440 -> ~320 instructions a step at radius 1 in float): 512^3 in float
//   0.387 -> 0.30-0.33 ms, 508 x 509 x 511 near 512^3's time. Outcome (H200): 512^3 0.325 ms (0.78 of
//   the copy bandwidth; ncu ~340 a step), 508 x 509 x 511 0.391 (0.819 before, 1.95x 06), 2D at 8192^2
//   0.82 (float) and 0.84 (double) from 0.72 and 0.74. At radius 2 in 3D its offsets and pointers
//   spilled and ran 4-5% slower: those keep the ring's copies and stores. 3D doubles at radius 1 spilled
//   too at 3 blocks an SM (0.746 ms against 0.653); at 2, 0.624 (0.81). docs/journal/stencil.md, "Step
//   10 v2".
// - v3, shifted rows (shifted_copies, shifted_window, store_across_warp): on rows that do not all start
//   on 16 bytes (odd widths) every copy was 4 bytes and every store too. Now a tile row is copied as
//   the grid's 16-byte vectors around it, read m places right, and stored as the output's vectors.
//   Predicted: 8191 x 4097 at radius 1 in float 0.54 -> ~0.74 of the copy bandwidth (the inner tile
//   columns at the aligned grids' speed). Outcome (H200): 0.62 (its first and last tile columns, 2 of
//   16, test each vector); 16383 x 8193 0.58 -> 0.77 in float (8192 x 4096: 0.78), 0.79 -> 0.84 in
//   double; 3D doubles at 509 wide 0.61 -> 0.69. The stores were half of it: with element-by-element
//   stores 8191 x 4097 ran at 0.43-0.45 (ncu: 2.6x the L2 sectors written). 3D floats ran slower
//   (0.38-0.42 against 0.43) and keep 4-byte copies. docs/journal/stencil.md, "Step 10 v3".
// - Chunks from radius 2 in 3D (with step 11, which shares the march): the one-wave chunks these kinds
//   kept held every SM to the last tile column's time at ragged widths; 32 planes took the radius-2 box
//   at 508 x 509 x 511 from 1.260 to 1.030 ms in float (512^3 level). docs/journal/stencil.md, "Step 11:
//   star planes".


#include "plane_march.cuh"

namespace swath::stencil::cuda {

void box_planes(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.form == shape::box, "box_planes: box stencils only (stars run on steps 07-09 and 11)");
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::box) run_instance<T, R, Dims, shape::box>(p, x, launch);
  });
}

}  // namespace swath::stencil::cuda
