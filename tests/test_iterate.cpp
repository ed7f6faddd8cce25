// The iterate family: every row against T sweeps of the float64 reference, at ragged sizes (grids
// smaller than one tile, T not a multiple of the pass depth, T = 0 and 1), every shape, boundary and
// type, and each of its settings' values; the passes' plan; and that the check rejects a result one
// sweep short. CUDA rows run in the Gpu suites (skipped without a GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "../src/stencil/iterate.hpp"
#include "swath/lab/stencil.hpp"
#include "swath/schedule/cache_model.hpp"
#include "test_support.hpp"

namespace swath::stencil {
namespace {

bench::check_result check_config(const iterated_variant& v, const bench::size_spec& size, const std::string& config) {
  const iterated_problem p = make_iterated_problem({size, config});
  return testing::check_once(make_iterated_trial(v, p, testing::fresh_options(v.info, config)));
}

// Every configuration the row supports at these sizes, radii and sweep counts; returns how many ran.
int check_every_configuration(const iterated_variant& v, const std::vector<bench::size_spec>& sizes,
                              const std::vector<const char*>& radii, const std::vector<const char*>& sweeps,
                              const std::vector<std::string>& settings) {
  int checked = 0;
  for (const auto& size : sizes) {
    for (const char* radius : radii) {
      for (const char* form : {"star", "box"}) {
        for (const char* edge : {"clamp", "copy", "constant", "periodic"}) {
          for (const char* type : {"float", "double"}) {
            for (const char* t : sweeps) {
              for (const std::string& setting : settings) {
                const std::string config = std::string("radius=") + radius + " shape=" + form + " boundary=" + edge +
                                           " type=" + type + " sweeps=" + t + " " + setting;
                if (!v.supports(make_iterated_problem({size, config})).ok()) continue;
                const auto result = check_config(v, size, config);
                EXPECT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << config << ": " << result.describe();
                if (!result.passed()) return checked;
                EXPECT_EQ(result.checked, size.count());
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  return checked;
}

// The row's settings at each literal value (fused=model ...), and the numbers the tests name.
// Steps 04-06: the marches, compiled to march_depth_limit.
bool marches(const iterated_variant& v) {
  const std::string_view name = v.info.name;
  return name.ends_with("04_unrolled_march") || name.ends_with("05_one_barrier_a_step") || name.ends_with("06_four_row_march");
}

std::vector<std::string> settings_of(const iterated_variant& v, const std::vector<std::string>& numbers) {
  std::vector<std::string> settings = {""};
  for (const std::string& value : testing::each_setting_value(v.info)) settings.push_back(value);
  if (!v.info.settings.empty()) settings.insert(settings.end(), numbers.begin(), numbers.end());
  return settings;
}

TEST(IteratePasses, SumToTKeepItsParityAndStayWithinTheDepth) {
  EXPECT_TRUE(plan_passes(0, 4).empty());
  for (int sweeps = 1; sweeps <= 70; ++sweeps) {
    for (int depth = 1; depth <= 9; ++depth) {
      const std::vector<int> passes = plan_passes(sweeps, depth);
      EXPECT_EQ(std::accumulate(passes.begin(), passes.end(), 0), sweeps) << sweeps << " " << depth;
      EXPECT_EQ(static_cast<int>(passes.size()) % 2, sweeps % 2) << sweeps << " " << depth;
      EXPECT_LE(static_cast<int>(passes.size()), (sweeps + depth - 1) / depth + 1);
      for (const int fused : passes) {
        EXPECT_GE(fused, 1);
        EXPECT_LE(fused, depth);
      }
    }
  }
  EXPECT_EQ(plan_passes(64, 6), (std::vector<int>{6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5}));
  // Without the parity (the CPU's skewed step): as few passes as the depth allows.
  EXPECT_EQ(plan_passes(4, 4, false), (std::vector<int>{4}));
  EXPECT_EQ(plan_passes(4, 4), (std::vector<int>{2, 2}));
  EXPECT_EQ(plan_passes(64, 6, false), (std::vector<int>{6, 6, 6, 6, 6, 6, 6, 6, 6, 5, 5}));
}

TEST(IteratePasses, EndInOutAndNeverWriteWhereTheyRead) {
  int in = 0, out = 0, scratch = 0;
  for (int passes = 1; passes <= 6; ++passes) {
    // in distinct; in = out (an even count); in = scratch (an odd count): the library's ping-pong.
    for (const sweep_operands x : {sweep_operands{&in, &out, &scratch}, sweep_operands{&out, &out, &scratch},
                                   sweep_operands{&scratch, &out, &scratch}}) {
      if (x.in == &out && passes % 2 == 1) continue;
      if (x.in == &scratch && passes % 2 == 0) continue;
      const void* previous = x.in;
      for (int k = 0; k < passes; ++k) {
        const pass_buffers at = pass_at(x, k, passes);
        EXPECT_EQ(at.source, previous);
        EXPECT_NE(static_cast<const void*>(at.target), at.source);
        previous = at.target;
      }
      EXPECT_EQ(previous, &out);
    }
  }
}

TEST(IterateSkewedModel, BandShrinksWithDepthAndFitsTheCache) {
  const schedule::stencil_footprint s{1 << 20, 4, 3, 3, 1, 1, 0};
  std::int64_t previous = 1 << 30;
  for (int depth = 1; depth <= 16; ++depth) {
    const std::int64_t c = schedule::skewed_column_width(s, depth);
    EXPECT_LT(c, previous);
    EXPECT_LE(schedule::skewed_column_bytes(s, c, depth), s.cache_bytes);
    EXPECT_GT(schedule::skewed_column_bytes(s, c + 1, depth), s.cache_bytes);
    previous = c;
  }
  // Per sweep, a pass of d fetches about 1/d of one sweep's lines when the band is wide.
  const schedule::extent2d grid{8192, 512};
  const double one = static_cast<double>(schedule::skewed_column_fetches(grid, 4096, 2, 1, 16));
  const double four = static_cast<double>(schedule::skewed_column_fetches(grid, 4096, 2, 4, 16)) / 4;
  EXPECT_NEAR(four / one, 0.25, 0.01);
}

// Steps 04-06's model of the pass depth (march_depth_of) on an H100/H200-sized GPU against the depths
// the H200's sweep of step 04 measured fastest (docs/journal/stencil.md, "steps 04 and 05": L = 4 in
// float at radius 1, 583 G/s against 564 at L = 3; L = 2 at radius 2, 30.3 ms against 40.3 at L = 3);
// step 06's four rows a thread keep the same choices. A chosen depth is taken as given within the compiled
// limit and refused past it.
TEST(IterateMarchModel, ChoosesTheDepthsTheSweepMeasuredAndRefusesDeeperThanCompiled) {
  launch_context hopper;
  hopper.sm_count = 132;
  hopper.capability = 90;
  const auto depth_of = [&](const std::string& config, const launch_context& launch, march_layout (*layout)(int) = two_row_layout) {
    const problem p = make_iterated_problem({{{512, 512, 512}}, config}).sweep;
    return march_depth_of(p, launch, layout(static_cast<int>(p.element_bytes())));
  };
  for (const auto layout : {two_row_layout, four_row_layout}) {
    EXPECT_EQ(depth_of("radius=1 shape=star type=float", hopper, layout), 4);
    EXPECT_EQ(depth_of("radius=2 shape=star type=float", hopper, layout), 2);
    for (const int radius : {1, 2}) {
      const int depth = depth_of("radius=" + std::to_string(radius) + " shape=star type=double", hopper, layout);
      EXPECT_GE(depth, 2) << radius;
      EXPECT_LE(depth, march_depth_limit(radius, 8)) << radius;
    }
  }
  launch_context chosen = hopper;
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"fused", "3"}});
  EXPECT_EQ(depth_of("radius=1 shape=star type=float", chosen), 3);
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"fused", "6"}});
  EXPECT_THROW(depth_of("radius=1 shape=star type=float", chosen), usage_error);
}

// Step 07's model: a strip's time per kept point is the larger of streaming it and computing its sweeps
// (iterate.cpp), summed over the passes T is cut into. On an H100 the 5-point float star is
// compute-bound past L = 7, where 112 of the strip's 128 columns are kept; at T = 64 a depth of 8 is 8
// passes where 7 is 10 (measured: 10.9 against 13.3 ms), at T = 14 a depth of 7 is 2. A chosen depth
// past the compiled limit is refused.
TEST(IterateStripModel, ChoosesTheDepthOfTheLeastTimeForTAndRefusesDeeperThanCompiled) {
  EXPECT_EQ(strip_kept(8, 1), 112);
  EXPECT_EQ(strip_lead(8, 1), 8);
  for (int radius : {1, 2}) {
    for (int depth = 1; depth <= strip_depth_limit(radius, 4); ++depth) {
      EXPECT_EQ(strip_kept(depth, radius) % strip_columns, 0);
      EXPECT_GE(strip_width - strip_lead(depth, radius) - strip_kept(depth, radius), depth * radius);  // the right halo
    }
  }
  launch_context hopper;
  hopper.sm_count = 132;
  hopper.capability = 90;
  const auto depth_of = [&](const std::string& config, const launch_context& launch) {
    return strip_depth_of(make_iterated_problem({{{16384, 16384}}, config}), launch);
  };
  EXPECT_EQ(depth_of("radius=1 shape=star type=float sweeps=64", hopper), 8);
  EXPECT_EQ(depth_of("radius=1 shape=star type=float sweeps=14", hopper), 7);
  // Double is DRAM-bound: the fewest passes, 14 of 4-5 sweeps at the limit of 5 (measured 28.5 ms; 16 of 4: 31.0).
  EXPECT_EQ(depth_of("radius=1 shape=star type=double sweeps=64", hopper), 5);
  EXPECT_LE(depth_of("radius=2 shape=star type=float sweeps=64", hopper), depth_of("radius=1 shape=star type=float sweeps=64", hopper));
  launch_context chosen = hopper;
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"fused", "10"}});
  EXPECT_EQ(depth_of("radius=1 shape=star type=float sweeps=64", chosen), 10);
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"fused", "11"}});
  EXPECT_THROW(depth_of("radius=1 shape=star type=float sweeps=64", chosen), usage_error);
}

