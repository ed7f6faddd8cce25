#pragma once
// The time-skewed passes CPU steps 02 (2D: bands of columns streamed down the rows) and 03 (3D: slabs
// of rows streamed along z) share. A pass fuses d sweeps: the grid is cut into bands `band` wide across
// it, and each band streams along it once, computing all d sweeps as it goes, sweep τ r steps behind
// sweep τ - 1 and shifted τ r back across (step 02's notes give the argument). Two buffers hold every
// sweep: sweep k in X when k is even, in Y when odd. The bands run in parallel as a wavefront: band b
// starts step s when band b - 1 has finished it.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "../../stencil/iterate.hpp"

namespace swath::stencil::cpu {

// The grid's buffers for T sweeps: sweep k in `even` when k is even, so that the last lands in out; the
// input copied into `even` (in is never the odd buffer: sweep_operands' rule).
template <class T>
struct skewed_buffers {
  T* even;
  T* odd;
  skewed_buffers(const iterated_problem& ip, const sweep_operands& x)
      : even(static_cast<T*>(ip.sweeps % 2 == 0 ? x.out : x.scratch)), odd(static_cast<T*>(ip.sweeps % 2 == 0 ? x.scratch : x.out)) {
    if (x.in != even) std::memcpy(even, x.in, static_cast<std::size_t>(ip.sweep.points()) * sizeof(T));
  }
};

// T sweeps in passes of `depth`: `across` positions cut into bands of `band`, `along` steps streamed.
// compute(position along, begin, end, from_even) computes one sweep over [begin, end) across at that
// position, from the even buffer into the odd one when from_even, else back.
template <class Compute>
void skewed_passes(int sweeps, int radius, std::int64_t across, std::int64_t along, int depth, std::int64_t band, int threads,
                   const Compute& compute) {
  int done = 0;  // sweeps finished before this pass
  for (const int fused : plan_passes(sweeps, depth, false)) {
    // Enough bands that the last one's most-shifted sweep still reaches the far edge.
    const std::int64_t bands = (across + static_cast<std::int64_t>(fused) * radius + band - 1) / band;
    const std::int64_t steps = along + static_cast<std::int64_t>(fused - 1) * radius;
    // progress[b]: steps band b has finished (the wavefront's handshake).
    const auto progress = std::make_unique<std::atomic<std::int64_t>[]>(static_cast<std::size_t>(bands));
    for (std::int64_t b = 0; b < bands; ++b) progress[b].store(0, std::memory_order_relaxed);
#pragma omp parallel num_threads(std::max(1, threads))
    {
      const std::int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
      for (std::int64_t b = me; b < bands; b += team) {
        for (std::int64_t s = 0; s < steps; ++s) {
          if (b > 0) {
            while (progress[b - 1].load(std::memory_order_acquire) <= s) std::this_thread::yield();
          }
          for (int tau = 1; tau <= fused; ++tau) {
            const std::int64_t position = s - static_cast<std::int64_t>(tau - 1) * radius;
            if (position < 0 || position >= along) continue;
            const std::int64_t shift = static_cast<std::int64_t>(tau) * radius;
            const std::int64_t begin = std::max<std::int64_t>(0, b * band - shift);
            const std::int64_t end = std::min<std::int64_t>(across, (b + 1) * band - shift);
            if (begin >= end) continue;
            compute(position, begin, end, (done + tau - 1) % 2 == 0);
          }
          progress[b].store(s + 1, std::memory_order_release);
        }
      }
    }
    done += fused;
  }
}

}  // namespace swath::stencil::cpu
