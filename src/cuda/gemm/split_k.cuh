#pragma once
// What steps 17 and 18 share: K cut into `splits` ranges whose partial sums land in a workspace of the
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

}  // namespace swath::gemm::cuda
