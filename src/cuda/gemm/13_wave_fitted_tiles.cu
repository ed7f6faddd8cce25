// CUDA step 13: a narrower tile where it fills the SMs' waves and step 10's does not.
//
// Steps 10-12 cover C with 256 × 128 tiles, one block an SM. 1000 × 3000 × 700 has 4 × 24 = 96 of
// them for 132 SMs. Step 11 cuts those tiles along K so that every SM works, and pays for it at the
// end: each cut tile's parts are stored, reloaded and added, 20 µs of the 119 it takes on an H200
// (docs/gemm.md, "What is next"). Tiles of 256 × 96 need no cut there: 4 × 32 = 128 tiles, one wave
// on 97% of the SMs, each block one tile over all of K with step 10's pipeline and epilogue.
//
// The 256 × 96 tile is step 10's block of 8 warps with 8 × 12 results a thread in place of 8 × 16
// (lanes still 8 × 4, a lane's columns lane % 4 · 4 + {0, 16, 32} + 48 · (warp % 2)): per depth 2
// LDS.128 of A and 3 of B for 96 FMAs (step 10: 6 for 128). A round of 256 threads no longer covers
// whole rows of B's 96-wide slice, so op(B)'s deep-major copies find their own rows
// (slice_copier::copy_uneven_rounds). Slices are 16 deep (step 10: 8), and tiles at the bottom and
// right edges move back inside the matrix so that none of their copies is checked (edge_shift in
// async_pipeline.cuh): with one tile a block, the slowest tile ends the kernel.
//
// With narrow=auto the narrow tiles run when their waves are at least 90% full and the 256 × 128 tiles'
// are not (step 11's own threshold, which sends full-enough waves to step 10); everything else goes to
// step 12 unchanged. Of the target sizes only 1000 × 3000 × 700 changes: 4096³, 4095³ and 8192³ fill
// 97% of their waves with 256 × 128 tiles, and 8191 × 257 × 4099 has 96 tiles either way (step 12's
// strip and step 11's cut serve it). narrow=on takes the narrow tiles at any size (the tests use it),
// narrow=off never.
//
// Prediction (before the first run, from step 10's H200 times at 1024 × 3072 × K on 96 blocks: 0.180 µs
// a unit of K for a 256 × 128 tile, 9 µs fixed): a 256 × 96 tile does 0.75 of the FMAs; at a 3% lower
// rate for the smaller micro-tile, 0.75 · 0.180 / 0.97 · 700 + 9 ≈ 106 µs against step 12's 119 and
// cuBLAS's 109: ≈ 1.03x cuBLAS. Outcome (H200, docs/gemm.md): 8-deep slices, edges in place: 1024 ×
// 3072 × 704 (no edge tiles) 0.107 ms as predicted, but 1000 × 3000 × 700 0.116 (0.94x): its edge
// tiles' checked copies ran ~9% slower. Edges shifted: 0.106 (1.03x). 16-deep slices: 0.104 (1.05x).
// The micro-tile runs ~7% below step 10's rate per FMA (10% with 8-deep slices; 4096³ with
// narrow=on), not 3%; the full wave more than pays for it.
#include <algorithm>

#include "async_pipeline.cuh"

namespace swath::gemm::cuda {
namespace {

// The tiles: 256 rows, 96 columns here and 128 in steps 10-12; slices 16 deep.
constexpr int tile_m = 256, narrow_n = 96, wide_n = 128, slice_depth = 16;

}  // namespace

void wave_fitted_tiles(const problem& p, const operands& x, const launch_context& launch_on) {
  const std::int64_t sms = std::max(launch_on.sm_count, 1);
  const bool narrow_fills = wave_fill(tile_grid(p, tile_m, narrow_n).count(), sms) >= full_enough;
  const bool wide_fills = wave_fill(tile_grid(p, tile_m, wide_n).count(), sms) >= full_enough;
  const bool take_narrow = p.narrow_tiles == problem::path_choice::always ||
                           (p.narrow_tiles == problem::path_choice::automatic && narrow_fills && !wide_fills);
  if (take_narrow) {
    launch_one_tile_per_block<tile_m, narrow_n, slice_depth, 12, 3, true>(p, x, stream_of(launch_on));
  } else {
    narrow_strip(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
