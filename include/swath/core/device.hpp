#pragma once
// What the machine is: the GPU (if any, and if this build has CUDA) and the CPU with its caches.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace swath {

struct gpu_info {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t shared_memory_per_block_optin = 0;
  int sm_clock_khz = 0;      // maximum SM clock
  int memory_clock_khz = 0;  // maximum memory clock
  int memory_bus_bits = 0;
  int driver_version = 0;
  int runtime_version = 0;
};

struct cpu_info {
  std::string model;
  int logical_cores = 0;
  int openmp_threads = 0;
  std::int64_t l1d_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t l3_bytes = 0;
  int l1d_ways = 0;  // associativity, 0 when the system does not say
  int l2_ways = 0;
  int l3_ways = 0;
  std::int64_t memory_bytes = 0;
};

// True when this build contains the CUDA backend.
bool cuda_built();
// The current CUDA device, or nullopt when the build has no CUDA or no device is visible (why_not says which).
std::optional<gpu_info> query_gpu(std::string* why_not = nullptr);
std::int64_t gpu_free_memory_bytes();
cpu_info query_cpu();

// A cache for the models: "L1", "L2", "L3" (this CPU's, with their associativity) or a size in bytes
// with an optional K/M/G (KiB/MiB/GiB) suffix. Throws usage_error naming the text.
struct cache_size {
  double bytes = 0;
  int ways = 0;  // 0: unknown
};
cache_size parse_cache_size(const std::string& text);

// A file-name-friendly name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
std::string slug(const std::string& name);

void device_synchronize();
// Zeroes device bytes, asynchronously on `stream` (a cudaStream_t; nullptr = default).
void zero_device(void* data, std::size_t bytes, void* stream = nullptr);

}  // namespace swath
