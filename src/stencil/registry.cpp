// The stencil registry: every step, in the order a reader should meet them. The CLI, the tests and
// the benchmarks all iterate this table.
#include "policies.hpp"
#include "steps.hpp"

namespace swath::stencil {
namespace {

constexpr double tolerance = float_tolerance;

using enum backend;
using enum ceiling_kind;
using enum traversal;

// The traversal steps' settings, schedule_settings, are declared in policies.hpp.

// clang-format off
const variant table[] = {
  {{"stencil/cpu/01_naive",         cpu, "row-major, one core",                                    "stencil",   tolerance, false, host_memory_one_core, schedule_settings}, row_major, false, any_2d_stencil, cpu::naive, stencil_work},
  {{"stencil/cpu/02_tiled",         cpu, "square tiles sized to the cache, one core",              "stencil",   tolerance, false, host_memory_one_core, schedule_settings}, tiled, false, any_2d_stencil, cpu::tiled, stencil_work},
  {{"stencil/cpu/03_column",        cpu, "column schedule, width from the cache model, one core",  "stencil",   tolerance, false, host_memory_one_core, schedule_settings}, column, false, any_2d_stencil, cpu::column, stencil_work},
  {{"stencil/cpu/04_zigzag",        cpu, "zigzag columns (boustrophedon rows), one core",          "stencil",   tolerance, false, host_memory_one_core, schedule_settings}, zigzag, false, any_2d_stencil, cpu::zigzag, stencil_work},
  {{"stencil/cpu/05_naive_openmp",  cpu, "row-major, rows split among OpenMP threads",             "stencil",   tolerance, false, host_memory, schedule_settings},          row_major, true, any_2d_stencil, cpu::naive_openmp, stencil_work},
  {{"stencil/cpu/06_tiled_openmp",  cpu, "tiles split among OpenMP threads",                       "stencil",   tolerance, false, host_memory, schedule_settings},          tiled, true, any_2d_stencil, cpu::tiled_openmp, stencil_work},
  {{"stencil/cpu/07_column_openmp", cpu, "threads share each column, rows dealt round-robin",      "stencil",   tolerance, false, host_memory, schedule_settings},          column, true, any_2d_stencil, cpu::column_openmp, stencil_work},
  {{"stencil/cpu/08_zigzag_openmp", cpu, "threads share each zigzag column",                       "stencil",   tolerance, false, host_memory, schedule_settings},          zigzag, true, any_2d_stencil, cpu::zigzag_openmp, stencil_work},
  {{"stencil/cpu/09_openmp_3d",     cpu, "2D or 3D, (z, y) rows split among OpenMP threads",      "stencil", tolerance, false, host_memory},             row_major, true, any_dense_stencil, cpu::openmp_3d, stencil_work},
#if SWATH_WITH_CUDA
  {{"stencil/cuda/01_naive",          cuda, "one thread per point, taps from global memory",        "stencil", tolerance, false, device_memory}, row_major, false, any_stencil, cuda::naive, stencil_work},
  {{"stencil/cuda/02_smem_tiled",     cuda, "8^3 input tile in shared memory, 6^3 threads compute", "stencil", tolerance, false, device_memory}, row_major, false, seven_point_3d, cuda::smem_tiled, stencil_work},
  {{"stencil/cuda/03_coarsened",      cuda, "32x32 block marches z, 3 planes in shared memory",     "stencil", tolerance, false, device_memory}, row_major, false, seven_point_3d, cuda::coarsened, stencil_work},
  {{"stencil/cuda/04_register_tiled", cuda, "as 03, planes above and below in registers",           "stencil", tolerance, false, device_memory}, row_major, false, seven_point_3d, cuda::register_tiled, stencil_work},
  {{"stencil/cuda/05_streaming",      cuda, "generic: every thread computes, z queue in registers", "stencil", tolerance, false, device_memory}, row_major, false, any_stencil, cuda::streaming, stencil_work},
  {{"stencil/cuda/06_async_planes",   cuda, "generic: planes copied ahead into shared memory (cp.async)", "stencil", tolerance, false, device_memory}, row_major, false, any_stencil, cuda::async_planes, stencil_work},
  {{"stencil/cuda/07_vector_planes",  cuda, "stars: as 06 with 16-byte copies, 4 floats per thread",  "stencil", tolerance, false, device_memory}, row_major, false, any_star, cuda::vector_planes, stencil_work},
  {{"stencil/cuda/08_tma_planes",     cuda, "3D stars: tiles by the copy engine (TMA), 8 warps fed by 1", "stencil", tolerance, false, device_memory}, row_major, false, aligned_star_3d, cuda::tma_planes, stencil_work},
  {{"stencil/cuda/09_plane_pairs",    cuda, "3D stars, radius 3-4: as 08, two output planes a step", "stencil", tolerance, false, device_memory}, row_major, false, aligned_wide_star_3d, cuda::plane_pairs, stencil_work},
  {{"stencil/cuda/10_box_planes",     cuda, "boxes: each plane's taps summed once into the 2r+1 output planes it feeds", "stencil", tolerance, false, device_memory, box_planes_settings}, row_major, false, any_box, cuda::box_planes, stencil_work},
  {{"stencil/cuda/11_star_planes",    cuda, "stars on step 10's march: each plane's taps into the 2r+1 output planes it feeds", "stencil", tolerance, false, device_memory, box_planes_settings}, row_major, false, any_star, cuda::star_planes, stencil_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> steps() { return table; }


}  // namespace swath::stencil
