#pragma once
// Zigzag(w): the thesis's zigzagging variation of Column(w), precisely:
//  - the columns are those of Column(w), walked left to right;
//  - inside column k the walk goes row by row, top to bottom when k is even and bottom to top when k
//    is odd, so column k+1 starts in the row where column k ended (the rows around it, which a stencil
//    reads, are the last ones loaded);
//  - the r-th row walked inside a column (r counts from 0 in walk order) goes left to right when r is
//    even and right to left when r is odd (boustrophedon), so each row starts at the x where the row
//    before it ended, on the same cache lines.
// The only jump left is at a column boundary: from the end of the last row of column k to the start of
// the first row of column k+1, at most 2w − 1 elements apart in the same row.
#include "swath/schedule/extent.hpp"

namespace swath::schedule {

struct zigzag {
  static constexpr const char* name = "zigzag";
  std::int64_t width = 1;

  [[nodiscard]] SWATH_HD constexpr std::int64_t map(std::int64_t i, extent2d e) const {
    const std::int64_t k = i / (e.height * width);
    const std::int64_t o = k * width;
    const std::int64_t w = min64(width, e.width - o);
    const std::int64_t local = i - o * e.height;
    const std::int64_t r = local / w;   // r-th row walked
    const std::int64_t p = local % w;   // position along that row, in walk order
    const std::int64_t y = (k % 2 == 0) ? r : e.height - 1 - r;
    const std::int64_t x = (r % 2 == 0) ? o + p : o + w - 1 - p;
    return y * e.width + x;
  }

  [[nodiscard]] SWATH_HD constexpr std::int64_t inverse(std::int64_t j, extent2d e) const {
    const std::int64_t y = j / e.width;
    const std::int64_t x = j % e.width;
    const std::int64_t k = x / width;
    const std::int64_t o = k * width;
    const std::int64_t w = min64(width, e.width - o);
    const std::int64_t r = (k % 2 == 0) ? y : e.height - 1 - y;
    const std::int64_t p = (r % 2 == 0) ? x - o : o + w - 1 - x;
    return o * e.height + r * w + p;
  }

  template <class Visit>
  void for_each_run(extent2d e, Visit&& visit) const {
    std::int64_t k = 0;
    for (std::int64_t o = 0; o < e.width; o += width, ++k) {
      const std::int64_t end = min64(o + width, e.width);
      for (std::int64_t r = 0; r < e.height; ++r) {
        const std::int64_t y = (k % 2 == 0) ? r : e.height - 1 - r;
        visit(run{y, o, end, r % 2 == 1});
      }
    }
  }
};

}  // namespace swath::schedule
