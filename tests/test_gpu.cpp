// GPU-only checks of the core: device fill equals host fill bit for bit, the device poison is seen by
// the check, buffers on the device and pinned host round-trip, and the device timer times the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"
#include "swath/lab/elementwise.hpp"
#include "test_support.hpp"

namespace swath {
namespace {

TEST(GpuDevice, ReportsItsProperties) {
  SWATH_SKIP_WITHOUT_GPU();
  const auto gpu = query_gpu();
  EXPECT_FALSE(gpu->name.empty());
  EXPECT_GT(gpu->sm_count, 0);
  EXPECT_GT(gpu->l2_bytes, 0);
  EXPECT_GT(gpu->sm_clock_khz, 0);
}

TEST(GpuRandom, DeviceFillEqualsHostFillBitForBit) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = testing::fresh_seed();
  const std::size_t n = 1000003;
  buffer<float> device(memory_kind::device, n);
  buffer<float> back(memory_kind::pinned_host, n);
  buffer<float> host(memory_kind::host, n);
  fill_random_device(device.data(), static_cast<std::int64_t>(n), seed);
  fill_random(host.data(), static_cast<std::int64_t>(n), seed);
  copy_bytes(back.data(), back.kind(), device.data(), device.kind(), device.bytes());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(back.data()[i], host.data()[i]) << "index " << i << " seed " << seed;
}

TEST(GpuPoison, ADoNothingKernelIsCaught) {
  SWATH_SKIP_WITHOUT_GPU();
  using namespace elementwise;
  const variant nothing{{"elementwise/cuda/broken", backend::cuda, "writes nothing", "vector_add", 1e-6, false,
                         ceiling_kind::device_memory},
                        operation::vector_add, memory_kind::host, any_size,
                        [](const problem&, const operands&, const launch_context&) {}, add_work};
  const auto result = testing::check_once(make_trial(nothing, {operation::vector_add, 1, 4099, 4099}, testing::fresh_options()));
  EXPECT_FALSE(result.passed());
  EXPECT_EQ(result.unwritten, 4099);
}

TEST(GpuBuffers, OutOfDeviceMemoryIsAnException) {
  SWATH_SKIP_WITHOUT_GPU();
  EXPECT_THROW(buffer<float>(memory_kind::device, std::size_t{1} << 50), out_of_memory_error);
}

// A body whose host side (2 ms) outlasts its GPU work (a fill of 4 MiB, a few µs) is timed by its
// GPU work: the stream is held until every repetition is queued. Unheld, each repetition's events
// would be 2 ms apart; the bound below leaves a factor of 10 either way.
TEST(GpuTiming, TheDeviceTimerTimesTheGpuNotTheHost) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = testing::fresh_seed();
  buffer<float> data(memory_kind::device, std::size_t{1} << 20);
  const auto body = [&](int rep) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    fill_random_device(data.data(), static_cast<std::int64_t>(data.size()), seed + static_cast<std::uint64_t>(rep));
  };
  const std::vector<double> seconds = time_on_device(body, 1, 9);
  ASSERT_EQ(seconds.size(), 9u) << "seed " << seed;
  for (const double s : seconds) EXPECT_GT(s, 0.0);
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_LT(sorted[4], 0.2e-3) << "the median repetition took " << sorted[4] * 1e3 << " ms: the host's 2 ms";
}

// A body that waits for the device inside the held queue would wait for the hold itself: the hold lets
// go on its own (0.1 s), and the repetitions are timed again unheld, none of them including that wait.
TEST(GpuTiming, ABodyThatWaitsOnTheDeviceIsTimedUnheld) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = testing::fresh_seed();
  buffer<float> data(memory_kind::device, std::size_t{1} << 20);
  const auto body = [&](int rep) {
    fill_random_device(data.data(), static_cast<std::int64_t>(data.size()), seed + static_cast<std::uint64_t>(rep));
    device_synchronize();
  };
  const std::vector<double> seconds = time_on_device(body, 0, 5);
  ASSERT_EQ(seconds.size(), 5u) << "seed " << seed;
  for (const double s : seconds) {
    EXPECT_GT(s, 0.0);
    EXPECT_LT(s, 0.05) << "a repetition includes the hold's 0.1 s";
  }
}

}  // namespace
}  // namespace swath
