// swath::histogram::count: validate, place (by where the samples and the counts are), pick the step,
// run on the caller's stream.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../histogram/steps.hpp"
#include "dispatch.hpp"
#include "placement.hpp"
#if SWATH_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace swath::histogram {
namespace {

using rule = api::dispatch_rule<problem, operands>;

// The conditions below with [[maybe_unused]] serve the device tables, which CPU-only builds leave out.
[[maybe_unused]] bool bytes(const problem& p, const operands&) { return p.byte_fast_path(); }
[[maybe_unused]] bool fits_shared(const problem& p, const operands&) { return shared_counters(p).ok(); }

// clang-format off
#if SWATH_WITH_CUDA
constexpr rule device_rules[] = {
  // Bytes: 32 bank-spread copies, 97.6% of read bandwidth on an H100, 1.1-1.4x CUB (docs/histogram.md).
  {"histogram/cuda/06_bank_spread", 0, 999, bytes, cuda::bank_spread, "bytes: 1.1-1.4x CUB"},
  // General bins that fit a block's shared memory (48K counters), then global atomics.
  {"histogram/cuda/02_shared_privatized", 0, 999, fits_shared, cuda::shared_privatized, "bins in shared memory"},
  {"histogram/cuda/01_global_atomic", 0, 999, api::always<problem, operands>, cuda::global_atomic, "any bin count"},
};
#else
constexpr std::span<const rule> device_rules;  // no CUDA backend: never chosen
#endif
// Bytes in pinned host memory cross the link in chunks while the last is counted: 54.8 GB/s on an H100
// host, against 19.3 GB/s for all 16 cores (the library issue's measurement; docs/histogram.md, step 07).
#if SWATH_WITH_CUDA
constexpr rule pinned_rules[] = {
  {"histogram/cuda/07_host_input", 0, 999, bytes, cuda::host_input, "pinned bytes: the host link, 2.8x the CPU"},
};
#else
constexpr std::span<const rule> pinned_rules;  // no CUDA backend: never chosen
#endif
constexpr rule host_rules[] = {
  {"histogram/cpu/02_openmp", 0, 999, api::always<problem, operands>, cpu::openmp, "all cores, private counts"},
};
// clang-format on

// Counts of bins + 1 written on the device into pinned host memory: counted into stream-ordered device
// memory, copied, freed after the copy (cudaMallocAsync / cudaFreeAsync; nothing waits on the host).
void count_on_device(const rule& chosen, const problem& p, const operands& x, bool counts_on_host,
                     const api::call_site& site) {
#if SWATH_WITH_CUDA
  const api::device_scope on_device(site.device);
  if (!counts_on_host) {
    chosen.run(p, x, site.launch);
    return;
  }
  const auto stream = static_cast<cudaStream_t>(site.launch.stream);
  const std::size_t bytes = static_cast<std::size_t>(p.bins + 1) * sizeof(std::uint64_t);
  void* device_counts = nullptr;
  SWATH_CUDA_CHECK(cudaMallocAsync(&device_counts, bytes, stream));
  chosen.run(p, operands{x.samples, static_cast<std::uint64_t*>(device_counts)}, site.launch);
  SWATH_CUDA_CHECK(cudaMemcpyAsync(x.counts, device_counts, bytes, cudaMemcpyDeviceToHost, stream));
  SWATH_CUDA_CHECK(cudaFreeAsync(device_counts, stream));
#else
  (void)chosen, (void)p, (void)x, (void)counts_on_host, (void)site;
#endif
}

void clear_on_device(std::uint64_t* counts, std::size_t bytes, const api::call_site& site) {
#if SWATH_WITH_CUDA
  const api::device_scope on_device(site.device);
  SWATH_CUDA_CHECK(cudaMemsetAsync(counts, 0, bytes, static_cast<cudaStream_t>(site.launch.stream)));
#else
  (void)counts, (void)bytes, (void)site;
#endif
}

void count_any(const char* f, const problem& p, const operands& x, stream_t stream) {
  api::require(p.n >= 0, f, "n = " + std::to_string(p.n) + " is negative");
  api::require(x.counts != nullptr, f, "counts is null");
  api::require(p.n == 0 || x.samples != nullptr, f, "the samples are null");
  const api::memory_place samples = api::locate(x.samples), counts = api::locate(x.counts);
  if (!counts.device && !counts.pinned) {
    // Pageable counts: the CPU counts, and must be able to read the samples.
    api::require(!samples.device, f,
                 "the samples are in device memory and counts in pageable host memory: pass device or pinned host "
                 "counts (the call then runs on the GPU, asynchronously), or use count_bytes (synchronous)");
    api::choose<problem, operands>(host_rules, 0, p, x).run(p, x, launch_context{});
    return;
  }
  const bool samples_pinned = !samples.device && p.n > 0;
  api::require(samples.device || p.n == 0 || (samples.pinned && p.byte_fast_path()), f,
               samples.pinned ? "int32 and float samples on the GPU must be in device memory"
                              : "the samples are in pageable host memory: count them into host counts (the CPU "
                                "reads them), or copy them to the device first");
  const api::call_site site = api::device_site(stream);
  if (p.n == 0) {  // no samples: the counts are zeros, written on the stream
    clear_on_device(x.counts, static_cast<std::size_t>(p.bins + 1) * sizeof(std::uint64_t), site);
    return;
  }
  for (const api::memory_place& place : {samples, counts}) {
    api::require(!place.device || place.ordinal == site.device, f,
                 "the samples or counts are on device " + std::to_string(place.ordinal) + " and the stream on device " +
                     std::to_string(site.device));
  }
  api::require_code_for(f, site.device);
  const auto table = samples_pinned ? std::span<const rule>(pinned_rules) : std::span<const rule>(device_rules);
  const rule& chosen = api::choose<problem, operands>(table, site.capability, p, x);
  count_on_device(chosen, p, x, !counts.device, site);
}

template <class T>
void count_binned(const T* samples, std::int64_t n, int bins, double lo, double hi, std::uint64_t* counts,
                  stream_t stream) {
  constexpr const char* f = "swath::histogram::count";
  api::require(bins >= 1, f, "bins = " + std::to_string(bins) + " must be at least 1");
  api::require(std::isfinite(lo) && std::isfinite(hi) && lo < hi, f,
               "the range [" + std::to_string(lo) + ", " + std::to_string(hi) + ") must be finite with lo < hi");
  problem p;
  p.n = n, p.bins = bins, p.lo = lo, p.hi = hi;
  p.type = sizeof(T) == 4 && std::is_floating_point_v<T> ? sample_type::f32 : sample_type::i32;
  count_any(f, p, operands{samples, counts}, stream);
}

}  // namespace

void count(const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts, stream_t stream) {
  problem p;
  p.n = n;
  count_any("swath::histogram::count", p, operands{bytes, counts}, stream);
}
void count(const std::int32_t* samples, std::int64_t n, int bins, double lo, double hi, std::uint64_t* counts,
           stream_t stream) {
  count_binned(samples, n, bins, lo, hi, counts, stream);
}
void count(const float* samples, std::int64_t n, int bins, double lo, double hi, std::uint64_t* counts, stream_t stream) {
  count_binned(samples, n, bins, lo, hi, counts, stream);
}

}  // namespace swath::histogram
