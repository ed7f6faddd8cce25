// The check itself must be able to fail: variants that skip an element, compute a NaN, write into the
// padding or round wrongly are each caught, through the same trial machinery the runner uses.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "swath/bench/check.hpp"
#include "swath/lab/elementwise.hpp"
#include "test_support.hpp"

namespace swath::elementwise {
namespace {

void skips_last_element(const problem& p, const operands& x, const launch_context&) {
  for (std::int64_t i = 0; i + 1 < p.count(); ++i) x.c[i] = x.a[i] + x.b[i];
}
void writes_a_nan(const problem& p, const operands& x, const launch_context&) {
  for (std::int64_t i = 0; i < p.count(); ++i) x.c[i] = x.a[i] + x.b[i];
  x.c[p.count() / 2] = std::numeric_limits<float>::quiet_NaN();
}
void writes_the_padding(const problem& p, const operands& x, const launch_context&) {
  for (std::int64_t row = 0; row < p.rows; ++row) {
    for (std::int64_t col = 0; col < p.ld && row * p.ld + col < p.allocated(); ++col) {
      x.c[row * p.ld + col] = x.a[row * p.ld + col] + x.b[row * p.ld + col];
    }
  }
}
void rounds_badly(const problem& p, const operands& x, const launch_context&) {
  for (std::int64_t i = 0; i < p.count(); ++i) x.c[i] = (x.a[i] + x.b[i]) * (1.0f + 1e-5f);
}
void does_nothing(const problem&, const operands&, const launch_context&) {}

variant broken(operation op, void (*run)(const problem&, const operands&, const launch_context&)) {
  return {{"elementwise/cpu/broken", backend::cpu, "deliberately wrong", "vector_add", 1e-6, false,
           ceiling_kind::host_memory},
          op, memory_kind::host, any_size, run, add_work};
}

bench::check_result check_once(const variant& v, const problem& p) {
  return testing::check_once(make_trial(v, p, testing::fresh_options()));
}

const problem ragged_vector{operation::vector_add, 1, 1000003, 1000003};
const problem ragged_matrix{operation::matrix_add, 37, 41, 64};

TEST(Check, CatchesAnUnwrittenElement) {
  const auto result = check_once(broken(operation::vector_add, skips_last_element), ragged_vector);
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.unwritten, 1);
}

TEST(Check, CatchesAComputedNaN) {
  const auto result = check_once(broken(operation::vector_add, writes_a_nan), ragged_vector);
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.not_finite, 1);
  EXPECT_EQ(result.unwritten, 0);
}

TEST(Check, CatchesWritesIntoThePadding) {
  const auto result = check_once(broken(operation::matrix_add, writes_the_padding), ragged_matrix);
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.outside_writes, 36 * (64 - 41));
}

TEST(Check, CatchesAnErrorAboveTolerance) {
  const auto result = check_once(broken(operation::vector_add, rounds_badly), ragged_vector);
  EXPECT_FALSE(result.passed());
  EXPECT_GT(result.max_relative_error, 5e-6);
  EXPECT_NE(result.describe().find("max relative error"), std::string::npos);
}

TEST(Check, CatchesADoNothingVariant) {
  const auto result = check_once(broken(operation::matrix_add, does_nothing), ragged_matrix);
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.unwritten, 37 * 41);
}

TEST(Check, RelativeErrorUsesTheOutputScaleNearZero) {
  // ref = 0 at one element: judged against 1e-6 × max|ref| rather than dividing by zero.
  const float out[3] = {1.0f, 1e-9f, 2.0f};
  const double ref[3] = {1.0, 0.0, 2.0};
  const auto result = bench::compare_region(out, 1, 3, 3, [&](std::int64_t i) { return ref[i]; }, 1e-3);
  EXPECT_TRUE(result.passed()) << result.describe();
  EXPECT_NEAR(result.max_relative_error, 1e-9 / 2e-6, 1e-6);
}

}  // namespace
}  // namespace swath::elementwise
