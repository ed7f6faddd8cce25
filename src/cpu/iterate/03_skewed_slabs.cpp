// Step 03 (CPU iterated stencil): step 02's time-skewed passes in 3D. The grid is cut across y into slabs
// of c rows (every x), and each slab streams along z once a pass, computing all d sweeps as it goes:
// sweep τ computes plane z = s - (τ - 1) r at step s, over the slab's rows shifted τ r back in y. What
// step 02 argues for rows and columns holds for planes and rows: a point of sweep τ reads sweep τ - 1
// within r in x (inside the slab: it spans every x), in y (its own slab's rows, computed this pass, or
// the slab before's, computed before) and in z (planes up to r ahead, computed r steps ago).
//
// Traffic: per pass each slab reads and writes its planes once, c + (d + 2) r rows of W points, when the
// planes in flight fit the cache: (d + 1)(2r + 1) planes of the slab's rows (skewed_slab_of: step 02's
// model with a grid row for an element). Until now a 3D grid on the CPU ran T sweeps of step 09 (rows
// among the threads), which stream the whole grid in and out every sweep.
//
// Prediction (2-vCPU Xeon, 256^3 float, 7-point star, T = 16, d = 4 by the ways rule): T sweeps stream
// 8 B a point at about 19 GB/s (2.4 G points/s, about 110 ms); fused, the traffic falls towards 1/4 and
// the kernel's chunk loop bounds it, as in 2D where the same loop ran 1.43x T sweeps: 1.3-1.6x.
// Outcome (same machine, one run each): first 262 against 271 ms for T sweeps at 256^3 (1.03x): the
// single sweep ran at 41% of the copy rate, bound by its rows within r of a face, taken one point at a
// time through source_index (2.3% of the points, 38% of the time). With those rows in chunks too
// (row_kernel, stencil_cpu.hpp), T sweeps take 194 ms and this step 159 (1.22x; 1.32x at d = 8), 1.17x
// at 250 x 251 x 253 in the suite, 1.09x at radius 2 in float and 1.33x in double; the 27-point box
// 0.93x (the dispatch leaves boxes to T sweeps). Short of the prediction: the single sweep is still not
// bound by memory (57-62% of the copy rate). docs/journal/stencil.md, "CPU step 03: time-skewed slabs".
#include "../stencil/stencil_cpu.hpp"
#include "skewed.hpp"

namespace swath::stencil::cpu {
namespace {

template <class T>
void run_typed(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  const skewed_buffers<T> buffers(ip, x);
  if (ip.sweeps == 0) return;
  const row_kernel<T> forward(p, operands{buffers.even, buffers.odd}), backward(p, operands{buffers.odd, buffers.even});
  const int depth = skewed_depth_of(p, launch);
  // Slabs of rows, streamed along z: plane z of sweep τ, rows [begin, end).
  skewed_passes(ip.sweeps, p.radius, p.grid.height, p.depth, depth, skewed_slab_of(p, depth, launch), launch.cpu_threads,
                [&](std::int64_t z, std::int64_t begin, std::int64_t end, bool from_even) {
                  const row_kernel<T>& row = from_even ? forward : backward;
                  for (std::int64_t y = begin; y < end; ++y) row(z, y);
                });
}

}  // namespace

void skewed_slabs(const iterated_problem& p, const sweep_operands& x, const launch_context& launch) {
  if (p.sweep.type == element_type::f32) {
    run_typed<float>(p, x, launch);
  } else {
    run_typed<double>(p, x, launch);
  }
}

}  // namespace swath::stencil::cpu
