// CUDA step 10: a three-stage pipeline of cp.async copies from global straight into shared memory,
// 256 × 128 block tiles of 8 warps, an 8 × 16 micro-tile a thread.
// - What changed from 09: no staging registers (so 128 accumulators fit), slices copied two ahead;
//   deep-major operands in 16-byte pieces where aligned, wide-major ones float by float (transposed on
//   the way, conflict-free pitch); copies past the matrix's edge fill zeros, so edges cost nothing in
//   the loop; the next depth's fragments are read across slice boundaries. The shape is the fastest of
//   twelve measured.
// - Prediction: ≈ +5% over 09 at 4096³ and 8192³ (≈ 0.97x cuBLAS), 4095³ from 0.81x to ≈ 0.95x.
// - Outcome (H200): the first version was 5-8% slower; with cross-slice fragment reads and row-inner
//   FMAs, 0.95x cuBLAS at 4096³, 0.96x at 8192³, 0.96x at 4095³. Every version: docs/journal/gemm.md.
//   Since (H200, 1535³-4096³): a fourth stage ran within 0.5% of three, 16-deep slices 2-10% slower.
#include "async_pipeline.cuh"

namespace swath::gemm::cuda {

void async_pipeline(const problem& p, const operands& x, const launch_context& launch_on) {
  launch_one_tile_per_block<256, 128, 8, 16, 3>(p, x, launch_on);
}

}  // namespace swath::gemm::cuda
