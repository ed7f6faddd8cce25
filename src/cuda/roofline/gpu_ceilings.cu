// GPU ceilings, measured with the same care as the benchmarks (CUDA events, median, buffers many times
// the L2): device-memory copy (kernel and cudaMemcpy), read-only bandwidth, FP32 FMA throughput,
// cuBLAS SGEMM (FP32, no TF32) and pinned host<->device transfers.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "swath/bench/ceilings.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"

namespace swath::bench {
namespace {

constexpr int threads = 256;
constexpr int per_thread = 2;  // float4 per thread: a tile of 256 × 2 × 16 B = 8 KiB per block

// Copy, one tile per block (the vector-add steps measured this shape ~6% faster than a grid-stride
// loop on an H200): every thread issues its loads before its stores, blocks retire and start freely.
__global__ void __launch_bounds__(threads) copy_kernel(const float4* source, float4* destination, std::int64_t n4) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * threads * per_thread + threadIdx.x;
  float4 v[per_thread];
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    if (base + k * threads < n4) v[k] = __ldg(source + base + k * threads);
  }
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    if (base + k * threads < n4) destination[base + k * threads] = v[k];
  }
}

// Read-only, same tiles: each block writes one partial sum (4 bytes per 8 KiB read, 0.05% extra
// traffic), which keeps the loads alive without contended atomics.
__global__ void __launch_bounds__(threads) read_kernel(const float4* source, std::int64_t n4, float* partial_sums) {
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * threads * per_thread + threadIdx.x;
  float sum = 0;
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    if (base + k * threads < n4) {
      const float4 v = __ldg(source + base + k * threads);
      sum += v.x + v.y + v.z + v.w;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[threads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block_sum = 0;
    for (int w = 0; w < threads / 32; ++w) block_sum += warp_sums[w];
    partial_sums[blockIdx.x] = block_sum;
  }
}

// Eight independent FMA chains per thread: with 2048 threads per SM, each of the 4 schedulers has 16
// warps × 8 chains of independent FMAs to cover the 4-cycle latency. The FMAs take every issue slot
// they can, so the loop's own counter, test and branch count: 16 steps of the chains to a test, 128
// FMAs to 3 other instructions (97.7% of the slots). With the loop as nvcc unrolls it by itself (4
// steps, 32 FMAs to 3), the ceiling read 91% of SMs × lanes × 2 × clock on the H100 and the H200,
// 32 / 35 = 91.4%: the benchmark's limit, not the GPU's.
constexpr int fma_chains = 8, fma_steps_per_test = 16;
__global__ void __launch_bounds__(threads) fma_kernel(float* out, int iterations, float scale, float offset) {
  float acc[fma_chains];
#pragma unroll
  for (int k = 0; k < fma_chains; ++k) acc[k] = static_cast<float>(threadIdx.x + k);
  for (int i = 0; i < iterations; i += fma_steps_per_test) {  // iterations: a multiple of fma_steps_per_test
#pragma unroll
    for (int step = 0; step < fma_steps_per_test; ++step) {
#pragma unroll
      for (int k = 0; k < fma_chains; ++k) acc[k] = fmaf(acc[k], scale, offset);
    }
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < fma_chains; ++k) sum += acc[k];
  out[static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x] = sum;
}

double median_device_seconds(const std::function<void(int)>& body, int repetitions) {
  return summarize(time_on_device(body, 2, repetitions)).median_s;
}

int lanes_per_sm(int major, int minor) {
  // FP32 lanes per SM: Volta, Turing and the A100 have 64; GA10x, Ada, Hopper and Blackwell 128.
  if (major < 8 || (major == 8 && minor == 0)) return 64;
  return 128;
}

}  // namespace

