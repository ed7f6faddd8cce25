// The ray tracer registry: every step, in the order a reader should meet them. The CLI, the tests and
// the benchmarks all iterate this table. Tolerance: the root-mean-square difference of the RGB values
// (clamped to [0, 1]) from the CPU reference, 0.01 = a PSNR of 40 dB.
#include "steps.hpp"

namespace swath::raytracer {
namespace {

using enum backend;
using enum ceiling_kind;
constexpr double psnr_40db = 0.01;

// clang-format off
const variant table[] = {
  {{"raytracer/cpu/01_brute_force",      cpu,  "every ray tests every sphere, OpenMP over pixels",                       "render", psnr_40db, false, none}, any_scene,  cpu::prepare_brute_force},
  {{"raytracer/cpu/02_bvh_sah",          cpu,  "binned-SAH BVH built on the host, stack traversal (the reference)",      "render", psnr_40db, false, none}, any_scene,  cpu::prepare_bvh_sah},
#if SWATH_WITH_CUDA
  {{"raytracer/cuda/01_ortho_global",    cuda, "the seed's kernel: orthographic, spheres in global memory, brute force", "render", psnr_40db, false, none}, seed_model, cuda::prepare_ortho_global},
  {{"raytracer/cuda/02_ortho_constant",  cuda, "the seed's second kernel: the spheres in constant memory",                "render", psnr_40db, false, none}, cuda::fits_constant_memory, cuda::prepare_ortho_constant},
  {{"raytracer/cuda/03_shaded",          cuda, "perspective, Phong, hard shadows, stratified AA; brute force",           "render", psnr_40db, false, none}, any_scene,  cuda::prepare_shaded},
  {{"raytracer/cuda/04_split_spheres",   cuda, "geometry apart from materials (one 16-byte load a test), launch bounds", "render", psnr_40db, false, none}, any_scene,  cuda::prepare_split_spheres},
  {{"raytracer/cuda/05_lbvh",            cuda, "LBVH built on the GPU (Morton codes, CUB radix sort), stack traversal",  "render", psnr_40db, false, none}, any_scene,  cuda::prepare_lbvh},
  {{"raytracer/cuda/06_bvh_sah",         cuda, "step 05's traversal over the host's binned-SAH tree",                    "render", psnr_40db, false, none}, any_scene,  cuda::prepare_bvh_sah},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> steps() { return table; }

}  // namespace swath::raytracer
