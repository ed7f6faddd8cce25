#pragma once
// Column(w): the thesis's column schedule. The grid is cut into vertical columns of width w (the last
// one narrower, w' = ((W − 1) mod w) + 1, when w does not divide W); columns are walked left to right,
// and inside a column the walk is row by row, top to bottom, left to right.
//
//   o  = floor(i / (H·w)) · w          first x of the column (every earlier column holds H·w elements)
//   w' = min(w, W − o)                 its width
//   i' = i − o·H                       index inside the column
//   j  = (i' mod w') + floor(i'/w')·W + o
//
// Correction to the seed text: it writes i' = i mod (H·w'). For the last, narrower column that starts
// the walk part-way down whenever (o·H) mod (H·w') ≠ 0 (W = 11, H = 2, w = 4 visits 20, 21, 8, 9, 10,
// 19 instead of 8, 9, 10, 19, 20, 21). It still visits every element once, so only an order test
// catches it; the local index i − o·H is what the walk needs.
#include "swath/schedule/extent.hpp"

namespace swath::schedule {

struct column {
  static constexpr const char* name = "column";
  std::int64_t width = 1;

  [[nodiscard]] SWATH_HD constexpr std::int64_t map(std::int64_t i, extent2d e) const {
    const std::int64_t o = i / (e.height * width) * width;
    const std::int64_t w = min64(width, e.width - o);
    const std::int64_t local = i - o * e.height;
    return local % w + local / w * e.width + o;
  }

  [[nodiscard]] SWATH_HD constexpr std::int64_t inverse(std::int64_t j, extent2d e) const {
    const std::int64_t y = j / e.width;
    const std::int64_t x = j % e.width;
    const std::int64_t o = x / width * width;
    const std::int64_t w = min64(width, e.width - o);
    return o * e.height + y * w + (x - o);
  }

  template <class Visit>
  void for_each_run(extent2d e, Visit&& visit) const {
    for (std::int64_t o = 0; o < e.width; o += width) {
      for (std::int64_t y = 0; y < e.height; ++y) visit(run{y, o, min64(o + width, e.width), false});
    }
  }
};

}  // namespace swath::schedule
