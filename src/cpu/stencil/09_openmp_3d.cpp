// Step 09: 2D and 3D grids, rows dealt among OpenMP threads. A 3D grid is W × H × D planes; each
// (z, y) row is one unit of work. Rows whose every tap lies inside the grid take the interior path:
// chunks of 64 outputs accumulated in registers while the taps go by (tap k reads the input shifted
// by its flat offset dz·W·H + dy·W + dx), then stored once, as in the 2D steps. Rows within r of a
// face, and the first and last r points of every row, take the boundary path one point at a time.
//
// No schedule beyond row order: in 3D the reuse that matters is across planes (a point's input is
// read again r planes later, W·H·r elements on), so the (2r + 1) planes a row reads must stay in
// cache, 4 B × W × H × 9 = 2.3 MiB at 256², r = 4: the L2 of one core, or the shared L3.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "stencil_cpu.hpp"

namespace swath::stencil::cpu {
namespace {

template <class T>
void run_3d(const problem& p, const operands& operands) {
  const T* in = static_cast<const T*>(operands.in);
  T* out = static_cast<T*>(operands.out);
  const std::int64_t width = p.grid.width;
  const std::int64_t height = p.grid.height;
  const std::int64_t depth = p.depth;
  const std::int64_t plane = p.grid.count();
  const int r = p.radius;
  const int rz = p.dims == 3 ? r : 0;
  std::vector<T> weights;
  std::vector<std::int64_t> offsets;
  for (const tap& t : p.taps) {
    weights.push_back(static_cast<T>(t.weight));
    offsets.push_back(static_cast<std::int64_t>(t.dz) * plane + static_cast<std::int64_t>(t.dy) * width + t.dx);
  }
  const auto taps = static_cast<std::int64_t>(weights.size());
  const T edge_value = static_cast<T>(p.edge_value);

  const auto boundary_point = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    const std::int64_t index = z * plane + y * width + x;
    if (p.edge == boundary::copy) {
      out[index] = in[index];
      return;
    }
    T sum = 0;
    for (std::int64_t k = 0; k < taps; ++k) {
      const tap& t = p.taps[static_cast<std::size_t>(k)];
      const std::int64_t source = source_index(x + t.dx, y + t.dy, z + t.dz, p.grid, depth, p.edge);
      const T value = source < 0 ? edge_value : in[source];
      const T w = weights[static_cast<std::size_t>(k)];
      sum = k == 0 ? w * value : multiply_add(w, value, sum);  // as accumulate_chunk
    }
    out[index] = sum;
  };

  const std::int64_t rows = height * depth;
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t z = row / height;
    const std::int64_t y = row % height;
    const bool interior_row = y >= r && y < height - r && z >= rz && z < depth - rz;
    const std::int64_t x_begin = interior_row ? std::min<std::int64_t>(r, width) : width;
    const std::int64_t x_end = interior_row ? std::max<std::int64_t>(width - r, x_begin) : width;
    for (std::int64_t x = 0; x < x_begin; ++x) boundary_point(x, y, z);
    const std::int64_t base = z * plane + y * width;
    std::int64_t next = x_begin;
    for (; next + chunk <= x_end; next += chunk) {
      accumulate_chunk<chunk>(in + base + next, out + base + next, chunk, weights, offsets);
    }
    if (next < x_end) accumulate_chunk<0>(in + base + next, out + base + next, x_end - next, weights, offsets);
    for (std::int64_t x = x_end; x < width; ++x) boundary_point(x, y, z);
  }
}

}  // namespace

void openmp_3d(const problem& p, const operands& x, const launch_context&) {
  if (p.type == element_type::f32) {
    run_3d<float>(p, x);
  } else {
    run_3d<double>(p, x);
  }
}

}  // namespace swath::stencil::cpu
