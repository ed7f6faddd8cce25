// The cache model: the exact width is the widest that fits, the asymptote tracks it, and the fetch
// counts agree with the traversals' arithmetic on hand-checked cases.
#include <gtest/gtest.h>

#include <cmath>

#include "swath/schedule/cache_model.hpp"

namespace swath::schedule {
namespace {

TEST(CacheModel, ExactColumnWidthIsTheWidestThatFits) {
  for (const double cache : {32.0 * 1024, 1024.0 * 1024, 2.0 * 1024 * 1024, 32.0 * 1024 * 1024}) {
    for (const std::int64_t radius : {1, 2, 4}) {
      for (const std::int64_t threads : {1, 4, 64, 4096}) {
        const stencil_footprint s{cache, 4, 2 * radius + 1, 2 * radius + 1, threads};
        const std::int64_t c = stencil_column_width(s);
        ASSERT_GT(c, 0);
        EXPECT_LE(stencil_column_bytes(s, c), cache);
        EXPECT_GT(stencil_column_bytes(s, c + 1), cache) << "cache " << cache << " r " << radius << " t " << threads;
      }
    }
  }
}

TEST(CacheModel, HandCheckedColumnWidth) {
  // 2 MiB, floats, 3x3 stencil, one thread: 4 (c + 3)(3 + 1) <= 2 MiB  =>  c <= 131069.
  const stencil_footprint s{2.0 * 1024 * 1024, 4, 3, 3, 1};
  EXPECT_EQ(stencil_column_width(s), 131069);
  // Asymptote: (2 MiB − 4 (9 + 1)) / (3 · 4) = 174759.3: it drops the "+ ceil(t/c)" row, so it is wider.
  EXPECT_NEAR(stencil_column_width_asymptote(s), 174759.33, 0.01);
}

TEST(CacheModel, AsymptoteIsWiderByTheRowTheThreadsWorkIn) {
  // When t < c the exact model holds s_h + 1 rows (ceil(t/c) = 1); the asymptote counts only t
  // elements for the working row, so for a large cache its width is (s_h + 1) / s_h times the exact one.
  for (const std::int64_t radius : {1, 2, 4}) {
    const std::int64_t s_h = 2 * radius + 1;
    for (const std::int64_t threads : {1, 16, 1 << 16}) {
      const stencil_footprint s{32.0 * 1024 * 1024, 4, s_h, s_h, threads};
      const double ratio = stencil_column_width_asymptote(s) / static_cast<double>(stencil_column_width(s));
      // (t / s_h elements less, under 1% here even at t = 2^16)
      EXPECT_NEAR(ratio, static_cast<double>(s_h + 1) / static_cast<double>(s_h), 0.02)
          << "radius " << radius << " threads " << threads;
    }
  }
}

TEST(CacheModel, OutputRowAndWaysCorrections) {
  // Thesis: 4 (c + 5)(5 + 1) <= 256 KiB -> c = 10917. With the output row: 4 (7c + 30) <= 256 KiB -> c = 9358.
  // Within one way of an 8-way cache: 256 KiB / 8 / 4 B = 8192.
  EXPECT_EQ(stencil_column_width({262144, 4, 5, 5, 1, 0, 0}), 10917);
  EXPECT_EQ(stencil_column_width({262144, 4, 5, 5, 1, 1, 0}), 9358);
  EXPECT_EQ(stencil_column_width({262144, 4, 5, 5, 1, 1, 8}), 8192);
  // Tight count: each column its own width, no halo rows: 16387 wide in columns of 8192 (2 + 1 columns).
  EXPECT_EQ(column_fetches_tight({16387, 64}, 8192, 4, 16),
            (ceil_div(8196, 16) + ceil_div(8196, 16) + ceil_div(3 + 4, 16)) * 64);
}

TEST(CacheModel, NothingFitsInATinyCache) {
  EXPECT_EQ(stencil_column_width({64, 4, 9, 9, 1}), 0);
}

TEST(CacheModel, FetchCounts) {
  const extent2d grid{1000, 500};
  // Column 100 wide, radius 1 (halo 2), 16 floats per line: 10 columns × ceil(102/16)=7 lines × 502 rows.
  EXPECT_EQ(column_fetches(grid, 100, 2, 2, 16), 10 * 7 * 502);
  // Row-major with room for the rows: every line once, ceil(1002/16)=63 × 502.
  EXPECT_EQ(row_major_fetches(grid, {1e6, 4, 3, 3, 1}, 16), 63 * 502);
  // Row-major without: each of the 500 output rows fetches its 3 input rows.
  EXPECT_EQ(row_major_fetches(grid, {8 * 1024, 4, 3, 3, 1}, 16), 63 * 500 * 3);
  // Tiled 100 × 50: 10 × 10 tiles, each ceil(102/16)=7 lines × 52 rows.
  EXPECT_EQ(tiled_fetches(grid, 100, 50, 2, 2, 16), 100 * 7 * 52);
  // Tiles re-fetch their halos, columns do not: columns fetch fewer lines than square tiles.
  EXPECT_LT(column_fetches(grid, 100, 2, 2, 16), tiled_fetches(grid, 100, 100, 2, 2, 16));
}

TEST(CacheModel, MatmulColumnWidth) {
  const matmul_footprint m{2.0 * 1024 * 1024, 4, 1024, 1024, 1};
  EXPECT_DOUBLE_EQ(matmul_column_width_asymptote(m), 512.0);
  // Exact: 4 (1024 c + 1024 ceil(1/c)) <= 2 MiB  =>  c <= 511.
  EXPECT_EQ(matmul_column_width(m), 511);
}

}  // namespace
}  // namespace swath::schedule
