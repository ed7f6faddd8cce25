// GPU-only checks of the core: device fill equals host fill bit for bit, the device poison is seen by
// the check, and buffers on the device and pinned host round-trip.
#include <gtest/gtest.h>

#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
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

}  // namespace
}  // namespace swath
