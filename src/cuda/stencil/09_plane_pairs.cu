// Step 09: step 08's ring at radius 3 and 4, each compute warp computing two output planes a step.
// - What changed from 08: at radius 4, 08 is bound by the shared-memory pipe (ncu, H200: 76% busy in
//   float, 85% in double). Output planes z and z + 1 share their z taps: 15 vector loads a plane instead
//   of 19 in float (radius 3: 12 instead of 15).
// - Prediction: shared-memory wavefronts per 128 points 84.5 → 68.5 (0.81x); radius 4 float at 512^3 on
//   an H200 0.438 → ~0.36 ms (0.58x → ~0.71x of the copy bandwidth).
// - Outcome: the wavefronts fell as predicted but the time 6% (the ring lost depth); then, v2-v11:
//   16-row tiles with a deeper ring, fewer instructions at x faces, sector-aligned rows, compile-time
//   split-row layouts, chunk lengths swept per GPU (40 planes where the DRAM is slow beside the SMs,
//   16 bytes an SM clock, 96 elsewhere), wave-grouped tile rows. H100, radius 4 float at 512^3: 86.9%
//   of the copy bandwidth. Every version with its numbers: docs/journal/stencil.md, step 09.

#include "tma_ring/dispatch.cuh"

namespace swath::stencil::cuda {

// Two output planes a step, two tile rows a warp, one block an SM; the halo columns a whole line or a
// sector wide (tma_ring/policy.cuh).
constexpr tma::ring_policy line_padded_pairs{.rows = 2, .planes = 2, .blocks = 1, .line_pad = true};
constexpr tma::ring_policy sector_padded_pairs{.rows = 2, .planes = 2, .blocks = 1, .line_pad = false};

void plane_pairs(const problem& p, const operands& x, const launch_context& launch) {
  const support fits = aligned_wide_star_3d(p);
  SWATH_EXPECTS(fits.ok(), "plane_pairs: " + std::string(fits.why));
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star && Dims == 3 && R >= 3) {
      // Two tile rows a warp (they share their y taps too) and one block an SM, for the registers
      // (129-168) and a deep ring: with the 16-byte pad 17-19 slots, 7-8 planes in flight beyond the
      // 2r + 2 read. The line pad (rows starting on a line) leaves 12-13 slots; it pays only where the
      // rows are themselves line-aligned, and measured so only at radius 3 in float. Chunks of 96 planes
      // (32r at radius 3, 24r at radius 4; v6 above); 40 where the DRAM is slow beside the SMs (v8-v11).
      const int chunk = tma::dram_slow_beside_sms() ? 40 : 96;
      if constexpr (R == 3 && sizeof(T) == 4) {
        const bool line_aligned_rows = p.grid.width * static_cast<std::int64_t>(sizeof(T)) % 128 == 0;
        if (line_aligned_rows) return tma::run<T, R, line_padded_pairs>(p, x, launch, chunk);
      }
      tma::run<T, R, sector_padded_pairs>(p, x, launch, chunk);
    }
  });
}

}  // namespace swath::stencil::cuda
