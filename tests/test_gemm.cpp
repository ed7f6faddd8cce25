// Every registered gemm variant (CUDA ones in the Gpu suite) at sizes that divide nothing, every op,
// alpha and beta, padded leading dimensions, band widths and tiles that do not divide the matrices,
// against the float64 reference; a step that skips a column is caught; past 2^31
// multiply-adds the check samples rows but still finds unwritten elements anywhere.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/random.hpp"
#include "swath/lab/gemm.hpp"
#include "../src/gemm/policies.hpp"
#include "swath/schedule/cache_model.hpp"
#include "test_support.hpp"

namespace swath::gemm {
namespace {

bench::check_result check_once(const variant& v, const problem& p) {
  return testing::check_once(make_trial(v, p, testing::fresh_options()));
}
// A problem and the settings its configuration chose for the step, as the runner makes them.
bench::check_result check_once(const variant& v, const bench::problem_spec& spec) {
  return testing::check_once(make_trial(v, make_problem(v, spec), testing::fresh_options(v.info, spec.config)));
}

std::vector<std::string> names_on(backend where) { return testing::variant_names(variants(), where); }

void check_ragged_sizes(const variant& v) {
  for (const auto& size : {bench::size_spec{{1}}, bench::size_spec{{1, 7, 3}}, bench::size_spec{{7, 1, 5}},
                           bench::size_spec{{33, 17, 65}}, bench::size_spec{{257, 129, 131}}, bench::size_spec{{61, 3, 1000}},
                           bench::size_spec{{300, 700, 40}}}) {
    // The block orders: bands of 2 tiles of 128 over 6 tile columns, and of 4 (the last band 2 wide,
    // walked bottom-up) for Zigzag.
    for (const char* layout : {"", "column_width=5 tile=7", "column_width=1 tile=1", "op=nt ld=padded",
                               "op=tn alpha=0.5 beta=1.5", "op=tt alpha=2 beta=0.25 ld=padded", "beta=1 ld=padded",
                               "order=column column_width=256", "order=zigzag column_width=512 op=tn beta=1"}) {
      const problem p = make_problem(v, {size, layout});
      if (!v.supports(p).ok()) continue;
      const auto result = check_once(v, {size, layout});
      ASSERT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << layout << ": " << result.describe();
      ASSERT_EQ(result.checked, p.m * p.n);
    }
  }
  // Every value of every setting the step declares, at a size no tile divides and at one under a tile.
  for (const auto& size : {bench::size_spec{{1, 7, 3}}, bench::size_spec{{257, 129, 131}}}) {
    for (const std::string& setting : testing::each_setting_value(v.info)) {
      const problem p = make_problem(v, {size, setting});
      if (!v.supports(p).ok()) continue;
      const auto result = check_once(v, {size, setting});
      ASSERT_TRUE(result.passed()) << v.info.name << " " << size.text() << " " << setting << ": " << result.describe();
      ASSERT_EQ(result.checked, p.m * p.n);
    }
  }
}

// One size with its parameters, for the tests that list their cases.
struct gemm_case {
  bench::size_spec size;
  const char* layout;
};

// Every case matches the reference, every element of C checked.
void check_cases(const variant& v, std::initializer_list<gemm_case> cases) {
  for (const gemm_case& c : cases) {
    const problem p = make_problem(v, {c.size, c.layout});
    const auto result = check_once(v, {c.size, c.layout});
    ASSERT_TRUE(result.passed()) << c.size.text() << " " << c.layout << ": " << result.describe();
    ASSERT_EQ(result.checked, p.m * p.n);
  }
}

class GemmVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmVariant, MatchesTheReferenceAtRaggedSizes) { check_ragged_sizes(find_variant(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cpu, GemmVariant, ::testing::ValuesIn(names_on(backend::cpu)), testing::variant_test_name);

class GpuGemmVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuGemmVariant, MatchesTheReferenceAtRaggedSizes) {
  SWATH_SKIP_WITHOUT_GPU();
  check_ragged_sizes(find_variant(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuGemmVariant, ::testing::ValuesIn(names_on(backend::cuda)), testing::variant_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuGemmVariant);

// Step 08 is compiled once per tile policy: every one at ragged sizes, in every op, and in a Zigzag
// block order whose bands do not divide the tile grid.
TEST(GpuGemmPolicies, EveryCompiledTileShapeMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/08_double_buffered");
  for (const tile_policy& policy : tile_policies) {
    const std::string name = policy_name(policy);
    for (const auto& size : {bench::size_spec{{257, 129, 131}}, bench::size_spec{{300, 700, 37}}}) {
      for (const std::string layout : {"", "op=tt ld=padded beta=1", "op=nt alpha=0.5", "order=zigzag column_width=300 op=tn"}) {
        const auto result = check_once(v, {size, "policy=" + name + " " + layout});
        ASSERT_TRUE(result.passed()) << name << " " << size.text() << " " << layout << ": " << result.describe();
      }
    }
  }
}

// Step 09's fast path takes interior blocks of 16-byte-aligned operands with K a multiple of 4: every op
// (so both operands in both storage orders), K a multiple of 16, with a partial first slice (40 = 8 +
// 2·16, 36 = 4 + 2·16), and one partial slice only (K = 4), next to ragged edge blocks.
TEST(GpuGemmInteriorPath, EveryOpAndPartialSliceMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/09_interior_fast_path");
  for (const auto& size : {bench::size_spec{{256, 384, 64}}, bench::size_spec{{300, 700, 40}},
                           bench::size_spec{{384, 256, 36}}, bench::size_spec{{260, 130, 4}}}) {
    for (const char* layout : {"", "op=nt", "op=tn alpha=0.5", "op=tt beta=1", "order=column column_width=128 op=nt beta=0.5"}) {
      const auto result = check_once(v, {size, layout});
      ASSERT_TRUE(result.passed()) << size.text() << " " << layout << ": " << result.describe();
    }
  }
}

// Step 10 copies each operand in one of three modes: transposing, float by float (stored wide-major:
// A as stored, B transposed); 16-byte pieces (deep-major, 16-byte aligned rows); float by float
// (deep-major, unaligned rows). All nine pairs of modes, with interior 256 x 128 blocks next to edge
// blocks: K a multiple of the slice depth 8, a partial first slice (45 = 5 + 5·8), and K = 3 (one
// partial slice only).
TEST(GpuGemmAsyncPipeline, EveryPairOfCopyModesAndPartialSlicesMatchTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  // The comments name (A's mode, B's mode). ld=padded adds 7 to every leading dimension.
  check_cases(find_variant("gemm/cuda/10_async_pipeline"),
              {{{{512, 384, 64}}, ""},                        // transposing, 16-byte
               {{{600, 300, 45}}, "ld=padded"},               // transposing, float
               {{{520, 260, 3}}, "op=nt beta=1"},             // transposing, transposing
               {{{512, 256, 45}}, "op=tn alpha=0.5"},         // 16-byte, 16-byte
               {{{600, 301, 45}}, "op=tn"},                   // 16-byte, float (ldb 301)
               {{{301, 600, 64}}, "op=tn beta=0.5"},          // float (lda 301), 16-byte
               {{{600, 300, 45}}, "op=tn ld=padded beta=1"},  // float, float
               {{{512, 256, 40}}, "op=tt"},                   // 16-byte, transposing
               {{{520, 260, 45}}, "op=tt ld=padded"},         // float, transposing
               {{{600, 300, 45}}, "order=zigzag column_width=256 op=nt"}});
}

// Step 11 cuts the last tiles along K: each block takes an even run of slices, the parts of a tile are
// stored in the blocks' slots and added by whichever block arrives last. blocks=N fixes the grid, so
// the cases do not depend on the GPU's SM count. Comments give tiles, slices a tile (8 deep, the first
// one partial when 8 does not divide K) and the split.
TEST(GpuGemmStreamK, EverySplitOfKMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  check_cases(find_variant("gemm/cuda/11_stream_k"),
              {// 12 tiles of 250 slices on 40 blocks: runs of 75, 4-5 blocks a tile, every adder position
               {{{300, 700, 2000}}, "blocks=40"},
               {{{300, 700, 2000}}, "blocks=40 op=tt ld=padded beta=1"},
               // 30 tiles of 17 (the first slice 3 deep) on 7 blocks: 21 whole tiles, 9 cut into runs of 21
               {{{1100, 700, 131}}, "blocks=7"},
               {{{1100, 700, 131}}, "blocks=7 op=nt alpha=0.5 order=zigzag column_width=300"},
               // 9 tiles of 125 on 4 blocks: 4 whole, 5 cut into runs of 156 (tiles over the edge, op=tn)
               {{{520, 260, 1000}}, "blocks=4 op=tn beta=0.5"},
               {{{520, 261, 1000}}, "blocks=4 op=tn ld=padded"},
               // 1 tile of 625 (one element) on 13 blocks: 13 parts
               {{{1, 1, 5000}}, "blocks=13"},
               // runs of 8 slices would be shorter than 16: whole tiles only, in 2 rounds
               {{{300, 700, 40}}, "blocks=7"},
               // more blocks than tiles and too little K to cut: one block a tile
               {{{33, 17, 65}}, "blocks=1000"}});
}

// Runs the problem six times on the same random inputs and asserts every run's C equals the first, bit
// for bit.
void check_same_bits_every_run(const variant& v, const bench::problem_spec& spec) {
  const problem p = make_problem(v, spec);
  buffer<float> a(memory_kind::device, static_cast<std::size_t>(rows_of_a(p) * p.lda));
  buffer<float> b(memory_kind::device, static_cast<std::size_t>(rows_of_b(p) * p.ldb));
  buffer<float> c(memory_kind::device, static_cast<std::size_t>(p.m * p.ldc));
  const std::uint64_t seed = testing::fresh_seed();
  fill_random_device(a.data(), static_cast<std::int64_t>(a.size()), seed);
  fill_random_device(b.data(), static_cast<std::int64_t>(b.size()), seed + 1);
  const launch_context launch = bench::prepare_launch(
      v.info, v.supports(p), std::make_shared<const chosen_settings>(bench::settings_chosen_in(v.info, spec.config)));
  buffer<float> first(memory_kind::host, c.size()), again(memory_kind::host, c.size());
  for (int run = 0; run < 6; ++run) {
    v.run(p, {a.data(), b.data(), c.data()}, launch);
    device_synchronize();
    copy(run == 0 ? first : again, c);
    if (run == 0) continue;
    std::int64_t differing = 0;
    for (std::size_t i = 0; i < c.size(); ++i) differing += first.data()[i] != again.data()[i] ? 1 : 0;
    ASSERT_EQ(differing, 0) << "run " << run << " (seed " << seed << ")";
  }
}

// The parts of a tile are added in block order whichever block adds them: the same inputs give the same
// bits on every run, though which block arrives last changes.
TEST(GpuGemmStreamK, TheSameInputsGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/11_stream_k");
  check_same_bits_every_run(v, {{{300, 700, 2000}}, "blocks=40"});
  // A target shape on the GPU's own grid: 96 tiles of 88 slices (2-3 parts a tile on 132 SMs).
  check_same_bits_every_run(v, {{{1000, 3000, 700}}, ""});
}

// Steps 17 and 19 at one tile setting (`tiled`: fit=, splits=, groups=): every op, padded rows (every
// copy float by float), alpha and beta at each size; then strided batches, 5 products of 33 x 17 x 65
// (strides of 561, 1105 and 561 floats: not 16-byte steps) and 3 of 64 x 64 x 40 (strides of whole
// 16-byte steps: the vector copies stay). Every element of every product is checked.
void check_every_layout_and_batch(const variant& v, const std::string& tiled,
                                  std::initializer_list<bench::size_spec> sizes) {
  for (const char* layout : {"", "op=tn ld=padded beta=1", "op=nt alpha=0.5", "op=tt ld=padded beta=0.25"}) {
    for (const bench::size_spec& size : sizes) {
      const std::string config = tiled + " " + layout;
      const problem p = make_problem(v, {size, config});
      const auto result = check_once(v, {size, config});
      ASSERT_TRUE(result.passed()) << size.text() << " " << config << ": " << result.describe();
      ASSERT_EQ(result.checked, p.m * p.n);
    }
  }
  for (const char* batched : {"batch=5", "batch=5 op=tt beta=1 ld=padded", "batch=3"}) {
    const bench::size_spec size =
        std::string_view(batched) == "batch=3" ? bench::size_spec{{64, 64, 40}} : bench::size_spec{{33, 17, 65}};
    const std::string config = tiled + " " + batched;
    const problem p = make_problem(v, {size, config});
    const auto result = check_once(v, {size, config});
    ASSERT_TRUE(result.passed()) << size.text() << " " << config << ": " << result.describe();
    ASSERT_EQ(result.checked, p.batch * p.m * p.n);
  }
}

// The block tiles steps 17 and 22 compile (fitted_tiles in split_k.cuh), as fit= names them.
constexpr const char* split_k_tiles[] = {"256x128", "128x128", "64x256", "128x64", "64x128", "64x64", "64x32"};

// Step 17 at every block tile and several splits of K (one split: C written directly; more: the parts
// added in order), ragged sizes, every op, padded rows (every copy float by float), beta, and strided
// batches whose strides keep or break 16-byte alignment. Every element of every product is checked.
TEST(GpuGemmSplitK, EveryTileSplitAndBatchMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/17_split_k");
  // Under the sanitizers (SWATH_SMALL_GPU_TESTS) one split and seven: each tile's two store paths.
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;
  for (const char* fit : split_k_tiles) {
    for (const char* splits : {"1", "2", "7"}) {
      if (small && std::string_view(splits) == "2") continue;
      ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(
          v, std::string("fit=") + fit + " splits=" + splits,
          {bench::size_spec{{1, 1, 1}}, bench::size_spec{{70, 33, 300}}, bench::size_spec{{257, 129, 131}}}));
    }
  }
  // The model's own choice at shapes that pick small tiles and many splits, and K = 0 (C = beta C).
  check_cases(v, {{{{256, 256, 20000}}, ""}, {{{64, 3000, 2000}}, "op=tn"}, {{{3000, 64, 1000}}, "ld=padded"},
                  {{{5, 7, 0}}, "beta=0.5"}});
}

// The parts' pass as the tiles' programmatic dependent (pass=dependent): steps 17 and 19 at a tile of
// each width class (256 × 128, 128 × 64, 64 × 32; 64 × 64 in 2 groups), 3 and 7 splits, the layouts and
// batches above. Every element of every product is checked: a pass that read a part before the tiles
// stored it would leave C's tiles short of splits.
TEST(GpuGemmSplitK, TheDependentPassMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // the sanitizers: 7 splits only
  for (const char* tiled : {"fit=256x128", "fit=128x64", "fit=64x32"}) {
    for (const char* splits : {"3", "7"}) {
      if (small && std::string_view(splits) == "3") continue;
      ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(
          find_variant("gemm/cuda/17_split_k"), std::string(tiled) + " splits=" + splits + " pass=dependent",
          {bench::size_spec{{70, 33, 300}}, bench::size_spec{{257, 129, 131}}}));
    }
  }
  ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(find_variant("gemm/cuda/19_sliced_k"),
                                                       "fit=64x64 groups=2 splits=3 pass=dependent",
                                                       {bench::size_spec{{257, 129, 131}}}));
}

// The parts are added in split order: the same bits every run, whichever way the pass is launched.
TEST(GpuGemmSplitK, TheSameInputsGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  check_same_bits_every_run(find_variant("gemm/cuda/17_split_k"), {{{256, 256, 20000}}, "fit=128x128 splits=16"});
  check_same_bits_every_run(find_variant("gemm/cuda/17_split_k"),
                            {{{256, 256, 20000}}, "fit=64x32 splits=16 pass=dependent"});
}

// Step 22 at every block tile with 2 and 7 splits (the last split of each tile adds the parts) and one
// (handed to step 17), at the sizes and layouts of step 17's test: a tile whose rows end past M, K of
// one slice a split, strided batches. Every element of every product is checked.
TEST(GpuGemmLastSplitAdds, EveryTileSplitAndBatchMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/22_last_split_adds");
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // the sanitizers: 7 splits only
  for (const char* fit : split_k_tiles) {
    for (const char* splits : {"1", "2", "7"}) {
      if (small && std::string_view(splits) != "7") continue;
      ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(
          v, std::string("fit=") + fit + " splits=" + splits,
          {bench::size_spec{{1, 1, 1}}, bench::size_spec{{70, 33, 300}}, bench::size_spec{{257, 129, 131}}}));
    }
  }
  check_cases(v, {{{{256, 256, 20000}}, ""}, {{{3000, 64, 1000}}, "ld=padded"}, {{{5, 7, 0}}, "beta=0.5"}});
}

