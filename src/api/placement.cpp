// Where a library call runs (placement.hpp).
#include "placement.hpp"

#include <omp.h>

#include <map>
#include <mutex>

#include "swath/version.hpp"
#if SWATH_WITH_CUDA
#include <cuda_runtime.h>

#include "../cuda/core/per_device.cuh"
#endif

namespace swath::api {

void argument_error(const char* function, const std::string& message) {
  throw usage_error(std::string(function) + ": " + message);
}

#if SWATH_WITH_CUDA

memory_place locate(const void* pointer) {
  if (pointer == nullptr) return {};
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();  // no device, or no driver: host memory (the error is not sticky; clear it)
    return {};
  }
  switch (attributes.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return {true, false, attributes.device};
    case cudaMemoryTypeHost: return {false, true, attributes.device};
    default: return {};
  }
}

namespace {

int stream_device(stream_t stream) {
  // The legacy and per-thread default streams belong to the current device.
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    int device = 0;
    SWATH_CUDA_CHECK(cudaGetDevice(&device));
    return device;
  }
  int device = 0;
  if (cuda::capturing(stream)) {
    // cudaStreamGetDevice is refused while the stream is captured (cudaErrorStreamCaptureUnsupported):
    // the stream is taken to be the current device's, as a capture's launches must be. Operands on
    // another device are refused by place_call; a stream of another device fails its first launch.
    SWATH_CUDA_CHECK(cudaGetDevice(&device));
    return device;
  }
  SWATH_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  return device;
}

// What the dispatch needs of a device, read once per device (properties of the device; no mutable
// state shared between calls): the SM count, the compute capability and the L2's size.
struct device_facts {
  int sm_count = 0;
  int capability = 0;
  int l2_bytes = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3": the dispatch tables are per GPU
};
// The map's entries are never erased, so a reference to one stays valid after the lock is released.
const device_facts& facts_of(int device) {
  static std::mutex guard;
  static std::map<int, device_facts> known;
  const std::lock_guard lock(guard);
  if (const auto found = known.find(device); found != known.end()) return found->second;
  device_facts facts;
  int major = 0, minor = 0;
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&facts.sm_count, cudaDevAttrMultiProcessorCount, device));
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&facts.l2_bytes, cudaDevAttrL2CacheSize, device));
  SWATH_EXPECTS(facts.sm_count > 0, "a CUDA device reports no SMs");
  facts.capability = major * 10 + minor;
  cudaDeviceProp properties{};
  SWATH_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  facts.name = properties.name;
  return known[device] = facts;
}

}  // namespace

void require_code_for(const char* function, int device) {
  // Machine code for sm_XY runs on compute capability X.Y' with Y' ≥ Y of the same major version.
  const int capability = facts_of(device).capability;
  for (const int built : build::cuda_architectures) {
    if (built == 0) break;
    if (capability / 10 == built / 10 && capability % 10 >= built % 10) return;
  }
  argument_error(function, "device " + std::to_string(device) + " has compute capability " +
                               std::to_string(capability / 10) + "." + std::to_string(capability % 10) +
                               ", and this build of swath has machine code only for " + build::cuda_architecture_list +
                               " (configure with -DSWATH_CUDA_ARCHITECTURES=...)");
}

call_site device_site(stream_t stream) {
  call_site site;
  site.on_device = true;
  site.device = stream_device(stream);
  const device_facts& facts = facts_of(site.device);
  site.capability = facts.capability;
  site.device_name = facts.name;
  site.launch.stream = stream;
  site.launch.sm_count = facts.sm_count;
  site.launch.capability = facts.capability;
  site.launch.cache_bytes = facts.l2_bytes;
  return site;
}

device_scope::device_scope(int device) {
  if (device < 0) return;
  int current = 0;
  SWATH_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) {
    SWATH_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
  }
}

device_scope::~device_scope() {
  if (previous_ >= 0) cudaSetDevice(previous_);
}

captured_workspaces_scope::~captured_workspaces_scope() {
  cuda::free_captured_workspaces(static_cast<cudaStream_t>(stream_));
}

#else

memory_place locate(const void*) { return {}; }
void require_code_for(const char* function, int) {
  argument_error(function, "this build of swath has no CUDA backend");
}
call_site device_site(stream_t) { throw usage_error("swath: this build has no CUDA backend"); }
device_scope::device_scope(int) {}
device_scope::~device_scope() = default;
captured_workspaces_scope::~captured_workspaces_scope() = default;

#endif

call_site place_call(const char* function, std::initializer_list<operand> operands, stream_t stream) {
  const operand* first = nullptr;
  memory_place first_place;
  for (const operand& o : operands) {
    if (o.pointer == nullptr) continue;
    const memory_place place = locate(o.pointer);
    if (first == nullptr) {
      first = &o, first_place = place;
      continue;
    }
    if (place.device != first_place.device) {
      argument_error(function, std::string(o.name) + " is in " + (place.device ? "device" : "host") + " memory and " +
                                   first->name + " in " + (first_place.device ? "device" : "host") +
                                   " memory: pass every operand in device memory (the call runs on the GPU) or every "
                                   "one in host memory (the call runs on the CPU)");
    }
    if (place.device && place.ordinal != first_place.ordinal) {
      argument_error(function, std::string(o.name) + " is on device " + std::to_string(place.ordinal) + " and " +
                                   first->name + " on device " + std::to_string(first_place.ordinal));
    }
  }
  if (first == nullptr || !first_place.device) {
    call_site host;
    host.launch.cpu_threads = omp_get_max_threads();
    return host;
  }
  call_site site = device_site(stream);
  if (site.device != first_place.ordinal) {
    argument_error(function, std::string("stream belongs to device ") + std::to_string(site.device) + " and " +
                                 first->name + " is on device " + std::to_string(first_place.ordinal) +
                                 ": pass a stream of the operands' device");
  }
  require_code_for(function, site.device);
  return site;
}

}  // namespace swath::api

#if !SWATH_WITH_CUDA
namespace swath {
void release_stream_workspaces(stream_t) {}
}  // namespace swath
#endif
