// CUDA step 13: 256 × 96 tiles where they fill the SMs' waves and step 10's 256 × 128 do not.
// - What changed from 12: 1000 × 3000 × 700 has 96 tiles of 256 × 128 for 132 SMs and step 11's cut
//   cost 20 of its 119 µs; 256 × 96 tiles make 128, one wave, uncut. 8 × 12 results a thread, 16-deep
//   slices, edge tiles moved back inside the matrix (edge_shift) so no copy is checked.
// - Settings: narrow=auto (their waves ≥ 90% full and 256 × 128's not) | on | off.
// - Prediction (H200): ≈ 106 µs against step 12's 119 and cuBLAS's 109, ≈ 1.03x.
// - Outcome: 8-deep slices 0.116 ms (edge tiles' checked copies ~9% slower); edges shifted 0.106
//   (1.03x); 16-deep slices 0.104 (1.05x). The micro-tile runs ~7% below step 10's rate a FMA, and the
//   full wave pays for it. docs/journal/gemm.md, step 13.
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
  const path_choice chosen = path_of(launch_on, narrow_setting);
  const bool take_narrow =
      chosen == path_choice::always || (chosen == path_choice::automatic && narrow_fills && !wide_fills);
  if (take_narrow) {
    launch_one_tile_per_block<tile_m, narrow_n, slice_depth, 12, 3, true>(p, x, launch_on);
  } else {
    narrow_strip(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
