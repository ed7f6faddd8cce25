// Step 01, the seed's baseline: an orthographic camera, the spheres in global memory as an array of
// 28-byte structs (centre, radius, colour), and every ray tests every sphere.
//
// Arithmetic per test: 2 subtractions, 4 multiply-adds, a compare; a square root and a division on a
// hit. Every thread of a warp reads the same sphere at the same time, so the loads are broadcasts that
// the L1 serves after the first warp: the loop is bound by its ~10 instructions per sphere, not by
// memory. Prediction at 1024 × 1024 with 20 spheres: 2^20 pixels · 20 tests · ~10 instructions
// = 2 · 10^8 instructions, ~10 µs of issue on 132 SMs, so launch and the 16 MiB image write
// (~5 µs at 3.5 TB/s) dominate: the seed's scene is too small to show the loop.
#include "raytracer_cuda.cuh"

namespace swath::raytracer::cuda {

std::vector<seed_sphere> seed_spheres_of(const problem& p) {
  const scene& s = *p.scene_data;
  const camera_frame frame = frame_of(s.camera, p.settings.width, p.settings.height);
  const vec3 right = normalize(frame.right), up = normalize(frame.up);
  std::vector<seed_sphere> spheres;
  spheres.reserve(s.spheres.size());
  for (std::size_t i = 0; i < s.spheres.size(); ++i) {
    const vec3 offset = s.spheres[i].center - frame.eye;
    const vec3 colour = s.materials[static_cast<std::size_t>(s.sphere_materials[i])].colour;
    spheres.push_back({dot(offset, right), dot(offset, up), -dot(offset, frame.forward), s.spheres[i].radius, colour.x,
                       colour.y, colour.z});
  }
  return spheres;
}

namespace {

struct global_spheres {
  const seed_sphere* spheres;
  __device__ seed_sphere at(int i) const { return spheres[i]; }
};

class ortho_global_renderer final : public renderer {
 public:
  ortho_global_renderer(const problem& p, const launch_context& launch)
      : tables_(p), spheres_(upload(seed_spheres_of(p))), stream_(stream_of(launch)) {}

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    launch_seed(global_spheres{spheres_.data()}, static_cast<int>(spheres_.size()), tables_.params(), target, first_row,
                last_row, stream_);
  }

 private:
  device_tables tables_;
  buffer<seed_sphere> spheres_;
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<renderer> prepare_ortho_global(const problem& p, const launch_context& launch) {
  return std::make_unique<ortho_global_renderer>(p, launch);
}

}  // namespace swath::raytracer::cuda
