// CUDA step 19: step 17's tile with its warps doubled along K (sliced K): each block is 2 or 4 groups
// of the tile's warps, every group over its own share of the block's K slices with its own stages, and
// the groups' sums added in shared memory in group order before the one store.
// - What changed from 17: where a shape makes about one block an SM (1024³: 128 tiles of 64 × 128 on
//   132 SMs), step 17's block of 4 warps leaves each of the SM's 4 schedulers one warp to issue from,
//   and every barrier, shared-memory load and copy wait stalls it: 1024³ ran at ~53% of the FMA peak.
//   Splitting K across blocks (splits=2) gives the SM 8 warps but sends C through L2 twice and adds a
//   second launch (~7 µs at 1024³). Here the split stays inside the block: no parts, no second pass,
//   the same bits every run. The groups' barriers are named (bar.sync 1 + group), so that a group with
//   one slice more does not hold the others.
// - Settings: fit (the tile: 128x128, 128x64, 64x128, 64x64 take groups; 256x128 and 64x256 run step
//   17), groups (2; 4 at 64x64; 1: step 17), splits (of K across blocks, as step 17).
// - Prediction (H100, same-run cuBLAS): 1024³ nn 62 → ~50 µs (64 × 128 tiles, 2 groups; ~1.15x
//   cuBLAS); 768³ 41 → ~36 µs; the odd squares gain as much in proportion, still held back by their
//   4-byte copies.
// - Outcome (H100, the tuner beside cuBLAS, 67c6b6b): 1024³ 58.7 µs nn (1.00x; step 17 62.4), 52.8 tn
//   (1.08x); 767³ 1-7% and 1023³ 4-7% faster than step 17, still 0.66-0.90x; 768³ stays with step 17.
//   The surprise: 64 × 64 tiles in 4 groups, split 2, won 255³-512³ (511³ nn 19.4 µs against 23.1).
//   The suite through swath::sgemm, same machine: 0.935x → 0.977x (0.995x in a first run).
//   docs/journal/gemm.md, step 19.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "async_pipeline.cuh"
#include "split_k.cuh"

namespace swath::gemm::cuda {
namespace {

// The tiles compiled with groups (index into fitted_tiles) and the group counts each takes: those of
// at most 4 warps, but 64 × 256, whose 8 × 16 a thread spilled 76-560 bytes in 5 of its 9 kernels at
// 255 registers.
struct sliced_tile {
  int tile;
  int groups;
};
constexpr sliced_tile sliced_tiles[] = {{1, 2}, {3, 2}, {4, 2}, {5, 2}, {5, 4}};

struct sliced_plan {
  int tile = 0;    // index into fitted_tiles
  int groups = 1;  // 1: step 17 runs it
  int splits = 1;
};

sliced_plan plan_sliced(const problem& p, const split_choice& chosen, int groups_chosen, int sms) {
  if (groups_chosen == 1) return {0, 1, chosen.splits};  // step 17's, as asked
  const std::int64_t slices = std::max<std::int64_t>(1, (p.k + 15) / 16);
  sliced_plan best;
  double best_seconds = std::numeric_limits<double>::infinity();
  bool tile_compiled = false;
  for (const sliced_tile& candidate : sliced_tiles) {
    const fitted_tile& tile = fitted_tiles[candidate.tile];
    if (chosen.block_m != 0 && (tile.block_m != chosen.block_m || tile.block_n != chosen.block_n)) continue;
    tile_compiled = true;
    if (groups_chosen != 0 && candidate.groups != groups_chosen) continue;
    for (const int splits : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}) {
      if (chosen.splits != 0 && splits != chosen.splits) continue;
      // At least one slice a group in every split.
      if (chosen.splits == 0 && splits > 1 && splits * candidate.groups > slices) break;
      const double seconds = modeled_seconds(p, tile, splits, sms, candidate.groups);
      if (seconds < best_seconds) best = {candidate.tile, candidate.groups, splits}, best_seconds = seconds;
    }
    if (chosen.splits != 0 && best_seconds == std::numeric_limits<double>::infinity()) {
      best = {candidate.tile, candidate.groups, chosen.splits}, best_seconds = 0;  // a count outside the list
    }
  }
  if (best_seconds == std::numeric_limits<double>::infinity()) {
    if (chosen.block_m != 0 && !tile_compiled && groups_chosen == 0) {
      return {0, 1, chosen.splits};  // 256 × 128 and 64 × 256: step 17's
    }
    throw usage_error("gemm/cuda/19_sliced_k: fit=" +
                      (chosen.block_m == 0 ? std::string("auto")
                                           : std::to_string(chosen.block_m) + "x" + std::to_string(chosen.block_n)) +
                      " groups=" + (groups_chosen == 0 ? std::string("auto") : std::to_string(groups_chosen)) +
                      ": groups=2 takes 128x128, 128x64, 64x128 or 64x64, groups=4 only 64x64");
  }
  best.splits = static_cast<int>(std::min<std::int64_t>(best.splits, slices));
  return best;
}

}  // namespace

void sliced_k_with_pad(const problem& p, const operands& x, const launch_context& launch, readable_widths readable) {
  const int groups = warp_groups_of(launch);
  const sliced_plan plan = plan_sliced(p, split_choice_of(launch), groups, std::max(launch.sm_count, 1));
  if (plan.groups == 1) return split_k_with_pad(p, x, launch, readable);
  switch (plan.tile * 10 + plan.groups) {
    case 12: return launch_split<128, 128, 16, 16, 4, 2>(p, x, plan.splits, launch, readable);
    case 32: return launch_split<128, 64, 16, 8, 4, 2>(p, x, plan.splits, launch, readable);
    case 42: return launch_split<64, 128, 16, 8, 4, 2>(p, x, plan.splits, launch, readable);
    case 52: return launch_split<64, 64, 16, 8, 4, 2>(p, x, plan.splits, launch, readable);
    default: return launch_split<64, 64, 16, 8, 4, 4>(p, x, plan.splits, launch, readable);
  }
}

void sliced_k(const problem& p, const operands& x, const launch_context& launch) {
  sliced_k_with_pad(p, x, launch, {});
}

}  // namespace swath::gemm::cuda
