// Every registered stencil variant, at ragged sizes, with every shape, boundary and element type, and
// with column widths and tiles that do not divide the grid, against the float64 reference. CUDA
// variants run in the Gpu suites (skipped without a GPU), in 2D and 3D, at sizes no tile divides.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "swath/core/buffer.hpp"
#include "swath/core/error.hpp"
#include "swath/schedule/cache_model.hpp"
#include "swath/lab/stencil.hpp"
#include "../src/stencil/policies.hpp"
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
        for (const char* edge : {"clamp", "copy", "constant", "periodic"}) {
          for (const char* type : {"float", "double"}) {
            for (const char* layout : {"column_width=model tile=model", "column_width=5 tile=7x3", "column_width=1 tile=1"}) {
              const std::string config = std::string("radius=") + radius + " shape=" + form + " boundary=" + edge +
                                         " type=" + type + " " + layout;
              const problem p = make_problem(v, {size, config});
              const auto result = testing::check_once(make_trial(v, p, testing::fresh_options(v.info, config)));
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

std::vector<std::string> names_on(backend where) { return testing::variant_names(variants(), where); }

INSTANTIATE_TEST_SUITE_P(Cpu, StencilVariant, ::testing::ValuesIn(names_on(backend::cpu)), testing::variant_test_name);

// The step's settings beside its defaults: each literal value it declares, and for step 10's z-chunk
// a count of planes that divides none of the sizes below (3) as well.
std::vector<std::string> settings_to_check(const variant& v) {
  std::vector<std::string> settings{""};
  for (const std::string& value : testing::each_setting_value(v.info)) settings.push_back(value);
  for (const parameter& setting : v.info.settings) {
    if (setting.key == chunk_setting.key) settings.push_back(std::string(chunk_setting.key) + "=3");
  }
  return settings;
}

// Every variant that takes 3D grids (and the 2D ones again for the GPU), every radius, shape,
// boundary and type, at sizes that no block, tile or z-chunk divides, including one thin in x and y
// but deep in z (many z-chunks) and one point; each with the step's settings at their defaults and
// at each other value settings_to_check names.
void check_every_configuration(const variant& v, const std::vector<bench::size_spec>& sizes,
                               const std::vector<const char*>& radii) {
  int checked = 0;
  for (const auto& size : sizes) {
    for (const char* radius : radii) {
      for (const char* form : {"star", "box"}) {
        for (const char* edge : {"clamp", "copy", "constant", "periodic"}) {
          for (const char* type : {"float", "double"}) {
            for (const std::string& settings : settings_to_check(v)) {
              const std::string config = std::string("radius=") + radius + " shape=" + form + " boundary=" + edge +
                                         " type=" + type + (settings.empty() ? "" : " " + settings);
              const problem p = make_problem(v, {size, config});
              if (!v.supports(p).ok()) continue;
              const auto result = testing::check_once(make_trial(v, p, testing::fresh_options(v.info, config)));
              ASSERT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << config << ": "
                                           << result.describe();
              ASSERT_EQ(result.checked, size.count());
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << v.info.name << " supported none of the configurations";
}

// Widths by the rows' alignment (step 07 copies 16, 8 or 4 bytes at a time; step 08 takes only
// rows of whole 16 bytes): 8, 132, 260 and 1028 are multiples of 4 elements, 2, 70, 130 and 1030 of
// 2, the rest odd; 132, 260 and 1028 also have whole blocks of steps 07 and 08 (128 points wide in
// 3D, 512 in 2D) before a ragged one, and 8 × 5 × 300 is cut into many z-chunks. Rows of an odd
// number of 16 bytes (132 and 260 floats, 70 and 130 doubles) take steps 08 and 09's split rows, with
// planes of an odd number of 16 bytes (132 × 19, 70 × 45, 130 × 7) and of an even one (260 × 10).
// Steps 10 and 11's shifted rows (rows not all on 16 bytes; 2D, and 3D doubles) copy whole vectors in the
// tile columns between the first and the last: 261 (3D, tiles of 128) and 1035 (2D, tiles of 512
// floats or 256 doubles) have such columns at every radius they take, 1030 floats at radius 1 only.
const std::vector<bench::size_spec> sizes_3d = {{{1, 1, 1}},   {{2, 3, 2}},    {{33, 9, 17}},  {{70, 45, 40}},
                                                {{5, 6, 300}}, {{8, 5, 300}}, {{130, 7, 3}}, {{132, 19, 21}},
                                                {{260, 10, 6}}, {{261, 19, 7}}};
const std::vector<bench::size_spec> sizes_2d = {{{1, 1}},     {{300, 5}},   {{257, 130}}, {{3, 1000}},
                                                {{1028, 6}},  {{1030, 9}},  {{1035, 7}}};

// One test per radius (3 too: the x-face points of an interior row are compiled per radius, 1-4), and
// ctest runs tests in parallel.
class Stencil3dOpenmp : public ::testing::TestWithParam<const char*> {};

TEST_P(Stencil3dOpenmp, MatchesTheReference) {
  check_every_configuration(find_variant("stencil/cpu/09_openmp_3d"), sizes_3d, {GetParam()});
}

INSTANTIATE_TEST_SUITE_P(Radius, Stencil3dOpenmp, ::testing::Values("1", "2", "3", "4"),
                         [](const ::testing::TestParamInfo<const char*>& radius) { return std::string("r") + radius.param; });

class GpuStencilVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuStencilVariant, MatchesTheReferenceIn3d) {
  SWATH_SKIP_WITHOUT_GPU();
  check_every_configuration(find_variant(GetParam()), sizes_3d, {"1", "2", "3", "4"});
}

TEST_P(GpuStencilVariant, MatchesTheReferenceIn2d) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant(GetParam());
  if (!v.supports(make_problem(v, {{{10, 10}}, ""})).ok() && !v.supports(make_problem(v, {{{10, 10}}, "shape=box"})).ok()) {
    GTEST_SKIP() << v.info.name << " is 3D only";
  }
  check_every_configuration(v, sizes_2d, {"1", "2", "3", "4"});
}

// The user's weights, not only the defaults: all seven coefficients of the 7-point stencil set,
// one of them negative, and a non-cubic grid. A step that does not take radius 1 gets all 19 weights
// of the radius-3 star instead, set the same way, and a step for boxes the 27 of the radius-1 box.
TEST_P(GpuStencilVariant, TakesTheUsersWeights) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant(GetParam());
  std::string stencil = "radius=1 shape=star weights=0.1:0.2:0.3:-0.4:0.5:0.6:0.7";
  std::size_t negative = 3;
  if (!v.supports(make_problem(v, {{{100, 70, 30}}, stencil})).ok()) {
    stencil = "radius=3 shape=star weights=";
    for (int k = 0; k < 19; ++k) stencil += (k ? ":" : "") + std::to_string(k == 9 ? -0.4 : 0.05 * (k + 1));
    negative = 9;
  }
  if (!v.supports(make_problem(v, {{{100, 70, 30}}, stencil})).ok()) {  // a step for boxes: all 27 of radius 1
    stencil = "radius=1 shape=box weights=";
    for (int k = 0; k < 27; ++k) stencil += (k ? ":" : "") + std::to_string(k == 11 ? -0.4 : 0.02 * (k + 1));
    negative = 11;
  }
  for (const char* edge : {"copy", "clamp"}) {
    const problem p = make_problem(v, {{{100, 70, 30}}, stencil + " boundary=" + edge});
    ASSERT_TRUE(v.supports(p).ok()) << v.info.name << " " << stencil << ": " << v.supports(p).why;
    ASSERT_DOUBLE_EQ(p.taps[negative].weight, -0.4);
    const auto result = check_once(v, p);
    EXPECT_TRUE(result.passed()) << v.info.name << " " << edge << ": " << result.describe();
  }
}

// Steps 08 and 09 split rows by parity where their pitch is an odd number of 16 bytes, and tell the
// rows that start mid-sector from the grid's address as well as the pitch: the same grids read from
// where they lie and from 16 bytes past a sector, so that every row changes sides. Planes of an odd
// number of 16 bytes (132 x 19 floats, 70 x 45 doubles) and of an even one (260 x 10 floats, 70 x 10
// doubles) turn the parity from plane to plane or not: with both addresses, each of the four layouts
// 09 compiles a float kernel for (tma_ring/, Parity) runs, and double's layout read at run time
// meets all four. 08 stores the rows that start mid-sector a vector to the left (AlignedStores) where
// the last tile column has a vector to spare: 252 floats and 126 doubles leave it exactly one vector
// past the last tile's end, and rows whole tiles wide pitched to an odd number of 16 bytes (128 floats
// pitched to 132, 64 doubles to 66) leave none, so 08 splits them without shifting.
// The registered row of step 08 or 09, the two copy-engine steps the tests below run.
const variant& copy_engine_step(int step) {
  return find_variant(step == 8 ? "stencil/cuda/08_tma_planes" : "stencil/cuda/09_plane_pairs");
}

template <int Step>
void from_16_bytes_past_a_sector(const problem& p, const operands& x, const launch_context& launch) {
  const auto bytes = static_cast<std::size_t>(p.stored_elements() * p.element_bytes());
  buffer<unsigned char> moved(memory_kind::device, bytes + 32);
  copy_bytes(moved.data() + 16, memory_kind::device, x.in, memory_kind::device, bytes);
  copy_engine_step(Step).run(p, {moved.data() + 16, x.out}, launch);
}

// A grid for the two tests below, dense or pitched (elements from a row to the next).
struct copy_engine_grid {
  bench::size_spec size;
  const char* type;
  const char* pitch = "dense";
};

// Step 08 (radius 1-2) or 09 (radius 3-4) through `run` on each grid, every boundary they take, every
// point checked; `how` names the way `run` calls the step in a failure's message.
void check_copy_engine_step(int step, decltype(variant::run) run, const char* how,
                            const std::vector<copy_engine_grid>& grids, int& checked) {
  variant v = copy_engine_step(step);
  v.run = run;
  const std::vector<const char*> radii = step == 8 ? std::vector<const char*>{"1", "2"} : std::vector<const char*>{"3", "4"};
  for (const auto& grid : grids) {
    for (const char* radius : radii) {
      for (const char* edge : {"clamp", "constant", "copy"}) {
        const problem p = make_problem(v, {grid.size, std::string("radius=") + radius + " boundary=" + edge +
                                                          " type=" + grid.type + " pitch=" + grid.pitch});
        ASSERT_TRUE(v.supports(p).ok()) << v.info.name << " " << grid.size.text() << ": " << v.supports(p).why;
        const auto result = check_once(v, p);
        ASSERT_TRUE(result.passed()) << v.info.name << " " << how << ", " << grid.size.text() << " pitch=" << grid.pitch
                                     << " radius " << radius << " " << edge << " " << grid.type << ": " << result.describe();
        ASSERT_EQ(result.checked, grid.size.count());
        ++checked;
      }
    }
  }
}

TEST(GpuStencilSplitRows, ReadGridsThatStartOnASectorOr16BytesPastOne) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::vector<copy_engine_grid> grids = {{{{132, 19, 21}}, "float"},  {{{260, 10, 6}}, "float"},
                                               {{{70, 45, 40}}, "double"},  {{{70, 10, 9}}, "double"},
                                               {{{252, 9, 7}}, "float"},    {{{126, 9, 7}}, "double"},
                                               {{{128, 9, 7}}, "float", "132"}, {{{64, 9, 7}}, "double", "66"}};
  int checked = 0;
  for (const int step : {8, 9}) {
    const auto where_it_lies = copy_engine_step(step).run;
    const auto moved = step == 8 ? from_16_bytes_past_a_sector<8> : from_16_bytes_past_a_sector<9>;
    ASSERT_NO_FATAL_FAILURE(check_copy_engine_step(step, where_it_lies, "read where it lies", grids, checked));
    ASSERT_NO_FATAL_FAILURE(check_copy_engine_step(step, moved, "read 16 bytes past a sector", grids, checked));
  }
  EXPECT_EQ(checked, 192);  // 2 steps × 2 addresses × 8 grids × 2 radii × 3 boundaries
}

// Steps 08 and 09 launch a plane wider than one wave of blocks as groups of tile rows, each group's
// z-chunks in turn (tma_ring/). Told the device has 1 or 2 SMs, they group even small grids:
// one tile row a group, or two with a last group half past the grid (60 doubles and 100 floats wide are
// one tile column, 45 rows three tile rows of 16), whose blocks must write nothing.
template <int Step, int Sms>
void on_few_sms(const problem& p, const operands& x, const launch_context& launch) {
  launch_context few = launch;
  few.sm_count = Sms;
  copy_engine_step(Step).run(p, x, few);
}

TEST(GpuStencilTileRowGroups, MatchTheReferenceOnOneAndTwoSms) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::vector<copy_engine_grid> grids = {{{{100, 45, 40}}, "float"},
                                               {{{60, 45, 40}}, "double"},
                                               {{{132, 19, 21}}, "float"},
                                               {{{70, 45, 40}}, "double"}};
  int checked = 0;
  ASSERT_NO_FATAL_FAILURE(check_copy_engine_step(8, on_few_sms<8, 1>, "on 1 SM", grids, checked));
  ASSERT_NO_FATAL_FAILURE(check_copy_engine_step(8, on_few_sms<8, 2>, "on 2 SMs", grids, checked));
  ASSERT_NO_FATAL_FAILURE(check_copy_engine_step(9, on_few_sms<9, 1>, "on 1 SM", grids, checked));
  ASSERT_NO_FATAL_FAILURE(check_copy_engine_step(9, on_few_sms<9, 2>, "on 2 SMs", grids, checked));
  EXPECT_EQ(checked, 96);  // 2 steps × 2 SM counts × 4 grids × 2 radii × 3 boundaries
}

// Pitched grids (rows padded as cudaMalloc3D pads them): every step that takes one, with rows padded
// to whole 128-byte lines, to an odd number of 16 bytes (steps 08 and 09 split those rows by parity)
// and by one element (16-byte copies impossible). The input's pads hold NaN and the output's poison:
// a step that reads a pad or writes one fails the check.
std::int64_t odd_sixteens_pitch(std::int64_t width, std::int64_t element_bytes) {
  const std::int64_t per_vector = 16 / element_bytes;
  std::int64_t vectors = (width + per_vector - 1) / per_vector + 1;
  vectors += vectors % 2 == 0 ? 1 : 0;
  return vectors * per_vector;
}

TEST_P(GpuStencilVariant, MatchesTheReferenceOnPitchedGrids) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant(GetParam());
  const std::vector<bench::size_spec> sizes = {{{33, 9, 17}}, {{132, 19, 21}}, {{70, 45, 40}}, {{300, 5}}};
  int checked = 0;
  for (const auto& size : sizes) {
    for (const char* radius : {"1", "2", "3", "4"}) {
      for (const char* form : {"star", "box"}) {
        // Boxes at radius 2 only: the pitch is in the indexing, not the taps, and the 3D boxes' 343 and
        // 729 taps make the reference slow.
        if (std::string_view(form) == "box" && std::string_view(radius) != "2") continue;
        for (const char* edge : {"clamp", "copy", "constant", "periodic"}) {
          for (const char* type : {"float", "double"}) {
            const std::string config =
                std::string("radius=") + radius + " shape=" + form + " boundary=" + edge + " type=" + type;
            problem p = make_problem(v, {size, config + " pitch=lines"});
            const std::int64_t width = p.grid.width, bytes = p.element_bytes();
            for (const std::int64_t pitch : {p.pitch(), odd_sixteens_pitch(width, bytes), width + 1}) {
              p.row_pitch = pitch;
              if (!v.supports(p).ok()) continue;
              const auto result = check_once(v, p);
              ASSERT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << config << " pitch " << pitch
                                           << ": " << result.describe();
              ASSERT_EQ(result.checked, size.count());
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << v.info.name << " took no pitched grid";
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuStencilVariant, ::testing::ValuesIn(names_on(backend::cuda)),
                         testing::variant_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuStencilVariant);

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
  EXPECT_EQ(default_taps(shape::star, 1, 3).size(), 7u);
  EXPECT_EQ(default_taps(shape::star, 4, 3).size(), 25u);
  EXPECT_EQ(default_taps(shape::box, 4, 3).size(), 729u);
  // The documented order: z-major, then y, then x; the 7-point stencil's centre is its fourth tap.
  const auto seven = default_taps(shape::star, 1, 3);
  EXPECT_EQ(seven.front().dz, -1);
  EXPECT_EQ(seven[2].dx, -1);
  EXPECT_EQ(seven[3].dx, 0);
  EXPECT_EQ(seven[3].dy, 0);
  EXPECT_EQ(seven[3].dz, 0);
  EXPECT_EQ(seven.back().dz, 1);
  const problem cube = make_problem(find_variant("stencil/cpu/09_openmp_3d"), {{{10, 20, 30}}, "radius=1"});
  EXPECT_EQ(cube.dims, 3);
  EXPECT_EQ(cube.depth, 30);
  EXPECT_EQ(stencil_work(cube).items, 6000.0);
  EXPECT_EQ(stencil_work(cube).flops, 2.0 * 7 * 6000);
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

// The band (or tile) a traversal step walks for a configuration, as its row's launch would carry it.
std::int64_t band_of(const char* step, const bench::size_spec& size, const std::string& config) {
  const variant& v = find_variant(step);
  const launch_context launch =
      bench::prepare_launch(v.info, support::yes(), testing::fresh_options(v.info, config).settings);
  return column_width_of(make_problem(v, {size, config}), launch, false);
}

TEST(StencilPolicies, ColumnWidthComesFromTheModelUnlessGiven) {
  const char* column = "stencil/cpu/03_column";
  EXPECT_EQ(band_of(column, {{1000000, 4}}, "radius=4 cache=1MiB ways=0"),
            schedule::stencil_column_width({1024.0 * 1024, 4, 9, 9, 1, 1, 0}));
  // 256 KiB, 8 ways: one way holds 8192 floats, narrower than the 9358 the rows alone would allow.
  EXPECT_EQ(band_of(column, {{100000, 4}}, "radius=2 cache=256K ways=8"), 8192);
  EXPECT_EQ(band_of(column, {{100000, 4}}, "radius=2 cache=256K ways=0"), 9358);
  EXPECT_EQ(band_of(column, {{1000, 4}}, "column_width=77"), 77);
  EXPECT_EQ(band_of(column, {{50, 4}}, "column_width=77"), 50);  // clamped to the grid
  const variant& tiled = find_variant("stencil/cpu/02_tiled");
  const problem p = make_problem(tiled, {{{5000, 5000}}, "radius=1"});
  const auto tile_for = [&](const std::string& config) {
    return tile_of(p, bench::prepare_launch(tiled.info, support::yes(), testing::fresh_options(tiled.info, config).settings));
  };
  EXPECT_EQ(tile_for("cache=64K").tile_width, 128 - 2);  // (t + 2)^2 · 4 B ≤ 64 KiB
  EXPECT_EQ(tile_for("tile=7x3").tile_height, 3);
  EXPECT_THROW(tile_for("tile=0"), usage_error);
  EXPECT_THROW(tile_for("cache=lots"), usage_error);
  EXPECT_THROW(band_of(column, {{10, 10}}, "column_width=0"), usage_error);
}

TEST(StencilProblem, BadParametersAreUsageErrors) {
  const auto& f = family();
  const variant_info info = find_variant("stencil/cpu/01_naive").info;
  EXPECT_THROW(f.configurations(info, {{"radius", {"5"}}}), usage_error);
  EXPECT_THROW(f.configurations(info, {{"shape", {"circle"}}}), usage_error);
  EXPECT_THROW(f.configurations(info, {{"colour", {"red"}}}), usage_error);
  EXPECT_EQ(f.configurations(info, {{"radius", {"1", "2"}}, {"type", {"float", "double"}}}).size(), 4u);
  EXPECT_THROW(f.configurations(info, {{"column_width", {"0"}}}), usage_error);
  EXPECT_NE(f.unsupported(info, {{{100}}, ""}), "");
  EXPECT_NE(f.unsupported(info, {{{10, 10, 10}}, ""}), "");  // the schedule steps are 2D
  EXPECT_EQ(f.unsupported(find_variant("stencil/cpu/09_openmp_3d").info, {{{10, 10, 10}}, ""}), "");
  EXPECT_THROW(f.configurations(info, {{"boundary", {"mirror"}}}), usage_error);
  const variant& three_d = find_variant("stencil/cpu/09_openmp_3d");
  EXPECT_THROW(make_problem(three_d, {{{10, 10, 10}}, "weights=1:2:3"}), usage_error);     // 7 taps
  EXPECT_THROW(make_problem(three_d, {{{10, 10, 10}}, "weights=1:2:3:x:5:6:7"}), usage_error);
  EXPECT_THROW(make_problem(three_d, {{{10, 10, 10}}, "weights=1:2:3::5:6:7"}), usage_error);
  EXPECT_THROW(make_problem(three_d, {{{10, 10, 10, 10}}, ""}), usage_error);
  EXPECT_NO_THROW(make_problem(three_d, {{{10, 10, 10}}, "weights=1:2:3:4:5:6:7e-1"}));
}

TEST(StencilProblem, PitchParameter) {
  const variant& three_d = find_variant("stencil/cpu/09_openmp_3d");
  EXPECT_EQ(make_problem(three_d, {{{33, 4, 3}}, ""}).pitch(), 33);
  EXPECT_EQ(make_problem(three_d, {{{33, 4, 3}}, "pitch=dense"}).pitch(), 33);
  EXPECT_EQ(make_problem(three_d, {{{33, 4, 3}}, "pitch=lines"}).pitch(), 64);                // 32 floats a line
  EXPECT_EQ(make_problem(three_d, {{{510, 4, 3}}, "pitch=lines type=double"}).pitch(), 512);  // 16 doubles a line
  EXPECT_EQ(make_problem(three_d, {{{512, 4, 3}}, "pitch=lines"}).pitch(), 512);
  const problem given = make_problem(three_d, {{{33, 4, 3}}, "pitch=40"});
  EXPECT_EQ(given.pitch(), 40);
  EXPECT_EQ(given.stored_elements(), 40 * 4 * 3);
  EXPECT_EQ(given.points(), 33 * 4 * 3);
  EXPECT_EQ(stencil_work(given).bytes, 2.0 * 4 * 33 * 4 * 3);  // the pads are not traffic
  EXPECT_THROW(make_problem(three_d, {{{33, 4, 3}}, "pitch=32"}), usage_error);
  EXPECT_THROW(make_problem(three_d, {{{33, 4, 3}}, "pitch=wide"}), usage_error);
  EXPECT_THROW(make_problem(three_d, {{{33, 4, 3}}, "pitch=0"}), usage_error);
  // The CPU steps take rows back to back and say so.
  for (const char* name : {"stencil/cpu/01_naive", "stencil/cpu/09_openmp_3d"}) {
    const variant& v = find_variant(name);
    const support s = v.supports(make_problem(v, {{{33, 4}}, "pitch=lines"}));
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_NE(std::string(s.why).find("pitch"), std::string::npos) << s.why;
  }
  // The copy engine's rule is on the pitch, not the width: 510 floats a row only when pitched.
  const problem ragged = make_problem(three_d, {{{510, 9, 5}}, ""});
  EXPECT_FALSE(aligned_star_3d(ragged).ok());
  problem pitched = ragged;
  pitched.row_pitch = 512;
  EXPECT_TRUE(aligned_star_3d(pitched).ok());
  pitched.row_pitch = 511;
  EXPECT_FALSE(aligned_star_3d(pitched).ok());
}

// Steps 08 and 09's suite runs the ragged grids pitched to lines as well; where lines are the dense
// layout (512 floats) the pitched row is skipped, not run twice.
TEST(StencilProblem, TheCopyEngineStepsSuiteRunsLinePitches) {
  const auto& f = family();
  int steps = 0;
  for (const variant& v : variants()) {
    if (v.supports != aligned_star_3d && v.supports != aligned_wide_star_3d) continue;
    ++steps;
    const auto configs = f.configurations(v.info, {{"radius", {"4"}}});
    ASSERT_EQ(configs.size(), 4u) << v.info.name;  // float and double, dense and lines
    EXPECT_EQ(configs[0], "radius=4 shape=star boundary=clamp type=float");
    EXPECT_EQ(configs[1], "radius=4 shape=star boundary=clamp type=float pitch=lines");
    EXPECT_NE(f.unsupported(v.info, {{{512, 512, 512}}, configs[1]}).find("dense layout"), std::string::npos);
    EXPECT_EQ(f.unsupported(v.info, {{{510, 509, 511}}, configs[1]}), "");
    EXPECT_NE(f.unsupported(v.info, {{{510, 509, 511}}, configs[0]}), "");
    const auto sizes = f.default_sizes(v.info);
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), bench::size_spec{{510, 509, 511}}), sizes.end());
  }
  if (steps == 0) GTEST_SKIP() << "built without CUDA";
  // Elsewhere the pitch goes unnamed unless asked for.
  for (const auto& config : f.configurations(find_variant("stencil/cpu/09_openmp_3d").info, {})) {
    EXPECT_EQ(config.find("pitch"), std::string::npos) << config;
  }
}

// The trial's side of a pitched grid, on the CPU: a step run through a dense copy passes, and one
// that writes a pad or reads one fails.
enum class pad_fault { none, writes_a_pad, reads_a_pad };
template <pad_fault Fault>
void through_a_dense_copy(const problem& p, const operands& x, const launch_context& launch) {
  problem dense = p;
  dense.row_pitch = 0;
  const std::int64_t rows = p.grid.height * p.depth, width = p.grid.width, pitch = p.pitch();
  buffer<double> in(memory_kind::host, static_cast<std::size_t>(dense.points()));
  buffer<double> out(memory_kind::host, static_cast<std::size_t>(dense.points()));
  const auto* source = static_cast<const double*>(x.in);
  auto* target = static_cast<double*>(x.out);
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t i = 0; i < width; ++i) in.data()[row * width + i] = source[row * pitch + i];
  }
  find_variant("stencil/cpu/09_openmp_3d").run(dense, {in.data(), out.data()}, launch);
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t i = 0; i < width; ++i) target[row * pitch + i] = out.data()[row * width + i];
  }
  if constexpr (Fault == pad_fault::writes_a_pad) target[pitch - 1] = 1.0;
  if constexpr (Fault == pad_fault::reads_a_pad) target[3 * pitch + 1] += source[pitch - 1];
}

TEST(StencilPitchedTrial, ChecksTheRowsAndThePads) {
  variant v = find_variant("stencil/cpu/09_openmp_3d");
  v.supports = any_stencil;
  const problem p = make_problem(v, {{{37, 11, 6}}, "radius=2 type=double boundary=periodic pitch=45"});
  v.run = through_a_dense_copy<pad_fault::none>;
  const auto good = check_once(v, p);
  EXPECT_TRUE(good.passed()) << good.describe();
  EXPECT_EQ(good.checked, 37 * 11 * 6);
  v.run = through_a_dense_copy<pad_fault::writes_a_pad>;
  const auto writes = check_once(v, p);
  EXPECT_FALSE(writes.passed());
  EXPECT_EQ(writes.outside_writes, 1);
  v.run = through_a_dense_copy<pad_fault::reads_a_pad>;
  const auto reads = check_once(v, p);
  EXPECT_FALSE(reads.passed());
  EXPECT_EQ(reads.not_finite, 1);
}

// The 3D boundary rules, one point at a time.
TEST(StencilProblem, ThreeDimensionalSourceIndex) {
  const schedule::extent2d g{4, 3};
  EXPECT_EQ(source_index(1, 2, 1, g, 5, boundary::clamp), 12 + 8 + 1);
  EXPECT_EQ(source_index(-1, 0, -2, g, 5, boundary::clamp), 0);
  EXPECT_EQ(source_index(4, 3, 5, g, 5, boundary::clamp), 4 * 12 + 11);
  EXPECT_EQ(source_index(0, 0, -1, g, 5, boundary::periodic), 4 * 12);
  EXPECT_EQ(source_index(5, 0, 6, g, 5, boundary::periodic), 12 + 1);
  EXPECT_EQ(source_index(0, 0, 5, g, 5, boundary::constant), -1);
  EXPECT_TRUE(near_face(0, 1, 1, 4, 3, 5, 1, 3));
  EXPECT_TRUE(near_face(1, 1, 4, 4, 3, 5, 1, 3));
  EXPECT_FALSE(near_face(1, 1, 2, 4, 3, 5, 1, 3));
  EXPECT_FALSE(near_face(1, 1, 0, 4, 3, 1, 1, 2));  // 2D: z does not count
}

}  // namespace
}  // namespace swath::stencil
