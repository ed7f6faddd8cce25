// The histogram registry: every step, in the order a reader should meet them.
// The CLI, the tests and the benchmarks all iterate this table. Counts are exact: tolerance 0.
#include "steps.hpp"

namespace swath::histogram {
namespace {

using enum backend;
using enum ceiling_kind;

// clang-format off
const variant table[] = {
  {{"histogram/cpu/01_serial",           cpu,  "one core, one histogram",                                  "histogram", 0, false, host_memory_one_core}, any_histogram,  cpu::serial,              histogram_work},
  {{"histogram/cpu/02_openmp",           cpu,  "OpenMP threads with private histograms, merged",           "histogram", 0, false, host_memory},          any_histogram,  cpu::openmp,              histogram_work},
#if SWATH_WITH_CUDA
  {{"histogram/cuda/01_global_atomic",   cuda, "the seed's kernel: atomicAdd on the global counts",        "histogram", 0, false, device_memory_read},   any_histogram,  cuda::global_atomic,      histogram_work},
  {{"histogram/cuda/02_shared_privatized", cuda, "one histogram per block in shared memory, merged",       "histogram", 0, false, device_memory_read},   shared_counters, cuda::shared_privatized,  histogram_work},
  {{"histogram/cuda/03_coarsened",       cuda, "16-byte loads, many per thread, a grid sized to the SMs",  "histogram", 0, false, device_memory_read},   byte_histogram, cuda::coarsened,          histogram_work},
  {{"histogram/cuda/04_warp_private",    cuda, "one histogram per warp: contention only within a warp",    "histogram", 0, false, device_memory_read},   byte_histogram, cuda::warp_private,       histogram_work},
  {{"histogram/cuda/05_run_aggregated",  cuda, "as 04, equal neighbouring bytes summed before the atomic", "histogram", 0, false, device_memory_read},   byte_histogram, cuda::run_aggregated,     histogram_work},
  {{"histogram/cuda/06_bank_spread",     cuda, "32 copies, lane = bank: no conflict on any input",         "histogram", 0, false, device_memory_read},   byte_histogram, cuda::bank_spread,        histogram_work},
  {{"histogram/cuda/07_host_input",     cuda, "bytes in pinned host memory: 64 MiB chunks copied and counted in turn", "histogram", 0, false, host_to_device}, byte_histogram, cuda::host_input,   histogram_work, true},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> steps() { return table; }

}  // namespace swath::histogram
