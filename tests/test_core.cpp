// Core: errors carry the call and file:line; random inputs are never zero and reproducible; buffers
// count elements and bytes; timing statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "swath/core/buffer.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"
#include "test_support.hpp"

namespace swath {
namespace {

TEST(Errors, ExpectsNamesConditionFileAndLine) {
  const int line = __LINE__ + 2;
  try {
    SWATH_EXPECTS(1 + 1 == 3, "arithmetic is broken");
    FAIL() << "SWATH_EXPECTS did not throw";
  } catch (const precondition_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("arithmetic is broken"), std::string::npos) << what;
    EXPECT_NE(what.find("1 + 1 == 3"), std::string::npos) << what;
    EXPECT_NE(what.find("test_core.cpp:" + std::to_string(line)), std::string::npos) << what;
  }
}

TEST(Errors, CudaErrorsNameTheCallAndMapOutOfMemory) {
  try {
    detail::throw_cuda(700, "cudaErrorIllegalAddress", "an illegal memory access", "cudaMemcpy(a, b, n)", "x.cu", 12);
  } catch (const cuda_error& e) {
    EXPECT_EQ(e.code(), 700);
    EXPECT_NE(std::string(e.what()).find("cudaMemcpy(a, b, n) failed: cudaErrorIllegalAddress"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("x.cu:12"), std::string::npos);
  }
  EXPECT_THROW(detail::throw_cuda(2, "cudaErrorMemoryAllocation", "out of memory", "cudaMalloc(&p, n)", "x.cu", 3),
               out_of_memory_error);
}

TEST(Random, NeverZeroInRangeAndReproducible) {
  const std::uint64_t seed = testing::fresh_seed();
  int negative = 0;
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const float value = random_float(seed, i);
    ASSERT_TRUE(std::isfinite(value));
    ASSERT_GE(std::fabs(value), 0.5f) << "seed " << seed << " index " << i;
    ASSERT_LT(std::fabs(value), 2.0f);
    ASSERT_EQ(value, random_float(seed, i));
    negative += value < 0;
    const double wide = random_double(seed, i);
    ASSERT_GE(std::fabs(wide), 0.5);
    ASSERT_LT(std::fabs(wide), 2.0);
  }
  EXPECT_NEAR(negative, 100000, 2000);  // both signs, evenly
  EXPECT_NE(random_float(seed, 0), random_float(seed + 1, 0));
}

TEST(Random, HostFillMatchesTheElementFunction) {
  const std::uint64_t seed = testing::fresh_seed();
  buffer<float> values(memory_kind::host, 10007);
  fill_random(values.data(), 10007, seed);
  for (std::int64_t i = 0; i < 10007; ++i) ASSERT_EQ(values.data()[i], random_float(seed, i));
}

TEST(Buffers, CountElementsAndBytesAndMove) {
  buffer<float> values(memory_kind::host, 1001);
  EXPECT_EQ(values.size(), 1001u);
  EXPECT_EQ(values.bytes(), 4004u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values.data()) % 64, 0u);
  buffer<float> moved(std::move(values));
  EXPECT_EQ(moved.size(), 1001u);
  EXPECT_EQ(values.data(), nullptr);  // NOLINT: checking the moved-from state on purpose
  buffer<float> empty(memory_kind::host, 0);
  EXPECT_EQ(empty.data(), nullptr);
}

TEST(Buffers, ImpossibleHostAllocationThrowsOutOfMemory) {
  EXPECT_THROW(buffer<float>(memory_kind::host, std::size_t{1} << 60), out_of_memory_error);
  EXPECT_THROW(buffer<double>(memory_kind::host, ~std::size_t{0} / 4), precondition_error);
}

TEST(Poison, IsARecognisableNaN) {
  EXPECT_TRUE(std::isnan(poison_f32()));
  EXPECT_TRUE(is_poison(poison_f32()));
  EXPECT_FALSE(is_poison(std::nanf("")));  // a computed NaN is not the poison
  EXPECT_FALSE(is_poison(1.0f));
}

TEST(Timing, MedianMinMax) {
  const timing_stats odd = summarize({5, 1, 3});
  EXPECT_EQ(odd.median_s, 3);
  EXPECT_EQ(odd.min_s, 1);
  EXPECT_EQ(odd.max_s, 5);
  EXPECT_EQ(summarize({4, 1, 3, 2}).median_s, 2.5);
  EXPECT_THROW(summarize({}), precondition_error);
}

TEST(Device, SlugIsFileNameFriendly) {
  EXPECT_EQ(slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(slug("  Intel(R) Xeon(R) "), "intel-r-xeon-r");
  EXPECT_EQ(slug("!!"), "unknown");
}

}  // namespace
}  // namespace swath
