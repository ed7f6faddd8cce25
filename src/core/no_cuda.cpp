// The CUDA entry points of a CPU-only build: each says plainly that this build has no CUDA backend.
#include "cuda_glue.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"

namespace swath {
namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw usage_error(std::string(what) + ": this build of swath has no CUDA backend (nvcc was not found at configure time)");
}
}  // namespace

bool cuda_built() { return false; }
std::optional<gpu_info> query_gpu(std::string* why_not) {
  if (why_not != nullptr) *why_not = "this build of swath has no CUDA backend";
  return std::nullopt;
}
std::int64_t gpu_free_memory_bytes() { return 0; }
void device_synchronize() {}
void zero_device(void*, std::size_t, void*) { no_cuda("device memset"); }
std::vector<double> time_on_device(const std::function<void(int)>&, int, int, void*) { no_cuda("device timing"); }
void fill_random_device(float*, std::int64_t, std::uint64_t, void*) { no_cuda("device fill"); }
void poison_device(float*, std::int64_t, void*) { no_cuda("device poison"); }
void poison_device(double*, std::int64_t, void*) { no_cuda("device poison"); }

namespace detail {
void* cuda_allocate(memory_kind kind, std::size_t) { no_cuda(kind == memory_kind::device ? "device memory" : "pinned memory"); }
void cuda_free(memory_kind, void*) noexcept {}
void cuda_copy(void*, const void*, std::size_t, bool, bool) { no_cuda("device copy"); }
}  // namespace detail
}  // namespace swath
