// The per-device and per-stream state of the CUDA steps (per_device.cuh, kernel_setup.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel_setup.cuh"
#include "per_device.cuh"
#include "swath/core/stream.hpp"

namespace swath::cuda {

int prepared_blocks_per_sm(const void* kernel, int threads, std::size_t shared_bytes) {
  using key = std::tuple<int, const void*, int, std::size_t>;
  static std::mutex guard;
  static std::map<key, int> prepared;
  const key wanted{current_device(), kernel, threads, shared_bytes};
  const std::lock_guard lock(guard);
  if (const auto found = prepared.find(wanted); found != prepared.end()) return found->second;
  if (shared_bytes > 48 * 1024) {
    SWATH_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  }
  int count = 0;
  SWATH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, threads, shared_bytes));
  return prepared[wanted] = std::max(count, 1);
}

int prepared_active_clusters(const void* kernel, int threads, std::size_t shared_bytes, int cluster) {
  using key = std::tuple<int, const void*, int, std::size_t, int>;
  static std::mutex guard;
  static std::map<key, int> counted;
  const key wanted{current_device(), kernel, threads, shared_bytes, cluster};
  {
    const std::lock_guard lock(guard);
    if (const auto found = counted.find(wanted); found != counted.end()) return found->second;
  }
  prepared_blocks_per_sm(kernel, threads, shared_bytes);  // its shared-memory limit first
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1, static_cast<unsigned>(cluster), 1);
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = shared_bytes;
  cudaLaunchAttribute attribute = y_cluster_attribute(cluster);
  config.attrs = &attribute;
  config.numAttrs = 1;
  int count = 0;
  SWATH_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&count, kernel, &config));
  const std::lock_guard lock(guard);
  return counted[wanted] = count;
}

namespace {

struct held_buffer {
  void* data = nullptr;
  std::size_t bytes = 0;
};
// (device, the stream's unique id, use) -> its buffer.
using workspace_key = std::tuple<int, unsigned long long, int>;
std::mutex workspace_guard;
std::map<workspace_key, held_buffer> workspaces;

unsigned long long stream_id(cudaStream_t stream) {
  unsigned long long id = 0;
  SWATH_CUDA_CHECK(cudaStreamGetId(stream, &id));
  return id;
}

}  // namespace

bool capturing(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SWATH_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

namespace {

// The workspaces this thread's call has taken on a capturing stream: (stream, use) -> its buffer.
// Thread-local: a capture and the call that records into it run on one thread.
using captured_key = std::pair<cudaStream_t, int>;
thread_local std::map<captured_key, held_buffer> captured_workspaces;

void* captured_workspace(cudaStream_t stream, workspace_use use, std::size_t bytes, std::size_t zeroed_bytes,
                         bool* fresh) {
  held_buffer& held = captured_workspaces[{stream, static_cast<int>(use)}];
  if (fresh != nullptr) *fresh = false;
  if (held.bytes >= bytes && held.data != nullptr) return held.data;
  if (held.data != nullptr) {
    SWATH_CUDA_CHECK(cudaFreeAsync(held.data, stream));  // a graph free node, after the work that used it
    held = {};
  }
  void* data = nullptr;
  SWATH_CUDA_CHECK(cudaMallocAsync(&data, std::max<std::size_t>(bytes, 1), stream));  // a graph allocation node
  held = {data, bytes};
  if (zeroed_bytes > 0) SWATH_CUDA_CHECK(cudaMemsetAsync(data, 0, std::min(zeroed_bytes, bytes), stream));
  if (fresh != nullptr) *fresh = true;
  return data;
}

}  // namespace

void free_captured_workspaces(cudaStream_t stream) noexcept {
  for (auto it = captured_workspaces.begin(); it != captured_workspaces.end();) {
    if (it->first.first == stream) {
      (void)cudaFreeAsync(it->second.data, stream);
      it = captured_workspaces.erase(it);
    } else {
      ++it;
    }
  }
}

void* stream_workspace(cudaStream_t stream, workspace_use use, std::size_t bytes, std::size_t zeroed_bytes, bool* fresh) {
  if (capturing(stream)) return captured_workspace(stream, use, bytes, zeroed_bytes, fresh);
  const workspace_key wanted{current_device(), stream_id(stream), static_cast<int>(use)};
  const std::lock_guard lock(workspace_guard);
  held_buffer& held = workspaces[wanted];
  if (fresh != nullptr) *fresh = false;
  if (held.bytes >= bytes && held.data != nullptr) return held.data;
  if (held.data != nullptr) {
    SWATH_CUDA_CHECK(cudaFreeAsync(held.data, stream));  // after the work already queued on the stream
    held = {};
  }
  void* data = nullptr;
  SWATH_CUDA_CHECK(cudaMallocAsync(&data, std::max<std::size_t>(bytes, 1), stream));
  held = {data, bytes};
  if (zeroed_bytes > 0) SWATH_CUDA_CHECK(cudaMemsetAsync(data, 0, std::min(zeroed_bytes, bytes), stream));
  if (fresh != nullptr) *fresh = true;
  return data;
}

void keep_until_done(cudaStream_t stream, std::shared_ptr<void> holder) {
  struct kept {
    cudaEvent_t done;
    std::shared_ptr<void> holder;
  };
  static std::mutex guard;
  static std::vector<kept> held;
  cudaEvent_t done = nullptr;
  SWATH_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  SWATH_CUDA_CHECK(cudaEventRecord(done, stream));
  std::vector<kept> finished;  // dropped outside the lock
  {
    const std::lock_guard lock(guard);
    for (auto it = held.begin(); it != held.end();) {
      if (cudaEventQuery(it->done) == cudaSuccess) {
        finished.push_back(std::move(*it));
        it = held.erase(it);
      } else {
        cudaGetLastError();  // cudaErrorNotReady is not an error of anyone's
        ++it;
      }
    }
    held.push_back({done, std::move(holder)});
  }
  for (kept& k : finished) cudaEventDestroy(k.done);
}

}  // namespace swath::cuda

namespace swath {

void release_stream_workspaces(stream_t stream) {
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  const auto id = cuda::stream_id(cuda_stream);
  // The stream's own device (the default streams: the current one), made current for the frees.
  int device = cuda::current_device();
  if (cuda_stream != nullptr && cuda_stream != cudaStreamLegacy && cuda_stream != cudaStreamPerThread) {
    SWATH_CUDA_CHECK(cudaStreamGetDevice(cuda_stream, &device));
  }
  const int previous = cuda::current_device();
  if (device != previous) SWATH_CUDA_CHECK(cudaSetDevice(device));
  const std::lock_guard lock(cuda::workspace_guard);
  for (auto it = cuda::workspaces.begin(); it != cuda::workspaces.end();) {
    if (std::get<0>(it->first) == device && std::get<1>(it->first) == id) {
      SWATH_CUDA_CHECK(cudaFreeAsync(it->second.data, cuda_stream));
      it = cuda::workspaces.erase(it);
    } else {
      ++it;
    }
  }
  if (device != previous) SWATH_CUDA_CHECK(cudaSetDevice(previous));
}

}  // namespace swath
