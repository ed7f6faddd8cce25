// Step 06 (GPU iterated stencil): step 04's march with four rows a thread (32 x 8 threads over step
// 04's 32 x 32 tile; layout four_row_layout, iterate.hpp).
//
// Step 04 is bound by issue, not memory (ncu: 2.7-2.8 warp-instructions a clock of 4, DRAM a third
// busy). Per thread and sweep it pays about a dozen instructions its rows share (the barrier, the
// plane's store address, the queue's bookkeeping, the reach test), and the y taps that leave its rows
// come from shared memory: with two rows 2 of its 4 y taps, with four 2 of 8. The queues' registers a
// point stay those of step 04 (4 L (2r + 1) a thread of 128 at two 256-thread blocks an SM, where step
// 04 holds 2 L (2r + 1) of 64 at two 512-thread blocks), so the depths compiled are the same.
//
// Prediction (the model, march_depth_of: 13.5 instructions a computed point-sweep against step 04's 17;
// first written for a 32 x 64 tile, 1.48 computed per kept point-sweep against 1.56): at 512^3, float,
// r = 1, L = 4, T = 64 on an H200, about 1.2x step 04, 1.3x the single-sweep roofline. Risk: half the
// warps an SM (16 against 32), so the barriers idle more of them.
// Outcome (H200, T = 64, the same run as step 04): slower, as the risk said.
// - First layout, 32 x 16 threads over 32 x 64 at one block an SM: 511 G point-sweeps/s against step
//   04's 582 (0.88x; double 0.93x). ncu (a pass of L = 2): 12% fewer instructions than step 04, but
//   2.22 issued a clock at 25% occupancy: every barrier drained the SM.
// - This layout, 32 x 8 threads over 32 x 32, two blocks an SM: 556 against 585 (0.95x, L = 4 the
//   fastest of 3-5). ncu at L = 2 against step 04: 5% fewer instructions (325 M against 342 M), issue
//   2.35 a clock against 2.72 (1.0 eligible warp a scheduler against 2.0).
// So the rows a thread were not what bounds step 04: the bookkeeping they share is a small part of its
// instructions, and the warps they cost are worth more. Registered as measured; the library keeps
// step 04. docs/journal/stencil.md, "Step 06: four rows a thread".
#include "unrolled_march.cuh"

namespace swath::stencil::cuda {
namespace {

struct four_row_step : march::unrolled_kernels<four_row_layout> {
  static constexpr const char* name = "iterate step 06";
};

}  // namespace

void four_row_march(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  march::run<four_row_step>(ip, x, launch);
}

}  // namespace swath::stencil::cuda