// The parts are added in split order whichever split arrives last: the same bits every run.
TEST(GpuGemmLastSplitAdds, TheSameInputsGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  check_same_bits_every_run(find_variant("gemm/cuda/22_last_split_adds"), {{{256, 256, 20000}}, "fit=128x128 splits=16"});
  check_same_bits_every_run(find_variant("gemm/cuda/22_last_split_adds"), {{{767, 767, 767}}, "fit=256x128 splits=7"});
}

// Step 19 at every tile and group count it compiles, one split and three (the parts added in order),
// ragged sizes, K of one slice (a group without slices), every op, padded rows, beta, and strided
// batches; then what it hands to step 17 (groups=1, the 256 x 128 tile) and what it refuses. Every
// element of every product is checked.
TEST(GpuGemmSlicedK, EveryTileGroupSplitAndBatchMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/19_sliced_k");
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // the sanitizers: one split
  for (const char* tiled :
       {"fit=128x128 groups=2", "fit=128x64 groups=2", "fit=64x128 groups=2", "fit=64x64 groups=2", "fit=64x64 groups=4"}) {
    for (const char* splits : {"1", "3"}) {
      if (small && std::string_view(splits) == "3") continue;
      ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(
          v, std::string(tiled) + " splits=" + splits,
          {bench::size_spec{{1, 1, 1}}, bench::size_spec{{70, 33, 13}}, bench::size_spec{{70, 33, 300}},
           bench::size_spec{{257, 129, 131}}}));
    }
  }
  // Handed to step 17, and the model's own choices (one near a wave of 64 x 128 tiles, one of long K).
  check_cases(v, {{{{257, 129, 131}}, "groups=1 fit=64x64 splits=2"}, {{{257, 129, 131}}, "fit=256x128 op=tn"},
                  {{{70, 300, 33}}, "fit=64x256"}, {{{1023, 1023, 1023}}, ""}, {{{256, 256, 20000}}, "op=nt"},
                  {{{5, 7, 0}}, "beta=0.5"}});
  const std::string refused = "fit=128x128 groups=4";
  EXPECT_THROW((void)check_once(v, {bench::size_spec{{64, 64, 64}}, refused}), usage_error) << refused;
}