// Step 08's model: as step 07's over its 32-row tile. On an H100 the 7-point float star is DRAM-bound
// up to L = 4 (120 x 24 of 128 x 32 kept), and L = 5 keeps too few (112 x 22) to pay for its compute:
// 4 for float and double; radius 2 keeps 24 of 32 rows at L = 2 and 20 at 3: 2. The rings limit the
// depth to 5 at radius 1 and 3 at radius 2 (227 KiB of shared memory).
TEST(IterateStackModel, ChoosesTheDepthOfTheLeastTimeAndFitsTheRingsInSharedMemory) {
  EXPECT_EQ(stack_kept_x(4, 1, 4), 120);
  EXPECT_EQ(stack_kept_y(4, 1), 24);
  EXPECT_EQ(stack_kept_x(4, 1, 8), 56);
  EXPECT_EQ(stack_depth_limit(1, 4), 5);
  EXPECT_EQ(stack_depth_limit(1, 8), 5);
  EXPECT_EQ(stack_depth_limit(2, 4), 3);
  EXPECT_EQ(stack_depth_limit(3, 4), 0);
  for (int radius : {1, 2}) {
    for (int u : {4, 8}) {
      for (int depth = 1; depth <= stack_depth_limit(radius, u); ++depth) {
        EXPECT_EQ(stack_kept_x(depth, radius, u) % stack_columns(u), 0);
        EXPECT_GE(stack_width(u) - stack_lead(depth, radius, u) - stack_kept_x(depth, radius, u), depth * radius);  // the right halo
        EXPECT_GE(stack_lead(depth, radius, u), depth * radius);
        EXPECT_LE(stack_shared_bytes(depth, radius, u), 227 * 1024);
      }
    }
  }
  launch_context hopper;
  hopper.sm_count = 132;
  hopper.capability = 90;
  const auto depth_of = [&](const std::string& config, const launch_context& launch) {
    return stack_depth_of(make_iterated_problem({{{512, 512, 512}}, config}), launch);
  };
  EXPECT_EQ(depth_of("radius=1 shape=star type=float sweeps=64", hopper), 4);
  EXPECT_EQ(depth_of("radius=1 shape=star type=double sweeps=64", hopper), 4);
  EXPECT_EQ(depth_of("radius=2 shape=star type=float sweeps=64", hopper), 2);
  launch_context chosen = hopper;
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"fused", "5"}});
  EXPECT_EQ(depth_of("radius=1 shape=star type=float sweeps=64", chosen), 5);
  EXPECT_THROW(depth_of("radius=2 shape=star type=float sweeps=64", chosen), usage_error);
}

