#pragma once
// The CPU stencil kernel every step shares: it computes the output points a schedule hands it, run by
// run (a run is a stretch of one row, walked left to right or right to left). Only the schedule
// differs between steps.
//
// Inside a run the points are taken in chunks of 64: a chunk's sums live in registers (four 16-float
// vectors) while the taps go by, acc[j] += w_k · in[x + j + offset_k], and each output is written
// once. (An earlier version looped taps over the whole run and rewrote the output row K times; its
// speed then depended on the run length fitting L1, not on the input reuse the schedules are about.)
// Points within r of an edge take the boundary path (source_index), one at a time.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../../stencil/policies.hpp"
#include "../../stencil/steps.hpp"
#include "swath/schedule/column.hpp"
#include "swath/schedule/row_major.hpp"
#include "swath/schedule/tiled.hpp"
#include "swath/schedule/zigzag.hpp"

namespace swath::stencil::cpu {

constexpr std::int64_t chunk = 64;

// w · v + sum, the one multiply-add of a tap. Both paths (the chunks below and the points near a face)
// take every tap through this: the first product alone, then one FMA a tap where the CPU has FMA (two
// roundings each where it has not), in tap order. So a point's bits do not depend on its path, whatever
// the compiler contracts (g++ contracts a * b + c even in ISO C++, and may do so in one loop and not in
// another). swath::distributed relies on it: a periodic grid's face planes are interior on a rank's slab.
template <class T>
inline T multiply_add(T w, T v, T sum) {
#if defined(__FMA__)
  return std::fma(w, v, sum);
#else
  return w * v + sum;  // no FMA instruction: nothing to contract either
#endif
}

// GCC's unroll-and-jam (on at -O3) fuses pairs of the tap loop's iterations below and then leaves
// the fused loop scalar, or vectorises it with gathers: g++ 12 at -march=native made 16 gathers of the
// 64-float chunk, 7 cycles a point for the 5-point star (0.34 G points/s on one core of a 2-vCPU Xeon,
// a third of its memory's rate). Without it each tap is 8 contiguous 8-float FMAs on registers.
#if defined(__GNUC__) && !defined(__clang__)
#define SWATH_NO_UNROLL_AND_JAM __attribute__((optimize("no-loop-unroll-and-jam")))
#else
#define SWATH_NO_UNROLL_AND_JAM
#endif

// `count` (≤ chunk; Count when it is known at compile time, else 0) consecutive outputs from `in`:
// every tap accumulated in registers (tap k reads in + offsets[k]), then one store each.
template <std::int64_t Count, class T>
SWATH_NO_UNROLL_AND_JAM void accumulate_chunk(const T* in, T* __restrict out, std::int64_t count,
                                              const std::vector<T>& weights, const std::vector<std::int64_t>& offsets) {
  T acc[chunk];
  const std::int64_t n = Count > 0 ? Count : count;
  const T* __restrict first = in + offsets[0];
#pragma omp simd
  for (std::int64_t j = 0; j < n; ++j) acc[j] = weights[0] * first[j];
  for (std::size_t k = 1; k < weights.size(); ++k) {
    const T w = weights[k];
    const T* __restrict shifted = in + offsets[k];
#pragma omp simd
    for (std::int64_t j = 0; j < n; ++j) acc[j] = multiply_add(w, shifted[j], acc[j]);
  }
#pragma omp simd
  for (std::int64_t j = 0; j < n; ++j) out[j] = acc[j];
}

template <class T>
struct kernel {
  const T* in;
  T* out;
  schedule::extent2d grid;
  int radius;
  boundary edge;
  T edge_value;
  std::vector<T> weights;
  std::vector<std::int64_t> offsets;  // dy · W + dx
  std::vector<tap> taps;

  kernel(const problem& p, const operands& x)
      : in(static_cast<const T*>(x.in)),
        out(static_cast<T*>(x.out)),
        grid(p.grid),
        radius(p.radius),
        edge(p.edge),
        edge_value(static_cast<T>(p.edge_value)),
        taps(p.taps) {
    for (const tap& t : p.taps) {
      weights.push_back(static_cast<T>(t.weight));
      offsets.push_back(static_cast<std::int64_t>(t.dy) * p.grid.width + t.dx);
    }
  }

  void boundary_point(std::int64_t x, std::int64_t y) const {
    if (edge == boundary::copy) {  // the points within r of an edge keep their input value
      out[y * grid.width + x] = in[y * grid.width + x];
      return;
    }
    T sum = 0;
    for (std::size_t k = 0; k < taps.size(); ++k) {
      const std::int64_t source = source_index(x + taps[k].dx, y + taps[k].dy, grid, edge);
      const T value = source < 0 ? edge_value : in[source];
      sum = k == 0 ? weights[k] * value : multiply_add(weights[k], value, sum);  // as accumulate_chunk
    }
    out[y * grid.width + x] = sum;
  }

