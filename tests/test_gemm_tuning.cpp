// The tuner's file: what it writes is what policy=auto reads back, the nearest tuned size decides, and
// a file that names a policy the kernel cannot run, or is malformed, is refused with its field named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "swath/core/error.hpp"
#include "swath/lab/gemm_tuning.hpp"

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

}  // namespace
}  // namespace swath::gemm
