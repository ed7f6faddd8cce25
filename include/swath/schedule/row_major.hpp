#pragma once
// RowMajor: the storage order itself. i -> j = i.
#include "swath/schedule/extent.hpp"

namespace swath::schedule {

struct row_major {
  static constexpr const char* name = "row_major";
  [[nodiscard]] SWATH_HD constexpr std::int64_t map(std::int64_t i, extent2d) const { return i; }
  [[nodiscard]] SWATH_HD constexpr std::int64_t inverse(std::int64_t j, extent2d) const { return j; }
  template <class Visit>
  void for_each_run(extent2d e, Visit&& visit) const {
    for (std::int64_t y = 0; y < e.height; ++y) visit(run{y, 0, e.width, false});
  }
};

}  // namespace swath::schedule
