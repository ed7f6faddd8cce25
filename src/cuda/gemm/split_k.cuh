#pragma once
// What steps 17, 18 and 19 share: K cut into `splits` ranges whose partial sums land in a workspace of the
// stream, then one pass that adds them in split order and applies alpha and beta. The order of the
// additions is fixed (split 0 first), so the same inputs give the same bits on every run, whatever the
// timing: unlike atomics, and unlike stream-K's "last to arrive adds" only in needing a second launch.
//
// Layout of the parts: for the launch's batches b (relative to its first), splits s, then C's M × N
// elements packed (row i at i · N): part(b, s) = parts + (b · splits + s) · M · N.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../core/per_device.cuh"
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {

// Partial sums of a launch: floats for `batches` products cut into `splits`.
inline std::int64_t part_floats(const problem& p, std::int64_t batches, int splits) {
  return batches * splits * p.m * p.n;
}

// The stream's parts workspace, at least `floats` long (grown in stream order, never synchronising).
inline float* split_parts_workspace(cudaStream_t stream, std::int64_t floats) {
  return static_cast<float*>(swath::cuda::stream_workspace(stream, swath::cuda::workspace_use::split_parts,
                                                           static_cast<std::size_t>(floats) * 4, 0));
}

// C_b[i][j] = alpha · (part(b, 0) + part(b, 1) + … ) + beta · C_b[i][j] for batches [batch0, batch0 +
// batches), on the launch's stream (17_split_k.cu): one thread an element, the parts read once (from
// L2 when they fit).
void sum_parts(const problem& p, const float* parts, int splits, float* c, std::int64_t batch0, std::int64_t batches,
               const launch_context& launch);

// How many of the problem's batches one launch takes (the grid's z dimension holds at most 65535), so
// that their parts stay within `budget_floats`; at least one.
inline std::int64_t batches_per_launch(const problem& p, int splits, std::int64_t budget_floats) {
  const std::int64_t per_batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(splits) * p.m * p.n);
  const std::int64_t fit = splits > 1 ? std::max<std::int64_t>(1, budget_floats / per_batch) : p.batch;
  return std::min<std::int64_t>({p.batch, fit, 65535});
}

// ---- The block tiles of steps 17 and 19, and their wave model ----------------------------------

// A compiled block tile: its pipeline (micro-tile 8 × thread_n, depth, stages), the blocks an SM holds
// and the share of the FMA peak its loop reached alone (H100, measured full waves of each at 4096³ on
// one tile a block: the model's weights, not a promise).
struct fitted_tile {
  int block_m, block_n;
  int warps;          // a block's
  int resident;       // blocks an SM holds (registers and shared memory)
  double efficiency;  // FMA throughput of a full SM, as a share of the peak
};
// clang-format off
inline constexpr fitted_tile fitted_tiles[] = {
  {256, 128, 8, 1, 0.72},  // step 10's: 8 × 16 a thread, 3 stages of 8-deep slices
  {128, 128, 4, 2, 0.66},  // 8 × 16 a thread, 4 stages of 16
  { 64, 256, 4, 2, 0.66},  // 8 × 16 a thread, 4 stages of 16
  {128,  64, 4, 4, 0.55},  // 8 × 8 a thread, 4 stages of 16
  { 64, 128, 4, 4, 0.55},  // 8 × 8 a thread, 4 stages of 16
  { 64,  64, 2, 6, 0.45},  // 8 × 8 a thread, 4 stages of 16
};
// clang-format on

// The model's time for one tile, split count and warp groups a block (see 17_split_k.cu's head; step
// 19's groups multiply a block's warps). FMA rate: 128 lanes an SM at ~1.75 GHz, times the tile's
// efficiency, times the share of 8 warps the SM's blocks of a wave give it (a lone 4-warp block cannot
// hide its copies' latency); L2 round trip of the parts at ~4 TB/s; a second launch ~3 µs.
inline double modeled_seconds(const problem& p, const fitted_tile& t, int splits, int sms, int groups = 1) {
  // Step 19's blocks of 8 warps take 145-255 registers a thread (its kernel's note): one an SM.
  const int warps = t.warps * groups, resident = groups == 1 ? t.resident : (warps <= 4 ? 2 : 1);
  const std::int64_t slices = (p.k + 15) / 16;
  const std::int64_t tiles = (p.m + t.block_m - 1) / t.block_m * ((p.n + t.block_n - 1) / t.block_n) * p.batch;
  const std::int64_t blocks = tiles * splits;
  const std::int64_t places = static_cast<std::int64_t>(sms) * resident;
  const std::int64_t waves = (blocks + places - 1) / places;
  const double depth = static_cast<double>((slices + splits - 1) / splits) * 16;
  const std::int64_t busiest = (std::min<std::int64_t>(blocks, places) + sms - 1) / sms;  // blocks on one SM
  const double occupancy = std::min(1.0, static_cast<double>(busiest * warps) / 8);
  const double wave_fmas = static_cast<double>(busiest) * t.block_m * t.block_n * depth;
  const double fma_rate = 128 * 1.75e9 * t.efficiency * occupancy;
  double seconds = static_cast<double>(waves) * (wave_fmas / fma_rate + 1e-6);
  if (splits > 1) {
    seconds += static_cast<double>(splits + 2) * static_cast<double>(p.m * p.n * p.batch) * 4 / 4e12 + 3e-6;
  }
  return seconds;
}

}  // namespace swath::gemm::cuda
