// Step 08 (GPU iterated stencil): 3D stars, step 07's strips stacked in y, one barrier a step.
//
// What changed from steps 04-06 (issue- and barrier-bound, one point a thread, a barrier a sweep):
// - a block of 16 warps owns a tile of 128 columns (64 in double: a 16-byte vector a thread) by 32 rows
//   and marches it along z, each warp 2 rows of the strip (stack_layout_of, iterate.hpp);
// - sweep τ computes plane s - τ r at step s from sweep τ - 1's plane in a ring of shared memory (the
//   thread's rows and r each side: centre and y taps; x taps by shuffles), the r planes below in
//   registers and the plane above from sweep τ - 1's result of this step; a ring of r + 1 slots a sweep
//   lets one barrier a step serve all L sweeps; the input is copied ahead by cp.async;
// - the march is unrolled until every slot is a constant (shared addresses: a base plus immediates);
// - tiles at the grid's faces are moved into it (tile_kind::face), other grids' tiles hold the
//   boundary's value outside it (tile_kind::outside); periodic grids are not taken.
// Prediction (H100, 512^3 float, 7-point, T = 64, L = 4): 8.5 instructions a computed point-sweep, 0.64
// of them kept (tile and z chunks): 4x the roofline by issue at 0.7 of its rate, 3.6x by the shared
// memory pipe; expect 2.5-3.5x (step 04: 1.52x), double about 2.5x (1.55x), radius 2 about 1.7x.
// Outcome (same runs as steps 01 and 04): 2.12x (10.75 ms), double 2.38x, radius 2 (L = 2) 0.99x. The
// SASS has 9.2 instructions a point-sweep (face tiles 12.3); ncu: 4 warps a scheduler issuing every 7.3
// cycles, stalled on the MIO queue (loads, shuffles) and their results. Own rows from registers and 8
// warps of 4 rows were no faster. docs/journal/stencil.md, "Step 08: stacked strips".
#include "stacked_strips.cuh"

namespace swath::stencil::cuda {

void stacked_strips(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  run_passes(ip, x, launch, stack_depth_of(ip, launch), [&](const void* source, void* target, int depth) {
    SWATH_EXPECTS(p.dims == 3 && p.form == shape::star && (p.radius == 1 || p.radius == 2) && p.edge != boundary::periodic,
                  "iterate step 08: 3D stars of radius 1 and 2, boundary other than periodic");
    march::with_star_pass<stack_depth_limit>(p, depth, "iterate step 08", [&]<class T, int R, int L>() {
      stack::run_stack_pass<T, R, L>(p, source, target, launch);
    });
  });
}

}  // namespace swath::stencil::cuda
