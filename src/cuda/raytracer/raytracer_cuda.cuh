#pragma once
// What the CUDA ray tracer steps share: the scene's small tables on the device, the trace kernel (one
// thread per pixel, render_pixel with the step's scene access), the count of rays cast, and the seed's
// orthographic kernel for steps 01 and 02.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "../../raytracer/steps.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/error.hpp"

namespace swath::raytracer::cuda {

inline cudaStream_t stream_of(const launch_context& launch) { return static_cast<cudaStream_t>(launch.stream); }

template <class T>
buffer<T> upload(const std::vector<T>& values) {
  buffer<T> copy(memory_kind::device, values.size());
  if (!values.empty()) copy_bytes(copy.data(), memory_kind::device, values.data(), memory_kind::host, copy.bytes());
  return copy;
}

// A block is 8 × 16 pixels, so a warp covers an 8 × 4 tile: its rays start close together and, in a
// BVH, visit mostly the same nodes (a 32 × 1 row would spread a warp's rays four times wider).
inline constexpr int tile_width = 8, tile_height = 16;
inline constexpr int trace_threads = tile_width * tile_height;

// Adds a block's rays to the 64-bit counter: one atomic per block. All threads of the block must call
// it. Why per block: the counter is one address, and same-address atomics are served one at a time at
// the L2; one per warp was 32,768 of them for a 1024 x 1024 frame, ~20 us at about one per L2 clock,
// most of the seed scene's 33 us frame. Per block: 8,192.
__device__ inline void count_rays(std::uint32_t rays, std::uint64_t* counter) {
  __shared__ std::uint32_t warp_totals[trace_threads / 32];
  const int thread = static_cast<int>(threadIdx.x + threadIdx.y * blockDim.x);
  const std::uint32_t warp_total = __reduce_add_sync(0xffffffffu, rays);
  if (thread % 32 == 0) warp_totals[thread / 32] = warp_total;
  __syncthreads();
  if (thread == 0) {
    std::uint32_t block_total = 0;
    for (int w = 0; w < trace_threads / 32; ++w) block_total += warp_totals[w];
    if (block_total != 0) atomicAdd(reinterpret_cast<unsigned long long*>(counter), static_cast<unsigned long long>(block_total));
  }
}

// MinBlocks: __launch_bounds__'s second argument, the blocks per SM the register allocation must allow
// (step 04 sets it; 1 leaves the compiler free).
template <class Access, int MinBlocks>
__global__ void __launch_bounds__(trace_threads, MinBlocks)
    trace_kernel(Access scene, render_params params, int first_row, int last_row, rgba* pixels, std::uint64_t* rays) {
  const int x = static_cast<int>(blockIdx.x) * tile_width + static_cast<int>(threadIdx.x);
  const int y = first_row + static_cast<int>(blockIdx.y) * tile_height + static_cast<int>(threadIdx.y);
  std::uint32_t cast = 0;
  if (x < params.width && y < last_row) {
    const pixel_result result = render_pixel(scene, params, x, y);
    pixels[static_cast<std::int64_t>(y) * params.width + x] = {result.colour.x, result.colour.y, result.colour.z, 1.0f};
    cast = result.rays;
  }
  count_rays(cast, rays);
}

inline dim3 trace_grid(int width, int rows) {
  return dim3(static_cast<unsigned>((width + tile_width - 1) / tile_width),
              static_cast<unsigned>((rows + tile_height - 1) / tile_height));
}

// The scene's materials and lights on the device, and the render parameters pointing at them.
class device_tables {
 public:
  explicit device_tables(const problem& p)
      : materials_(upload(p.scene_data->materials)),
        lights_(upload(p.scene_data->lights)),
        params_(params_of(*p.scene_data, p.settings, materials_.data(), lights_.data())) {}
  [[nodiscard]] const render_params& params() const { return params_; }

