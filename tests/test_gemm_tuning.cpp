// The tuner's file: what it writes is what policy=auto reads back, the nearest tuned size decides, and
// a file that names a policy the kernel cannot run, or is malformed, is refused with its field named.
// The dispatch tables likewise: the nearest choice of the same ops and batching whose step takes the
// problem, malformed tables refused, the compiled ones naming steps that take their shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "swath/core/error.hpp"
#include "swath/lab/gemm_tuning.hpp"
#include "../src/gemm/dispatch_table.hpp"

namespace swath::gemm {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path directory = fs::temp_directory_path() / "swath-gemm-tuning-test";
  fs::create_directories(directory);
  return directory / name;
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(GemmTuning, WrittenFileReadsBackAndTheNearestSizeDecides) {
  tuning found;
  found.gpu = "Test GPU";
  found.measured_at = "2026-11-21T00:00:00Z";
  found.sizes = {{4096, 4096, 4096, tile_policies[1], 40000}, {8191, 257, 4099, tile_policies[4], 19000}};
  const fs::path path = scratch("roundtrip.json");
  write_tuning(path.string(), found);
  const tuning back = read_tuning(path.string());
  EXPECT_EQ(back.gpu, "Test GPU");
  ASSERT_EQ(back.sizes.size(), 2u);
  EXPECT_EQ(back.sizes[1].m, 8191);
  EXPECT_EQ(back.sizes[1].policy, tile_policies[4]);
  EXPECT_DOUBLE_EQ(back.sizes[0].gflops, 40000);
  EXPECT_EQ(pick_policy(back, 5000, 3000, 4000), tile_policies[1]);  // near 4096³
  EXPECT_EQ(pick_policy(back, 8000, 300, 4000), tile_policies[4]);   // near the skinny shape
  EXPECT_EQ(pick_policy(back, 1, 1, 1), tile_policies[4]);  // far from both: the nearer in log space (22.9 < 25.0)
}

TEST(GemmTuning, RefusesPoliciesTheKernelCannotRunAndMalformedFiles) {
  EXPECT_FALSE(compilable({100, 128, 16}));  // warp tiles are 64 rows
  EXPECT_FALSE(compilable({128, 48, 16}));   // and 32 columns
  EXPECT_FALSE(compilable({128, 128, 6}));   // chunks of four along K
  EXPECT_FALSE(compilable({128, 128, 64}));  // 4 panels of 64 × 132 floats: 135 KB of static shared memory
  EXPECT_FALSE(compilable({512, 256, 4}));   // 64 warps: 2048 threads
  EXPECT_TRUE(compilable({128, 128, 16}));
  EXPECT_FALSE(find_policy("96x128x16"));
  const auto refuses = [](const std::string& name, const std::string& text, const std::string& mentions) {
    const fs::path path = scratch(name);
    write_text(path, text);
    try {
      read_tuning(path.string());
      ADD_FAILURE() << name << ": accepted";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
  };
  const std::string head = R"({"gpu": "G", "variant": "gemm/cuda/08_double_buffered", "sizes": [)";
  refuses("unknown-policy.json", head + R"({"m": 8, "n": 8, "k": 8, "policy": "96x128x16"}]})", "96x128x16");
  refuses("missing-k.json", head + R"({"m": 8, "n": 8, "policy": "128x128x16"}]})", "sizes[0]: missing \"k\"");
  refuses("wrong-type.json", head + R"({"m": "big", "n": 8, "k": 8, "policy": "128x128x16"}]})", "\"m\" has the wrong type");
  refuses("zero.json", head + R"({"m": 0, "n": 8, "k": 8, "policy": "128x128x16"}]})", "at least 1");
  refuses("empty.json", head + "]}", "non-empty");
  refuses("not-json.json", "policy: fast", "is not JSON");
  EXPECT_THROW(read_tuning(scratch("absent.json").string()), usage_error);
}

// ---- The dispatch tables (src/gemm/dispatch_table.hpp) ---------------------------------------------

// A table over the CPU steps (every build has them): 01 takes any product, 03 only C = A B.
const char* const cpu_table = R"({"gpu": "Test GPU", "capability": 0, "choices": [
  {"m": 64, "n": 64, "k": 64, "op": "nn", "batch": 1, "step": "gemm/cpu/03_column", "settings": {"column_width": "8"}},
  {"m": 4096, "n": 4096, "k": 4096, "op": "nn", "batch": 1, "step": "gemm/cpu/01_naive"},
  {"m": 64, "n": 64, "k": 64, "op": "tn", "batch": 1, "step": "gemm/cpu/01_naive", "settings": {"tile": "5"}},
  {"m": 64, "n": 64, "k": 64, "op": "nn", "batch": 32, "step": "gemm/cpu/01_naive"},
  {"m": 9, "n": 9, "k": 9, "op": "nt", "batch": 1, "step": "gemm/cpu/no_such_step"}]})";

