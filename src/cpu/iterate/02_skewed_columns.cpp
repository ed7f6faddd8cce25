// Step 02 (CPU iterated stencil): time-skewed columns, the thesis's column schedule carried through
// time. A pass fuses d sweeps: the grid is cut into bands c wide, and each band streams down its rows
// once, computing all d sweeps as it goes, sweep τ one step r rows behind sweep τ - 1 (row y of sweep
// τ needs rows y - r ... y + r of sweep τ - 1). The band of sweep τ is shifted left by τ r (columns
// [b c - τ r, (b + 1) c - τ r)): then every value it reads is either its own band's, computed this
// pass, or the band to its left's, computed before, and no point is computed twice.
//
// Two buffers hold every sweep: sweep k lives in X when k is even, in Y when odd. A sweep overwrites
// the row of sweep k - 2 only after sweep k - 1 has read it for the last time (the loop over τ goes up
// at each row step), and the bands' shifts keep the band to the right's inputs clear of its writes.
// The bands run in parallel as a wavefront: band b starts row step s when band b - 1 has finished it.
//
// Traffic: per pass, each band reads and writes its rows once, c + (d + 2) r wide in both buffers, so a
// sweep costs about 1/d of the single-sweep column schedule's fetches when the rows in flight fit the
// cache: (d + 1)(2r + 1) rows of c + 2r + d r elements (skewed_band_of, schedule::skewed_column_width).
// Prediction (2-vCPU Xeon, 4096^2 float, r = 1, T = 64, d = 4): the single sweep streams 8 B a point from
// DRAM at about 10 GB/s on two cores, 1.25 G points/s; fused, the traffic falls 4x and the arithmetic
// (2 flops a tap, vectorised) bounds it: about 2x the repeated sweeps.
// Outcome (same machine, 4099 x 4097, T = 16): 404 ms against 406 ms for the repeated sweeps, 1.00x, at
// about 32% of copy bandwidth both: the single sweep is bound neither by memory here nor by the FMA units (6.6
// of 299 GFLOP/s) but by its kernel's loop, so the bytes the fusion saves were not what limited it. A first
// version gave the band the whole 2 MiB L2, one band for the grid, and ran on one thread: 0.57x.
// Once the kernel's chunk loop vectorised (g++'s unroll-and-jam off, stencil_cpu.hpp): 99 ms against
// 142 ms for T sweeps, 1.43x at d = 4 (1.60x at d = 8). docs/journal/stencil.md, "Iterated sweeps" and
// "The CPU kernel's chunks".
#include "../stencil/stencil_cpu.hpp"
#include "skewed.hpp"

namespace swath::stencil::cpu {
namespace {

template <class T>
void run_typed(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  const skewed_buffers<T> buffers(ip, x);
  if (ip.sweeps == 0) return;
  const kernel<T> forward(p, operands{buffers.even, buffers.odd}), backward(p, operands{buffers.odd, buffers.even});
  const int depth = skewed_depth_of(p, launch);
  // Bands of columns, streamed down the rows: row y of sweep τ, columns [begin, end).
  skewed_passes(ip.sweeps, p.radius, p.grid.width, p.grid.height, depth, skewed_band_of(p, depth, launch), launch.cpu_threads,
                [&](std::int64_t y, std::int64_t begin, std::int64_t end, bool from_even) {
                  (from_even ? forward : backward)(schedule::run{y, begin, end, false});
                });
}

}  // namespace

void skewed_columns(const iterated_problem& p, const sweep_operands& x, const launch_context& launch) {
  if (p.sweep.type == element_type::f32) {
    run_typed<float>(p, x, launch);
  } else {
    run_typed<double>(p, x, launch);
  }
}

}  // namespace swath::stencil::cpu
