#pragma once
// The grid a schedule walks: width × height elements, stored row-major (index j = y·width + x).
// 64-bit throughout: grids past 2^31 elements are in scope.
#include <cstdint>

#include "swath/core/hd.hpp"

namespace swath::schedule {

struct extent2d {
  std::int64_t width = 0;
  std::int64_t height = 0;
  [[nodiscard]] SWATH_HD constexpr std::int64_t count() const { return width * height; }
};

// A horizontal run of elements visited one after another: row y, columns [x_begin, x_end), walked
// right-to-left when reversed. CPU loops iterate runs so the inner loop stays a plain vectorisable loop.
struct run {
  std::int64_t y;
  std::int64_t x_begin;
  std::int64_t x_end;
  bool reversed;
};

SWATH_HD_INLINE constexpr std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

}  // namespace swath::schedule
