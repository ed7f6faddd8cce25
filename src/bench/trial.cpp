#include <omp.h>

#include <algorithm>
#include <string>

#include "swath/bench/family.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {

launch_context prepare_launch(const variant_info& variant, const support& supported,
                              std::shared_ptr<const chosen_settings> settings) {
  SWATH_EXPECTS(supported.ok(), std::string(variant.name) + " cannot run this problem: " + std::string(supported.why));
  launch_context launch;
  if (variant.where == backend::cuda) {
    std::string why;
    const auto gpu = query_gpu(&why);
    if (!gpu) throw usage_error(std::string(variant.name) + " needs a CUDA device: " + why);
    launch.sm_count = gpu->sm_count;
    launch.capability = gpu->compute_major * 10 + gpu->compute_minor;
    launch.cache_bytes = static_cast<double>(gpu->l2_bytes);
  }
  launch.cpu_threads = omp_get_max_threads();
  launch.settings = std::move(settings);
  return launch;
}

chosen_settings settings_chosen_in(const variant_info& variant, const std::string& config) {
  const std::map<std::string, std::string> written = parse_config(config, {});
  chosen_settings chosen;
  for (const parameter& setting : variant.settings) {
    if (const auto found = written.find(std::string(setting.key)); found != written.end()) chosen.insert(*found);
  }
  return chosen;
}

int wanted_sets(const trial_options& options, std::int64_t set_bytes) {
  if (set_bytes <= 0 || options.rotate_until_bytes <= set_bytes) return 1;
  return static_cast<int>(
      std::min<std::int64_t>((options.rotate_until_bytes + set_bytes - 1) / set_bytes, options.max_sets));
}

bool room_for_another_set(memory_kind where, int sets, std::int64_t set_bytes) {
  const std::int64_t after = (static_cast<std::int64_t>(sets) + 1) * set_bytes;
  if (where == memory_kind::device) return after < gpu_free_memory_bytes() / 2;
  return after < query_cpu().memory_bytes / 4;
}

}  // namespace swath::bench