// Step 09's cluster: the fewest rows computed a resident block. 512 rows at L = 4, r = 1: 22 tiles
// alone (24 kept of 32), 10 clusters of 2 (56 of 64), 6 of 3 (88 of 96), 5 of 4 (120 of 128).
TEST(IterateStackModel, TakesTheClusterOfTheFewestRowsAResidentBlock) {
  EXPECT_EQ(stack_cluster_kept_y(4, 1, 3), 88);
  EXPECT_EQ(stack_cluster_kept_y(2, 2, 1), stack_kept_y(2, 2));
  launch_context hopper;
  const std::vector<int> every_sm = {132, 132, 132, 132};
  const std::vector<int> gpcs_of_16_and_18 = {132, 132, 126, 128};  // 22/132, 20/132, 18/126, 20/128 rows
  EXPECT_EQ(stack_cluster_of(hopper, 512, 4, 1, every_sm), 3);
  EXPECT_EQ(stack_cluster_of(hopper, 512, 4, 1, gpcs_of_16_and_18), 3);
  EXPECT_EQ(stack_cluster_of(hopper, 512, 4, 1, std::vector<int>{132, 132, 0, 128}), 2);  // no cluster of 3 fits
  EXPECT_EQ(stack_cluster_of(hopper, 60, 4, 1, every_sm), 1);                              // shorter than two tiles
  EXPECT_EQ(stack_cluster_of(hopper, 512, 4, 1, std::vector<int>{132}), 1);                // clusters not offered
  launch_context chosen = hopper;
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"cluster", "5"}});
  EXPECT_EQ(stack_cluster_of(chosen, 512, 4, 1, every_sm), 5);
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"cluster", "9"}});
  EXPECT_THROW(stack_cluster_of(chosen, 512, 4, 1, every_sm), usage_error);
  chosen.settings = std::make_shared<const chosen_settings>(chosen_settings{{"cluster", "0"}});
  EXPECT_THROW(stack_cluster_of(chosen, 512, 4, 1, every_sm), usage_error);
}

class IterateVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(IterateVariant, MatchesTSweepsOfTheReference) {
  const iterated_variant& v = find_iterated_variant(GetParam());
  // 17 x 29 x 11: several slabs of step 03 (column_width=5) with interior planes and rows at radius 1-4.
  const std::vector<bench::size_spec> sizes = {{{1, 1}}, {{2, 9}}, {{37, 29}}, {{130, 7}}, {{9, 7, 5}}, {{17, 29, 11}}};
  const int checked = check_every_configuration(v, sizes, {"1", "2", "4"}, {"0", "1", "5", "8"},
                                                settings_of(v, {"fused=1", "fused=3 column_width=5", "fused=6 column_width=1"}));
  EXPECT_GT(checked, 0) << v.info.name << " supported none of the configurations";
}

INSTANTIATE_TEST_SUITE_P(Cpu, IterateVariant, ::testing::ValuesIn(testing::variant_names(iterated_variants(), backend::cpu)),
                         testing::variant_test_name);

// The check can fail: T - 1 sweeps against T sweeps' reference is rejected (the averaging weights
// smooth the grid, so the two differ least at the largest T the tests use).
const iterated_variant one_sweep_short{{"iterate/cpu/one_short", backend::cpu, "T - 1 sweeps", "iterate", 1e-5, false,
                                        ceiling_kind::host_memory},
                                       any_iterated,
                                       [](const iterated_problem& p, const sweep_operands& x, const launch_context& launch) {
                                         repeated_sweeps({p.sweep, p.sweeps - 1}, x, launch);
                                       },
                                       iterated_work};

TEST(IterateCheck, RejectsAResultOneSweepShort) {
  for (const char* config : {"radius=1 shape=star sweeps=8", "radius=1 shape=star sweeps=64 type=double",
                             "radius=2 shape=box boundary=copy sweeps=5"}) {
    const iterated_problem p = make_iterated_problem({{{41, 37}}, config});
    const auto result = testing::check_once(make_iterated_trial(one_sweep_short, p, testing::fresh_options()));
    EXPECT_FALSE(result.passed()) << config << ": " << result.describe();
    EXPECT_GT(result.max_relative_error, result.tolerance) << config;
  }
}