// The groups' sums are added in group order and the splits' in split order: the same bits every run.
TEST(GpuGemmSlicedK, TheSameInputsGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  check_same_bits_every_run(find_variant("gemm/cuda/19_sliced_k"), {{{300, 260, 5000}}, "fit=64x64 groups=4 splits=3"});
}

// Step 20 at every tile and group count step 19 compiles, and step 17's tiles (groups=1), on the
// rewritten pair: every op (each operand rewritten or left), padded rows (both rewritten from rows of
// odd length), beta, one split and three; batches, handed to step 19 as stored; K = 0 (nothing
// rewritten, C = beta C); the model's own choice at an odd square. Every element of every product is
// checked.
TEST(GpuGemmRewrittenOperands, EveryTileGroupSplitAndLayoutMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/20_rewritten_operands");
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // the sanitizers: one split
  for (const char* tiled : {"fit=128x128 groups=2", "fit=64x64 groups=4", "fit=64x128 groups=2", "fit=256x128 groups=1",
                            "fit=64x64 groups=1"}) {
    for (const char* splits : {"1", "3"}) {
      if (small && std::string_view(splits) == "3") continue;
      ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(
          v, std::string(tiled) + " splits=" + splits,
          {bench::size_spec{{1, 1, 1}}, bench::size_spec{{70, 33, 13}}, bench::size_spec{{257, 129, 131}}}));
    }
  }
  check_cases(v, {{{{1023, 1023, 1023}}, "op=nt"}, {{{767, 769, 1001}}, "ld=padded op=tt beta=0.5"},
                  {{{5, 7, 0}}, "beta=0.5"}});
}