problem shaped(std::int64_t m, std::int64_t n, std::int64_t k, bool trans_a = false, std::int64_t batch = 1) {
  problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = trans_a, p.batch = batch;
  p.lda = trans_a ? m : k, p.ldb = n, p.ldc = n;
  return p;
}

TEST(GemmDispatchTable, TheNearestChoiceOfTheSameOpsAndBatchingWhoseStepTakesTheProblem) {
  const dispatch_table table = parse_dispatch_table(cpu_table, "test");
  ASSERT_EQ(table.choices.size(), 5u);
  // Near 64³, op=nn, plain: step 03 with its tuned band.
  auto pick = pick_step(table, shaped(80, 50, 70));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->step->info.name, "gemm/cpu/03_column");
  EXPECT_EQ(pick->settings->at("column_width"), "8");
  // Near 4096³ (distance 0.53): step 01.
  pick = pick_step(table, shaped(3000, 5000, 4000));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->step->info.name, "gemm/cpu/01_naive");
  // 03 does not take beta = 1, and 01 at 4096³ is too far (distance 12.5): none, the rules decide.
  problem scaled = shaped(64, 64, 64);
  scaled.beta = 1;
  EXPECT_FALSE(pick_step(table, scaled));
  // Within near_enough of a choice (a factor of 1.4 in each dimension: 1.01), but not past it (1.5:
  // 1.22).
  EXPECT_TRUE(pick_step(table, shaped(90, 90, 90)));
  EXPECT_FALSE(pick_step(table, shaped(96, 96, 96)));
  // op=tn near its choice keeps the tuned settings.
  pick = pick_step(table, shaped(60, 60, 60, true));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->settings->at("tile"), "5");
  // A batch takes batched choices only, and no CPU step takes a batch (the library loops over the
  // products on the CPU): none, though unbatched choices of these ops abound.
  EXPECT_FALSE(pick_step(table, shaped(64, 64, 64, false, 8)));
  // No choice of these ops (tt), or only one whose step this build lacks (nt): none.
  problem tt = shaped(9, 9, 9, true);
  tt.trans_b = true;
  EXPECT_FALSE(pick_step(table, tt));
  problem nt = shaped(9, 9, 9);
  nt.trans_b = true;
  EXPECT_FALSE(pick_step(table, nt));
  // Written and read back: the same choices.
  const dispatch_table again = parse_dispatch_table(format_dispatch_table(table), "again");
  ASSERT_EQ(again.choices.size(), table.choices.size());
  EXPECT_EQ(again.choices[2].trans_a, true);
  EXPECT_EQ(again.choices[0].settings->at("column_width"), "8");
  EXPECT_EQ(again.choices[3].batch, 32);
}