 private:
  buffer<material> materials_;
  buffer<light> lights_;
  render_params params_;
};

template <class Access, int MinBlocks = 1>
void launch_trace(const Access& scene, const render_params& params, const frame_target& target, int first_row,
                  int last_row, cudaStream_t stream) {
  if (last_row <= first_row) return;
  trace_kernel<Access, MinBlocks><<<trace_grid(params.width, last_row - first_row), dim3(tile_width, tile_height), 0, stream>>>(
      scene, params, first_row, last_row, target.pixels, target.rays);
  SWATH_CHECK_LAST();
}

// The flag a BVH traversal sets if it ever runs out of stack (steps 05 and 06).
class overflow_flag {
 public:
  explicit overflow_flag(cudaStream_t stream) : flag_(memory_kind::device, 1), stream_(stream) {
    SWATH_CUDA_CHECK(cudaMemsetAsync(flag_.data(), 0, sizeof(int), stream_));
  }
  [[nodiscard]] int* data() { return flag_.data(); }
  void check() {
    int overflow = 0;
    SWATH_CUDA_CHECK(cudaMemcpyAsync(&overflow, flag_.data(), sizeof overflow, cudaMemcpyDeviceToHost, stream_));
    SWATH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    SWATH_EXPECTS(overflow == 0, "a BVH traversal ran out of stack (a tree deeper than traversal_stack_depth)");
  }

 private:
  buffer<int> flag_;
  cudaStream_t stream_;
};

// ---- The seed's kernel (steps 01 and 02) --------------------------------------------------------------
// The seed's orthographic tracer works in the camera's frame: every ray is parallel to the view axis,
// so a sphere is hit where the pixel's (x, y) lies within its disc, at depth z + dz with
// dz = sqrt(r^2 - dx^2 - dy^2), and its colour is scaled by dz / r. The spheres are moved into that
// frame once on the host. Same image as render_pixel's flat shading (the facing term is dz / r).
struct seed_sphere {
  float x, y, z, radius;  // the centre in the camera's frame: x right, y up, z toward the viewer
  float r, g, b;          // the material's colour
};

std::vector<seed_sphere> seed_spheres_of(const problem& p);  // 01_ortho_global.cu

// Where a step keeps the spheres: Spheres::at(i) returns sphere i.
template <class Spheres>
__global__ void seed_kernel(Spheres spheres, int count, render_params params, int first_row, int last_row, rgba* pixels,
                            std::uint64_t* rays) {
  const int x = static_cast<int>(blockIdx.x) * tile_width + static_cast<int>(threadIdx.x);
  const int y = first_row + static_cast<int>(blockIdx.y) * tile_height + static_cast<int>(threadIdx.y);
  const bool inside = x < params.width && y < last_row;
  if (inside) {
    // The pixel centre on the view plane, in scene units (right and up hold the half extents).
    const float a = 2.0f * (static_cast<float>(x) + 0.5f) / static_cast<float>(params.width) - 1.0f;
    const float b = 1.0f - 2.0f * (static_cast<float>(y) + 0.5f) / static_cast<float>(params.height);
    const float ox = a * length(params.camera.right), oy = b * length(params.camera.up);
    float nearest = -INFINITY;
    vec3 colour = params.background;
    for (int i = 0; i < count; ++i) {
      const seed_sphere s = spheres.at(i);
      const float dx = ox - s.x, dy = oy - s.y;
      const float inside_disc = s.radius * s.radius - dx * dx - dy * dy;
      if (inside_disc <= 0.0f) continue;
      const float dz = sqrtf(inside_disc);
      const float depth = s.z + dz;  // < 0: in front of the eye
      if (depth < 0.0f && depth > nearest) {
        nearest = depth;
        colour = vec3{s.r, s.g, s.b} * (dz / s.radius);
      }
    }
    pixels[static_cast<std::int64_t>(y) * params.width + x] = {colour.x, colour.y, colour.z, 1.0f};
  }
  count_rays(inside ? 1u : 0u, rays);
}

template <class Spheres>
void launch_seed(Spheres spheres, int count, const render_params& params, const frame_target& target, int first_row,
                 int last_row, cudaStream_t stream) {
  if (last_row <= first_row) return;
  seed_kernel<<<trace_grid(params.width, last_row - first_row), dim3(tile_width, tile_height), 0, stream>>>(
      spheres, count, params, first_row, last_row, target.pixels, target.rays);
  SWATH_CHECK_LAST();
}

}  // namespace swath::raytracer::cuda
