// Every registered gemm variant at sizes that divide nothing, with band widths and tiles that do not
// divide the matrices, against the float64 reference; a step that skips a column is caught; past 2^31
// multiply-adds the check samples rows but still finds unwritten elements anywhere.
#include <gtest/gtest.h>
#include <omp.h>

#include "swath/core/error.hpp"
#include "swath/gemm.hpp"
#include "swath/schedule/cache_model.hpp"
#include "test_support.hpp"

namespace swath::gemm {
namespace {

bench::check_result check_once(const variant& v, const problem& p) {
  return testing::check_once(make_trial(v, p, testing::fresh_options()));
}

class GemmVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmVariant, MatchesTheReferenceAtRaggedSizes) {
  const variant& v = find_variant(GetParam());
  for (const auto& size : {bench::size_spec{{1}}, bench::size_spec{{1, 7, 3}}, bench::size_spec{{7, 1, 5}},
                           bench::size_spec{{33, 17, 65}}, bench::size_spec{{257, 129, 131}}, bench::size_spec{{61, 3, 1000}}}) {
    for (const char* layout : {"", "column_width=5 tile=7", "column_width=1 tile=1"}) {
      const problem p = make_problem(v, {size, layout});
      const auto result = check_once(v, p);
      ASSERT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << layout << ": " << result.describe();
      ASSERT_EQ(result.checked, p.m * p.n);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, GemmVariant, ::testing::ValuesIn(testing::variant_names(variants())), testing::variant_test_name);

void skips_last_column(const problem& p, const operands& x, const launch_context& launch) {
  find_variant("gemm/cpu/03_column").run({p.m, p.n - 1, p.k, p.column_width, p.tile, p.cache_bytes}, x, launch);
}

TEST(GemmCheck, CatchesASkippedColumn) {
  variant broken = find_variant("gemm/cpu/03_column");
  broken.run = skips_last_column;
  const auto result = check_once(broken, make_problem(broken, {{{33, 17, 65}}, ""}));
  EXPECT_FALSE(result.passed());
  EXPECT_GT(result.unwritten + result.not_finite, 0);
  EXPECT_GT(result.max_relative_error, 1e-3);  // the rows were written with the wrong row length
}

TEST(GemmCheck, LargeProblemsSampleRowsButSeeEveryUnwrittenElement) {
  const variant& v = find_variant("gemm/cpu/03_column");
  const problem p = make_problem(v, {{{1300, 1300, 1300}}, ""});  // 2.2e9 multiply-adds > 2^31
  const auto result = check_once(v, p);
  EXPECT_TRUE(result.passed()) << result.describe();
  EXPECT_LT(result.checked, p.m * p.n);
  EXPECT_GE(result.checked, 64 * p.n);
}

TEST(GemmProblem, ModelWidthsAndWork) {
  const variant& v = find_variant("gemm/cpu/03_column");
  const problem p = make_problem(v, {{{100, 100000, 1024}}, "cache=2MiB"});
  EXPECT_EQ(p.column_width, schedule::matmul_column_width({2.0 * 1024 * 1024, 4, 1024, 1024, omp_get_max_threads()}));
  EXPECT_EQ(make_problem(v, {{{10, 20, 30}}, "column_width=1000"}).column_width, 20);  // clamped to N
  EXPECT_EQ(make_problem(v, {{{7}}, ""}).k, 7);
  EXPECT_EQ(gemm_work(make_problem(v, {{{2, 3, 4}}, ""})).flops, 2.0 * 2 * 3 * 4);
  EXPECT_THROW(family().configurations(v.info, {{"radius", {"1"}}}), usage_error);
  EXPECT_NE(family().unsupported(v.info, {{{10, 10}}, ""}), "");
}

}  // namespace
}  // namespace swath::gemm
