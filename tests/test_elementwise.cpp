// Every registered elementwise variant, at sizes that are not multiples of any block, vector width or
// tile, against the float64 reference, with poisoned outputs. CPU rows run everywhere; CUDA rows are
// instantiated as Gpu/... (label gpu) and skip without a device.
#include <gtest/gtest.h>

#include <string>

#include "swath/lab/elementwise.hpp"
#include "test_support.hpp"

namespace swath::elementwise {
namespace {

std::vector<std::string> names_for(backend where) {
  std::vector<std::string> names;
  for (const variant& v : variants()) {
    if (v.info.where == where) names.emplace_back(v.info.name);
  }
  return names;
}

std::vector<bench::size_spec> ragged_sizes(operation op) {
  if (op == operation::matrix_add) {
    return {{{1, 1}}, {{1, 7}}, {{7, 1}}, {{33, 17}}, {{127, 1029}}, {{1025, 257}}};
  }
  return {{{1}}, {{2}}, {{3}}, {{5}}, {{1023}}, {{1025}}, {{4097}}, {{262147}}, {{1000003}}};
}

void verify_at_ragged_sizes(const std::string& name) {
  const variant& v = find_variant(name);
  for (const bench::size_spec& size : ragged_sizes(v.op)) {
    const bench::trial_options options = testing::fresh_options();
    const bench::check_result result = testing::check_once(make_trial(v, make_problem(v, size), options));
    EXPECT_TRUE(result.passed()) << name << " at " << size.text() << ": " << result.describe() << " (seed "
                                 << options.seed << ")";
    EXPECT_EQ(result.checked, size.count());
  }
}

class ElementwiseVariant : public ::testing::TestWithParam<std::string> {};
TEST_P(ElementwiseVariant, MatchesTheReferenceAtRaggedSizes) { verify_at_ragged_sizes(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cpu, ElementwiseVariant, ::testing::ValuesIn(names_for(backend::cpu)), testing::variant_test_name);

class GpuElementwiseVariant : public ::testing::TestWithParam<std::string> {};
TEST_P(GpuElementwiseVariant, MatchesTheReferenceAtRaggedSizes) {
  SWATH_SKIP_WITHOUT_GPU();
  verify_at_ragged_sizes(GetParam());
}
INSTANTIATE_TEST_SUITE_P(Gpu, GpuElementwiseVariant, ::testing::ValuesIn(names_for(backend::cuda)), testing::variant_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuElementwiseVariant);

TEST(ElementwiseRegistry, NamesAreUniqueAndWellFormed) {
  std::set<std::string_view> seen;
  for (const variant& v : variants()) {
    EXPECT_TRUE(seen.insert(v.info.name).second) << v.info.name;
    const std::string prefix = "elementwise/" + std::string(to_string(v.info.where)) + "/";
    EXPECT_EQ(v.info.name.substr(0, prefix.size()), prefix) << v.info.name;
    EXPECT_FALSE(v.info.summary.empty()) << v.info.name;
    EXPECT_NE(v.run, nullptr);
    EXPECT_NE(v.supports, nullptr);
    EXPECT_NE(v.work, nullptr);
  }
  EXPECT_GE(names_for(backend::cpu).size(), 3u);
}

TEST(ElementwiseRegistry, WorkCountsTwelveBytesAndOneFlopPerAdd) {
  const problem p{operation::vector_add, 1, 1000, 1000};
  EXPECT_EQ(add_work(p).bytes, 12000);
  EXPECT_EQ(add_work(p).flops, 1000);
  EXPECT_EQ(copy_work(p).bytes, 4000);
}

TEST(ElementwiseRegistry, ShapeMismatchesAreSkippedWithAReason) {
  const auto& f = family();
  const auto vector_step = find_variant("elementwise/cpu/02_vecadd_openmp").info;
  const auto matrix_step = find_variant("elementwise/cpu/03_matadd_openmp").info;
  EXPECT_EQ(f.unsupported(vector_step, {{{100}}, ""}), "");
  EXPECT_NE(f.unsupported(vector_step, {{{10, 10}}, ""}), "");
  EXPECT_NE(f.unsupported(matrix_step, {{{100}}, ""}), "");
  EXPECT_THROW(f.configurations(vector_step, {{"radius", {"2"}}}), usage_error);
  EXPECT_THROW(find_variant("elementwise/cpu/99_nothing"), usage_error);
}

}  // namespace
}  // namespace swath::elementwise
