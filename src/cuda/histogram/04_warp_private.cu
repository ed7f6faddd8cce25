// CUDA step 4: one histogram per warp instead of per block. Atomics from different warps no longer
// meet on the same counters, so contention is only among a warp's own 32 lanes; the block adds its
// warps' histograms together at the end (256 × 16 shared reads, once per resident block).
//
// Prediction: on uniform bytes little changes (collisions were mostly within a warp's instruction
// anyway); on skewed and text input, where many warps hammer the same few counters, the queueing
// between warps goes away. Within a warp the lanes that share a byte value still serialise: constant
// input stays ~32x slower than uniform. (Padding the per-warp histograms would not help: two lanes
// conflict when their bins share a bank, which depends on the data, not on where a warp's copy starts.)
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

constexpr int threads = 512;
constexpr int warps = threads / 32;

__global__ void __launch_bounds__(threads) warp_private_kernel(const std::uint8_t* bytes, byte_split split,
                                                               counter64* counts) {
  __shared__ std::uint32_t warp_counts[warps * 256];
  zero_shared(warp_counts, warps * 256);
  __syncthreads();
  std::uint32_t* mine = warp_counts + 256 * (threadIdx.x / 32);
  const auto count = [&](std::uint32_t byte) { atomicAdd(mine + byte, 1u); };
  count_all_bytes(bytes, split, count);
  __syncthreads();
  add_warp_counts(warp_counts, warps, counts);
}

}  // namespace

void warp_private(const problem& p, const operands& io, const launch_context& launch) {
  clear_counts(p, io, stream_of(launch));
  launch_byte_kernel(warp_private_kernel, threads, static_cast<const std::uint8_t*>(io.samples), p.n, io.counts, launch);
}

}  // namespace swath::histogram::cuda