// Step 21 at every tile it compiles, one block a tile and several tiles a block (runs of equal and of
// unequal length: 3 and 7 blocks), ragged sizes, K of one partial slice, every op, padded rows, beta,
// and strided batches whose runs cross from one product into the next; the model's own choice at a
// batch of many small products and at K = 0 (C = beta C); and the tiles it hands to step 17. Every
// element of every product is checked.
TEST(GpuGemmStreamedTiles, EveryTileRunAndBatchMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/21_streamed_tiles");
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // the sanitizers: auto and 3 blocks
  for (const char* fit : {"128x128", "64x128", "64x64"}) {
    for (const char* blocks : {"auto", "3", "7"}) {
      if (small && std::string_view(blocks) == "7") continue;
      ASSERT_NO_FATAL_FAILURE(check_every_layout_and_batch(
          v, std::string("fit=") + fit + " blocks=" + blocks,
          {bench::size_spec{{1, 1, 1}}, bench::size_spec{{70, 33, 13}}, bench::size_spec{{257, 129, 131}}}));
    }
  }
  for (const gemm_case& c : {gemm_case{{{64, 64, 64}}, "batch=300"}, gemm_case{{{65, 63, 70}}, "batch=41 op=nt blocks=9 beta=0.5"},
                             gemm_case{{{100, 200, 48}}, "batch=6 op=tn ld=padded"}, gemm_case{{{5, 7, 0}}, "batch=3 beta=0.5"}}) {
    const problem p = make_problem(v, {c.size, c.layout});
    const auto result = check_once(v, {c.size, c.layout});
    ASSERT_TRUE(result.passed()) << c.size.text() << " " << c.layout << ": " << result.describe();
    ASSERT_EQ(result.checked, p.batch * p.m * p.n);
  }
  // The tiles it does not compile, handed to step 17.
  check_cases(v, {{{{257, 129, 131}}, "fit=256x128 op=tt"}, {{{70, 300, 33}}, "fit=64x256"}, {{{130, 65, 20}}, "fit=128x64 beta=1"}});
}

// Step 18 at every M it takes (1-16: each compiled row count, with and without unused rows), N that
// leaves a partial 128-column block and partial 4-column pieces, K below one group of rows, not a
// multiple of anything, and long enough for many splits; op(A) either way, padded rows (B's scalar
// loads), beta, and explicit splits.
TEST(GpuGemmSkinny, EveryRowCountAndRaggedEdgeMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/18_skinny");
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;  // the sanitizers: one M a row count
  for (std::int64_t m = 1; m <= 16; ++m) {
    if (small && m != 1 && m != 2 && m != 3 && m != 8 && m != 16) continue;
    for (const auto& [n, k] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {5, 3}, {130, 701}, {1001, 5000}}) {
      for (const char* layout : {"", "op=tn ld=padded beta=1.5", "splits=3 alpha=2", "splits=1 ld=padded"}) {
        const bench::size_spec size{{m, n, k}};
        const problem p = make_problem(v, {size, layout});
        ASSERT_TRUE(v.supports(p).ok());
        const auto result = check_once(v, {size, layout});
        ASSERT_TRUE(result.passed()) << size.text() << " " << layout << ": " << result.describe();
        ASSERT_EQ(result.checked, p.m * p.n);
      }
    }
  }
  EXPECT_FALSE(v.supports(make_problem(v, {{{17, 8, 8}}, ""})).ok());
  EXPECT_FALSE(v.supports(make_problem(v, {{{4, 8, 8}}, "op=nt"})).ok());
  EXPECT_FALSE(v.supports(make_problem(v, {{{4, 8, 8}}, "batch=2"})).ok());
}

