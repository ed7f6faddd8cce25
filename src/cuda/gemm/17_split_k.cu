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
#include <algorithm>
#include <cmath>
#include <limits>

#include "async_pipeline.cuh"
#include "split_k.cuh"

namespace swath::gemm::cuda {

// ---- The second pass -------------------------------------------------------------------------------

__global__ void sum_parts_kernel(problem p, const float* parts, int splits, float* c, std::int64_t batch0,
                                 std::int64_t batches) {
  const std::int64_t per_batch = p.m * p.n, total = batches * per_batch;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const std::int64_t b = e / per_batch, r = e % per_batch;
    const float* part = parts + b * splits * per_batch + r;
    // Eight parts' loads in flight before their adds (in split order): one at a time, 64 splits were
    // 64 round trips to L2 a thread.
    float sum = 0;
    int s = 0;
    for (; s + 8 <= splits; s += 8) {
      float loaded[8];
      SWATH_UNROLL
      for (int q = 0; q < 8; ++q) loaded[q] = __ldcg(part + (s + q) * per_batch);
      SWATH_UNROLL
      for (int q = 0; q < 8; ++q) sum += loaded[q];
    }
    for (; s < splits; ++s) sum += __ldcg(part + s * per_batch);
    float& out = c[(batch0 + b) * p.stride_c + r / p.n * p.ldc + r % p.n];
    out = p.beta == 0 ? p.alpha * sum : p.alpha * sum + p.beta * out;
  }
}

void sum_parts(const problem& p, const float* parts, int splits, float* c, std::int64_t batch0, std::int64_t batches,
               const launch_context& launch) {
  constexpr int threads = 256;
  const std::int64_t elements = batches * p.m * p.n;
  const std::int64_t most = static_cast<std::int64_t>(std::max(launch.sm_count, 1)) * 8;
  const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>((elements + threads - 1) / threads, 1, most));
  sum_parts_kernel<<<blocks, threads, 0, stream_of(launch)>>>(p, parts, splits, c, batch0, batches);
  SWATH_CHECK_LAST();
}

namespace {

// How a problem is cut: a tile, a number of splits of K, and the model's estimate.
struct split_plan {
  int tile = 0;  // index into fitted_tiles
  int splits = 1;
  double seconds = 0;
};

split_plan plan_split(const problem& p, const split_choice& chosen, int sms) {
  split_plan best;
  best.seconds = std::numeric_limits<double>::infinity();
  const std::int64_t slices = std::max<std::int64_t>(1, (p.k + 15) / 16);
  for (int t = 0; t < static_cast<int>(std::size(fitted_tiles)); ++t) {
    const fitted_tile& tile = fitted_tiles[t];
    if (chosen.block_m != 0 && (tile.block_m != chosen.block_m || tile.block_n != chosen.block_n)) continue;
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
                      ": expected auto, 256x128, 128x128, 64x256, 128x64, 64x128 or 64x64");
  }
  // More splits than slices would leave splits empty: they still store their zeros, but do no work.
  best.splits = static_cast<int>(std::min<std::int64_t>(best.splits, slices));
  return best;
}

// ---- The kernel ------------------------------------------------------------------------------------

