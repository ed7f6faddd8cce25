// The elementwise registry: every step, in the order a reader should meet them.
// The CLI (swath list/verify/bench), the tests and the benchmarks all iterate this table.
#include "steps.hpp"

namespace swath::elementwise {
namespace {

// A transfer must reproduce every bit.
constexpr double exact = 0;

using enum backend;
using enum ceiling_kind;
using enum operation;
using enum memory_kind;

// clang-format off
const variant table[] = {
  // name                                    backend summary                                                  problem          tolerance       vendor bound
  {{"elementwise/cpu/01_vecadd_serial",      cpu,  "vector add on one core",                                 "vector_add", add_tolerance, false, host_memory_one_core}, vector_add, host, any_size, cpu::vecadd_serial, add_work},
  {{"elementwise/cpu/02_vecadd_openmp",      cpu,  "vector add on all cores (OpenMP, static chunks)",        "vector_add", add_tolerance, false, host_memory},          vector_add, host, any_size, cpu::vecadd_openmp, add_work},
  {{"elementwise/cpu/03_matadd_openmp",      cpu,  "matrix add, rows shared among OpenMP threads",           "matrix_add", add_tolerance, false, host_memory},          matrix_add, host, any_size, cpu::matadd_openmp, add_work},
#if SWATH_WITH_CUDA
  {{"elementwise/cuda/01_vecadd_single_block",   cuda, "vector add in one 1024-thread block",                   "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_single_block, add_work},
  {{"elementwise/cuda/02_vecadd_many_blocks",    cuda, "one thread per element, 256-thread blocks",             "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_many_blocks, add_work},
  {{"elementwise/cuda/03_vecadd_grid_stride",    cuda, "grid-stride, 1024-thread blocks, ≤16 blocks per SM",    "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_grid_stride, add_work},
  {{"elementwise/cuda/04_vecadd_vectorized",     cuda, "16-byte float4 loads and stores, grid-stride",          "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_vectorized, add_work},
  {{"elementwise/cuda/05_vecadd_in_flight",      cuda, "4 float4 per operand in flight, evict-first, 1 wave",   "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_in_flight, add_work},
  {{"elementwise/cuda/06_vecadd_tile_per_block", cuda, "one 1024-element tile per block, float4, no loop",      "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_tile_per_block, add_work},
  {{"elementwise/cuda/07_vecadd_bulk_copy",      cuda, "TMA bulk copies of 768-element tiles, in and out", "vector_add", add_tolerance, false, device_memory},  vector_add, host, any_size, cuda::vecadd_bulk_copy, add_work},
  {{"elementwise/cuda/08_matadd_2d",             cuda, "matrix add on a 2D grid of 32x8 blocks",                "matrix_add", add_tolerance, false, device_memory},  matrix_add, host, any_size, cuda::matadd_2d, add_work},
  {{"elementwise/cuda/09_matadd_vectorized",     cuda, "matrix add, float4 accesses, a 128x16 tile per block",  "matrix_add", add_tolerance, false, device_memory},  matrix_add, host, any_size, cuda::matadd_vectorized, add_work},
  {{"elementwise/cuda/10_h2d_pageable",          cuda, "host to device copy from pageable memory",              "copy_to_device", exact,     false, host_to_device}, copy_to_device, host, any_size, cuda::copy_to_device, copy_work},
  {{"elementwise/cuda/10_d2h_pageable",          cuda, "device to host copy into pageable memory",              "copy_to_host",   exact,     false, device_to_host}, copy_to_host, host, any_size, cuda::copy_to_host, copy_work},
  {{"elementwise/cuda/11_h2d_pinned",            cuda, "host to device copy from pinned memory",                "copy_to_device", exact,     false, host_to_device}, copy_to_device, pinned_host, any_size, cuda::copy_to_device, copy_work},
  {{"elementwise/cuda/11_d2h_pinned",            cuda, "device to host copy into pinned memory",                "copy_to_host",   exact,     false, device_to_host}, copy_to_host, pinned_host, any_size, cuda::copy_to_host, copy_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> steps() { return table; }


}  // namespace swath::elementwise
