// CPU ceilings: streaming copy bandwidth (bytes read + written) and FP32 FMA throughput, on one core
// and on all cores. This file is compiled with -ffp-contract=fast so that a*b+c becomes one FMA.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>

#include "swath/bench/ceilings.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"

namespace swath::bench {
namespace {

// The widest vectors this build targets, and enough independent accumulators to cover FMA latency on
// two FMA ports (4-cycle latency × 2 ports = 8 in flight, a few more for slack).
#if defined(__AVX512F__)
using lanes = float __attribute__((vector_size(64)));
constexpr int accumulators = 12;
#else
using lanes = float __attribute__((vector_size(32)));
constexpr int accumulators = 10;
#endif
constexpr int lane_count = sizeof(lanes) / sizeof(float);

// 2 flops × lanes × accumulators per iteration. Returns a value that depends on every accumulator so
// the loop cannot be removed.
float fma_chains(std::int64_t iterations, float seed) {
  lanes acc[accumulators];
  for (int k = 0; k < accumulators; ++k) acc[k] = lanes{} + (seed + static_cast<float>(k));
  const lanes scale = lanes{} + 0.9999999f;
  const lanes offset = lanes{} + 1e-7f;
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (int k = 0; k < accumulators; ++k) acc[k] = acc[k] * scale + offset;
  }
  float sum = 0;
  for (int k = 0; k < accumulators; ++k) {
    for (int l = 0; l < lane_count; ++l) sum += acc[k][l];
  }
  return sum;
}

// Copy with non-temporal (streaming) stores where the CPU has them: an ordinary store first reads the
// destination line into cache (write-allocate), so a plain copy moves 3 bytes for every 2 it counts
// and would understate what memory can do. Streaming stores skip that read.
void stream_copy(const float* __restrict from, float* __restrict to, std::int64_t begin, std::int64_t end) {
#if defined(__AVX__)
  std::int64_t i = begin;
  for (; i < end && (reinterpret_cast<std::uintptr_t>(to + i) % 32) != 0; ++i) to[i] = from[i];
  for (; i + 8 <= end; i += 8) _mm256_stream_ps(to + i, _mm256_loadu_ps(from + i));
  for (; i < end; ++i) to[i] = from[i];
#else
  for (std::int64_t i = begin; i < end; ++i) to[i] = from[i];
#endif
}

double median_on_host(const std::function<void(int)>& body, int repetitions) {
  return summarize(time_on_host(body, 1, repetitions)).median_s;
}

volatile float sink = 0;  // keeps results alive

}  // namespace

cpu_ceilings measure_cpu_ceilings(bool quick) {
  cpu_ceilings out;
  out.threads = omp_get_max_threads();
  const cpu_info cpu = query_cpu();
  // Several times the last-level cache, so that the copy streams from memory.
  // Capped at 1 GiB: virtual machines sometimes report the host's whole L3 as theirs.
  const std::int64_t last_level = std::max<std::int64_t>({cpu.l3_bytes, cpu.l2_bytes, 8 << 20});
  const std::int64_t bytes =
      quick ? std::int64_t{64} << 20 : std::clamp<std::int64_t>(8 * last_level, std::int64_t{256} << 20, std::int64_t{1} << 30);
  const auto count = static_cast<std::size_t>(bytes / 4);
  buffer<float> source(memory_kind::host, count);
  buffer<float> destination(memory_kind::host, count);
  fill_random(source.data(), static_cast<std::int64_t>(count), 1);
  fill_random(destination.data(), static_cast<std::int64_t>(count), 2);  // touch every page first
  const float* __restrict from = source.data();
  float* __restrict to = destination.data();
  const auto n = static_cast<std::int64_t>(count);
  const int repetitions = quick ? 3 : 10;
  const double moved = 2.0 * static_cast<double>(bytes);
  out.copy_gbps_one_core = moved / median_on_host([&](int) { stream_copy(from, to, 0, n); }, repetitions) * 1e-9;
  out.copy_gbps_all_cores = moved / median_on_host([&](int) {
#pragma omp parallel
    {
      const std::int64_t threads = omp_get_num_threads();
      const std::int64_t chunk = (n + threads - 1) / threads;
      const std::int64_t begin = std::min(n, chunk * omp_get_thread_num());
      stream_copy(from, to, begin, std::min(n, begin + chunk));
    }
  }, repetitions) * 1e-9;
  sink = to[n / 2];

  const std::int64_t iterations = quick ? 2'000'000 : 20'000'000;
  const double flops = 2.0 * lane_count * accumulators * static_cast<double>(iterations);
  out.fma_gflops_one_core = flops / median_on_host([&](int rep) { sink = fma_chains(iterations, static_cast<float>(rep)); },
                                                   repetitions) * 1e-9;
  out.fma_gflops_all_cores = flops * out.threads / median_on_host([&](int rep) {
#pragma omp parallel
    {
      const float value = fma_chains(iterations, static_cast<float>(rep + omp_get_thread_num()));
      if (value == 12345.0f) sink = value;
    }
  }, repetitions) * 1e-9;
  return out;
}

}  // namespace swath::bench
