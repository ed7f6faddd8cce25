#pragma once
// The CPU renderer: OpenMP over the pixels of the rows asked for, render_pixel with the step's scene
// access. Rows are handed out dynamically in chunks of 16 pixels: a pixel's cost varies with what its
// rays hit (100x between the sky and a shadowed hit behind many spheres).
#include <cstdint>

#include "../../raytracer/steps.hpp"

namespace swath::raytracer::cpu {

template <class Access>
void trace_rows_on_host(const Access& scene, const render_params& params, const frame_target& target, int first_row,
                        int last_row) {
  const std::int64_t width = params.width;
  const std::int64_t count = width * (last_row - first_row);
  std::uint64_t rays = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : rays)
  for (std::int64_t i = 0; i < count; ++i) {
    const int x = static_cast<int>(i % width);
    const int y = first_row + static_cast<int>(i / width);
    const pixel_result result = render_pixel(scene, params, x, y);
    target.pixels[static_cast<std::int64_t>(y) * width + x] = {result.colour.x, result.colour.y, result.colour.z, 1.0f};
    rays += result.rays;
  }
  *target.rays += rays;
}

}  // namespace swath::raytracer::cpu
