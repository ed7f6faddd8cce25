// The ceilings a row is measured against, and their per-device cache.
#include "swath/bench/ceilings.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "swath/bench/runner.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {

std::optional<double> ceilings::bandwidth_gbps(ceiling_kind kind) const {
  switch (kind) {
    case ceiling_kind::device_memory: return gpu ? std::optional(gpu->copy_gbps) : std::nullopt;
    case ceiling_kind::device_memory_read: return gpu ? std::optional(gpu->read_gbps) : std::nullopt;
    case ceiling_kind::host_to_device: return gpu ? std::optional(gpu->h2d_pinned_gbps) : std::nullopt;
    case ceiling_kind::device_to_host: return gpu ? std::optional(gpu->d2h_pinned_gbps) : std::nullopt;
    case ceiling_kind::host_memory: return cpu ? std::optional(cpu->copy_gbps_all_cores) : std::nullopt;
    case ceiling_kind::host_memory_one_core: return cpu ? std::optional(cpu->copy_gbps_one_core) : std::nullopt;
    case ceiling_kind::none: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> ceilings::compute_gflops(backend where, ceiling_kind kind) const {
  if (where == backend::cuda) return gpu ? std::optional(gpu->fp32_fma_gflops) : std::nullopt;
  if (!cpu) return std::nullopt;
  return kind == ceiling_kind::host_memory_one_core ? cpu->fma_gflops_one_core : cpu->fma_gflops_all_cores;
}

ceilings measure_ceilings(const measure_options& options, bool progress) {
  ceilings values;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  values.measured_at = text;
  values.source = "measured in this run";
  const auto gpu = options.gpu ? query_gpu() : std::nullopt;
  values.device = gpu ? gpu->name : "cpu";
  if (gpu) {
    if (progress) std::fprintf(stderr, "measuring GPU ceilings on %s...\n", gpu->name.c_str());
    values.gpu = measure_gpu_ceilings(options.quick);
  }
  if (options.cpu) {
    if (progress) std::fprintf(stderr, "measuring CPU ceilings...\n");
    values.cpu = measure_cpu_ceilings(options.quick);
  }
  return values;
}

std::string cache_directory() {
  if (const char* explicit_dir = std::getenv("SWATH_CACHE_DIR"); explicit_dir != nullptr && *explicit_dir != 0) {
    return explicit_dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != 0) return std::string(xdg) + "/swath";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != 0) return std::string(home) + "/.cache/swath";
  return ".swath-cache";
}

std::string ceilings_cache_path(const std::string& device) {
  return cache_directory() + "/ceilings-" + slug(device) + ".json";
}

void to_json(nlohmann::json& out, const ceilings& values) {
  out = {{"measured_at", values.measured_at}, {"device", values.device}, {"source", values.source}};
  if (values.gpu) {
    const gpu_ceilings& g = *values.gpu;
    out["gpu"] = {{"copy_kernel_gbps", g.copy_kernel_gbps},
                  {"copy_memcpy_gbps", g.copy_memcpy_gbps},
                  {"copy_gbps", g.copy_gbps},
                  {"read_gbps", g.read_gbps},
                  {"fp32_fma_gflops", g.fp32_fma_gflops},
                  {"fp32_theoretical_gflops", g.fp32_theoretical_gflops},
                  {"sgemm_gflops", g.sgemm_gflops},
                  {"h2d_pinned_gbps", g.h2d_pinned_gbps},
                  {"d2h_pinned_gbps", g.d2h_pinned_gbps}};
  } else {
    out["gpu"] = nullptr;
  }
  if (values.cpu) {
    const cpu_ceilings& c = *values.cpu;
    out["cpu"] = {{"copy_gbps_one_core", c.copy_gbps_one_core},
                  {"copy_gbps_all_cores", c.copy_gbps_all_cores},
                  {"fma_gflops_one_core", c.fma_gflops_one_core},
                  {"fma_gflops_all_cores", c.fma_gflops_all_cores},
                  {"threads", c.threads}};
  } else {
    out["cpu"] = nullptr;
  }
}

void save_ceilings(const ceilings& values) {
  nlohmann::json out = values;
  write_file_atomically(ceilings_cache_path(values.device), out.dump(2) + "\n");
}

std::optional<ceilings> load_ceilings(const std::string& device) {
  const std::string path = ceilings_cache_path(device);
  std::ifstream file(path);
  if (!file) return std::nullopt;
  try {
    const nlohmann::json in = nlohmann::json::parse(file);
    ceilings values;
    values.measured_at = in.at("measured_at").get<std::string>();
    values.device = in.at("device").get<std::string>();
    values.source = "cache " + path;
    if (!in.at("gpu").is_null()) {
      const auto& g = in.at("gpu");
      values.gpu = gpu_ceilings{g.at("copy_kernel_gbps"), g.at("copy_memcpy_gbps"), g.at("copy_gbps"),
                                g.at("read_gbps"),        g.at("fp32_fma_gflops"),  g.at("fp32_theoretical_gflops"),
                                g.at("sgemm_gflops"),     g.at("h2d_pinned_gbps"),  g.at("d2h_pinned_gbps")};
    }
    if (!in.at("cpu").is_null()) {
      const auto& c = in.at("cpu");
      values.cpu = cpu_ceilings{c.at("copy_gbps_one_core"), c.at("copy_gbps_all_cores"), c.at("fma_gflops_one_core"),
                                c.at("fma_gflops_all_cores"), c.at("threads")};
    }
    return values;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a stale or damaged cache is simply measured again
  }
}

}  // namespace swath::bench
