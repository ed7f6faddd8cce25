// CUDA step 17: the tile fitted to the shape, K split to fill the waves, and strided batches.
// - What changed from 16: step 16's 256 × 128 tiles leave SMs idle wherever M × N makes few of them:
//   1024³ is 32 tiles for 132 SMs, 64 × 16384 uses a quarter of each tile's rows, 256 × 256 × 65536 is
//   two tiles over a K of 65536. Step 10's cp.async pipeline is compiled here at six block tiles
//   (256 × 128, 128 × 128, 64 × 256, 128 × 64, 64 × 128, 64 × 64), and K is cut into `splits` ranges whose
//   partial sums are added in split order by a second pass (split_k.cuh): deterministic, every run the
//   same bits. The grid's y dimension is the split, z the product of a strided batch.
// - The model (plan_split): for each tile, and splits in 1-128, the time of ceil(blocks / (SMs ·
//   resident)) waves of one block's FMAs at the tile's measured efficiency, a microsecond of pipeline
//   fill a wave, plus the parts' round trip through L2 and the second launch; the least wins. The
//   tuner (`swath tune gemm --dispatch`) replaces the model where it measured better.
// - Prediction (H100, against step 16 in the same run): 1024³ from 0.80x cuBLAS to ≈ 1.0x (128 × 128
//   tiles split 2: 128 blocks, one wave); 256 × 256 × 65536 from 0.60x to ≈ 0.9x (64 splits of four
//   128 × 128 tiles); 64 × 16384 × 16384 from 0.24x to ≈ 0.8x (64 × 256 tiles, 4 splits); the
//   batches about even with cublasSgemmStridedBatched.
// - Outcome (H100, tuned, same-run cuBLAS): 1024³ 0.93-0.99x, 256 × 256 × 65536 0.85x, 64 × 16384 ×
//   16384 0.91x, 16384 × 64 × 16384 1.10x, 256³-512³ 1.07-1.94x, batches 1.08x / 0.97x / 0.80x; the
//   odd squares 0.64-0.84x (4-byte copies). docs/journal/gemm.md, step 17.
// - v2: the parts' rows N rounded up to 4 (split_k.cuh), so a tile stores its part 16 bytes at a time
//   at odd N. Prediction: 767³ at 256 × 128 tiles in 7 splits near 768³'s 36-38 µs. Outcome (H200):
//   49.4 → 37.3-37.8 µs in every op (0.90-0.98x cuBLAS). docs/journal/gemm.md, "The parts' rows, and
//   step 20 reading its pad".
// - v3: the parts' pass by quads (one thread four columns, every split's 16-byte load in flight before
//   the adds, 32-bit index arithmetic). Prediction: the pass's ~10 µs at 767³ (ncu, H200) about halved,
//   so 767³ and 768³ 3-5 µs faster. Outcome (H200, one binary A/B): 767³ 38.5 → 34.8 µs, 768³ 37.8 →
//   33.5 (10-14%), 511³-512³ 5-16%, nothing slower. docs/journal/gemm.md, "The parts' pass: the branch
//   landed, dependent launches, quads, and the rewrites in one launch".
// - v4: a seventh tile, 64 × 32 of 2 warps at 8 × 4 a thread (step 21's micro-tile), taken only when
//   asked for (fit=64x32: the tuner's candidates where it makes under four waves of tiles), not by the
//   model. Why: on the GPU alone 255³-512³ run 0.70-0.99x cuBLAS (H200). At 256³ the best, 128 × 64 in
//   8 splits, is 64 blocks of 4 warps: 68 SMs idle, and each thread 8 × 8 outputs over 32 of K, 2048
//   FMAs in a chain of shared loads with one warp a scheduler (0.23 issued a cycle, ncu). 64 × 32 in 8
//   splits is 256 blocks of 2 warps on every SM, each thread 1024 FMAs, as cuBLAS's 32 × 32 tiles of
//   2 warps in 4 splits (256 blocks, 16 outputs over 64 of K). Prediction (H200, held timing, against
//   the committed table's choices): 256³ 11.2 → 9-10 µs (0.88x → 0.98-1.08x), 255³ 13.2 → 10-11 µs,
//   511³-512³ within ±5% (their tiles already fill the SMs); 64³-128³ and 64-128 × 64-128 × 1024
//   10-20% faster. Outcome (H200, 2fe5b20, the tuner's held times, the tile alone with the pass
//   launched): 256³ 11.2-11.3 → 8.9-9.3 µs, 255³ 13.0-13.7 → 10.3-11.2 (both as predicted); 64³-128³
//   14-21% faster, 64-128 × 64-128 × 1024 25-37% (more than predicted); 511³-512³ 7-17% slower in nn
//   and 2-6% in nt, within ±4% in tn and tt (the prediction held only there). With v5: 256³ 7.6-8.0 µs (1.18-1.30x).
//   docs/journal/gemm.md, "The 64 × 32 tile and the dependent pass, measured".
// - v5: pass=dependent launches the parts' pass as the tiles' programmatic dependent: the tile kernel
//   lets it be placed once its main loop is done (griddepcontrol.launch_dependents), and the pass waits
//   at entry for the whole grid (griddepcontrol.wait; launched plainly both are no-ops, so the default,
//   pass=launch, is v3's). A setting for the tuner, not a default: in a trial timed as queued (fourth
//   session) the same trigger made 511³-512³ 3-8% faster and 767³-768³ 2.5-3.5% slower. Prediction
//   (H200, held timing): the second launch's gap, ~1 µs, off the products of 10-20 µs (256³-512³ 5-8%),
//   767³-768³ level or slower, so the tuner takes it at the small ones only. Outcome (H200, 2fe5b20,
//   held, other tiles than 64 × 32): 256³ 11.2 → 10.0-10.4 µs, 511³-512³ 0.2-0.9 µs faster, and
//   767³-768³ 0.9-1.4 µs faster, not slower: the prediction was wrong there (the trial's loss was the
//   host's queuing, most likely, which the held timing leaves out). The tuner took it in 37 of the 44
//   small cases, the 64 × 32 tile in 32.
// - v6: the edge tiles moved back inside what the kernel may read (split_k.cuh, step 13's shift; not in
//   step 22's kernel), storing only what they own, for steps 17, 19 and 20. Why: where rows are 16
//   bytes apart but M or N holds no whole number of tiles, the edge tiles' checked 16-byte copies cost
//   ~19% more instructions in an issue-bound loop (ncu, H200): 992 × 992 × 1024 tn (64 × 64 in 2
//   groups) 69.7 µs against 51.6 at 1024³ and 52.2 at 960 × 960 × 1024; 1008-1020 the same (cuBLAS
//   54.8-55.9). Where the copies are 4-byte ones (1023³) a checked copy costs what an unchecked one
//   does, and a trial of the shift there gained nothing (2026-11-28). Prediction (H200, step 19 tn):
//   992-1020 × 1024 at 64 × 64 and 64 × 128 in 2 groups 66.6-71.1 → 52-54 µs, 128 × 128 118 → ~103;
//   2016 and 2044 × 2048 at 64 × 64 398 → ~362 µs; 1024³, 960 × 960 × 1024 and 2048³ within 1%, with
//   the slice loops' digests unchanged (only the tiles' stores differ). Outcome (H200, one run each,
//   medians): 992-1020 × 1024 at 64 × 64 70.7-72.2 → 52.6-54.5 µs (cuBLAS 55.7-56.7), at 64 × 128
//   67.2-68.1 → 53.6-56.7, 128 × 128 118.8-119.2 → 102.6-103.8; 2016 and 2044 × 2048 10-12% faster in
//   all three tiles (64 × 64 399-401 → 363 µs); 1024³ and 2048³ within 0.7%. The digests did move,
//   108 of 239 slice loops by -20 to +3 instructions, and two batched choices of the table (64 × 128,
//   no edge tiles) ran 2-3% slower: tuned again, they moved to 256 × 128 at their old times.
//   docs/journal/gemm.md, "Edge tiles moved inside, where the copies are 16-byte ones".
#include <algorithm>
#include <cmath>
#include <limits>