TEST(GpuGemmSkinny, TheSameInputsGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  check_same_bits_every_run(find_variant("gemm/cuda/18_skinny"), {{{16, 3000, 9000}}, ""});
}

// Step 12 computes the last r = N mod 128 columns as a strip when 1 ≤ r ≤ 8; strip=on takes it at any M
// (auto asks for a block per SM). Every r, so every compiled width (1, 2, 4, 8) with and without unused
// columns; A in both storage orders (a warp's 4 rows along K, or a lane's row along M) and B in both;
// M not a multiple of the strip's 32 rows, and below them; K below, at, and not a multiple of the
// 256-deep chunk; N = r (the strip alone), r = 9 (step 11 alone) and strip=off.
TEST(GpuGemmNarrowStrip, EveryWidthAndStorageOrderMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  check_cases(find_variant("gemm/cuda/12_narrow_strip"),
              {{{{300, 129, 1000}}, "strip=on"},                          // r 1, A along K, B deep-major
               {{{300, 130, 1000}}, "strip=on op=tn"},                    // r 2, A along M
               {{{77, 131, 513}}, "strip=on op=nt ld=padded beta=1"},     // r 3 (width 4), B transposed
               {{{33, 388, 300}}, "strip=on op=tt alpha=0.5 beta=0.5"},   // r 4, both transposed
               {{{1000, 261, 256}}, "strip=on ld=padded"},                // r 5 (width 8), K one whole chunk
               {{{5, 262, 2000}}, "strip=on op=tn beta=1"},               // r 6, 5 rows
               {{{300, 135, 40}}, "strip=on op=nt blocks=7"},             // r 7, K under a chunk
               {{{300, 136, 255}}, "strip=on op=tt ld=padded"},           // r 8
               {{{200, 8, 700}}, "strip=on"},                             // the strip alone
               {{{41, 1, 3}}, "strip=on op=tn alpha=2"},                  // one column, K = 3
               {{{300, 137, 100}}, "strip=on"},                           // r 9: step 11 alone
               {{{300, 129, 1000}}, "strip=off op=tn"}});
}

// The strip adds in a fixed order too: the same bits every run.
TEST(GpuGemmNarrowStrip, TheSameInputsGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  for (const char* layout : {"strip=on blocks=40", "strip=on op=tn blocks=40"}) {
    SCOPED_TRACE(layout);
    const variant& v = find_variant("gemm/cuda/12_narrow_strip");
    check_same_bits_every_run(v, {{{300, 645, 2000}}, layout});
  }
}

// Step 13 runs step 10's pipeline on 256 x 96 x 16 tiles, 8 x 12 results a thread. A round of 256
// copies does not cover whole rows of op(B)'s 96-wide slice (24 pieces or 96 floats a row), so its
// deep-major copies find their own rows: all nine pairs of copy modes with narrow=on, interior tiles
// next to edge tiles, a partial first slice (45 = 13 + 2·16; 40 = 8 + 2·16), K = 3, a 16-byte piece the N edge cuts
// (N = 297 with rows padded to 304), and a Zigzag block order; narrow=off (step 12) and auto at a
// size whose 256 x 128 tiles already fill their waves. Edge tiles move back inside the matrix and
// store only what they own where M ≥ 256 (and M a multiple of 4 for 16-byte copies of A) and where
// N ≥ 96 is a multiple of 4: most cases here shift one edge or both; 300 x 297, 297 x 300 op=tn
// and 200 x 90 keep an edge or both in place.
TEST(GpuGemmWaveFittedTiles, EveryPairOfCopyModesMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  // The comments name (A's mode, B's mode). ld=padded adds 7 to every leading dimension.
  check_cases(find_variant("gemm/cuda/13_wave_fitted_tiles"),
              {{{{512, 288, 64}}, "narrow=on"},                        // transposing, 16-byte: interior tiles only
               {{{600, 300, 45}}, "narrow=on ld=padded"},              // transposing, float
               {{{520, 200, 3}}, "narrow=on op=nt beta=1"},            // transposing, transposing
               {{{512, 192, 45}}, "narrow=on op=tn alpha=0.5"},        // 16-byte, 16-byte
               {{{600, 301, 45}}, "narrow=on op=tn"},                  // 16-byte, float (ldb 301)
               {{{301, 600, 64}}, "narrow=on op=tn beta=0.5"},         // float (lda 301), 16-byte
               {{{600, 300, 45}}, "narrow=on op=tn ld=padded beta=1"}, // float, float
               {{{512, 192, 40}}, "narrow=on op=tt"},                  // 16-byte, transposing
               {{{520, 260, 45}}, "narrow=on op=tt ld=padded"},        // float, transposing
               {{{300, 297, 45}}, "narrow=on ld=padded"},              // ldb 304: 16-byte pieces, the last cut
               {{{297, 300, 45}}, "narrow=on op=tn ld=padded"},        // lda 304: 16-byte, M not a multiple of 4
               {{{200, 90, 45}}, "narrow=on op=tn beta=1"},            // under one tile each way: nothing shifts
               {{{600, 300, 45}}, "narrow=on order=zigzag column_width=192 op=nt"},
               {{{600, 300, 45}}, "narrow=off"},
               {{{257, 129, 131}}, "narrow=auto op=tt"}});
}

