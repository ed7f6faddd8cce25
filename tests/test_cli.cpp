// The real binary: bad input gives one line on stderr and a non-zero exit, never a crash or a partial
// result file; good input writes well-formed results.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

struct outcome {
  int exit_code;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

fs::path scratch_directory() {
  const fs::path dir = fs::temp_directory_path() / ("swath-cli-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

outcome swath(const std::string& arguments) {
  const fs::path dir = scratch_directory();
  const std::string command = std::string(SWATH_CLI_PATH) + " " + arguments + " >" + (dir / "out").string() + " 2>" +
                              (dir / "err").string();
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(dir / "out"), slurp(dir / "err")};
}

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

void expect_one_line_error(const std::string& arguments, int code, const std::string& mentions) {
  const outcome result = swath(arguments);
  EXPECT_EQ(result.exit_code, code) << arguments << "\n" << result.err;
  EXPECT_EQ(lines(result.err), 1) << arguments << "\n" << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << arguments << "\n" << result.err;
  EXPECT_NE(result.err.find("error"), std::string::npos) << result.err;
}

TEST(Cli, HelpOnEveryCommand) {
  for (const char* command : {"--help", "info --help", "list --help", "verify --help", "bench --help", "roofline --help",
                              "render --help"}) {
    const outcome result = swath(command);
    EXPECT_EQ(result.exit_code, 0) << command;
    EXPECT_NE(result.out.find("Usage"), std::string::npos) << command << result.out;
  }
  EXPECT_NE(swath("bench --help").out.find("--size"), std::string::npos);
}

TEST(Cli, BadSizesAreOneLineErrors) {
  expect_one_line_error("bench elementwise --device cpu --size 0", 2, "'0'");
  expect_one_line_error("bench elementwise --device cpu --size -5", 2, "-5");
  expect_one_line_error("bench elementwise --device cpu --size abc", 2, "abc");
  expect_one_line_error("bench elementwise --device cpu --size 99999999999999999999999", 2, "too large");
  expect_one_line_error("bench elementwise --device cpu --size 2^99", 2, "2^99");
  expect_one_line_error("verify elementwise --device cpu --size 10x0", 2, "10x0");
}

TEST(Cli, UnknownNamesAreOneLineErrors) {
  expect_one_line_error("bench nosuchfamily --device cpu", 2, "unknown family 'nosuchfamily'");
  expect_one_line_error("list nosuchfamily", 2, "unknown family");
  expect_one_line_error("bench elementwise --device cpu --variants 'nothing*'", 2, "no cpu variant matches");
  expect_one_line_error("bench elementwise --device tpu", 2, "tpu");
  expect_one_line_error("bench elementwise --device cpu --reps 0", 2, "reps");
  expect_one_line_error("frobnicate", 2, "frobnicate");
}

TEST(Cli, CudaWithoutAGpuIsAOneLineError) {
  if (swath::testing::gpu_present()) GTEST_SKIP() << "a GPU is present";
  expect_one_line_error("bench elementwise --device cuda", 2, "--device cuda");
}

TEST(Cli, TuneNamesWhatItCannotDo) {
  expect_one_line_error("tune stencil", 2, "has no tuner");
  expect_one_line_error("tune gemm --json every.json", 2, "--json goes with --dispatch");
  if (!swath::testing::gpu_present()) expect_one_line_error("tune gemm", 2, "--device cuda");
}

TEST(Cli, OutOfMemoryIsAOneLineErrorAndLeavesNoResultFile) {
  const fs::path json = scratch_directory() / "oom.json";
  fs::remove(json);
  expect_one_line_error("bench elementwise --device cpu --quick-ceilings --size 2^50 --json " + json.string(), 3,
                        "needs");
  EXPECT_FALSE(fs::exists(json));
  EXPECT_FALSE(fs::exists(json.string() + ".partial"));
  if (swath::testing::gpu_present()) {
    expect_one_line_error("bench elementwise --device cuda --quick-ceilings --size 2^45 --json " + json.string(), 3,
                          "device has");
    EXPECT_FALSE(fs::exists(json));
  }
}

TEST(Cli, BenchWritesJsonCsvAndMarkdown) {
  const fs::path dir = scratch_directory();
  const outcome result = swath("bench elementwise --device cpu --quick-ceilings --quiet --reps 3 --warmup 1 --size 1001 "
                               "--size 33x17 --json " + (dir / "r.json").string() + " --csv " + (dir / "r.csv").string() +
                               " --md " + (dir / "r.md").string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("elementwise/cpu/02_vecadd_openmp"), std::string::npos);
  const auto json = nlohmann::json::parse(slurp(dir / "r.json"));
  EXPECT_EQ(json.at("schema"), "swath-bench/1");
  EXPECT_EQ(json.at("options").at("repetitions"), 3);
  EXPECT_FALSE(json.at("rows").empty());
  EXPECT_NE(slurp(dir / "r.csv").find("elementwise/cpu/01_vecadd_serial"), std::string::npos);
  EXPECT_NE(slurp(dir / "r.md").find("| variant |"), std::string::npos);
}

TEST(Cli, VerifyAndListAndInfo) {
  const outcome verify = swath("verify elementwise --device cpu --quiet --size 1025 --size 127x1029");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_NE(verify.out.find("ok"), std::string::npos);
  const outcome list = swath("list elementwise");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("elementwise/cpu/01_vecadd_serial"), std::string::npos);
  const outcome info = swath("info");
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_NE(info.out.find("CPU"), std::string::npos);
}

}  // namespace

namespace {

TEST(Cli, RenderWritesAPngAndCountsRays) {
  const fs::path dir = scratch_directory();
  const fs::path png = dir / "spheres.png", json = dir / "spheres.json";
  const outcome result = swath("render --scene spheres --device cpu --width 64 --height 37 --spp 2 -q --out " + png.string() +
                               " --json " + json.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
  EXPECT_NE(result.out.find("rays/s"), std::string::npos) << result.out;
  const auto record = nlohmann::json::parse(slurp(json));
  // 64 x 37 x 2 camera rays, plus at most two shadow rays (two lights) per hit.
  EXPECT_GE(record["rays"].get<double>(), 64.0 * 37 * 2);
  EXPECT_LE(record["rays"].get<double>(), 64.0 * 37 * 2 * 3);
  EXPECT_EQ(record["variant"], "raytracer/cpu/02_bvh_sah");
}

TEST(Cli, RenderErrorsNameTheProblem) {
  const fs::path dir = scratch_directory();
  const fs::path bad = dir / "bad.json";
  std::ofstream(bad) << R"({"camera": {"position": [0, 0, 5], "look_at": [0, 0, 0]}, "materials": [{}],
                          "spheres": [{"center": [0, 0, 0], "radius": "big"}]})";
  expect_one_line_error("render --device cpu --scene " + bad.string(), 2, "spheres[0].radius: expected a number");
  expect_one_line_error("render --device cpu --scene no-such-scene", 2, "cannot read the scene file");
  expect_one_line_error("render --device cpu --scene seed --variant raytracer/cpu/99_none", 2, "unknown raytracer variant");
  expect_one_line_error("render --device cpu --scene spheres --spheres 10", 2, "no \"random\" generator");
  expect_one_line_error("render --device cpu --scene seed --out /nonexistent/dir/x.png -q --width 8 --height 8", 2, "cannot write");
}

}  // namespace
