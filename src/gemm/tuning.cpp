// The tuner's file: reading (with refusals), writing, and the nearest-size choice that policy=auto makes.
#include "swath/lab/gemm_tuning.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "swath/bench/ceilings.hpp"
#include "swath/bench/runner.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"

namespace swath::gemm {

namespace {

template <class T>
T field(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) throw usage_error(where + ": missing \"" + key + "\"");
  try {
    return object.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw usage_error(where + ": \"" + key + "\" has the wrong type");
  }
}

}  // namespace

tuning read_tuning(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw usage_error("gemm tuning file '" + path + "' cannot be read");
  nlohmann::json in;
  try {
    in = nlohmann::json::parse(file);
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error("gemm tuning file '" + path + "' is not JSON: " + e.what());
  }
  tuning found;
  found.gpu = field<std::string>(in, "gpu", path);
  found.variant = field<std::string>(in, "variant", path);
  found.measured_at = in.value("measured_at", "");
  const auto sizes = field<nlohmann::json>(in, "sizes", path);
  if (!sizes.is_array() || sizes.empty()) throw usage_error(path + ": \"sizes\" must be a non-empty array");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string where = path + ": sizes[" + std::to_string(i) + "]";
    tuned_size entry;
    entry.m = field<std::int64_t>(sizes[i], "m", where);
    entry.n = field<std::int64_t>(sizes[i], "n", where);
    entry.k = field<std::int64_t>(sizes[i], "k", where);
    if (entry.m < 1 || entry.n < 1 || entry.k < 1) throw usage_error(where + ": m, n and k must be at least 1");
    const auto name = field<std::string>(sizes[i], "policy", where);
    const auto policy = find_policy(name);
    if (!policy) throw usage_error(where + ": policy \"" + name + "\" is not one of the compiled tile shapes");
    if (!compilable(*policy)) throw usage_error(where + ": policy \"" + name + "\" breaks the kernel's tiling rules");
    entry.policy = *policy;
    entry.gflops = sizes[i].value("gflops", 0.0);
    found.sizes.push_back(entry);
  }
  return found;
}

void write_tuning(const std::string& path, const tuning& found) {
  nlohmann::json out = {{"gpu", found.gpu}, {"variant", found.variant}, {"measured_at", found.measured_at}};
  nlohmann::json sizes = nlohmann::json::array();
  for (const tuned_size& entry : found.sizes) {
    sizes.push_back({{"m", entry.m}, {"n", entry.n}, {"k", entry.k}, {"policy", policy_name(entry.policy)},
                     {"gflops", entry.gflops}});
  }
  out["sizes"] = sizes;
  bench::write_file_atomically(path, out.dump(2) + "\n");
}

tile_policy pick_policy(const tuning& found, std::int64_t m, std::int64_t n, std::int64_t k) {
  SWATH_EXPECTS(!found.sizes.empty(), "a gemm tuning without sizes");
  const auto distance = [&](const tuned_size& s) {
    return std::fabs(std::log(static_cast<double>(m) / static_cast<double>(s.m))) +
           std::fabs(std::log(static_cast<double>(n) / static_cast<double>(s.n))) +
           std::fabs(std::log(static_cast<double>(k) / static_cast<double>(s.k)));
  };
  const tuned_size* best = &found.sizes.front();
  for (const tuned_size& entry : found.sizes) {
    if (distance(entry) < distance(*best)) best = &entry;
  }
  return best->policy;
}

std::string tuning_path(const std::string& gpu_name) {
  if (const char* explicit_path = std::getenv("SWATH_GEMM_TUNING"); explicit_path != nullptr && *explicit_path != 0) {
    return explicit_path;
  }
  return bench::cache_directory() + "/gemm-tuning-" + slug(gpu_name) + ".json";
}

}  // namespace swath::gemm
