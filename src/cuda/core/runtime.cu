// CUDA runtime glue: device query, pinned and device allocations, copies, event timing, and the
// device-side random fill and poison kernels.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "../../core/cuda_glue.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"

namespace swath {

bool cuda_built() { return true; }

std::optional<gpu_info> query_gpu(std::string* why_not) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why_not != nullptr) {
      *why_not = status != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorName(status) + " (" +
                                             cudaGetErrorString(status) + ")"
                                       : "no CUDA device is visible";
    }
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return std::nullopt;
  }
  gpu_info info;
  SWATH_CUDA_CHECK(cudaGetDevice(&info.index));
  cudaDeviceProp properties{};
  SWATH_CUDA_CHECK(cudaGetDeviceProperties(&properties, info.index));
  info.name = properties.name;
  info.compute_major = properties.major;
  info.compute_minor = properties.minor;
  info.sm_count = properties.multiProcessorCount;
  info.l2_bytes = properties.l2CacheSize;
  info.memory_bytes = static_cast<std::int64_t>(properties.totalGlobalMem);
  info.shared_memory_per_block_optin = static_cast<std::int64_t>(properties.sharedMemPerBlockOptin);
  info.memory_bus_bits = properties.memoryBusWidth;
  // Clock rates left cudaDeviceProp in CUDA 13; the attributes remain.
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, info.index));
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, info.index));
  SWATH_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  SWATH_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::int64_t gpu_free_memory_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SWATH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

void device_synchronize() { SWATH_CUDA_CHECK(cudaDeviceSynchronize()); }

void zero_device(void* data, std::size_t bytes, void* stream) {
  SWATH_CUDA_CHECK(cudaMemsetAsync(data, 0, bytes, static_cast<cudaStream_t>(stream)));
}

namespace {

// Holds a stream until the host has queued the repetitions behind it (nvbench's "blocking kernel"):
// a small call's host side (cudaLaunchKernel ~4.5 µs a launch on the H200's host; cublasSgemm 13-19 µs)
// can outlast its GPU work (cuBLAS 256³: ~13 µs of kernels), and a stream fed one call at a time then
// measures the host's enqueue gaps, not the GPU. Released by the host, or after `timeout_ns` on its own
// when a body waits on the stream (then the times are taken again, unheld).
__global__ void hold_stream_kernel(const volatile int* release, int* timed_out, unsigned long long timeout_ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(256);
  }
}

// The repetitions [first, first + count) queued behind one hold (or none), each between its events.
bool time_held(const std::function<void(int)>& body, cudaStream_t stream, std::vector<cudaEvent_t>& events, int first,
               int count, int* flags) {
  if (flags != nullptr) {
    flags[0] = 0, flags[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    constexpr unsigned long long timeout_ns = 100'000'000;  // 0.1 s: far beyond queuing 256 repetitions
    hold_stream_kernel<<<1, 1, 0, stream>>>(flags, flags + 1, timeout_ns);
    SWATH_CHECK_LAST();
  }
  for (int rep = first; rep < first + count; ++rep) {
    SWATH_CUDA_CHECK(cudaEventRecord(events[2 * rep], stream));
    body(rep);
    SWATH_CUDA_CHECK(cudaEventRecord(events[2 * rep + 1], stream));
  }
  if (flags != nullptr) {
    reinterpret_cast<volatile int*>(flags)[0] = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  SWATH_CUDA_CHECK(cudaEventSynchronize(events[2 * (first + count) - 1]));
  return flags == nullptr || reinterpret_cast<volatile int*>(flags)[1] == 0;
}

}  // namespace

std::vector<double> time_on_device(const std::function<void(int)>& body, int warmup, int repetitions, void* stream) {
  SWATH_EXPECTS(repetitions >= 1, "at least one timed repetition");
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  for (int rep = 0; rep < warmup; ++rep) body(rep);
  // One event pair per repetition, queued behind a hold in chunks of 256 (the launch queue stays far
  // from full), all recorded before any is read, so the GPU runs them back to back.
  std::vector<cudaEvent_t> events(2 * static_cast<std::size_t>(repetitions));
  for (auto& event : events) SWATH_CUDA_CHECK(cudaEventCreate(&event));
  int* flags = nullptr;  // [release, timed out], host memory the kernel reads and writes
  std::vector<double> seconds;
  try {
    SWATH_CUDA_CHECK(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
    constexpr int chunk = 256;
    bool held = true;
    for (int first = 0; first < repetitions && held; first += chunk) {
      held = time_held(body, cuda_stream, events, first, std::min(chunk, repetitions - first), flags);
    }
    if (!held) {  // a body waited on its stream: the plain way, each repetition queued as it comes
      for (int first = 0; first < repetitions; first += chunk) {
        time_held(body, cuda_stream, events, first, std::min(chunk, repetitions - first), nullptr);
      }
    }
    for (int rep = 0; rep < repetitions; ++rep) {
      float milliseconds = 0;
      SWATH_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, events[2 * rep], events[2 * rep + 1]));
      seconds.push_back(milliseconds * 1e-3);
    }
  } catch (...) {
    for (auto& event : events) cudaEventDestroy(event);
    if (flags != nullptr) cudaFreeHost(flags);
    throw;
  }
  for (auto& event : events) SWATH_CUDA_CHECK(cudaEventDestroy(event));
  SWATH_CUDA_CHECK(cudaFreeHost(flags));
  return seconds;
}

