// Step 03, image quality (the seed's plan 5.1): a perspective camera, Phong shading, hard shadows (one
// shadow ray per light the surface faces) and stratified anti-aliasing with counter-based jitter, so the
// CPU and the GPU render the same image. Still brute force, the spheres as 20-byte records
// (centre, radius, material) in global memory: this is the general renderer at the seed's speed, the
// baseline for steps 04-06.
//
// Cost against step 01 per pixel: samples × (1 + lights that the hit faces) rays instead of 1, and the
// general ray-sphere test (~20 flops, a square root) instead of the seed's 2D disc test (~8). With
// 4 samples and one light: ~6 rays per pixel, each ~2.5x the seed's test.
#include "raytracer_cuda.cuh"

namespace swath::raytracer::cuda {
namespace {

// One sphere, all its fields together. 20 bytes: not a multiple of 16, so a sphere is five 4-byte loads.
struct sphere_record {
  vec3 center;
  float radius;
  int material;
};

struct record_spheres {
  const sphere_record* spheres = nullptr;
  int count = 0;
  SWATH_HD_INLINE sphere_geometry geometry(int i) const { return {spheres[i].center, spheres[i].radius}; }
  SWATH_HD_INLINE int material_of(int i) const { return spheres[i].material; }
};

class shaded_renderer final : public renderer {
 public:
  shaded_renderer(const problem& p, const launch_context& launch) : tables_(p), stream_(stream_of(launch)) {
    const scene& s = *p.scene_data;
    std::vector<sphere_record> records(s.spheres.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      records[i] = {s.spheres[i].center, s.spheres[i].radius, s.sphere_materials[i]};
    }
    spheres_ = upload(records);
  }

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    launch_trace(brute_force_access<record_spheres>{{spheres_.data(), static_cast<int>(spheres_.size())}}, tables_.params(), target, first_row,
                 last_row, stream_);
  }

 private:
  device_tables tables_;
  buffer<sphere_record> spheres_;
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<renderer> prepare_shaded(const problem& p, const launch_context& launch) {
  return std::make_unique<shaded_renderer>(p, launch);
}

}  // namespace swath::raytracer::cuda
