// CUDA step 6: 32 copies of the histogram per block, interleaved so that lane l's copy of bin b is word
// 32·b + l: lane l only ever touches bank l. A warp's 32 atomics then fall in 32 different banks and on
// 32 different addresses whatever the bytes are: uniform, constant or skewed input cost the same one
// conflict-free shared atomic per byte. The price is 32 KiB of shared memory per block (256 bins × 32
// lanes × 4 B) and a 32-way sum per bin at the end, once per resident block.
//
// Also: 1024-thread blocks, two per SM (64 KiB of the 228 KiB), so every SM runs 2048 threads; each
// thread keeps two 16-byte loads in flight per iteration (64 KiB per SM in flight, against the ~30 KiB
// the H200's latency × bandwidth per SM asks for).
//
// Prediction: bound by the shared-memory atomic unit. If it retires one conflict-free warp atomic per
// clock, 32 bytes/clock/SM is twice what memory delivers (~15.5 bytes/clock/SM at 4.5 TB/s): memory
// bound on every input. At one per two clocks it is ~16 bytes/clock: just at the read bandwidth.
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

constexpr int threads = 1024;
constexpr int lanes = 32;

__global__ void __launch_bounds__(threads, 2) bank_spread_kernel(const std::uint8_t* bytes, byte_split split,
                                                                 counter64* counts) {
  __shared__ std::uint32_t spread[256 * lanes];
  zero_shared(spread, 256 * lanes);
  __syncthreads();
  std::uint32_t* mine = spread + threadIdx.x % lanes;
  const auto count = [&](std::uint32_t byte) { atomicAdd(mine + byte * lanes, 1u); };
  count_ragged_bytes(bytes, split, count);
  const auto* words = reinterpret_cast<const uint4*>(bytes + split.head);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
  std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  for (; w + stride < split.words; w += 2 * stride) {
    const uint4 first = __ldg(words + w);
    const uint4 second = __ldg(words + w + stride);
    count_word(first, count);
    count_word(second, count);
  }
  if (w < split.words) count_word(__ldg(words + w), count);
  __syncthreads();
  // Bin b's 32 copies, read starting at copy b mod 32 so that the 32 threads of a warp (32 bins) hit
  // 32 different banks.
  for (int b = static_cast<int>(threadIdx.x); b < 256; b += threads) {
    std::uint32_t sum = 0;
#pragma unroll 8
    for (int c = 0; c < lanes; ++c) sum += spread[b * lanes + (c + b) % lanes];
    if (sum != 0) atomicAdd(counts + b, static_cast<counter64>(sum));
  }
}

}  // namespace

void add_byte_counts(const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts, const launch_context& launch) {
  launch_byte_kernel(bank_spread_kernel, threads, bytes, n, counts, launch);
}

void bank_spread(const problem& p, const operands& io, const launch_context& launch) {
  clear_counts(p, io, stream_of(launch));
  add_byte_counts(static_cast<const std::uint8_t*>(io.samples), p.n, io.counts, launch);
}

}  // namespace swath::histogram::cuda
