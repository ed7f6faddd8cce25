// The iterated stencil's registry (the iterate family): every step, in reading order. The CLI, the
// tests and the benchmarks all iterate this table; the lab adds the library call's rows
// (iterate_family.cpp).
#include "iterate.hpp"
#include "steps.hpp"

namespace swath::stencil {
namespace {

// A sweep's float error is within its taps' n ε of exact; errors of earlier sweeps carry through with a
// gain of at most Σ|w| (1 for the suite's averaging weights), so T sweeps are within T n ε: the family's
// check multiplies the row's tolerance by T (iterate_family.cpp).
constexpr double tolerance = float_tolerance;

using enum backend;
using enum ceiling_kind;

// clang-format off
const iterated_variant table[] = {
  {{"iterate/cpu/01_sweeps",          cpu,  "T sweeps of swath::stencil::apply (the single-sweep reference)", "iterate", tolerance, false, host_memory},                     any_iterated, repeated_sweeps, iterated_work},
  {{"iterate/cpu/02_skewed_columns",  cpu,  "2D: d sweeps per pass in time-skewed column bands, all cores",  "iterate", tolerance, false, host_memory, skewed_settings},    skewable, cpu::skewed_columns, iterated_work},
  {{"iterate/cpu/03_skewed_slabs",    cpu,  "3D: as 02 with slabs of rows streamed along z, all cores",      "iterate", tolerance, false, host_memory, skewed_settings},    skewable_3d, cpu::skewed_slabs, iterated_work},
#if SWATH_WITH_CUDA
  {{"iterate/cuda/01_sweeps",         cuda, "T sweeps of swath::stencil::apply (the single-sweep reference)", "iterate", tolerance, false, device_memory},                   any_iterated, repeated_sweeps, iterated_work},
  {{"iterate/cuda/02_fused_planes",   cuda, "L sweeps per pass: 2.5D tiles march z, every sweep on chip",     "iterate", tolerance, false, device_memory, fused_settings},   fusable_on_gpu, cuda::fused_planes, iterated_work},
  {{"iterate/cuda/03_register_rows",  cuda, "3D stars r 1-2: as 02, 4 rows a thread, x taps by shuffles",     "iterate", tolerance, false, device_memory, fused_settings},   rows_on_gpu, cuda::register_rows, iterated_work},
  {{"iterate/cuda/04_unrolled_march", cuda, "3D stars r 1-2: as 02, the depth compiled in, queues renamed, idle halo warps", "iterate", tolerance, false, device_memory, fused_settings}, marches_on_gpu, cuda::unrolled_march, iterated_work},
  {{"iterate/cuda/05_one_barrier_a_step", cuda, "3D stars r 1-2: as 04, sweeps r + 1 planes apart, one barrier a step", "iterate", tolerance, false, device_memory, fused_settings}, marches_on_gpu, cuda::one_barrier_a_step, iterated_work},
  {{"iterate/cuda/06_four_row_march", cuda, "3D stars r 1-2: as 04, 4 rows a thread (32 x 8 threads a block)", "iterate", tolerance, false, device_memory, fused_settings}, marches_on_gpu, cuda::four_row_march, iterated_work},
  {{"iterate/cuda/07_warp_strips",    cuda, "2D stars r 1-2: a warp a strip of 128 columns, sweeps in registers, no barrier", "iterate", tolerance, false, device_memory, fused_settings}, strips_on_gpu, cuda::warp_strips, iterated_work},
  {{"iterate/cuda/08_stacked_strips", cuda, "3D stars r 1-2: 07's strips stacked in y, 16 warps a 128 x 32 tile, planes in shared rings, one barrier a step", "iterate", tolerance, false, device_memory, fused_settings}, stacks_on_gpu, cuda::stacked_strips, iterated_work},
  {{"iterate/cuda/09_cluster_halos",  cuda, "3D stars r 1-2: 08's tiles stacked in y as a thread-block cluster, halo rows handed through distributed shared memory", "iterate", tolerance, false, device_memory, cluster_settings}, stacks_on_gpu, cuda::cluster_halos, iterated_work},
#endif
};
// clang-format on

}  // namespace

std::span<const iterated_variant> iterated_steps() { return table; }

}  // namespace swath::stencil
