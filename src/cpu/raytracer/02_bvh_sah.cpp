// CPU step 02: the binned-SAH BVH (src/raytracer/sah_build.cpp), built once per scene, traversed with
// the same code as the GPU's tree steps. O(rays · log spheres): the reference renderer of the tests
// and of the benchmark's checks.
#include "raytracer_cpu.hpp"
#include "swath/core/error.hpp"

namespace swath::raytracer::cpu {
namespace {

class bvh_renderer final : public renderer {
 public:
  explicit bvh_renderer(const problem& p)
      : scene_(p.scene_data),
        tree_(sah_tree_of(p.scene_data)),
        params_(params_of(*scene_, p.settings, scene_->materials.data(), scene_->lights.data())) {}

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    const bvh_access access{tree_->tree.nodes.data(), tree_->spheres.data(), tree_->materials.data(),
                            static_cast<int>(tree_->spheres.size()), &overflow_};
    trace_rows_on_host(access, params_, target, first_row, last_row);
  }

  void check_traversal() override {
    SWATH_EXPECTS(overflow_ == 0, "a BVH traversal ran out of stack (tree deeper than traversal_stack_depth)");
  }

 private:
  std::shared_ptr<const scene> scene_;
  std::shared_ptr<const ordered_tree> tree_;
  render_params params_;
  int overflow_ = 0;
};

}  // namespace

std::unique_ptr<renderer> prepare_bvh_sah(const problem& p, const launch_context&) {
  return std::make_unique<bvh_renderer>(p);
}

}  // namespace swath::raytracer::cpu