// The GPU rows: 3D grids thinner than one tile and a few tiles wide, deep in z (many chunks), 2D rows
// shorter and longer than one block, pitched rows; radius 1-4, every shape, boundary and type.
class GpuIterateVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuIterateVariant, MatchesTSweepsOfTheReferenceIn3d) {
  SWATH_SKIP_WITHOUT_GPU();
  const iterated_variant& v = find_iterated_variant(GetParam());
  if (!v.supports(make_iterated_problem({{{10, 10, 10}}, "sweeps=4"})).ok()) GTEST_SKIP() << v.info.name << " is 2D only";
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;
  // Under the sanitizers (SWATH_SMALL_GPU_TESTS) one size, radius 1, T = 3: each check is T launches of
  // the step and of the reference, and memcheck slows every launch to tens of milliseconds.
  // 90 x 141 x 50: some tiles lie wholly inside the grid and some z chunks away from both faces at every
  // pass depth, step 06's 32 x 64 tiles included, so the fused steps' paths for the grid's middle run
  // too (smaller grids are all edges). 300 x 90 x 37: step 08's 128 x 32 tiles too (260 x 60 x 20 under
  // the sanitizers).
  const std::vector<bench::size_spec> sizes =
      small ? std::vector<bench::size_spec>{{{33, 31, 9}}, {{90, 141, 20}}, {{260, 60, 20}}}
            : std::vector<bench::size_spec>{{{1, 1, 1}}, {{5, 3, 2}}, {{33, 31, 9}}, {{70, 45, 131}}, {{90, 141, 50}}, {{300, 90, 37}}};
  const int checked = check_every_configuration(v, sizes, small ? std::vector<const char*>{"1"} : std::vector<const char*>{"1", "2", "3", "4"},
                                                small ? std::vector<const char*>{"3"} : std::vector<const char*>{"0", "1", "3", "7"},
                                                settings_of(v, {"fused=1", "fused=2"}));
  EXPECT_GT(checked, 0) << v.info.name << " supported none of the configurations";
}

TEST_P(GpuIterateVariant, MatchesTSweepsOfTheReferenceIn2d) {
  SWATH_SKIP_WITHOUT_GPU();
  const iterated_variant& v = find_iterated_variant(GetParam());
  if (!v.supports(make_iterated_problem({{{10, 10}}, "sweeps=4"})).ok()) GTEST_SKIP() << v.info.name << " is 3D only";
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // as in 3D
  const int checked = check_every_configuration(
      // 1100 x 67 and 517 x 300: step 07's strips inside the grid with 16-byte rows and without, several
      // segments of rows with steps away from their ends.
      v, small ? std::vector<bench::size_spec>{{{1100, 67}}} : std::vector<bench::size_spec>{{{1, 1}}, {{37, 29}}, {{1100, 67}}, {{517, 300}}},
      small ? std::vector<const char*>{"1"} : std::vector<const char*>{"1", "2", "4"},
      small ? std::vector<const char*>{"4"} : std::vector<const char*>{"0", "4", "9"}, settings_of(v, {"fused=1", "fused=3"}));
  EXPECT_GT(checked, 0) << v.info.name << " supported none of the configurations";
}

TEST_P(GpuIterateVariant, MatchesOnPitchedGridsAndAtEachPassDepth) {
  SWATH_SKIP_WITHOUT_GPU();
  const iterated_variant& v = find_iterated_variant(GetParam());
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // as in 3D: the default depth only
  for (const char* depth : {"", " fused=2", " fused=3", " fused=4", " fused=5"}) {
    if (small && *depth != '\0') break;
    for (const char* grid : {"radius=1 shape=star pitch=lines", "radius=1 shape=box type=double pitch=70",
                             "radius=2 shape=star boundary=constant pitch=lines"}) {
      const std::string config = std::string(grid) + " sweeps=11" + (v.info.settings.empty() ? "" : depth);
      const bench::size_spec size{{67, 45, 40}};
      const iterated_problem p = make_iterated_problem({size, config});
      if (!v.supports(p).ok()) continue;
      const int u = static_cast<int>(p.sweep.element_bytes());
      const int limit = v.info.name.ends_with("03_register_rows")    ? register_rows_depth_limit(p.sweep.radius, u)
                        : marches(v)                                   ? march_depth_limit(p.sweep.radius, u)
                        : v.info.name.ends_with("08_stacked_strips") || v.info.name.ends_with("09_cluster_halos") ? stack_depth_limit(p.sweep.radius, u)
                                                                       : fused_depth_limit(3, p.sweep.radius, p.sweep.form, u);
      if (!v.info.settings.empty() && *depth != '\0' && std::atoi(depth + 7) > limit) continue;
      const auto result = check_config(v, size, config);
      EXPECT_TRUE(result.passed()) << v.info.name << " " << config << ": " << result.describe();
    }
    if (v.info.settings.empty()) break;
  }
}

