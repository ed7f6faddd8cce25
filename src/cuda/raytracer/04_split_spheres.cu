// Step 04, speed (the seed's plan 5.2): the spheres split by use. The loop over spheres needs only the
// geometry, now one 16-byte value per sphere (centre, radius) read with one 128-bit read-only load;
// the material index, needed once per hit, moves to its own array. And __launch_bounds__(128, 8):
// the compiler must fit 8 blocks of 128 threads per SM, at most 64 registers a thread, for full
// occupancy (2048 threads).
//
// Prediction: the loads per test fall from 5 to 1 (the loop is ~25 instructions, so ~15% fewer
// instructions), and the test itself is unchanged: ~10-20% more rays/s than step 03 on scenes whose
// spheres do not fit in L1 (100,000 spheres: 2 MB of records, 1.6 MB of geometry).
#include "raytracer_cuda.cuh"

namespace swath::raytracer::cuda {
namespace {

inline constexpr int full_occupancy_blocks = 2048 / trace_threads;  // 16 blocks of 128: Hopper's 2048 threads per SM
inline constexpr int bounded_blocks = 8;                              // at most 64 registers a thread

using split_access = brute_force_access<split_spheres>;
static_assert(bounded_blocks <= full_occupancy_blocks, "launch bounds beyond what an SM holds");

class split_renderer final : public renderer {
 public:
  split_renderer(const problem& p, const launch_context& launch)
      : tables_(p),
        spheres_(upload(p.scene_data->spheres)),
        materials_(upload(p.scene_data->sphere_materials)),
        stream_(stream_of(launch)) {}

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    launch_trace<split_access, bounded_blocks>(split_access{{spheres_.data(), materials_.data(), static_cast<int>(spheres_.size())}},
                                               tables_.params(), target, first_row, last_row, stream_);
  }

 private:
  device_tables tables_;
  buffer<sphere_geometry> spheres_;
  buffer<int> materials_;
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<renderer> prepare_split_spheres(const problem& p, const launch_context& launch) {
  return std::make_unique<split_renderer>(p, launch);
}

}  // namespace swath::raytracer::cuda