#include "async_pipeline.cuh"
#include "split_k.cuh"

namespace swath::gemm::cuda {

// ---- The second pass -------------------------------------------------------------------------------

// One thread a quad, four consecutive columns of a row of C: each part's four are one 16-byte load
// (the parts' rows are 16 bytes apart), and all its splits' loads, up to eight at a time, are in flight
// before their adds, which run in split order. With one thread an element, 64-bit divisions for its
// row and column and one load at a time below eight splits, the pass took ~10 µs at 767³ in 7 splits
// (ncu, H200) for 16.5 MB of parts in L2; by quads 767³ and 768³ ran 10-14% faster in all (38.5 → 34.8
// µs), 511³ and 512³ 5-16% (docs/journal/gemm.md, "The parts' pass: ... quads ..."). Small: the quads and
// rows number fewer than 2^31, so their divisions are 32-bit ones.
template <bool Small>
__global__ void sum_parts_kernel(problem p, const float* parts, int splits, float* c, bool c_vector_ok,
                                 std::int64_t batch0, std::int64_t batches) {
  // Launched as the tiles' programmatic dependent (pass=dependent): wait here until they have ended and
  // their parts are visible. Launched plainly, the stream has already waited and this returns at once.
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const std::int64_t ld = parts_ld(p), per_part = p.m * ld, quads_per_row = ld / 4;
  const std::int64_t total = batches * p.m * quads_per_row;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    std::int64_t quad, b, i;  // the quad's column of quads, product and row
    if constexpr (Small) {
      const auto row = static_cast<std::uint32_t>(e) / static_cast<std::uint32_t>(quads_per_row);
      const auto m = static_cast<std::uint32_t>(p.m), product = row / m;
      quad = static_cast<std::uint32_t>(e) - row * static_cast<std::uint32_t>(quads_per_row);
      b = product, i = row - product * m;
    } else {
      const std::int64_t row = e / quads_per_row;
      quad = e % quads_per_row, b = row / p.m, i = row % p.m;
    }
    const float* part = parts + b * splits * per_part + i * ld + 4 * quad;
    float4 sum = make_float4(0, 0, 0, 0);
    for (int s = 0; s < splits; s += 8) {
      float4 loaded[8];
      SWATH_UNROLL
      for (int q = 0; q < 8; ++q) {
        if (s + q < splits) loaded[q] = __ldcg(reinterpret_cast<const float4*>(part + (s + q) * per_part));
      }
      SWATH_UNROLL
      for (int q = 0; q < 8; ++q) {
        if (s + q < splits) sum.x += loaded[q].x, sum.y += loaded[q].y, sum.z += loaded[q].z, sum.w += loaded[q].w;
      }
    }
    const std::int64_t j = 4 * quad;
    float* out = c + (batch0 + b) * p.stride_c + i * p.ldc + j;
    if (c_vector_ok && j + 3 < p.n) {
      float4 value = make_float4(p.alpha * sum.x, p.alpha * sum.y, p.alpha * sum.z, p.alpha * sum.w);
      if (p.beta != 0) {
        const float4 old = *reinterpret_cast<const float4*>(out);
        value.x += p.beta * old.x, value.y += p.beta * old.y, value.z += p.beta * old.z, value.w += p.beta * old.w;
      }
      *reinterpret_cast<float4*>(out) = value;
    } else {
      const float values[4] = {sum.x, sum.y, sum.z, sum.w};
      SWATH_UNROLL
      for (int q = 0; q < 4; ++q) {
        if (j + q < p.n) out[q] = p.beta == 0 ? p.alpha * values[q] : p.alpha * values[q] + p.beta * out[q];
      }
    }
  }
}

