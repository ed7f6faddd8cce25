#pragma once
// GPU block order: the same mappings choose which tile each thread block takes. The tile grid
// (tiles_x × tiles_y) is the extent; block b takes tile map(b), so a Column(w) order sends consecutive
// blocks down a band of w tile columns and the blocks resident at one time share L2 lines.
#include "swath/schedule/column.hpp"
#include "swath/schedule/extent.hpp"
#include "swath/schedule/row_major.hpp"
#include "swath/schedule/tiled.hpp"
#include "swath/schedule/zigzag.hpp"

namespace swath::schedule {

struct tile_coordinate {
  std::int64_t x;
  std::int64_t y;
};

template <class Schedule>
SWATH_HD_INLINE constexpr tile_coordinate tile_of_block(const Schedule& order, std::int64_t block, extent2d tiles) {
  const std::int64_t j = order.map(block, tiles);
  return {j % tiles.width, j / tiles.width};
}

}  // namespace swath::schedule