  // `count` (≤ chunk) interior points of one row from x.
  template <std::int64_t Count>
  void chunk_of(const T* row_in, T* row_out, std::int64_t x, std::int64_t count) const {
    accumulate_chunk<Count>(row_in + x, row_out + x, count, weights, offsets);
  }

  // Interior points [x_begin, x_end) of row y: every tap in range. Reversed runs take their chunks
  // from the right end leftwards.
  void interior(std::int64_t y, std::int64_t x_begin, std::int64_t x_end, bool reversed) const {
    const T* row_in = in + y * grid.width;
    T* row_out = out + y * grid.width;
    const std::int64_t full = (x_end - x_begin) / chunk;
    const std::int64_t rest = (x_end - x_begin) - full * chunk;
    if (!reversed) {
      for (std::int64_t c = 0; c < full; ++c) chunk_of<chunk>(row_in, row_out, x_begin + c * chunk, chunk);
      if (rest > 0) chunk_of<0>(row_in, row_out, x_begin + full * chunk, rest);
    } else {
      if (rest > 0) chunk_of<0>(row_in, row_out, x_end - rest, rest);
      for (std::int64_t c = full - 1; c >= 0; --c) chunk_of<chunk>(row_in, row_out, x_begin + c * chunk, chunk);
    }
  }

  void operator()(const schedule::run& r) const {
    const std::int64_t y = r.y;
    if (y < radius || y >= grid.height - radius) {
      for (std::int64_t x = r.x_begin; x < r.x_end; ++x) boundary_point(x, y);
      return;
    }
    const std::int64_t inner_begin = std::clamp<std::int64_t>(radius, r.x_begin, r.x_end);
    const std::int64_t inner_end = std::clamp<std::int64_t>(grid.width - radius, inner_begin, r.x_end);
    for (std::int64_t x = r.x_begin; x < inner_begin; ++x) boundary_point(x, y);
    interior(y, inner_begin, inner_end, r.reversed);
    for (std::int64_t x = inner_end; x < r.x_end; ++x) boundary_point(x, y);
  }
};

// The schedule a step walks, from its policy (policies.hpp): the chosen or modelled tile or band. The
// OpenMP column and zigzag steps keep the whole team in one column (`parallel`).
inline schedule::row_major make_schedule(const problem&, const launch_context&, schedule::row_major, bool) { return {}; }
inline schedule::tiled make_schedule(const problem& p, const launch_context& launch, schedule::tiled, bool) {
  return tile_of(p, launch);
}
inline schedule::column make_schedule(const problem& p, const launch_context& launch, schedule::column, bool parallel) {
  return {column_width_of(p, launch, parallel)};
}
inline schedule::zigzag make_schedule(const problem& p, const launch_context& launch, schedule::zigzag, bool parallel) {
  return {column_width_of(p, launch, parallel)};
}

// One thread walks the whole schedule.
template <class Schedule, class T>
void run_serial(const problem& p, const operands& x, const Schedule& order) {
  const kernel<T> compute(p, x);
  order.for_each_run(p.grid, compute);
}

// OpenMP. Row-major and tiled hand each thread its own contiguous share of rows or tiles. Column and
// zigzag keep all threads in the same column: its rows are dealt out round-robin, so the T threads
// move down the column together and share the rows they read (the model's t = T rows in flight).
template <class Schedule, class T>
void run_parallel(const problem& p, const operands& x, const Schedule& order) {
  const kernel<T> compute(p, x);
  if constexpr (std::is_same_v<Schedule, schedule::column> || std::is_same_v<Schedule, schedule::zigzag>) {
#pragma omp parallel
    {
      std::int64_t k = 0;
      for (std::int64_t o = 0; o < p.grid.width; o += order.width, ++k) {
        const std::int64_t end = std::min(o + order.width, p.grid.width);
#pragma omp for schedule(static, 1)
        for (std::int64_t r = 0; r < p.grid.height; ++r) {
          const bool down = !std::is_same_v<Schedule, schedule::zigzag> || k % 2 == 0;
          const bool reversed = std::is_same_v<Schedule, schedule::zigzag> && r % 2 == 1;
          compute(schedule::run{down ? r : p.grid.height - 1 - r, o, end, reversed});
        }
      }
    }
  } else {
    std::vector<schedule::run> runs;
    order.for_each_run(p.grid, [&](const schedule::run& r) { runs.push_back(r); });
    const auto count = static_cast<std::int64_t>(runs.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) compute(runs[static_cast<std::size_t>(i)]);
  }
}

template <class Schedule>
void dispatch(const problem& p, const operands& x, const launch_context& launch, bool parallel) {
  const Schedule order = make_schedule(p, launch, Schedule{}, parallel);
  if (p.type == element_type::f32) {
    parallel ? run_parallel<Schedule, float>(p, x, order) : run_serial<Schedule, float>(p, x, order);
  } else {
    parallel ? run_parallel<Schedule, double>(p, x, order) : run_serial<Schedule, double>(p, x, order);
  }
}

}  // namespace swath::stencil::cpu