// Steps 14 and 15 read each operand through the copy engine as rows along its wide dimension, 16-byte
// multiples apart: as stored (op(A) transposed, op(B) as is, aligned rows) or rewritten so first. Every
// op, packed and padded rows (lda or ldb 7 longer: rewritten), boxes that hang over every edge (M, N
// and K that no tile divides, K = 1 and 3: one partial slice), K deep enough that the stages wrap many
// times (1000), a tile grid of several rows and columns, a Zigzag block order, a K deeper than the
// rewrite's grid (65535 blocks of 32), and tma=off and auto, which run step 13 at these sizes.
void check_copy_engine_cases(const variant& v) {
  // The comments say which operands are rewritten before the product.
  check_cases(v, {{{{1, 1, 1}}, "tma=on"},                                    // both (ldb 1)
                  {{{7, 1, 5}}, "tma=on op=tn"},                              // both (lda 7, ldb 1)
                  {{{512, 256, 64}}, "tma=on op=tn alpha=0.5"},               // neither: whole tiles
                  {{{600, 300, 45}}, "tma=on op=tn beta=1"},                  // neither
                  {{{600, 301, 45}}, "tma=on op=tn"},                         // B (ldb 301)
                  {{{301, 600, 64}}, "tma=on op=tn beta=0.5"},                // A (lda 301)
                  {{{520, 260, 3}}, "tma=on op=nt beta=1"},                   // both
                  {{{520, 260, 45}}, "tma=on op=tt ld=padded"},               // both
                  {{{257, 129, 131}}, "tma=on ld=padded alpha=2 beta=0.25"},  // A (ldb 136 is whole 16 bytes)
                  {{{61, 3, 1000}}, "tma=on"},                                // both (ldb 3)
                  {{{1000, 1000, 1003}}, "tma=on"},                           // A; 4 x 8 tiles
                  {{{600, 300, 45}}, "tma=on order=zigzag column_width=256 op=nt"},
                  {{{3, 2, 2100000}}, "tma=on"},                              // both; K past 65535 blocks of 32
                  {{{600, 300, 45}}, "tma=off"},
                  {{{257, 129, 131}}, "tma=auto op=tt"}});
}

// Step 14: 32-deep slices in 3 stages (1000 and 1003 deep: 32 slices).
TEST(GpuGemmCopyEngine, EveryStorageOrderAndRaggedEdgeMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  check_copy_engine_cases(find_variant("gemm/cuda/14_copy_engine"));
}

// Step 15: a producer warpgroup feeds 8 stages of 16-deep slices (1000 and 1003 deep: 63 slices, the
// ring wraps 7 times), and K that leaves a partial last slice (44 = 2 · 16 + 12; 4, under one).
TEST(GpuGemmProducerWarp, EveryStorageOrderAndRaggedEdgeMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/15_producer_warp");
  check_copy_engine_cases(v);
  check_cases(v, {{{{600, 300, 64}}, "tma=on"},                       // A; edge tile rows
                  {{{600, 301, 44}}, "tma=on op=nt beta=1"},          // both
                  {{{257, 129, 4}}, "tma=on alpha=0.5"},              // both (ldb 129)
                  {{{1100, 700, 100}}, "tma=on beta=1 order=zigzag column_width=256"}});
}

// Step 16 runs step 15's kernel for the full waves and cuts the last wave's tiles along K, shared
// evenly over the grid (blocks=N, so the cases do not depend on the GPU's SM count). Comments give the
// tiles, slices a tile (16 deep), the shared tiles and each block's run: runs that start and end inside
// tiles, go on from one tile into the next, and cover a whole tile; 3 and 13 parts a tile; a share
// under 16 slices (whole tiles only).
TEST(GpuGemmBalancedTail, EverySplitOfTheLastWaveMatchesTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/16_balanced_tail");
  check_copy_engine_cases(v);
  check_cases(v, {{{{1000, 1000, 1003}}, "tma=on blocks=5"},              // 32 tiles of 63: 30 whole, 2 in runs of 25
                  {{{600, 300, 1000}}, "tma=on blocks=7 op=tt beta=1"},   // 9 of 63: 7 whole, 2 in runs of 18
                  {{{520, 260, 2000}}, "tma=on blocks=20 op=nt"},         // 9 of 125, all shared: runs of 56
                  {{{600, 300, 1000}}, "tma=on blocks=10 op=tn"},         // 9 of 63, one wave 90% full: whole tiles
                  {{{1, 1, 5000}}, "tma=on blocks=13"},                   // 1 of 313: 13 parts of 24
                  {{{600, 301, 1100}}, "tma=on blocks=4 op=tn ld=padded alpha=0.5"},  // 9 of 69: 8 whole, 1 in runs of 17
                  {{{2100, 1000, 500}}, "tma=on blocks=16 order=zigzag column_width=256"},  // 72 of 32: 64 whole, 8 in halves
                  {{{300, 700, 40}}, "tma=on blocks=7"},                  // 12 of 3: shares too short, whole tiles
                  {{{3000, 2000, 300}}, "tma=on blocks=100 beta=0.5"}});  // 192 of 19: 100 whole, 92 in runs of 17
}

// With the whole GPU as the tail's grid and two whole tiles or more an SM, the tail's shares are
// weighted by when each SM frees (16_balanced_tail.cu): the parts meet at K points that move from run
// to run, and every run matches the reference. 8 tile rows of 256 and enough columns of 128 for two
// whole waves and 16 tiles over, each SM's share about 16 of a tile's 132 slices.
TEST(GpuGemmBalancedTail, WeightedSharesMatchTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/16_balanced_tail");
  const std::int64_t columns = (2 * query_gpu()->sm_count + 16 + 7) / 8;
  for (const char* layout : {"tma=on", "tma=on op=nt beta=0.5"}) {
    for (int run = 0; run < 3; ++run) {
      const auto result = check_once(v, {bench::size_spec{{2043, columns * 128 - 3, 2111}}, layout});
      ASSERT_TRUE(result.passed()) << layout << " run " << run << ": " << result.describe();
    }
  }
}

