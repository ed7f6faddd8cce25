// The gemm steps' policy readers: a chosen value, else the record's default, resolved for the device.
#include "policies.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::gemm {
namespace {

// Step 08's block tile per architecture, when none is chosen and no tuning file says otherwise.
constexpr measured_default<tile_policy> block_tiles[] = {
    {0, 999, tile_policies[0],
     "fastest of the five compiled tiles at all five target sizes on an H200: "
     "bench/results/nvidia-h200/2026-11-21-gemm-policies-96f0ee0c12cf.json"},
};

// The cache a model sizes for: a CUDA step's "L2" is its GPU's (the launch's), any other level this
// CPU's, or a byte count.
double cache_bytes(const launch_context& launch, bool on_gpu) {
  const std::string_view chosen = launch.setting(cache_setting);
  if (on_gpu && chosen == "L2" && launch.cache_bytes > 0) return launch.cache_bytes;
  return parse_cache_size(std::string(chosen)).bytes;
}

// The thesis's band: M = u (h c + w ceil(t/c)) with h = K rows of B and w = K, the row of A each of t
// threads holds (schedule::matmul_column_width).
std::int64_t model_column_width(const problem& p, const launch_context& launch, bool on_gpu, int threads) {
  const std::string_view chosen = launch.setting(column_width_setting);
  const std::int64_t width =
      chosen == "model" ? schedule::matmul_column_width({cache_bytes(launch, on_gpu), 4, p.k, p.k, threads})
                        : whole_setting(column_width_setting.key, chosen);
  return std::clamp<std::int64_t>(width, 1, std::max<std::int64_t>(p.n, 1));
}

}  // namespace

block_walk block_walk_of(const problem& p, const launch_context& launch) {
  const std::string_view order = launch.setting(order_setting);
  block_walk walk;
  if (order == "row") return walk;  // the band is not used
  if (order != "column" && order != "zigzag") {
    throw usage_error("order=" + std::string(order) + ": expected row, column or zigzag");
  }
  walk.order = order == "column" ? block_order::column : block_order::zigzag;
  // On the GPU the rows of A in flight are the resident blocks' tiles, small beside the band: t = 1.
  walk.column_width = model_column_width(p, launch, true, 1);
  return walk;
}

std::int64_t host_tile_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(tile_setting);
  if (chosen != "model") return whole_setting(tile_setting.key, chosen);
  // Three t × t float tiles in the cache: 3 t² u ≤ M.
  return std::max<std::int64_t>(8, static_cast<std::int64_t>(std::sqrt(cache_bytes(launch, false) / 12.0)));
}

std::int64_t host_column_width_of(const problem& p, const launch_context& launch) {
  return model_column_width(p, launch, false, std::max(launch.cpu_threads, 1));
}

tile_policy tile_policy_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(policy_setting);
  if (chosen == "auto") return default_for<tile_policy>(block_tiles, launch.capability);
  const auto found = find_policy(chosen);
  if (!found) {
    throw usage_error("policy=" + std::string(chosen) + ": expected auto or one of the compiled tile shapes: " +
                      policy_names(" "));
  }
  return *found;
}

int register_rows_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(register_rows_setting);
  if (chosen == "1" || chosen == "2" || chosen == "4" || chosen == "8") return chosen[0] - '0';
  throw usage_error("rows=" + std::string(chosen) + ": expected 1, 2, 4 or 8");
}

std::int64_t persistent_blocks_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(blocks_setting);
  return chosen == "auto" ? 0 : whole_setting(blocks_setting.key, chosen);
}

path_choice path_of(const launch_context& launch, const parameter& record) {
  const std::string_view chosen = launch.setting(record);
  if (chosen == "auto") return path_choice::automatic;
  if (chosen == "on") return path_choice::always;
  if (chosen == "off") return path_choice::never;
  throw usage_error(std::string(record.key) + "=" + std::string(chosen) + ": expected auto, on or off");
}

bool weighted_shares_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(shares_setting);
  if (chosen != "weighted" && chosen != "even") {
    throw usage_error("shares=" + std::string(chosen) + ": expected weighted or even");
  }
  return chosen == "weighted";
}

bool dependent_pass_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(pass_setting);
  if (chosen != "launch" && chosen != "dependent") {
    throw usage_error("pass=" + std::string(chosen) + ": expected launch or dependent");
  }
  return chosen == "dependent";
}

split_choice split_choice_of(const launch_context& launch) {
  split_choice chosen;
  const std::string_view fit = launch.setting(fit_setting);
  if (fit != "auto") {
    const std::size_t x = fit.find('x');
    const auto bad = [&] {
      return usage_error("fit=" + std::string(fit) + ": expected auto, 256x128, 128x128, 64x256, 128x64, 64x128, 64x64 or 64x32");
    };
    if (x == std::string_view::npos) throw bad();
    const std::string m(fit.substr(0, x)), n(fit.substr(x + 1));
    if (m.empty() || n.empty() || m.find_first_not_of("0123456789") != std::string::npos ||
        n.find_first_not_of("0123456789") != std::string::npos || m.size() > 4 || n.size() > 4) {
      throw bad();
    }
    chosen.block_m = std::stoi(m), chosen.block_n = std::stoi(n);
  }
  const std::string_view splits = launch.setting(splits_setting);
  if (splits != "auto") {
    const std::int64_t value = whole_setting(splits_setting.key, splits);
    if (value < 1 || value > 4096) throw usage_error("splits=" + std::string(splits) + ": expected auto or 1-4096");
    chosen.splits = static_cast<int>(value);
  }
  return chosen;
}

int warp_groups_of(const launch_context& launch) {
  const std::string_view chosen = launch.setting(groups_setting);
  if (chosen == "auto") return 0;
  if (chosen == "1" || chosen == "2" || chosen == "4") return chosen[0] - '0';
  throw usage_error("groups=" + std::string(chosen) + ": expected auto, 1, 2 or 4");
}

}  // namespace swath::gemm
