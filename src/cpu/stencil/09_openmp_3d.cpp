// Step 09: 2D and 3D grids, rows dealt among OpenMP threads. A 3D grid is W × H × D planes; each
// (z, y) row is one unit of work. Rows whose every tap lies inside the grid take the interior path:
// chunks of 64 outputs accumulated in registers while the taps go by (tap k reads the input shifted
// by its flat offset dz·W·H + dy·W + dx), then stored once, as in the 2D steps. Rows within r of a
// face, and the first and last r points of every row, take the boundary path one point at a time.
//
// No schedule beyond row order: in 3D the reuse that matters is across planes (a point's input is
// read again r planes later, W·H·r elements on), so the (2r + 1) planes a row reads must stay in
// cache, 4 B × W × H × 9 = 2.3 MiB at 256², r = 4: the L2 of one core, or the shared L3.
#include "stencil_cpu.hpp"

namespace swath::stencil::cpu {
namespace {

template <class T>
void run_3d(const problem& p, const operands& operands) {
  const row_kernel<T> row(p, operands);
  const std::int64_t rows = p.grid.height * p.depth;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) row(i / p.grid.height, i % p.grid.height);
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