// The parts are added in block order whichever block adds them: with even shares, the same bits on
// every run (the grids of blocks=N, and the whole GPU with shares=even where weighted ones would apply).
TEST(GpuGemmBalancedTail, EvenSharesGiveTheSameBitsEveryRun) {
  SWATH_SKIP_WITHOUT_GPU();
  const variant& v = find_variant("gemm/cuda/16_balanced_tail");
  check_same_bits_every_run(v, {{{1000, 1000, 1003}}, "tma=on blocks=5"});
  check_same_bits_every_run(v, {{{520, 260, 2000}}, "tma=on blocks=20"});
  const std::int64_t columns = (2 * query_gpu()->sm_count + 16 + 7) / 8;
  check_same_bits_every_run(v, {bench::size_spec{{2043, columns * 128 - 3, 2111}}, "tma=on shares=even"});
}

void skips_last_column(const problem& p, const operands& x, const launch_context& launch) {
  problem narrower = p;
  narrower.n = p.n - 1;
  narrower.ldb = narrower.ldc = p.n - 1;
  find_variant("gemm/cpu/03_column").run(narrower, x, launch);
}

// A step that ignores beta, or writes into the padding between rows, is caught.
void ignores_beta(const problem& p, const operands& x, const launch_context& launch) {
  problem without = p;
  without.beta = 0;
  find_variant("gemm/cpu/01_naive").run(without, x, launch);
}
void writes_padding(const problem& p, const operands& x, const launch_context& launch) {
  find_variant("gemm/cpu/01_naive").run(p, x, launch);
  x.c[p.n] = 1.0f;  // the first padding element after row 0
}

TEST(GemmCheck, CatchesIgnoredBetaAndPaddingWrites) {
  variant broken = find_variant("gemm/cpu/01_naive");
  broken.run = ignores_beta;
  const auto no_beta = check_once(broken, make_problem(broken, {{{33, 17, 65}}, "beta=1"}));
  EXPECT_FALSE(no_beta.passed());
  EXPECT_GT(no_beta.max_relative_error, 1e-3);
  broken.run = writes_padding;
  const auto padding = check_once(broken, make_problem(broken, {{{33, 17, 65}}, "ld=padded"}));
  EXPECT_FALSE(padding.passed());
  EXPECT_EQ(padding.outside_writes, 1);
}

