// CUDA step 2, the seed's ×100 fix: each block counts into its own histogram in shared memory and adds
// it to the global counts once at the end. The atomics move from the L2 to the SM's shared memory
// (tens of cycles instead of hundreds, and 132 SMs work apart); the global atomics fall from n to
// 257 per block. Any sample type and bin count whose counters fit in shared memory.
//
// Prediction: uniform bytes spread over 256 counters in 32 banks, so a warp's 32 atomics collide only
// by chance (~1.3-way on average): bound by the shared-memory atomic rate, about one warp instruction
// per few clocks per SM, i.e. 1-2 TB/s of bytes. Constant input serialises all 32 lanes of every warp
// on one address: ~32x slower than uniform.
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

constexpr int threads = 512;

template <class Sample, class Binner>
__global__ void __launch_bounds__(threads) shared_privatized_kernel(const Sample* samples, std::int64_t n, int slots,
                                                                     counter64* counts, Binner bin) {
  extern __shared__ std::uint32_t block_counts[];
  zero_shared(block_counts, slots);
  __syncthreads();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x; i < n; i += stride) {
    atomicAdd(block_counts + bin(samples[i]), 1u);
  }
  __syncthreads();
  add_block_counts(block_counts, slots, counts);
}

}  // namespace

void shared_privatized(const problem& p, const operands& io, const launch_context& launch) {
  const cudaStream_t stream = stream_of(launch);
  clear_counts(p, io, stream);
  if (p.n == 0) return;
  const int slots = p.bins + 1;
  const std::size_t shared_bytes = sizeof(std::uint32_t) * static_cast<std::size_t>(slots);
  for_sample_kind(p, [&](auto sample_tag, auto binner) {
    using Sample = decltype(sample_tag);
    const auto kernel = shared_privatized_kernel<Sample, decltype(binner)>;
    allow_shared_bytes(kernel, shared_bytes);
    // Blocks that each loop over many samples, so the per-block zeroing and merge stay small.
    const unsigned blocks = resident_grid(kernel, threads, shared_bytes, launch, p.n, std::int64_t{threads} * 64);
    kernel<<<blocks, threads, shared_bytes, stream>>>(static_cast<const Sample*>(io.samples), p.n, slots,
                                                      as_counters(io.counts), binner);
    SWATH_CHECK_LAST();
  });
}

}  // namespace swath::histogram::cuda
