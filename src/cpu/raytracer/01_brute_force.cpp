// CPU step 01: every ray tests every sphere (the seed's loop), OpenMP over pixels. The reference for
// small scenes and the baseline the BVH is measured against; O(rays · spheres).
#include "raytracer_cpu.hpp"

namespace swath::raytracer::cpu {
namespace {

class brute_force_renderer final : public renderer {
 public:
  explicit brute_force_renderer(const problem& p)
      : scene_(p.scene_data), params_(params_of(*scene_, p.settings, scene_->materials.data(), scene_->lights.data())) {}

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    const brute_force_access<split_spheres> access{
        {scene_->spheres.data(), scene_->sphere_materials.data(), static_cast<int>(scene_->spheres.size())}};
    trace_rows_on_host(access, params_, target, first_row, last_row);
  }

 private:
  std::shared_ptr<const scene> scene_;
  render_params params_;
};

}  // namespace

std::unique_ptr<renderer> prepare_brute_force(const problem& p, const launch_context&) {
  return std::make_unique<brute_force_renderer>(p);
}

}  // namespace swath::raytracer::cpu