gpu_ceilings measure_gpu_ceilings(bool quick) {
  const auto gpu = query_gpu();
  SWATH_EXPECTS(gpu.has_value(), "measuring GPU ceilings needs a CUDA device");
  gpu_ceilings out;
  out.fp32_theoretical_gflops =
      static_cast<double>(gpu->sm_count) * lanes_per_sm(gpu->compute_major, gpu->compute_minor) * 2.0 *
      gpu->sm_clock_khz * 1e-6;
  const int repetitions = quick ? 5 : 20;

  // Memory: two buffers of max(1 GiB, 8 × L2) (quick: 8 × L2), so the L2 holds a small fraction.
  const std::int64_t bytes = quick ? 8 * gpu->l2_bytes : std::max<std::int64_t>(std::int64_t{1} << 30, 8 * gpu->l2_bytes);
  const std::int64_t n4 = bytes / 16;
  const auto count = static_cast<std::size_t>(4 * n4);
  buffer<float> source(memory_kind::device, count);
  buffer<float> destination(memory_kind::device, count);
  fill_random_device(source.data(), static_cast<std::int64_t>(count), 11);
  fill_random_device(destination.data(), static_cast<std::int64_t>(count), 12);
  const auto grid = static_cast<unsigned>((n4 + threads * per_thread - 1) / (threads * per_thread));
  const auto* from = reinterpret_cast<const float4*>(source.data());
  auto* to = reinterpret_cast<float4*>(destination.data());
  const double moved = 2.0 * static_cast<double>(bytes);
  out.copy_kernel_gbps = moved / median_device_seconds([&](int) {
    copy_kernel<<<grid, threads>>>(from, to, n4);
    SWATH_CHECK_LAST();
  }, repetitions) * 1e-9;
  out.copy_memcpy_gbps = moved / median_device_seconds([&](int) {
    SWATH_CUDA_CHECK(cudaMemcpyAsync(to, from, static_cast<std::size_t>(bytes), cudaMemcpyDeviceToDevice));
  }, repetitions) * 1e-9;
  out.copy_gbps = std::max(out.copy_kernel_gbps, out.copy_memcpy_gbps);

  buffer<float> partial_sums(memory_kind::device, grid);
  out.read_gbps = static_cast<double>(bytes) / median_device_seconds([&](int) {
    read_kernel<<<grid, threads>>>(from, n4, partial_sums.data());
    SWATH_CHECK_LAST();
  }, repetitions) * 1e-9;

  // FMA: 2048 threads per SM; a few milliseconds per launch.
  const int iterations = quick ? 4096 : 65536;
  static_assert(4096 % fma_steps_per_test == 0 && 65536 % fma_steps_per_test == 0, "whole groups of steps");
  const unsigned fma_grid = static_cast<unsigned>(gpu->sm_count * (2048 / threads));
  buffer<float> fma_out(memory_kind::device, static_cast<std::size_t>(fma_grid) * threads);
  const double flops = 2.0 * fma_chains * iterations * static_cast<double>(fma_grid) * threads;
  out.fp32_fma_gflops = flops / median_device_seconds([&](int) {
    fma_kernel<<<fma_grid, threads>>>(fma_out.data(), iterations, 0.9999999f, 1e-7f);
    SWATH_CHECK_LAST();
  }, repetitions) * 1e-9;

  // cuBLAS SGEMM in plain FP32: pedantic math forbids TF32 and other reduced-precision shortcuts.
  {
    const int n = quick ? 1024 : 8192;
    const auto elements = static_cast<std::size_t>(n) * n;
    buffer<float> a(memory_kind::device, elements), b(memory_kind::device, elements), c(memory_kind::device, elements);
    fill_random_device(a.data(), static_cast<std::int64_t>(elements), 21);
    fill_random_device(b.data(), static_cast<std::int64_t>(elements), 22);
    cublasHandle_t handle = nullptr;
    SWATH_CUBLAS_CHECK(cublasCreate(&handle));
    try {
      SWATH_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
      const float one = 1.0f, zero = 0.0f;
      const double gemm_flops = 2.0 * n * static_cast<double>(n) * n;
      out.sgemm_gflops = gemm_flops / median_device_seconds([&](int) {
        SWATH_CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), n, b.data(), n, &zero,
                                       c.data(), n));
      }, quick ? 3 : 10) * 1e-9;
    } catch (...) {
      cublasDestroy(handle);
      throw;
    }
    SWATH_CUBLAS_CHECK(cublasDestroy(handle));
  }

  // Pinned transfers over the host link.
  {
    const std::size_t transfer_bytes = quick ? (16u << 20) : (256u << 20);
    buffer<float> host(memory_kind::pinned_host, transfer_bytes / 4);
    buffer<float> device(memory_kind::device, transfer_bytes / 4);
    fill_random(host.data(), static_cast<std::int64_t>(host.size()), 31);
    out.h2d_pinned_gbps = static_cast<double>(transfer_bytes) / median_device_seconds([&](int) {
      SWATH_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), transfer_bytes, cudaMemcpyHostToDevice));
    }, quick ? 3 : 10) * 1e-9;
    out.d2h_pinned_gbps = static_cast<double>(transfer_bytes) / median_device_seconds([&](int) {
      SWATH_CUDA_CHECK(cudaMemcpyAsync(host.data(), device.data(), transfer_bytes, cudaMemcpyDeviceToHost));
    }, quick ? 3 : 10) * 1e-9;
  }
  SWATH_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

}  // namespace swath::bench
