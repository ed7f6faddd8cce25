#pragma once
// Tiled(t_w, t_h): tiles of t_w × t_h in row-major order of tiles, row-major inside each tile. The
// tiles of the last column are narrower when t_w does not divide the width, those of the last row
// shorter when t_h does not divide the height (partial tiles, never padding).
//
// Band r (tile row) holds rows [r·t_h, r·t_h + h_r) with h_r = min(t_h, H − r·t_h) and starts at
// index r·t_h·W; tile c of the band holds columns [c·t_w, c·t_w + w_c), w_c = min(t_w, W − c·t_w),
// and starts c·t_w·h_r into the band.
#include "swath/schedule/extent.hpp"

namespace swath::schedule {

struct tiled {
  static constexpr const char* name = "tiled";
  std::int64_t tile_width = 1;
  std::int64_t tile_height = 1;

  [[nodiscard]] SWATH_HD constexpr std::int64_t map(std::int64_t i, extent2d e) const {
    const std::int64_t band = i / (tile_height * e.width);
    const std::int64_t band_height = min64(tile_height, e.height - band * tile_height);
    const std::int64_t in_band = i - band * tile_height * e.width;
    const std::int64_t tile = in_band / (tile_width * band_height);
    const std::int64_t tile_w = min64(tile_width, e.width - tile * tile_width);
    const std::int64_t in_tile = in_band - tile * tile_width * band_height;
    const std::int64_t y = band * tile_height + in_tile / tile_w;
    const std::int64_t x = tile * tile_width + in_tile % tile_w;
    return y * e.width + x;
  }

  [[nodiscard]] SWATH_HD constexpr std::int64_t inverse(std::int64_t j, extent2d e) const {
    const std::int64_t y = j / e.width;
    const std::int64_t x = j % e.width;
    const std::int64_t band = y / tile_height;
    const std::int64_t tile = x / tile_width;
    const std::int64_t band_height = min64(tile_height, e.height - band * tile_height);
    const std::int64_t tile_w = min64(tile_width, e.width - tile * tile_width);
    return band * tile_height * e.width + tile * tile_width * band_height + (y - band * tile_height) * tile_w +
           (x - tile * tile_width);
  }

  template <class Visit>
  void for_each_run(extent2d e, Visit&& visit) const {
    for (std::int64_t y0 = 0; y0 < e.height; y0 += tile_height) {
      for (std::int64_t x0 = 0; x0 < e.width; x0 += tile_width) {
        for (std::int64_t y = y0; y < min64(y0 + tile_height, e.height); ++y) {
          visit(run{y, x0, min64(x0 + tile_width, e.width), false});
        }
      }
    }
  }
};

}  // namespace swath::schedule
