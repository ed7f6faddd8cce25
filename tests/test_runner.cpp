// The runner: verified rows, derived figures against the ceilings, and the JSON a result is traced by.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "swath/bench/runner.hpp"
#include "swath/core/error.hpp"
#include "test_support.hpp"

namespace swath::bench {
namespace {

ceilings made_up_cpu_ceilings() {
  ceilings limits;
  limits.device = "test";
  limits.source = "made up for the test";
  limits.cpu = cpu_ceilings{5.0, 10.0, 50.0, 100.0, 2};
  return limits;
}

run_options small_cpu_run() {
  run_options options;
  options.families = {"elementwise"};
  options.sizes = {parse_size("1000"), parse_size("37x41")};
  options.where = backend::cpu;
  options.repetitions = 3;
  options.warmup = 1;
  options.progress = false;
  options.seed = testing::fresh_seed();
  return options;
}

TEST(Runner, VerifiesTimesAndDerivesAgainstTheCeilings) {
  const run_report report = run(small_cpu_run(), made_up_cpu_ceilings());
  int timed = 0;
  int skipped = 0;
  for (const result_row& row : report.rows) {
    if (row.status == "skipped") {
      ++skipped;
      EXPECT_FALSE(row.note.empty());
      continue;
    }
    ASSERT_EQ(row.status, "ok") << row.variant.name << ": " << row.note;
    EXPECT_TRUE(row.check.passed());
    EXPECT_EQ(row.time.repetitions, 3);
    EXPECT_GT(row.time.median_s, 0);
    EXPECT_LE(row.time.min_s, row.time.median_s);
    EXPECT_NEAR(row.gbps, row.work.bytes / row.time.median_s * 1e-9, 1e-9 * row.gbps);
    EXPECT_NEAR(row.intensity, 1.0 / 12.0, 1e-12);
    const double ceiling = row.variant.bound == ceiling_kind::host_memory_one_core ? 5.0 : 10.0;
    ASSERT_TRUE(row.percent_of_ceiling.has_value());
    EXPECT_NEAR(*row.percent_of_ceiling, 100.0 * row.gbps / ceiling, 1e-9 * row.gbps);
    EXPECT_EQ(row.bound, "memory");
    EXPECT_TRUE(row.cache_resident) << "1000 floats in rotated sets stay far below 4x the last-level cache";
    // The row's wall time by phase: the timed phase holds every timed repetition (and the warm-up).
    EXPECT_GT(row.phases.prepare, 0);
    EXPECT_GT(row.phases.verify, 0);
    EXPECT_GE(row.phases.timing, row.time.min_s * row.time.repetitions);
    ++timed;
  }
  EXPECT_EQ(timed, 5);    // two vector steps and swath::vector_add at 1000, the matrix step and swath::matrix_add at 37x41
  EXPECT_EQ(skipped, 5);  // and each at the other shape
  EXPECT_EQ(report.failures(), 0);
}

TEST(Runner, VerifyOnlyRunsDoNotTime) {
  run_options options = small_cpu_run();
  options.timed = false;
  const run_report report = run(options, made_up_cpu_ceilings());
  for (const result_row& row : report.rows) {
    EXPECT_EQ(row.time.repetitions, 0);
    EXPECT_EQ(row.phases.timing, 0);
  }
}

TEST(Runner, SelectsWithCommaSeparatedGlobs) {
  run_options options = small_cpu_run();
  options.timed = false;
  options.variant_glob = "*01_vecadd*,*03_matadd*";
  const run_report report = run(options, made_up_cpu_ceilings());
  ASSERT_EQ(report.rows.size(), 4u);
  EXPECT_EQ(report.rows[0].variant.name, "elementwise/cpu/01_vecadd_serial");
  EXPECT_EQ(report.rows[3].variant.name, "elementwise/cpu/03_matadd_openmp");
}

TEST(Runner, RejectsUnknownFamiliesAndEmptySelections) {
  run_options options = small_cpu_run();
  options.families = {"nosuchfamily"};
  EXPECT_THROW(run(options, made_up_cpu_ceilings()), usage_error);
  options = small_cpu_run();
  options.variant_glob = "*nothing-matches*";
  EXPECT_THROW(run(options, made_up_cpu_ceilings()), usage_error);
}

TEST(Runner, RefusesSizesThatCannotFitBeforeRunningAnything) {
  run_options options = small_cpu_run();
  options.sizes = {parse_size("2^50")};
  EXPECT_THROW(run(options, made_up_cpu_ceilings()), out_of_memory_error);
}

TEST(Runner, JsonCarriesTheMachineTheCeilingsAndEveryRow) {
  const run_report report = run(small_cpu_run(), made_up_cpu_ceilings());
  const nlohmann::json out = to_json(report);
  EXPECT_EQ(out.at("schema"), "swath-bench/1");
  for (const char* key : {"started_at", "elapsed_s", "environment", "ceilings", "options", "rows"}) {
    EXPECT_TRUE(out.contains(key)) << key;
  }
  const auto& env = out.at("environment");
  for (const char* key : {"swath_version", "git_revision", "build", "cpu", "device"}) EXPECT_TRUE(env.contains(key)) << key;
  EXPECT_TRUE(env.at("cpu").at("model").is_string());
  EXPECT_EQ(out.at("ceilings").at("cpu").at("copy_gbps_all_cores"), 10.0);
  ASSERT_EQ(out.at("rows").size(), report.rows.size());
  for (const auto& row : out.at("rows")) {
    for (const char* key : {"family", "variant", "backend", "problem", "vendor", "size", "status", "check", "bytes", "flops",
                            "phase_seconds"}) {
      EXPECT_TRUE(row.contains(key)) << key;
    }
    if (row.at("status") == "ok") {
      EXPECT_TRUE(row.at("check").at("passed").get<bool>());
      for (const char* key : {"time", "gbps", "gflops", "intensity", "percent_of_ceiling", "vendor_ratio", "bound"}) {
        EXPECT_TRUE(row.contains(key)) << key;
      }
      EXPECT_GE(row.at("time").at("repetitions").get<int>(), 3);
    }
  }
  // The text formats carry every row too.
  EXPECT_NE(format_table(report).find("elementwise/cpu/02_vecadd_openmp"), std::string::npos);
  EXPECT_NE(format_markdown(report).find("| variant |"), std::string::npos);
  const std::string csv = format_csv(report);
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), report.rows.size() + 1);
}

}  // namespace
}  // namespace swath::bench
