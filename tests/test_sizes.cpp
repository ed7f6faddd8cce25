// Size parsing: every bad input is a usage_error that names the problem.
#include <gtest/gtest.h>

#include "swath/bench/family.hpp"
#include "swath/bench/runner.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {
namespace {

TEST(Sizes, ParsesNumbersPowersAndShapes) {
  EXPECT_EQ(parse_size("1000").extents, (std::vector<std::int64_t>{1000}));
  EXPECT_EQ(parse_size("2^28").extents, (std::vector<std::int64_t>{1 << 28}));
  EXPECT_EQ(parse_size("12289x8191").extents, (std::vector<std::int64_t>{12289, 8191}));
  EXPECT_EQ(parse_size("1000X700x300").extents, (std::vector<std::int64_t>{1000, 700, 300}));
  EXPECT_EQ(parse_size("37x41").text(), "37x41");
  EXPECT_EQ(parse_size("37x41").count(), 37 * 41);
}

TEST(Sizes, RejectsBadInput) {
  for (const char* bad : {"0", "-5", "abc", "", "12x", "x3", "3x0", "1.5", "99999999999999999999999", "2^99",
                          "3^4", "2^-1", "1x2x3x4", "4294967296x4294967296", "10 "}) {
    EXPECT_THROW(parse_size(bad), usage_error) << "'" << bad << "'";
  }
}

TEST(Glob, MatchesLikeAShell) {
  EXPECT_TRUE(glob_match("*", "elementwise/cuda/05_vecadd_streaming"));
  EXPECT_TRUE(glob_match("*cuda/05*", "elementwise/cuda/05_vecadd_streaming"));
  EXPECT_TRUE(glob_match("elementwise/cpu/0?_*", "elementwise/cpu/02_vecadd_openmp"));
  EXPECT_FALSE(glob_match("*cuda*", "elementwise/cpu/02_vecadd_openmp"));
  EXPECT_FALSE(glob_match("elementwise", "elementwise/cpu/02_vecadd_openmp"));
}

}  // namespace
}  // namespace swath::bench
