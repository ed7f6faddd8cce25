// Step 02, the seed's second kernel: the same loop with the spheres in constant memory. The seed saw
// rendering time fall by 30%.
//
// Why it can help: all 32 threads of a warp read the same sphere, and the constant cache serves a
// warp-uniform address in one transaction from a cache next to the SM, with no load/store unit
// instruction per component. On Hopper the L1 also broadcasts a uniform global load, so the expected
// gain is smaller than the seed's; the prediction is 0-30% on the loop itself, and nothing visible at
// the seed's size (launch-bound, see step 01). Limit: 64 KiB of constants, 2048 spheres of 28 bytes
// (56 KiB); bigger scenes are refused (fits_constant_memory).
#include "raytracer_cuda.cuh"

namespace swath::raytracer::cuda {
namespace {

__constant__ seed_sphere constant_spheres[constant_sphere_limit];

struct constant_spheres_access {
  __device__ seed_sphere at(int i) const { return constant_spheres[i]; }
};

class ortho_constant_renderer final : public renderer {
 public:
  ortho_constant_renderer(const problem& p, const launch_context& launch) : tables_(p), stream_(stream_of(launch)) {
    const std::vector<seed_sphere> spheres = seed_spheres_of(p);
    count_ = static_cast<int>(spheres.size());
    SWATH_EXPECTS(count_ <= constant_sphere_limit, "step 02 holds at most 2048 spheres in constant memory");
    if (count_ > 0) {
      SWATH_CUDA_CHECK(cudaMemcpyToSymbol(constant_spheres, spheres.data(), sizeof(seed_sphere) * spheres.size()));
    }
  }

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    launch_seed(constant_spheres_access{}, count_, tables_.params(), target, first_row, last_row, stream_);
  }

 private:
  device_tables tables_;
  int count_ = 0;
  cudaStream_t stream_;
};

}  // namespace

support fits_constant_memory(const problem& p) {
  if (const support seed = seed_model(p); !seed.ok()) return seed;
  if (p.scene_data->spheres.size() > static_cast<std::size_t>(constant_sphere_limit)) {
    return support::no("at most 2048 spheres fit in constant memory");
  }
  return support::yes();
}

std::unique_ptr<renderer> prepare_ortho_constant(const problem& p, const launch_context& launch) {
  return std::make_unique<ortho_constant_renderer>(p, launch);
}

}  // namespace swath::raytracer::cuda
