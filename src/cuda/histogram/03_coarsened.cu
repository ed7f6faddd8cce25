// CUDA step 3: thread coarsening for bytes. Each thread loads 16 bytes at a time (one LDG.128 instead
// of sixteen 1-byte loads), counts them into the block's shared histogram, and loops over many such
// words; the grid is sized to what the SMs hold at once, so the zeroing and the merge happen once per
// resident block instead of once per 512 samples.
//
// Prediction: step 2 spends ~3 instructions per byte on loading and indexing besides the atomic; here
// the load is shared by 16 bytes and the index is one PRMT, so the instruction count per byte falls by
// about a third. The shared atomics stay: uniform input should rise toward their rate, constant input
// stays serialised on one address.
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

constexpr int threads = 512;

__global__ void __launch_bounds__(threads) coarsened_kernel(const std::uint8_t* bytes, byte_split split, counter64* counts) {
  __shared__ std::uint32_t block_counts[256];
  zero_shared(block_counts, 256);
  __syncthreads();
  const auto count = [&](std::uint32_t byte) { atomicAdd(block_counts + byte, 1u); };
  count_all_bytes(bytes, split, count);
  __syncthreads();
  add_block_counts(block_counts, 256, counts);
}

}  // namespace

void coarsened(const problem& p, const operands& io, const launch_context& launch) {
  clear_counts(p, io, stream_of(launch));
  launch_byte_kernel(coarsened_kernel, threads, static_cast<const std::uint8_t*>(io.samples), p.n, io.counts, launch);
}

}  // namespace swath::histogram::cuda
