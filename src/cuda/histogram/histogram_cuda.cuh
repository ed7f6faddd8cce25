#pragma once
// What the CUDA histogram steps share: zeroing the counts, grids sized to the SMs, the split of a byte
// range into 16-byte words, the merge of a block's 32-bit shared counts into the 64-bit global ones,
// and the dispatch over sample types.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../../histogram/steps.hpp"
#include "swath/core/error.hpp"

namespace swath::histogram::cuda {

inline cudaStream_t stream_of(const launch_context& launch) { return static_cast<cudaStream_t>(launch.stream); }

using counter64 = unsigned long long;  // atomicAdd's 64-bit type; the same bits as std::uint64_t
inline counter64* as_counters(std::uint64_t* counts) { return reinterpret_cast<counter64*>(counts); }

// Every run starts from zero: the steps accumulate into the counts. 2 KiB, a few microseconds.
inline void clear_counts(const problem& p, const operands& io, cudaStream_t stream) {
  SWATH_CUDA_CHECK(cudaMemsetAsync(io.counts, 0, sizeof(std::uint64_t) * static_cast<std::size_t>(p.bins + 1), stream));
}

// A block's shared counters are 32-bit: no block may count more than 2^31 samples. The steps with a
// grid sized to the SMs make sure of it by taking at least n / 2^31 blocks.
inline constexpr std::int64_t block_sample_limit = std::int64_t{1} << 31;

// Blocks for a kernel that loops over its share: as many as fit on the GPU at once (occupancy for
// this kernel, block size and shared memory), at least n / 2^31, at most one per `per_block` samples.
template <class Kernel>
unsigned resident_grid(Kernel kernel, int threads, std::size_t shared_bytes, const launch_context& launch,
                       std::int64_t n, std::int64_t per_block) {
  int per_sm = 0;
  SWATH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  SWATH_EXPECTS(per_sm > 0, "a histogram kernel does not fit on an SM (threads or shared memory)");
  const std::int64_t resident = static_cast<std::int64_t>(std::max(launch.sm_count, 1)) * per_sm;
  const std::int64_t needed = std::max<std::int64_t>(1, (n + per_block - 1) / per_block);
  const std::int64_t blocks = std::max(std::min(resident, needed), (n + block_sample_limit - 1) / block_sample_limit);
  return static_cast<unsigned>(blocks);
}

// Shared memory past 48 KiB must be asked for, once per kernel.
template <class Kernel>
void allow_shared_bytes(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024) {
    SWATH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  }
}

// Adds a block's shared counts into the global 64-bit counts, skipping empty slots (most of them at
// small sizes); call after a barrier.
__device__ inline void add_block_counts(const std::uint32_t* shared_counts, int slots, counter64* counts) {
  for (int b = static_cast<int>(threadIdx.x); b < slots; b += static_cast<int>(blockDim.x)) {
    const std::uint32_t count = shared_counts[b];
    if (count != 0) atomicAdd(counts + b, static_cast<counter64>(count));
  }
}

__device__ inline void zero_shared(std::uint32_t* shared_counts, int slots) {
  for (int b = static_cast<int>(threadIdx.x); b < slots; b += static_cast<int>(blockDim.x)) shared_counts[b] = 0;
}

// Byte k (0-3) of a word, in the low 8 bits: one PRMT instruction.
__device__ __forceinline__ std::uint32_t byte_of(std::uint32_t word, int k) { return __byte_perm(word, 0, 0x4440 + k); }

// Counts the 16 bytes of one word with `count(byte)`, in address order.
template <class Count>
__device__ __forceinline__ void count_word(const uint4& word, Count count) {
  const std::uint32_t parts[4] = {word.x, word.y, word.z, word.w};
#pragma unroll
  for (int part = 0; part < 4; ++part) {
#pragma unroll
    for (int k = 0; k < 4; ++k) count(byte_of(parts[part], k));
  }
}

