// The stencil steps' policy readers: a chosen value, else the record's default, resolved by the cache
// model for this CPU.
#include "policies.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "swath/core/device.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::stencil {

std::int64_t column_width_of(const problem& p, const launch_context& launch, bool shared_column) {
  const std::string_view chosen = launch.setting(column_width_setting);
  std::int64_t width = 0;
  if (chosen == "model") {
    const cache_size cache = parse_cache_size(std::string(launch.setting(cache_setting)));
    const std::string_view ways = launch.setting(ways_setting);
    const std::int64_t associativity = ways == "auto" ? cache.ways : (ways == "0" ? 0 : whole_setting(ways_setting.key, ways));
    const schedule::stencil_footprint footprint{cache.bytes, p.element_bytes(), p.extent(), p.extent(), 1, 1, associativity};
    width = shared_column ? schedule::stencil_column_width_rows(footprint, std::max(launch.cpu_threads, 1))
                          : schedule::stencil_column_width(footprint);
  } else {
    width = whole_setting(column_width_setting.key, chosen);
  }
  return std::clamp<std::int64_t>(width, 1, std::max<std::int64_t>(p.grid.width, 1));
}

schedule::tiled tile_of(const problem& p, const launch_context& launch) {
  const std::string_view chosen = launch.setting(tile_setting);
  if (chosen == "model") {
    const double cache = parse_cache_size(std::string(launch.setting(cache_setting))).bytes;
    const auto side = static_cast<std::int64_t>(std::sqrt(cache / static_cast<double>(p.element_bytes()))) - 2 * p.radius;
    return {std::max<std::int64_t>(side, 1), std::max<std::int64_t>(side, 1)};
  }
  if (const auto cross = chosen.find('x'); cross != std::string_view::npos) {
    return {whole_setting(tile_setting.key, chosen.substr(0, cross)), whole_setting(tile_setting.key, chosen.substr(cross + 1))};
  }
  const std::int64_t side = whole_setting(tile_setting.key, chosen);
  return {side, side};
}

}  // namespace swath::stencil
