// CUDA step 7: the bytes start in host memory. They cross the host link in 64 MiB chunks into two
// device buffers in turn; while one chunk is counted (step 6's kernel, adding into the counts), the
// next one is copied. Copies run on their own stream; events keep a buffer from being overwritten
// before its count has finished, and the caller's stream waits for the last count.
//
// Prediction: the link is ~80x slower than device memory (55 GB/s pinned on the H200 against 4.5
// TB/s), and counting a 64 MiB chunk takes ~15 µs against ~1.2 ms to copy it: the step should run at
// the pinned host-to-device bandwidth: the copies run back to back, and only the last chunk's count
// (~15 µs against ~19 ms for 1 GiB) trails the last copy. (First predicted: less the first chunk's
// copy, 1/16 of 1 GiB; measured 99.7% of the link: docs/histogram.md.)
// Pageable host memory goes through the driver's own staging and is slower; the benchmark uses pinned.
#include <mutex>

#include "../core/per_device.cuh"
#include "histogram_cuda.cuh"
#include "swath/core/buffer.hpp"

namespace swath::histogram::cuda {
namespace {

constexpr std::int64_t chunk_bytes = std::int64_t{64} << 20;

// The staging buffers, the copy stream and the events of a device live as long as the program:
// creating them costs more than counting a chunk. One caller at a time enqueues on a device's staging;
// on the device, a caller's first copies wait for the previous caller's counts of the same buffers,
// whatever stream those ran on.
struct staging {
  buffer<std::uint8_t> chunks[2];
  cudaStream_t copies = nullptr;
  cudaEvent_t copied[2] = {nullptr, nullptr};
  cudaEvent_t counted[2] = {nullptr, nullptr};
  cudaEvent_t begun = nullptr;
  bool recorded[2] = {false, false};  // counted[b] has been recorded (by any caller)
  std::mutex guard;

  staging() {
    for (auto& chunk : chunks) chunk = buffer<std::uint8_t>(memory_kind::device, static_cast<std::size_t>(chunk_bytes));
    SWATH_CUDA_CHECK(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking));
    for (int b = 0; b < 2; ++b) {
      SWATH_CUDA_CHECK(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
      SWATH_CUDA_CHECK(cudaEventCreateWithFlags(&counted[b], cudaEventDisableTiming));
    }
    SWATH_CUDA_CHECK(cudaEventCreateWithFlags(&begun, cudaEventDisableTiming));
  }
};

staging& the_staging() {
  static swath::cuda::per_device<staging> instances;
  return instances.get();
}

}  // namespace

void add_host_byte_counts(const std::uint8_t* host_bytes, std::int64_t n, std::uint64_t* counts,
                          const launch_context& launch) {
  if (n == 0) return;
  staging& s = the_staging();
  const std::lock_guard lock(s.guard);
  const cudaStream_t counting = stream_of(launch);
  // Copies start after whatever the caller queued before (e.g. clearing the counts).
  SWATH_CUDA_CHECK(cudaEventRecord(s.begun, counting));
  SWATH_CUDA_CHECK(cudaStreamWaitEvent(s.copies, s.begun));
  for (std::int64_t start = 0, chunk = 0; start < n; start += chunk_bytes, ++chunk) {
    const int b = static_cast<int>(chunk % 2);
    const std::int64_t length = std::min(chunk_bytes, n - start);
    // Buffer b was last counted two chunks ago, or by the previous caller; the copy must not overwrite
    // it before then.
    if (s.recorded[b]) SWATH_CUDA_CHECK(cudaStreamWaitEvent(s.copies, s.counted[b]));
    SWATH_CUDA_CHECK(cudaMemcpyAsync(s.chunks[b].data(), host_bytes + start, static_cast<std::size_t>(length),
                                     cudaMemcpyHostToDevice, s.copies));
    SWATH_CUDA_CHECK(cudaEventRecord(s.copied[b], s.copies));
    SWATH_CUDA_CHECK(cudaStreamWaitEvent(counting, s.copied[b]));
    add_byte_counts(s.chunks[b].data(), length, counts, launch);
    SWATH_CUDA_CHECK(cudaEventRecord(s.counted[b], counting));
    s.recorded[b] = true;
  }
}

bool device_accessible(const void* pointer) {
  cudaPointerAttributes attributes{};
  SWATH_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

void host_input(const problem& p, const operands& io, const launch_context& launch) {
  clear_counts(p, io, stream_of(launch));
  add_host_byte_counts(static_cast<const std::uint8_t*>(io.samples), p.n, io.counts, launch);
}

}  // namespace swath::histogram::cuda
