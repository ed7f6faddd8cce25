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
#include <omp.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "../../stencil/iterate.hpp"
#include "../stencil/stencil_cpu.hpp"

namespace swath::stencil::cpu {
namespace {

template <class T>
void run_typed(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  const std::int64_t width = p.grid.width, height = p.grid.height;
  const auto grid_bytes = static_cast<std::size_t>(p.points()) * sizeof(T);
  // Sweep k in X when k is even: the last sweep, T, must land in out.
  T* even = static_cast<T*>(ip.sweeps % 2 == 0 ? x.out : x.scratch);
  T* odd = static_cast<T*>(ip.sweeps % 2 == 0 ? x.scratch : x.out);
  if (x.in != even) std::memcpy(even, x.in, grid_bytes);  // in is never `odd` (sweep_operands' rule)
  if (ip.sweeps == 0) return;
  const kernel<T> forward(p, operands{even, odd}), backward(p, operands{odd, even});
  const int depth = skewed_depth_of(p, launch);
  const std::int64_t band = skewed_band_of(p, depth, launch);
  const int r = p.radius;

  int done = 0;  // sweeps finished before this pass
  for (const int fused : plan_passes(ip.sweeps, depth, false)) {
    // Enough bands that the last one's most-shifted sweep still reaches the right edge.
    const std::int64_t bands = (width + static_cast<std::int64_t>(fused) * r + band - 1) / band;
    const std::int64_t steps = height + static_cast<std::int64_t>(fused - 1) * r;
    // progress[b]: row steps band b has finished (the wavefront's handshake).
    const auto progress = std::make_unique<std::atomic<std::int64_t>[]>(static_cast<std::size_t>(bands));
    for (std::int64_t b = 0; b < bands; ++b) progress[b].store(0, std::memory_order_relaxed);
#pragma omp parallel num_threads(std::max(1, launch.cpu_threads))
    {
      const std::int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
      for (std::int64_t b = me; b < bands; b += team) {
        for (std::int64_t s = 0; s < steps; ++s) {
          if (b > 0) {
            while (progress[b - 1].load(std::memory_order_acquire) <= s) std::this_thread::yield();
          }
          for (int tau = 1; tau <= fused; ++tau) {
            const std::int64_t y = s - static_cast<std::int64_t>(tau - 1) * r;
            if (y < 0 || y >= height) continue;
            const std::int64_t shift = static_cast<std::int64_t>(tau) * r;
            const std::int64_t begin = std::max<std::int64_t>(0, b * band - shift);
            const std::int64_t end = std::min<std::int64_t>(width, (b + 1) * band - shift);
            if (begin >= end) continue;
            const bool from_even = (done + tau - 1) % 2 == 0;
            (from_even ? forward : backward)(schedule::run{y, begin, end, false});
          }
          progress[b].store(s + 1, std::memory_order_release);
        }
      }
    }
    done += fused;
  }
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