// Tile blockIdx.x (row-major over C's tiles), split blockIdx.y of K's slices, product batch0 +
// blockIdx.z. One split: C's tile = alpha · sum + beta · C. More: the raw sum into the split's part.
template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, copy_mode AMode, copy_mode BMode>
__global__ void __launch_bounds__(pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::threads,
                                  pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::blocks_per_sm)
    split_tile_kernel(problem p, operand_view a, operand_view b, float* c, bool c_vector_ok, int splits, float* parts,
                      std::int64_t batch0) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  extern __shared__ __align__(16) float stages[];
  const std::int64_t batch = batch0 + blockIdx.z;
  a.data += batch * p.stride_a;
  b.data += batch * p.stride_b;
  const std::int64_t tiles_n = (p.n + BlockN - 1) / BlockN;
  const std::int64_t i0 = blockIdx.x / tiles_n * BlockM, j0 = blockIdx.x % tiles_n * BlockN;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / s::warps_n * s::warp_m + lane / 4 * 4;
  const int column0 = warp % s::warps_n * s::warp_n + lane % 4 * 4;
  const std::int64_t slices = slice_split<BlockK>(p.k).slices;
  const int split = static_cast<int>(blockIdx.y);
  const std::int64_t begin = slices * split / splits, end = slices * (split + 1) / splits;
  float sum[8][ThreadN] = {};
  accumulate_slices<BlockM, BlockN, BlockK, ThreadN, Stages, AMode, BMode>(a, b, stages, p.k, i0, j0, begin, end, row0,
                                                                          column0, sum);
  if (splits == 1) {
    store_tile(p, c + batch * p.stride_c, c_vector_ok, i0, j0, row0, column0, sum);
    return;
  }
  problem raw = p;  // the part: packed rows, the plain sum
  raw.alpha = 1, raw.beta = 0, raw.ldc = p.n;
  float* part = parts + (static_cast<std::int64_t>(blockIdx.z) * splits + split) * p.m * p.n;
  store_tile(raw, part, p.n % 4 == 0, i0, j0, row0, column0, sum);
}

template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages>
void launch_split(const problem& p, const operands& x, int splits, const launch_context& launch) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  const cudaStream_t stream = stream_of(launch);
  const std::int64_t tiles = (p.m + BlockM - 1) / BlockM * ((p.n + BlockN - 1) / BlockN);
  SWATH_EXPECTS(tiles <= 0x7fffffff, "gemm: more tiles of C than a grid holds");
  // Parts of at most 64 Mi floats (256 MiB) a launch; a larger batch is cut into several launches.
  const std::int64_t per_launch = batches_per_launch(p, splits, std::int64_t{1} << 26);
  // A product's 16-byte copies need its own rows aligned: every product's, so the strides too.
  operand_view a = view_of_a(p, x.a), b = view_of_b(p, x.b);
  a.vector_ok = a.vector_ok && (p.batch == 1 || p.stride_a % 4 == 0);
  b.vector_ok = b.vector_ok && (p.batch == 1 || p.stride_b % 4 == 0);
  const bool c_vector_ok = aligned16(x.c, p.ldc) && (p.batch == 1 || p.stride_c % 4 == 0);
  with_copy_modes(a, b, [&](auto a_mode, auto b_mode) {
    constexpr auto kernel = split_tile_kernel<BlockM, BlockN, BlockK, ThreadN, Stages, a_mode.value, b_mode.value>;
    (void)prepare_kernel(kernel, s::threads, s::shared_bytes);
    for (std::int64_t batch0 = 0; batch0 < p.batch; batch0 += per_launch) {
      const std::int64_t batches = std::min(per_launch, p.batch - batch0);
      float* parts = splits > 1 ? split_parts_workspace(stream, part_floats(p, batches, splits)) : nullptr;
      const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(splits), static_cast<unsigned>(batches));
      kernel<<<grid, s::threads, s::shared_bytes, stream>>>(p, a, b, x.c, c_vector_ok, splits, parts, batch0);
      SWATH_CHECK_LAST();
      if (splits > 1) sum_parts(p, parts, splits, x.c, batch0, batches, launch);
    }
  });
}

}  // namespace

void split_k(const problem& p, const operands& x, const launch_context& launch) {
  const split_plan plan = plan_split(p, split_choice_of(launch), std::max(launch.sm_count, 1));
  switch (plan.tile) {
    case 0: return launch_split<256, 128, 8, 16, 3>(p, x, plan.splits, launch);
    case 1: return launch_split<128, 128, 16, 16, 4>(p, x, plan.splits, launch);
    case 2: return launch_split<64, 256, 16, 16, 4>(p, x, plan.splits, launch);
    case 3: return launch_split<128, 64, 16, 8, 4>(p, x, plan.splits, launch);
    case 4: return launch_split<64, 128, 16, 8, 4>(p, x, plan.splits, launch);
    default: return launch_split<64, 64, 16, 8, 4>(p, x, plan.splits, launch);
  }
}

}  // namespace swath::gemm::cuda