TEST(GemmDispatchTable, AChoiceWhoseRowsAreAlignedAsTheProblemsRanksFirst) {
  const std::string head = R"({"gpu": "Test GPU", "capability": 0, "choices": [)";
  const std::string odd = R"({"m": 1023, "n": 1023, "k": 1023, "op": "tn", "batch": 1, "step": "gemm/cpu/01_naive", "settings": {"tile": "odd"}})";
  const std::string even = R"({"m": 1024, "n": 1024, "k": 1024, "op": "tn", "batch": 1, "step": "gemm/cpu/01_naive", "settings": {"tile": "even"}})";
  const dispatch_table both = parse_dispatch_table(head + odd + ", " + even + "]}", "both");
  ASSERT_EQ(both.choices.size(), 2u);
  EXPECT_FALSE(both.choices[0].rows_of_16_bytes);
  EXPECT_TRUE(both.choices[1].rows_of_16_bytes);
  // 992 × 992 × 1024 tn, packed: rows of 992 and 992 floats. By size alone 1023³ is the nearer (0.0626
  // against 0.0634); its rows are not 16 bytes apart, so 1024³'s choice is taken.
  auto pick = pick_step(both, shaped(992, 992, 1024, true));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->settings->at("tile"), "even");
  EXPECT_NEAR(pick->distance, 2 * std::log(1024.0 / 992.0), 1e-12);  // the size's distance, not the rank
  // 1001³ packed has odd rows: 1023³'s. With its rows padded to 1004 floats: 1024³'s.
  pick = pick_step(both, shaped(1001, 1001, 1001, true));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->settings->at("tile"), "odd");
  problem padded = shaped(1001, 1001, 1001, true);
  padded.lda = padded.ldb = padded.ldc = 1004;
  pick = pick_step(both, padded);
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->settings->at("tile"), "even");
  // The alignment only ranks: where the one choice near enough has the other alignment, it is taken.
  const dispatch_table only_odd = parse_dispatch_table(head + odd + "]}", "only odd");
  pick = pick_step(only_odd, shaped(992, 992, 1024, true));
  ASSERT_TRUE(pick);
  EXPECT_EQ(pick->settings->at("tile"), "odd");
  // And it does not stretch what is near enough: 1.4 times 1023 in each dimension is (1.01), 1.5 is
  // not (1.22), whatever the rows.
  EXPECT_TRUE(pick_step(only_odd, shaped(1432, 1432, 1432, true)));
  EXPECT_FALSE(pick_step(only_odd, shaped(1536, 1536, 1536, true)));
}

TEST(GemmDispatchTable, MalformedTablesAreRefusedWithTheirField) {
  const auto refused = [](const std::string& text, const std::string& expected) {
    try {
      (void)parse_dispatch_table(text, "t.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused("{", "not JSON");
  refused(R"({"capability": 90, "choices": []})", "\"gpu\"");
  refused(R"({"gpu": "x", "capability": 90, "choices": {}})", "must be an array");
  refused(R"({"gpu": "x", "capability": 90, "choices": [{"m": 0, "n": 1, "k": 1, "op": "nn", "step": "s"}]})", "at least 1");
  refused(R"({"gpu": "x", "capability": 90, "choices": [{"m": 1, "n": 1, "k": 1, "op": "xn", "step": "s"}]})", "op \"xn\"");
  refused(R"({"gpu": "x", "capability": 90, "choices": [{"m": 1, "n": 1, "k": 1, "op": "nn"}]})", "choices[0]: missing \"step\"");
  refused(R"({"gpu": "x", "capability": 90, "choices": [{"m": 1, "n": 1, "k": 1, "op": "nn", "step": "s", "settings": {"a": 1}}]})",
          "must be a string");
}

// The tables compiled in parse; in a CUDA build every choice names a step of the registry that takes
// the shape it was tuned at (so a call there runs what was measured).
TEST(GemmDispatchTable, CompiledTablesNameStepsThatTakeTheirShapes) {
  for (const dispatch_table& table : dispatch_tables()) {
    EXPECT_FALSE(table.choices.empty()) << table.gpu;
    if (!SWATH_WITH_CUDA) continue;
    for (const tuned_choice& choice : table.choices) {
      problem p = shaped(choice.m, choice.n, choice.k, choice.trans_a, choice.batch);
      p.trans_b = choice.trans_b;
      p.lda = choice.trans_a ? p.m : p.k, p.ldb = choice.trans_b ? p.k : p.n;
      if (p.batch > 1) p.stride_a = p.m * p.k, p.stride_b = p.k * p.n, p.stride_c = p.m * p.n;
      const auto pick = pick_step(table, p);
      ASSERT_TRUE(pick) << table.gpu << " " << choice.m << "x" << choice.n << "x" << choice.k;
      EXPECT_EQ(pick->step->info.name, choice.step) << table.gpu << " " << choice.m << "x" << choice.n << "x" << choice.k;
      EXPECT_DOUBLE_EQ(pick->distance, 0);
    }
  }
}

}  // namespace
}  // namespace swath::gemm