void sum_parts(const problem& p, const float* parts, int splits, float* c, std::int64_t batch0, std::int64_t batches,
               const launch_context& launch, bool dependent) {
  constexpr int threads = 256;
  const std::int64_t most = static_cast<std::int64_t>(std::max(launch.sm_count, 1)) * 8;
  const std::int64_t quads = batches * p.m * (parts_ld(p) / 4);
  const bool c_vector_ok = c_takes_vectors(p, c);
  const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>((quads + threads - 1) / threads, 1, most));
  const auto kernel = quads < (std::int64_t{1} << 31) ? sum_parts_kernel<true> : sum_parts_kernel<false>;
  launch_kernel(kernel, blocks, threads, 0, stream_of(launch), dependent, p, parts, splits, c, c_vector_ok, batch0,
                batches);
}

split_plan plan_split(const problem& p, const split_choice& chosen, int sms) {
  split_plan best;
  best.seconds = std::numeric_limits<double>::infinity();
  const std::int64_t slices = std::max<std::int64_t>(1, (p.k + 15) / 16);
  for (int t = 0; t < static_cast<int>(std::size(fitted_tiles)); ++t) {
    const fitted_tile& tile = fitted_tiles[t];
    if (chosen.block_m == 0 ? !tile.modeled : tile.block_m != chosen.block_m || tile.block_n != chosen.block_n) continue;
    for (const int splits : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}) {
      if (chosen.splits != 0 && splits != chosen.splits) continue;
      if (chosen.splits == 0 && splits > 1 && splits > slices / 2) break;  // at least two slices a split
      const double seconds = modeled_seconds(p, tile, splits, sms);
      if (seconds < best.seconds) best = {t, splits, seconds};
    }
    if (chosen.splits != 0 && best.seconds == std::numeric_limits<double>::infinity()) {
      best = {t, chosen.splits, 0};  // a count outside the model's list, as asked
    }
  }
  if (best.seconds == std::numeric_limits<double>::infinity()) {
    throw usage_error("fit=" + std::to_string(chosen.block_m) + "x" + std::to_string(chosen.block_n) +
                      ": expected auto, 256x128, 128x128, 64x256, 128x64, 64x128, 64x64 or 64x32");
  }
  // More splits than slices would leave splits empty: they still store their zeros, but do no work.
  best.splits = static_cast<int>(std::min<std::int64_t>(best.splits, slices));
  return best;
}

void split_k_with_pad(const problem& p, const operands& x, const launch_context& launch, readable_widths readable) {
  const split_plan plan = plan_split(p, split_choice_of(launch), std::max(launch.sm_count, 1));
  launch_fitted(plan, p, x, launch, readable);
}

void split_k(const problem& p, const operands& x, const launch_context& launch) {
  split_k_with_pad(p, x, launch, {});
}

}  // namespace swath::gemm::cuda
