// swath::raytracer::render and make_scene: validate, place (by where the pixels are), build the tree,
// trace the frame on the caller's stream or the CPU's threads.
#include <cstdint>
#include <memory>

#include "../raytracer/steps.hpp"
#include "placement.hpp"
#if SWATH_WITH_CUDA
#include <cuda_runtime.h>

#include "../cuda/core/per_device.cuh"
#endif

namespace swath::raytracer {
namespace {

constexpr const char* render_name = "swath::raytracer::render";

void check_scene(const char* f, const scene& s) {
  api::require(s.sphere_materials.size() == s.spheres.size(), f,
               "the scene has " + std::to_string(s.spheres.size()) + " spheres and " +
                   std::to_string(s.sphere_materials.size()) + " material indices (one per sphere)");
  for (std::size_t i = 0; i < s.spheres.size(); ++i) {
    const int m = s.sphere_materials[i];
    api::require(m >= 0 && static_cast<std::size_t>(m) < s.materials.size(), f,
                 "sphere_materials[" + std::to_string(i) + "] = " + std::to_string(m) + " is not a material index (" +
                     std::to_string(s.materials.size()) + " materials)");
    api::require(s.spheres[i].radius > 0, f, "spheres[" + std::to_string(i) + "].radius must be positive");
  }
}

}  // namespace

scene make_scene(std::span<const sphere_geometry> spheres, std::span<const int> sphere_materials,
                 std::span<const material> materials, std::span<const light> lights, const camera_spec& camera,
                 vec3 background) {
  scene s;
  s.name = "arrays";
  s.camera = camera;
  s.spheres.assign(spheres.begin(), spheres.end());
  s.sphere_materials.assign(sphere_materials.begin(), sphere_materials.end());
  s.materials.assign(materials.begin(), materials.end());
  s.lights.assign(lights.begin(), lights.end());
  s.background = background;
  check_scene("swath::raytracer::make_scene", s);
  return s;
}

void render(const scene& s, const render_settings& settings, rgba* pixels, stream_t stream) {
  const char* f = render_name;
  api::require(pixels != nullptr, f, "pixels is null");
  api::require(settings.width >= 1 && settings.height >= 1, f,
               "the image is " + std::to_string(settings.width) + " x " + std::to_string(settings.height) +
                   ": width and height must be at least 1");
  api::require(settings.samples >= 1, f, "samples = " + std::to_string(settings.samples) + " must be at least 1");
  api::require(!s.spheres.empty(), f, "the scene has no spheres");
  check_scene(f, s);
  problem p;
  p.scene_data = std::make_shared<const scene>(s);
  p.scene_name = s.name;
  p.settings = settings;
  const api::call_site site = api::place_call(f, {{"pixels", pixels}}, stream);
  if (!site.on_device) {
    // The binned-SAH tree and the same shading as every step (step 02, the reference).
    std::uint64_t rays = 0;
    const std::unique_ptr<renderer> r = cpu::prepare_bvh_sah(p, site.launch);
    r->build();
    r->trace_rows(frame_target{pixels, &rays}, 0, settings.height);
    return;
  }
#if SWATH_WITH_CUDA
  const api::device_scope on_device(site.device);
  const auto cuda_stream = static_cast<cudaStream_t>(site.launch.stream);
  // Step 06: step 05's traversal over the host's binned-SAH tree, 3.2 G rays/s over 10^6 spheres on an
  // H100 (docs/raytracer.md). The renderer holds the scene's device copy; it is kept until the stream
  // has traced the frame.
  std::shared_ptr<renderer> r = cuda::prepare_bvh_sah(p, site.launch);
  std::uint64_t* rays = nullptr;
  SWATH_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&rays), sizeof(std::uint64_t), cuda_stream));
  SWATH_CUDA_CHECK(cudaMemsetAsync(rays, 0, sizeof(std::uint64_t), cuda_stream));
  r->build();
  r->trace_rows(frame_target{pixels, rays}, 0, settings.height);
  SWATH_CUDA_CHECK(cudaFreeAsync(rays, cuda_stream));
  swath::cuda::keep_until_done(cuda_stream, std::move(r));
#endif
}

}  // namespace swath::raytracer
