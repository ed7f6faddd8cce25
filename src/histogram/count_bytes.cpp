// The library call for byte histograms: picks the step for where the bytes are and whether a GPU is
// there, and returns the counts in host memory.
#include <algorithm>

#include "steps.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"

namespace swath::histogram {

void count_bytes(const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts) {
  SWATH_EXPECTS(n >= 0, "count_bytes: n must not be negative");
  SWATH_EXPECTS(counts != nullptr, "count_bytes: counts is null");
  SWATH_EXPECTS(n == 0 || bytes != nullptr, "count_bytes: bytes is null");
  problem p;
  p.n = n;
#if SWATH_WITH_CUDA
  if (const auto gpu = query_gpu()) {
    launch_context launch;
    launch.sm_count = gpu->sm_count;
    buffer<std::uint64_t> device_counts(memory_kind::device, 257);
    const operands io{bytes, device_counts.data()};
    if (n > 0 && cuda::device_accessible(bytes)) {
      cuda::bank_spread(p, io, launch);
    } else {
      cuda::host_input(p, io, launch);
    }
    copy_bytes(counts, memory_kind::host, device_counts.data(), memory_kind::device, device_counts.bytes());
    return;
  }
#endif
  cpu::openmp(p, operands{bytes, counts}, launch_context{});
}

}  // namespace swath::histogram