namespace {

__global__ void fill_random_kernel(float* data, std::int64_t count, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = random_float(seed, static_cast<std::uint64_t>(i));
  }
}

template <class T>
__global__ void fill_value_kernel(T* data, std::int64_t count, T value) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = value;
  }
}

unsigned grid_for(std::int64_t count) {
  // Enough blocks to fill any current GPU several times over; the kernels stride over the rest.
  return static_cast<unsigned>(std::clamp<std::int64_t>((count + 255) / 256, 1, 8192));
}

}  // namespace

void fill_random_device(float* data, std::int64_t count, std::uint64_t seed, void* stream) {
  if (count <= 0) return;
  fill_random_kernel<<<grid_for(count), 256, 0, static_cast<cudaStream_t>(stream)>>>(data, count, seed);
  SWATH_CHECK_LAST();
}

void poison_device(float* data, std::int64_t count, void* stream) {
  if (count <= 0) return;
  fill_value_kernel<<<grid_for(count), 256, 0, static_cast<cudaStream_t>(stream)>>>(data, count, poison_f32());
  SWATH_CHECK_LAST();
}

void poison_device(double* data, std::int64_t count, void* stream) {
  if (count <= 0) return;
  fill_value_kernel<<<grid_for(count), 256, 0, static_cast<cudaStream_t>(stream)>>>(data, count, poison_f64());
  SWATH_CHECK_LAST();
}

namespace detail {

void* cuda_allocate(memory_kind kind, std::size_t bytes) {
  void* pointer = nullptr;
  if (kind == memory_kind::device) {
    const cudaError_t status = cudaMalloc(&pointer, bytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw out_of_memory_error("out of device memory: cudaMalloc of " + format_bytes(static_cast<double>(bytes)) +
                                " failed (" + format_bytes(static_cast<double>(gpu_free_memory_bytes())) + " free)");
    }
    SWATH_CUDA_CHECK(status);
  } else {
    const cudaError_t status = cudaMallocHost(&pointer, bytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw out_of_memory_error("out of pinned host memory: cudaMallocHost of " +
                                format_bytes(static_cast<double>(bytes)) + " failed");
    }
    SWATH_CUDA_CHECK(status);
  }
  return pointer;
}

void cuda_free(memory_kind kind, void* pointer) noexcept {
  // Errors here cannot be thrown from a destructor; a failing free means the context is already broken
  // and the next checked call reports it.
  if (kind == memory_kind::device) {
    cudaFree(pointer);
  } else {
    cudaFreeHost(pointer);
  }
}

void cuda_copy(void* destination, const void* source, std::size_t bytes, bool destination_on_device,
               bool source_on_device) {
  const cudaMemcpyKind kind = destination_on_device ? (source_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                                    : cudaMemcpyDeviceToHost;
  SWATH_CUDA_CHECK(cudaMemcpy(destination, source, bytes, kind));
}

}  // namespace detail
}  // namespace swath