// A byte range as the part before the first 16-byte boundary (head), whole 16-byte words, and the
// rest (tail). Pointers from cudaMalloc are 256-byte aligned; a user's pointer into a buffer may not be.
struct byte_split {
  std::int64_t head = 0;
  std::int64_t words = 0;
  std::int64_t tail = 0;
};
inline byte_split split_at_16_bytes(const void* bytes, std::int64_t n) {
  const auto address = reinterpret_cast<std::uintptr_t>(bytes);
  byte_split split;
  split.head = std::min<std::int64_t>(n, static_cast<std::int64_t>((16 - address % 16) % 16));
  split.words = (n - split.head) / 16;
  split.tail = n - split.head - 16 * split.words;
  return split;
}

// The bytes outside the 16-byte words (at most 30), counted by the first threads of the grid with
// `count(byte)`.
template <class Count>
__device__ void count_ragged_bytes(const std::uint8_t* bytes, byte_split split, Count count) {
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread < split.head) count(bytes[thread]);
  const std::int64_t tail_start = split.head + 16 * split.words;
  if (thread < split.tail) count(bytes[tail_start + thread]);
}

// Every byte of [bytes, bytes + head + 16 words + tail): the ragged ends, then the grid's threads
// stride over the 16-byte words, one load each.
template <class Count>
__device__ void count_all_bytes(const std::uint8_t* bytes, byte_split split, Count count) {
  count_ragged_bytes(bytes, split, count);
  const auto* words = reinterpret_cast<const uint4*>(bytes + split.head);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t w = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < split.words; w += stride) {
    count_word(__ldg(words + w), count);
  }
}

// Sums the per-warp histograms of a block (warps × 256 counters) into the global counts; call after a
// barrier.
__device__ inline void add_warp_counts(const std::uint32_t* warp_counts, int warps, counter64* counts) {
  for (int b = static_cast<int>(threadIdx.x); b < 256; b += static_cast<int>(blockDim.x)) {
    std::uint32_t sum = 0;
    for (int warp = 0; warp < warps; ++warp) sum += warp_counts[warp * 256 + b];
    if (sum != 0) atomicAdd(counts + b, static_cast<counter64>(sum));
  }
}

// Launches a byte kernel `kernel(bytes, split, counts)` over bytes[0, n) with a grid that fills the
// GPU, adding into the counts (the caller clears them).
template <class Kernel>
void launch_byte_kernel(Kernel kernel, int threads, const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts,
                        const launch_context& launch) {
  if (n == 0) return;
  const byte_split split = split_at_16_bytes(bytes, n);
  // At least 8 words a thread, so the per-block zeroing and merge stay small against the counting.
  const unsigned blocks = resident_grid(kernel, threads, 0, launch, n, std::int64_t{threads} * 16 * 8);
  kernel<<<blocks, threads, 0, stream_of(launch)>>>(bytes, split, as_counters(counts));
  SWATH_CHECK_LAST();
}

// Bin rules as function objects, so one kernel template serves every sample type.
struct byte_bins {
  __device__ int operator()(std::uint8_t x) const { return x; }
};
template <class Sample>
struct general_bins {
  double lo, hi, scale;
  int bins;
  __device__ int operator()(Sample x) const { return bin_of(static_cast<double>(x), lo, hi, scale, bins); }
};

// Calls body(sample_tag, binner) with the problem's sample type (a value of it, to deduce the type) and
// its bin rule: the byte fast path indexes by the byte itself.
template <class Body>
void for_sample_kind(const problem& p, Body&& body) {
  if (p.byte_fast_path()) {
    body(std::uint8_t{}, byte_bins{});
    return;
  }
  switch (p.type) {
    case sample_type::u8: body(std::uint8_t{}, general_bins<std::uint8_t>{p.lo, p.hi, p.scale(), p.bins}); break;
    case sample_type::i32: body(std::int32_t{}, general_bins<std::int32_t>{p.lo, p.hi, p.scale(), p.bins}); break;
    case sample_type::f32: body(float{}, general_bins<float>{p.lo, p.hi, p.scale(), p.bins}); break;
  }
}

}  // namespace swath::histogram::cuda
