// The lab's histogram rows: the library's steps (registry.cpp), the vendor baseline, and
// swath::histogram::count itself as the "auto" rows.
#include "steps.hpp"
#include "swath/bench/lab_table.hpp"
#include "swath/lab/histogram.hpp"

namespace swath::histogram {
namespace {

using enum backend;
using enum ceiling_kind;

// The library call takes bytes (256 bins over [0, 256)) or int32 and float samples with any bins.
support library_histogram(const problem& p) {
  if (p.type == sample_type::u8 && !p.byte_fast_path()) return support::no("bytes are counted in 256 bins over [0, 256)");
  return support::yes();
}

void library_count(const problem& p, const operands& x, const launch_context& launch) {
  const auto stream = static_cast<stream_t>(launch.stream);
  switch (p.type) {
    case sample_type::u8: count(static_cast<const std::uint8_t*>(x.samples), p.n, x.counts, stream); return;
    case sample_type::i32: count(static_cast<const std::int32_t*>(x.samples), p.n, p.bins, p.lo, p.hi, x.counts, stream); return;
    case sample_type::f32: count(static_cast<const float*>(x.samples), p.n, p.bins, p.lo, p.hi, x.counts, stream); return;
  }
}

// clang-format off
const variant lab_rows[] = {
  {{"histogram/cpu/auto",        cpu,  "swath::histogram::count on host memory",    "histogram", 0, false, host_memory},        library_histogram, library_count, histogram_work},
#if SWATH_WITH_CUDA
  {{"histogram/cuda/auto",       cuda, "swath::histogram::count on device memory",  "histogram", 0, false, device_memory_read}, library_histogram, library_count, histogram_work},
  {{"histogram/cuda/vendor_cub", cuda, "CUB: DeviceHistogram::HistogramEven",       "histogram", 0, true,  device_memory_read}, byte_histogram, cuda::cub_histogram_even, histogram_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> variants() {
  static const std::vector<variant> all = bench::join_rows(steps(), lab_rows);
  return all;
}
const variant& find_variant(std::string_view name) { return find_in_table(variants(), "histogram", name); }

}  // namespace swath::histogram