// The reference of the last product checked is kept for the next trial of the same problem and seed
// (the tuner checks many steps on one product). Reused, it still fails a wrong step and passes a right
// one; a problem that differs in its storage alone (ld) or in its seed gets its own.
TEST(GemmCheck, AKeptReferenceStillFailsAWrongStepAndPassesARightOne) {
  const variant& right = find_variant("gemm/cpu/05_packed_panels");
  variant wrong = find_variant("gemm/cpu/01_naive");
  wrong.run = ignores_beta;
  const bench::trial_options options = testing::fresh_options();
  for (const char* config : {"beta=1", "beta=1 ld=padded", "beta=1 op=tn"}) {
    const problem p = make_problem(right, {{{1300, 1301, 1302}}, config});  // sampled rows: 2.2e9 multiply-adds
    const auto first = testing::check_once(make_trial(right, p, options));
    EXPECT_TRUE(first.passed()) << config << ": " << first.describe();
    const auto broken = testing::check_once(make_trial(wrong, p, options));
    EXPECT_FALSE(broken.passed()) << config;
    EXPECT_GT(broken.max_relative_error, 1e-3) << config;
    const auto again = testing::check_once(make_trial(right, p, options));
    EXPECT_TRUE(again.passed()) << config << ": " << again.describe();
    EXPECT_EQ(again.checked, first.checked) << config;
  }
  const problem p = make_problem(right, {{{61, 67, 71}}, "beta=0.5"});
  EXPECT_TRUE(testing::check_once(make_trial(right, p, options)).passed());
  EXPECT_FALSE(testing::check_once(make_trial(wrong, p, testing::fresh_options())).passed());
  EXPECT_TRUE(testing::check_once(make_trial(right, p, testing::fresh_options())).passed());
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

// A wrong value in a sampled row (the last row is always sampled) is found and located.
void corrupts_last_element(const problem& p, const operands& x, const launch_context& launch) {
  find_variant("gemm/cpu/03_column").run(p, x, launch);
  x.c[(p.m - 1) * p.ldc + p.n - 1] *= 1.01f;
}

TEST(GemmCheck, SampledRowsFindAndLocateAWrongValue) {
  variant broken = find_variant("gemm/cpu/03_column");
  broken.run = corrupts_last_element;
  const problem p = make_problem(broken, {{{1300, 1301, 1302}}, ""});
  const auto result = check_once(broken, p);
  EXPECT_FALSE(result.passed());
  EXPECT_LT(result.checked, p.m * p.n);
  EXPECT_NEAR(result.max_relative_error, 0.01, 1e-4);
  EXPECT_EQ(result.worst_index, (p.m - 1) * p.ldc + p.n - 1);
}

// A launch whose step chose `config`'s settings (all of gemm's: the policy readers are tested here).
launch_context launch_choosing(const std::string& config) {
  launch_context launch;
  launch.cpu_threads = omp_get_max_threads();
  chosen_settings chosen;
  for (const auto& [key, value] : bench::parse_config(config, {})) chosen.emplace(key, value);
  launch.settings = std::make_shared<const chosen_settings>(std::move(chosen));
  return launch;
}

TEST(GemmPolicies, EachSettingIsReadFromTheLaunchOrItsDefault) {
  const problem p = make_problem(find_variant("gemm/cpu/03_column"), {{{100, 100000, 1024}}, ""});
  EXPECT_EQ(host_column_width_of(p, launch_choosing("cache=2MiB")),
            schedule::matmul_column_width({2.0 * 1024 * 1024, 4, 1024, 1024, omp_get_max_threads()}));
  const problem small = make_problem(find_variant("gemm/cpu/03_column"), {{{10, 20, 30}}, ""});
  EXPECT_EQ(host_column_width_of(small, launch_choosing("column_width=1000")), 20);  // clamped to N
  EXPECT_EQ(host_tile_of(launch_choosing("tile=7")), 7);
  EXPECT_EQ(host_tile_of(launch_choosing("cache=12KiB")), 32);  // 12 t^2 <= 12 KiB
  EXPECT_EQ(block_walk_of(small, launch_choosing("")).order, block_order::row);
  const block_walk zigzag = block_walk_of(small, launch_choosing("order=zigzag column_width=7"));
  EXPECT_EQ(zigzag.order, block_order::zigzag);
  EXPECT_EQ(zigzag.column_width, 7);
  EXPECT_EQ(tile_policy_of(launch_choosing("")), tile_policies[0]);
  EXPECT_EQ(tile_policy_of(launch_choosing("policy=128x256x8")), (tile_policy{128, 256, 8}));
  EXPECT_EQ(persistent_blocks_of(launch_choosing("")), 0);
  EXPECT_EQ(persistent_blocks_of(launch_choosing("blocks=40")), 40);
  EXPECT_EQ(path_of(launch_choosing(""), tma_setting), path_choice::automatic);
  EXPECT_EQ(path_of(launch_choosing("tma=on"), tma_setting), path_choice::always);
  EXPECT_EQ(path_of(launch_choosing("tma=off strip=on"), tma_setting), path_choice::never);
  EXPECT_EQ(path_of(launch_choosing("tma=off strip=on"), strip_setting), path_choice::always);
  EXPECT_TRUE(weighted_shares_of(launch_choosing("")));
  EXPECT_FALSE(weighted_shares_of(launch_choosing("shares=even")));
  EXPECT_FALSE(dependent_pass_of(launch_choosing("")));
  EXPECT_TRUE(dependent_pass_of(launch_choosing("pass=dependent")));
  // A library call chooses none: every default.
  EXPECT_EQ(tile_policy_of(launch_context{}), tile_policies[0]);
  EXPECT_THROW(block_walk_of(small, launch_choosing("order=diagonal")), usage_error);
  EXPECT_THROW(tile_policy_of(launch_choosing("policy=100x100x8")), usage_error);
  EXPECT_THROW(path_of(launch_choosing("narrow=1"), narrow_setting), usage_error);
  EXPECT_THROW(weighted_shares_of(launch_choosing("shares=fair")), usage_error);
  EXPECT_THROW(dependent_pass_of(launch_choosing("pass=later")), usage_error);
  EXPECT_THROW(persistent_blocks_of(launch_choosing("blocks=0")), usage_error);
  // The lab refuses them before anything runs, from the same records.
  const variant_info& balanced = find_variant("gemm/cpu/03_column").info;
  for (const char* bad : {"order=diagonal", "tma=yes", "narrow=1", "shares=fair", "blocks=0", "pass=later", "fit=32x32"}) {
    const std::string text = bad;
    const auto equals = text.find('=');
    EXPECT_THROW(family().configurations(balanced, {{text.substr(0, equals), {text.substr(equals + 1)}}}), usage_error) << bad;
  }
}

// The settings a row's configuration chose reach its step: only the keys its row declares.
TEST(GemmPolicies, ARowPassesOnlyItsOwnSettings) {
  const variant_info& column = find_variant("gemm/cpu/03_column").info;
  const chosen_settings chosen = bench::settings_chosen_in(column, "op=nn column_width=9 tma=on cache=1MiB");
  EXPECT_EQ(chosen, (chosen_settings{{"cache", "1MiB"}, {"column_width", "9"}}));
}

TEST(GemmProblem, ModelWidthsAndWork) {
  const variant& v = find_variant("gemm/cpu/03_column");
  EXPECT_EQ(make_problem(v, {{{7}}, ""}).k, 7);
  EXPECT_EQ(gemm_work(make_problem(v, {{{2, 3, 4}}, ""})).flops, 2.0 * 2 * 3 * 4);
  EXPECT_THROW(family().configurations(v.info, {{"radius", {"1"}}}), usage_error);
  const problem general = make_problem(v, {{{10, 20, 30}}, "op=tn alpha=2 beta=0.5 ld=padded"});
  EXPECT_TRUE(general.trans_a);
  EXPECT_FALSE(general.trans_b);
  EXPECT_EQ(general.lda, 10 + 7);  // A is stored K × M
  EXPECT_EQ(general.ldb, 20 + 7);
  EXPECT_EQ(general.ldc, 20 + 7);
  EXPECT_FALSE(plain(general));
  EXPECT_FALSE(v.supports(general).ok());  // the column step computes C = A B only
  EXPECT_TRUE(plain(make_problem(v, {{{10, 20, 30}}, ""})));
  EXPECT_EQ(gemm_work(make_problem(v, {{{2, 3, 4}}, "beta=1"})).bytes, 4.0 * (2 * 4 + 4 * 3 + 2 * 2 * 3));
  for (const tile_policy& policy : tile_policies) {  // the kernel's warp tiling and loaders need these
    EXPECT_EQ(policy.block_m % 64, 0) << policy_name(policy);
    EXPECT_EQ(policy.block_n % 32, 0) << policy_name(policy);
    EXPECT_EQ(policy.block_k % 4, 0) << policy_name(policy);
    EXPECT_LE(policy.threads(), 1024) << policy_name(policy);
  }
  for (const char* bad : {"op=nx", "op=n", "alpha=x", "beta=inf", "beta=1e40", "ld=wide"}) {
    EXPECT_THROW(make_problem(v, {{{10, 20, 30}}, bad}), usage_error) << bad;
  }
  EXPECT_NE(family().unsupported(v.info, {{{10, 10}}, ""}), "");
}

}  // namespace
}  // namespace swath::gemm