// Step 09 in clusters of 1-4 blocks on grids whose tiles run in clusters (rows 16-byte aligned, a
// whole number of vectors wide, at least a cluster of tiles high): 300 x 200 x 37 holds 3 clusters of
// 3 at L = 4 (the last moved up to the grid's face), 260 x 130 x 20 two clusters of 4 (the second moved
// up over most of the first) and three of 2, at every depth and boundary, float and double, radius 1
// and 2.
TEST(GpuIterateClusterHalos, MatchesTSweepsOfTheReferenceInEveryClusterSize) {
  SWATH_SKIP_WITHOUT_GPU();
  const iterated_variant& v = find_iterated_variant("iterate/cuda/09_cluster_halos");
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;
  const std::vector<bench::size_spec> sizes =
      small ? std::vector<bench::size_spec>{{{260, 130, 20}}} : std::vector<bench::size_spec>{{{300, 200, 37}}, {{260, 130, 20}}};
  std::vector<std::string> settings;
  for (const char* cluster : {"1", "2", "3", "4"}) {
    if (small && (*cluster == '1' || *cluster == '4')) continue;
    for (const char* depth : {"", " fused=2", " fused=3"}) {
      if ((small || *cluster == '1') && *depth != '\0') continue;
      settings.push_back(std::string("cluster=") + cluster + depth);
    }
  }
  const int checked = check_every_configuration(v, sizes, small ? std::vector<const char*>{"1"} : std::vector<const char*>{"1", "2"},
                                                small ? std::vector<const char*>{"3"} : std::vector<const char*>{"1", "7"}, settings);
  EXPECT_GT(checked, 0);
}

// The 2D rows on pitched grids (rows 16-byte aligned and not) at every depth step 07 compiles.
TEST_P(GpuIterateVariant, MatchesOnPitched2dGridsAtEachPassDepth) {
  SWATH_SKIP_WITHOUT_GPU();
  const iterated_variant& v = find_iterated_variant(GetParam());
  const bench::size_spec size{{300, 131}};
  if (!v.supports(make_iterated_problem({size, "sweeps=4"})).ok()) GTEST_SKIP() << v.info.name << " is 3D only";
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // as in 3D: the default depth only
  for (int depth = 0; depth <= 10; ++depth) {
    if (small && depth > 0) break;
    for (const char* grid : {"radius=1 type=float boundary=clamp pitch=lines", "radius=1 type=double boundary=periodic pitch=301",
                             "radius=2 type=float boundary=constant pitch=lines", "radius=2 type=double boundary=copy pitch=lines"}) {
      const std::string config = std::string(grid) + " shape=star sweeps=23" + (depth > 0 ? " fused=" + std::to_string(depth) : "");
      const iterated_problem p = make_iterated_problem({size, config});
      if (!v.supports(p).ok()) continue;
      const int u = static_cast<int>(p.sweep.element_bytes());
      const int limit = v.info.name.ends_with("07_warp_strips") ? strip_depth_limit(p.sweep.radius, u)
                                                                : fused_depth_limit(2, p.sweep.radius, p.sweep.form, u);
      if (depth > 0 && (v.info.settings.empty() || depth > limit)) continue;
      const auto result = check_config(v, size, config);
      EXPECT_TRUE(result.passed()) << v.info.name << " " << config << ": " << result.describe();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuIterateVariant, ::testing::ValuesIn(testing::variant_names(iterated_variants(), backend::cuda)),
                         testing::variant_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuIterateVariant);

}  // namespace
}  // namespace swath::stencil
