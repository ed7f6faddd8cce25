// CUDA step 22: step 17 with K's parts added by the last split of each tile to arrive, in the same
// launch (split_k.cuh, add_parts_if_last).
// - What changed from 17: step 17's splits end with a second launch, sum_parts, that reads every part
//   back and writes C. Where a product takes 10-40 µs that pass is a large share: 256³ on the H200 ran
//   step 17's kernel in 10.8 µs and the pass in 3.5 (ncu), with the stream's gap between the two
//   launches on top; 767³ 38-40 and 6-10. Here each split stores its part, counts its arrival on the
//   tile's counter, and the last to arrive reads the parts back from L2 and stores C's tile: one launch,
//   the adds in split order as in sum_parts (the same bits every run, whichever split is last), and a
//   tile's parts read by one block while the other tiles still compute.
// - Settings: fit and splits as step 17's (one split: step 17 runs it, there is nothing to add).
// - Prediction (H200, the stream held so the GPU's time is timed, against step 17 at the same tile and
//   splits): 256³ in 8 splits 11.3 → ~9 µs (the pass and one launch gap gone, the last block's reads
//   of 8 parts ~1 µs), 255³-512³ 10-20% faster, 767³ and 768³ in 7 splits 34 → ~30 µs; nothing with
//   one split moves.
// - Outcome (H200, 7551cf4, held timing, every op at 255³-768³ and 32³-128³): slower than step 17 at
//   every shape and setting, 1.17-1.54x at each shape's best: 256³ nn 128 × 64 in 8 splits 11.5 →
//   18.6 µs, in 2 splits 15.8 → 18.2; 256 × 128 in 8 splits 15.6 → 33.5; 768³ in 7 splits 33.6 →
//   48.6. The pass it removes ran on every SM; here a tile's adding falls on one block, which reads
//   splits × the tile (256 × 128 in 8 splits: 1 MB) at one SM's share of L2 bandwidth (~60-120 GB/s:
//   8-17 µs, measured +18), after the tile's other splits have finished. Not profiled. The tuner
//   no longer times it (since 2fe5b20); kept as the measured answer (docs/journal/gemm.md, step 22).
#include <algorithm>

#include "split_k.cuh"

namespace swath::gemm::cuda {

void last_split_adds(const problem& p, const operands& x, const launch_context& launch) {
  const split_plan plan = plan_split(p, split_choice_of(launch), std::max(launch.sm_count, 1));
  if (plan.splits == 1) return split_k(p, x, launch);
  launch_fitted<true>(plan, p, x, launch, {});
}

}  // namespace swath::gemm::cuda
