// The vendor row: CUB's DeviceHistogram::HistogramEven over 257 levels 0..256 (256 unit-width bins of
// the byte values), the way a user would call it for exact counts. Below 2^32 samples CUB counts in
// 32-bit counters (its fast configuration) and a one-block kernel widens them into the 64-bit counts;
// from 2^32 on it counts in 64-bit counters directly. CUB's temporary storage is allocated once and
// kept, outside the timed runs.
#include <cub/device/device_histogram.cuh>

#include <mutex>

#include "histogram_cuda.cuh"
#include "swath/core/buffer.hpp"

namespace swath::histogram::cuda {
namespace {

__global__ void widen_counts(const unsigned* narrow, counter64* counts) {
  counts[threadIdx.x] = narrow[threadIdx.x];
  if (threadIdx.x == 0) counts[256] = 0;  // bytes are never outside [0, 256)
}

// Scratch that grows to the largest request and stays: CUB's temporary storage and the 32-bit counts.
void* scratch(std::size_t bytes) {
  static std::mutex guard;
  static buffer<std::uint8_t> storage;
  const std::lock_guard lock(guard);
  if (storage.size() < bytes) storage = buffer<std::uint8_t>(memory_kind::device, bytes);
  return storage.data();
}

template <class Counter>
void run_cub(const std::uint8_t* bytes, std::int64_t n, Counter* counts, std::size_t reserved, cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  SWATH_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, bytes, counts, 257, 0, 256, n, stream));
  auto* base = static_cast<std::uint8_t*>(scratch(reserved + temp_bytes + 256));
  void* temp = base + reserved;
  SWATH_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, bytes, counts, 257, 0, 256, n, stream));
}

}  // namespace

void cub_histogram_even(const problem& p, const operands& io, const launch_context& launch) {
  const cudaStream_t stream = stream_of(launch);
  const auto* bytes = static_cast<const std::uint8_t*>(io.samples);
  if (p.n >= (std::int64_t{1} << 32) - 1) {
    clear_counts(p, io, stream);
    run_cub(bytes, p.n, as_counters(io.counts), 0, stream);
    return;
  }
  // The 32-bit counts live at the start of the scratch (1 KiB, reserved ahead of CUB's storage).
  constexpr std::size_t narrow_bytes = 256 * sizeof(unsigned);
  std::size_t temp_bytes = 0;
  SWATH_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, bytes, static_cast<unsigned*>(nullptr), 257,
                                                       0, 256, p.n, stream));
  auto* narrow = static_cast<unsigned*>(scratch(narrow_bytes + temp_bytes + 256));
  run_cub(bytes, p.n, narrow, narrow_bytes, stream);
  widen_counts<<<1, 256, 0, stream>>>(narrow, as_counters(io.counts));
  SWATH_CHECK_LAST();
}

}  // namespace swath::histogram::cuda
