// Step 05 (CUDA): four float4 per operand in flight per thread, streaming cache hints, a grid of
// exactly the resident blocks.
// Changed from 04:
//  - each thread issues all 8 loads of an iteration (4 of a, 4 of b; 128 bytes) before the first add,
//    so a full SM keeps 2048 × 128 B = 256 KiB of reads in flight instead of 64 KiB. Little's law on
//    an H100: ~3.3 TB/s × ~0.7 µs ≈ 2.3 MB must be in flight across 132 SMs, ~18 KiB per SM, so 04
//    already has enough on paper; what this buys is slack against latency spikes (DRAM refresh, row
//    switches), worth a percent or two;
//  - loads and stores use the evict-first hint (ld.global.cs / st.global.cs): nothing is reused, so
//    the stream should not push other lines out of L2;
//  - the grid is the number of blocks that can be resident at once (occupancy × SMs): one wave.
// Expected: 1-3% over step 04, at or above Thrust and ≥ 95% of the copy ceiling.
// Measured (H200, docs/elementwise.md): 1% SLOWER than step 04. Bytes in flight were not what held
// 04 back; the grid-stride shape was (step 06).
#include "../core/kernel_setup.cuh"
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

constexpr int threads_per_block = 256;
constexpr int unroll = 4;

__global__ void __launch_bounds__(threads_per_block) vecadd_in_flight_kernel(const float* a, const float* b, float* c,
                                                                             std::int64_t n) {
  const std::int64_t n4 = n / 4;
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  auto* c4 = reinterpret_cast<float4*>(c);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads_per_block;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * threads_per_block + threadIdx.x;
  std::int64_t i = first;
  for (; i + (unroll - 1) * stride < n4; i += unroll * stride) {
    float4 x[unroll];
    float4 y[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      x[u] = __ldcs(a4 + i + u * stride);
      y[u] = __ldcs(b4 + i + u * stride);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) __stcs(c4 + i + u * stride, add4(x[u], y[u]));
  }
  for (; i < n4; i += stride) __stcs(c4 + i, add4(__ldcs(a4 + i), __ldcs(b4 + i)));
  const std::int64_t tail = 4 * n4 + first;
  if (tail < n) c[tail] = a[tail] + b[tail];
}

int resident_blocks_per_sm() { return swath::cuda::prepare_kernel(vecadd_in_flight_kernel, threads_per_block, 0); }

}  // namespace

void vecadd_in_flight(const problem& p, const operands& x, const launch_context& launch) {
  expect_aligned_16(x.a);
  expect_aligned_16(x.b);
  expect_aligned_16(x.c);
  const std::int64_t n = p.count();
  const unsigned blocks = std::min(blocks_for((n + 3) / 4, threads_per_block),
                                   static_cast<unsigned>(resident_blocks_per_sm() * launch.sm_count));
  vecadd_in_flight_kernel<<<blocks, threads_per_block, 0, stream_of(launch)>>>(x.a, x.b, x.c, n);
  SWATH_CHECK_LAST();
}

}  // namespace swath::elementwise::cuda
