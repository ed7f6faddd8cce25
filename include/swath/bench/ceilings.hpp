#pragma once
// Measured ceilings: what this machine really does, measured by small kernels in the same run as the
// benchmarks, so every figure can be quoted as a ratio against them.
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "swath/registry.hpp"

namespace swath::bench {

struct gpu_ceilings {
  double copy_kernel_gbps = 0;       // float4 copy kernel, bytes read + written
  double copy_memcpy_gbps = 0;       // cudaMemcpy device to device, bytes read + written
  double copy_gbps = 0;              // the better of the two: the device-memory ceiling
  double read_gbps = 0;              // read-only kernel (a sum), bytes read
  double fp32_fma_gflops = 0;        // FMA-chain kernel, 2 flops per FMA
  double fp32_theoretical_gflops = 0;  // SMs × 128 lanes × 2 × max clock
  double sgemm_gflops = 0;           // cuBLAS SGEMM, FP32 without TF32, 8192³
  double h2d_pinned_gbps = 0;
  double d2h_pinned_gbps = 0;
};

struct cpu_ceilings {
  double copy_gbps_one_core = 0;  // bytes read + written
  double copy_gbps_all_cores = 0;
  double fma_gflops_one_core = 0;
  double fma_gflops_all_cores = 0;
  int threads = 0;
};

struct ceilings {
  std::string measured_at;  // ISO date-time
  std::string device;       // GPU name, or "cpu"
  std::string source;       // "measured in this run" or the cache file it came from
  std::optional<gpu_ceilings> gpu;
  std::optional<cpu_ceilings> cpu;

  // The bandwidth (GB/s) and compute (GFLOP/s) limits that apply to a variant.
  [[nodiscard]] std::optional<double> bandwidth_gbps(ceiling_kind kind) const;
  [[nodiscard]] std::optional<double> compute_gflops(backend where, ceiling_kind kind) const;
};

struct measure_options {
  bool gpu = true;
  bool cpu = true;
  bool quick = false;  // smaller buffers and fewer repetitions (tests)
};

// Runs the ceiling kernels. Prints progress to stderr when `progress` is set.
ceilings measure_ceilings(const measure_options& options, bool progress);
gpu_ceilings measure_gpu_ceilings(bool quick);
cpu_ceilings measure_cpu_ceilings(bool quick);

// Cache: one JSON file per device under $SWATH_CACHE_DIR, else $XDG_CACHE_HOME/swath, else ~/.cache/swath.
std::string cache_directory();
std::string ceilings_cache_path(const std::string& device);
void save_ceilings(const ceilings& values);
std::optional<ceilings> load_ceilings(const std::string& device);

void to_json(nlohmann::json& out, const ceilings& values);

}  // namespace swath::bench
