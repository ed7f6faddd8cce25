// Step 09: 2D and 3D grids, rows dealt among OpenMP threads. A 3D grid is W × H × D planes; each
// (z, y) row is one unit of work. Rows whose every tap lies inside the grid take the interior path:
// chunks of 64 outputs accumulated in registers while the taps go by (tap k reads the input shifted
// by its flat offset dz·W·H + dy·W + dx), then stored once, as in the 2D steps. Rows within r of a
// y or z face take the chunks too, with their taps' rows clamped, wrapped or the constant (row_kernel).
//
// v2: an interior row's 2r points within r of an x face are computed together after its chunks, from
// offsets worked out once (tap by tap, so the 2r sums are independent chains), and the row's last
// partial chunk runs as a whole chunk that ends at the row's end. Before, each face point ran its taps
// alone, a chain of dependent multiply-adds with a boundary test a tap, and the rest of the row ran as
// a chunk of a run-time count whose sums lived in memory: at 256^3 a profile of the 27-point box put
// 10.2% in the row's own code and 3.7% in the partial chunk against 5.6% in the whole chunks.
// Prediction (from that profile, before the change; 2-vCPU AMD EPYC, float): the 27-point box at 256^3
// up to 2.6x if every point ran at the whole chunks' rate, the radius-4 box (8 face points of 729 taps
// a row beside 4 chunks) up to 4x. Outcome (same machine, old and new binaries alternated): on one
// core 1.02-1.88x over 16 cases (stars and boxes, radius 1-2, float and double, 256^3 and 250 x 251 x
// 253), the 27-point box 1.52x at 256^3; on two cores boxes of radius 1-4 1.30-1.75x (radius 4
// 1.64x), stars 0.94-1.55x within the machine's 20% spread. Short of the prediction: the face points
// stay scalar chains. docs/journal/stencil.md, "CPU step 09 v2".
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
