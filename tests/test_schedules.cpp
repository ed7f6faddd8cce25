// The schedule layer: every mapping is a bijection onto [0, W·H), walks in the order it documents, has
// an exact inverse, and its run iteration (what CPU loops use) visits exactly the mapped sequence.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "swath/schedule/block_order.hpp"
#include "test_support.hpp"

namespace swath::schedule {
namespace {

const std::int64_t widths[] = {1, 2, 3, 5, 11, 16, 17, 31};
const std::int64_t heights[] = {1, 2, 3, 7, 16};
const std::int64_t column_widths[] = {1, 2, 3, 4, 5, 8, 16, 40};  // 40 > every W: one column

std::vector<std::int64_t> walk(const auto& s, extent2d e) {
  std::vector<std::int64_t> order;
  for (std::int64_t i = 0; i < e.count(); ++i) order.push_back(s.map(i, e));
  return order;
}

std::vector<std::int64_t> walk_runs(const auto& s, extent2d e) {
  std::vector<std::int64_t> order;
  s.for_each_run(e, [&](run r) {
    for (std::int64_t n = 0; n < r.x_end - r.x_begin; ++n) {
      order.push_back(r.y * e.width + (r.reversed ? r.x_end - 1 - n : r.x_begin + n));
    }
  });
  return order;
}

// Bijection, exact inverse both ways, and runs equal to the mapping.
void expect_consistent(const auto& s, extent2d e) {
  const auto order = walk(s, e);
  std::vector<int> seen(static_cast<std::size_t>(e.count()), 0);
  for (std::int64_t i = 0; i < e.count(); ++i) {
    const std::int64_t j = order[static_cast<std::size_t>(i)];
    ASSERT_GE(j, 0) << s.name << " " << e.width << "x" << e.height << " i=" << i;
    ASSERT_LT(j, e.count()) << s.name << " " << e.width << "x" << e.height << " i=" << i;
    ++seen[static_cast<std::size_t>(j)];
    ASSERT_EQ(s.inverse(j, e), i) << s.name << " " << e.width << "x" << e.height << " j=" << j;
  }
  for (std::int64_t j = 0; j < e.count(); ++j) ASSERT_EQ(seen[static_cast<std::size_t>(j)], 1) << s.name << " j=" << j;
  EXPECT_EQ(walk_runs(s, e), order) << s.name << " " << e.width << "x" << e.height;
}

TEST(Schedules, EveryMappingIsABijectionWithAnExactInverse) {
  for (const std::int64_t w : widths) {
    for (const std::int64_t h : heights) {
      const extent2d e{w, h};
      expect_consistent(row_major{}, e);
      for (const std::int64_t c : column_widths) {
        expect_consistent(column{c}, e);
        expect_consistent(zigzag{c}, e);
      }
      for (const auto& [tw, th] : {std::pair{1, 1}, {2, 3}, {4, 4}, {5, 2}, {3, 7}, {40, 40}}) {
        expect_consistent(tiled{tw, th}, e);
      }
    }
  }
}

// Column order, checked against its definition rather than against the formula: column k holds
// x in [k·w, k·w + w'), the columns come left to right, and inside one the walk is row-major.
TEST(Schedules, ColumnWalksEachColumnTopToBottomLeftToRight) {
  for (const std::int64_t w : widths) {
    for (const std::int64_t h : heights) {
      for (const std::int64_t c : column_widths) {
        const extent2d e{w, h};
        const auto order = walk(column{c}, e);
        std::size_t i = 0;
        for (std::int64_t x0 = 0; x0 < w; x0 += c) {
          for (std::int64_t y = 0; y < h; ++y) {
            for (std::int64_t x = x0; x < std::min(x0 + c, w); ++x, ++i) {
              ASSERT_EQ(order[i], y * w + x) << w << "x" << h << " column width " << c << " i=" << i;
            }
          }
        }
      }
    }
  }
}

TEST(Schedules, ColumnMatchesTheThesisExampleAndNotTheSeedTypo) {
  const extent2d e{11, 2};
  const column s{4};
  const std::vector<std::int64_t> last_column = {s.map(16, e), s.map(17, e), s.map(18, e),
                                                 s.map(19, e), s.map(20, e), s.map(21, e)};
  EXPECT_EQ(last_column, (std::vector<std::int64_t>{8, 9, 10, 19, 20, 21}));

  // The seed's text, i' = i mod (H·w'), is still a bijection: a coverage test alone would pass it.
  const auto seed_map = [&](std::int64_t i) {
    const std::int64_t o = i / (e.height * 4) * 4;
    const std::int64_t w = std::min<std::int64_t>(4, e.width - o);
    const std::int64_t local = i % (e.height * w);
    return local % w + local / w * e.width + o;
  };
  std::vector<int> seen(22, 0);
  for (std::int64_t i = 0; i < 22; ++i) ++seen[static_cast<std::size_t>(seed_map(i))];
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 22);
  EXPECT_EQ(seed_map(16), 20);  // ...but it starts the last column in its second row
  EXPECT_NE(seed_map(16), s.map(16, e));
}

TEST(Schedules, TiledWalksTilesRowMajorAndRowMajorInsideEach) {
  for (const std::int64_t w : widths) {
    for (const std::int64_t h : heights) {
      for (const auto& [tw, th] : {std::pair{2, 3}, {4, 4}, {5, 2}, {3, 7}}) {
        const auto order = walk(tiled{tw, th}, {w, h});
        std::size_t i = 0;
        for (std::int64_t y0 = 0; y0 < h; y0 += th) {
          for (std::int64_t x0 = 0; x0 < w; x0 += tw) {
            for (std::int64_t y = y0; y < std::min(y0 + th, h); ++y) {
              for (std::int64_t x = x0; x < std::min(x0 + tw, w); ++x, ++i) ASSERT_EQ(order[i], y * w + x);
            }
          }
        }
      }
    }
  }
}

// Zigzag: neighbours in the walk are neighbours in the grid, except at column boundaries, where the
// walk stays in the same row.
TEST(Schedules, ZigzagContinuesWhereTheLastRowAndColumnEnded) {
  for (const std::int64_t w : widths) {
    for (const std::int64_t h : heights) {
      for (const std::int64_t c : column_widths) {
        const extent2d e{w, h};
        const zigzag s{c};
        const auto order = walk(s, e);
        for (std::size_t i = 1; i < order.size(); ++i) {
          const std::int64_t y0 = order[i - 1] / w, x0 = order[i - 1] % w;
          const std::int64_t y1 = order[i] / w, x1 = order[i] % w;
          const bool new_column = x1 / c != x0 / c;
          if (new_column) {
            EXPECT_EQ(y1, y0) << w << "x" << h << " c=" << c << " i=" << i;  // same row across the boundary
            EXPECT_LE(std::abs(x1 - x0), 2 * c - 1);
          } else if (y1 != y0) {
            EXPECT_EQ(x1, x0) << w << "x" << h << " c=" << c << " i=" << i;  // next row starts above/below
            EXPECT_EQ(std::abs(y1 - y0), 1);
          } else {
            EXPECT_EQ(std::abs(x1 - x0), 1);  // along a row
          }
        }
        // Even columns go down, odd columns go up.
        if (w > c && h > 1) {
          EXPECT_EQ(order[static_cast<std::size_t>(c * h) - 1] / w, h - 1);
          EXPECT_EQ(order[static_cast<std::size_t>(c * h)] / w, h - 1);
        }
      }
    }
  }
}

TEST(Schedules, NoOverflowPastTwoToTheThirtyOneElements) {
  const extent2d e{(1 << 16) + 3, (1 << 15) + 5};  // 2^31 + 327,695 elements
  ASSERT_GT(e.count(), std::int64_t{1} << 31);
  std::mt19937_64 random(testing::fresh_seed());
  std::vector<std::int64_t> samples = {0, 1, e.count() / 2, e.count() - 2, e.count() - 1, (std::int64_t{1} << 31) - 1,
                                       std::int64_t{1} << 31};
  for (int n = 0; n < 20000; ++n) samples.push_back(static_cast<std::int64_t>(random() % e.count()));
  const auto check = [&](const auto& s) {
    for (const std::int64_t i : samples) {
      const std::int64_t j = s.map(i, e);
      ASSERT_GE(j, 0) << s.name << " i=" << i;
      ASSERT_LT(j, e.count()) << s.name << " i=" << i;
      ASSERT_EQ(s.inverse(j, e), i) << s.name << " i=" << i;
    }
  };
  check(row_major{});
  check(column{1000});
  check(column{7});
  check(zigzag{1000});
  check(zigzag{7});
  check(tiled{64, 64});
  check(tiled{1000, 3});
  // The last element of the last (narrower) column is the last element of the grid.
  EXPECT_EQ(column{1000}.map(e.count() - 1, e), e.count() - 1);
}

TEST(BlockOrder, ColumnOrderSendsConsecutiveBlocksDownABandOfTiles) {
  const extent2d tiles{10, 6};
  const column order{3};
  std::vector<int> seen(60, 0);
  for (std::int64_t b = 0; b < tiles.count(); ++b) {
    const tile_coordinate t = tile_of_block(order, b, tiles);
    ++seen[static_cast<std::size_t>(t.y * tiles.width + t.x)];
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 60);
  EXPECT_EQ(tile_of_block(order, 0, tiles).x, 0);
  EXPECT_EQ(tile_of_block(order, 3, tiles).y, 1);   // the 4th block starts the band's second row
  EXPECT_EQ(tile_of_block(order, 18, tiles).x, 3);  // after 3 × 6 tiles, the next band
}

}  // namespace
}  // namespace swath::schedule
