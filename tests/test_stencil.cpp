// Every registered stencil variant, at ragged sizes, with every shape, boundary and element type, and
// with column widths and tiles that do not divide the grid, against the float64 reference.
#include <gtest/gtest.h>

#include <string>

#include "swath/core/error.hpp"
#include "swath/schedule/cache_model.hpp"
#include "swath/stencil.hpp"
#include "test_support.hpp"

namespace swath::stencil {
namespace {

bench::check_result check_once(const variant& v, const problem& p) {
  return testing::check_once(make_trial(v, p, testing::fresh_options()));
}

class StencilVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(StencilVariant, MatchesTheReferenceInEveryConfiguration) {
  const variant& v = find_variant(GetParam());
  for (const auto& size : {bench::size_spec{{1, 1}}, bench::size_spec{{2, 9}}, bench::size_spec{{37, 29}},
                           bench::size_spec{{130, 7}}}) {
    for (const char* radius : {"1", "2", "4"}) {
      for (const char* form : {"star", "box"}) {
        for (const char* edge : {"clamp", "constant", "periodic"}) {
          for (const char* type : {"float", "double"}) {
            for (const char* layout : {"column_width=model tile=model", "column_width=5 tile=7x3", "column_width=1 tile=1"}) {
              const std::string config = std::string("radius=") + radius + " shape=" + form + " boundary=" + edge +
                                         " type=" + type + " " + layout;
              const problem p = make_problem(v, {size, config});
              const auto result = check_once(v, p);
              ASSERT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << config << ": "
                                           << result.describe();
              ASSERT_EQ(result.checked, size.count());
            }
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, StencilVariant, ::testing::ValuesIn(testing::variant_names(variants())), testing::variant_test_name);

// A step with a wrong boundary is caught: periodic data checked as clamp.
void wrong_boundary(const problem& p, const operands& x, const launch_context& launch) {
  problem other = p;
  other.edge = boundary::periodic;
  find_variant("stencil/cpu/01_naive").run(other, x, launch);
}

TEST(StencilCheck, CatchesAWrongBoundary) {
  variant broken = find_variant("stencil/cpu/01_naive");
  broken.run = wrong_boundary;
  const problem p = make_problem(broken, {{{37, 29}}, "radius=2 boundary=clamp"});
  const auto result = check_once(broken, p);
  EXPECT_FALSE(result.passed());
  EXPECT_GT(result.max_relative_error, 1e-3);
}

TEST(StencilProblem, TapsAndWork) {
  EXPECT_EQ(default_taps(shape::star, 1).size(), 5u);
  EXPECT_EQ(default_taps(shape::star, 4).size(), 17u);
  EXPECT_EQ(default_taps(shape::box, 4).size(), 81u);
  double sum = 0;
  for (const tap& t : default_taps(shape::box, 2)) {
    EXPECT_GT(t.weight, 0);
    sum += t.weight;
  }
  EXPECT_GT(sum, 0.4);
  EXPECT_LT(sum, 2.1);
  const problem p = make_problem(find_variant("stencil/cpu/01_naive"), {{{100, 10}}, "radius=1 type=double"});
  EXPECT_EQ(stencil_work(p).bytes, 2.0 * 8 * 1000);
  EXPECT_EQ(stencil_work(p).flops, 2.0 * 5 * 1000);
}

TEST(StencilProblem, ColumnWidthComesFromTheModelUnlessGiven) {
  const variant& column = find_variant("stencil/cpu/03_column");
  const problem p = make_problem(column, {{{1000000, 4}}, "radius=4 cache=1MiB ways=0"});
  EXPECT_EQ(p.column_width, schedule::stencil_column_width({1024.0 * 1024, 4, 9, 9, 1, 1, 0}));
  // 256 KiB, 8 ways: one way holds 8192 floats, narrower than the 9358 the rows alone would allow.
  EXPECT_EQ(make_problem(column, {{{100000, 4}}, "radius=2 cache=256K ways=8"}).column_width, 8192);
  EXPECT_EQ(make_problem(column, {{{100000, 4}}, "radius=2 cache=256K ways=0"}).column_width, 9358);
  EXPECT_EQ(make_problem(column, {{{1000, 4}}, "column_width=77"}).column_width, 77);
  EXPECT_EQ(make_problem(column, {{{50, 4}}, "column_width=77"}).column_width, 50);  // clamped to the grid
  const problem tiles = make_problem(find_variant("stencil/cpu/02_tiled"), {{{5000, 5000}}, "radius=1 cache=64K"});
  EXPECT_EQ(tiles.tile_width, 128 - 2);  // (t + 2)^2 · 4 B ≤ 64 KiB
}

TEST(StencilProblem, BadParametersAreUsageErrors) {
  const auto& f = family();
  const variant_info info = find_variant("stencil/cpu/01_naive").info;
  EXPECT_THROW(f.configurations(info, {{"radius", {"5"}}}), usage_error);
  EXPECT_THROW(f.configurations(info, {{"shape", {"circle"}}}), usage_error);
  EXPECT_THROW(f.configurations(info, {{"colour", {"red"}}}), usage_error);
  EXPECT_EQ(f.configurations(info, {{"radius", {"1", "2"}}, {"type", {"float", "double"}}}).size(), 4u);
  EXPECT_THROW(make_problem(find_variant("stencil/cpu/03_column"), {{{10, 10}}, "column_width=0"}), usage_error);
  EXPECT_THROW(make_problem(find_variant("stencil/cpu/03_column"), {{{10, 10}}, "cache=lots"}), usage_error);
  EXPECT_NE(f.unsupported(info, {{{100}}, ""}), "");
}

}  // namespace
}  // namespace swath::stencil
