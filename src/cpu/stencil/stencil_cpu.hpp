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

// One (z, y) row of a 2D or 3D grid at a time (step 09, and the iterated CPU step over 3D slabs): the
// row's interior in chunks (tap k reads the input shifted by its flat offset dz·W·H + dy·W + dx), the
// first and last r points of every row one point at a time. Rows within r of a y or z face take the
// chunks too under the clamp, periodic and constant boundaries, with each tap's row clamped or wrapped,
// or the constant where it lies outside (the offsets of each such row class computed once): one point
// at a time they had cost 38% of a 256^3 sweep, 2.3% of its points (clamp 16.5 ms against 10.2 with
// copy's cheap face points). The bits do not change: a tap reads the same source in the same order
// through the same multiply-add.
template <class T>
struct row_kernel {
  const T* in;
  T* out;
  const problem* p;
  std::int64_t width, height, depth, plane;
  int r, rz;
  T edge_value;
  std::vector<T> weights;
  std::vector<std::int64_t> offsets;
  // The face rows' offsets, by class: y's class 0 .. r - 1 (y itself), r (not near a y face), r + 1 ..
  // 2r (y = H - r ..); z's likewise with rz; index z_class (2r + 1) + y_class. Empty where the faces'
  // rows take the points' path (copy, or a grid too thin for the classes to be apart). face_outside:
  // the constant boundary's taps whose row lies outside the grid (they read the constant), and whether
  // any does; no_tap_outside the interior rows' (none).
  std::vector<std::vector<std::int64_t>> face_offsets;
  std::vector<std::vector<char>> face_outside;
  std::vector<char> face_reads_constant;
  std::vector<char> no_tap_outside;
  // An interior row's 2r points within r of an x face (x = 0 .. r - 1, then W - r .. W - 1), tap by tap:
  // entry k · 2r + i is point i's source for tap k as an offset from the row's start, x_face_outside
  // whether it reads the constant instead. Empty where face_offsets is, or r is past 4.
  std::vector<std::int64_t> x_face_offsets;
  std::vector<char> x_face_outside;

  row_kernel(const problem& problem_, const operands& x)
      : in(static_cast<const T*>(x.in)),
        out(static_cast<T*>(x.out)),
        p(&problem_),
        width(problem_.grid.width),
        height(problem_.grid.height),
        depth(problem_.depth),
        plane(problem_.grid.count()),
        r(problem_.radius),
        rz(problem_.dims == 3 ? problem_.radius : 0),
        edge_value(static_cast<T>(problem_.edge_value)) {
    for (const tap& t : problem_.taps) {
      weights.push_back(static_cast<T>(t.weight));
      offsets.push_back(static_cast<std::int64_t>(t.dz) * plane + static_cast<std::int64_t>(t.dy) * width + t.dx);
    }
    no_tap_outside.assign(weights.size(), 0);
    if (problem_.edge == boundary::copy || width <= 2 * r || height <= 2 * r || depth <= 2 * rz) return;
    const auto classes = static_cast<std::size_t>((2 * rz + 1) * (2 * r + 1));
    face_offsets.resize(classes);
    face_outside.resize(classes);
    face_reads_constant.assign(classes, 0);
    for (int z_class = 0; z_class <= 2 * rz; ++z_class) {
      for (int y_class = 0; y_class <= 2 * r; ++y_class) {
        const std::int64_t y = y_class < r ? y_class : y_class == r ? r : height - r + (y_class - r - 1);
        const std::int64_t z = z_class < rz ? z_class : z_class == rz ? rz : depth - rz + (z_class - rz - 1);
        const auto index = static_cast<std::size_t>(z_class * (2 * r + 1) + y_class);
        for (const tap& t : problem_.taps) {
          // The tap's source for the row's point at x = r (inside in x), as an offset from that point;
          // -1 (the constant boundary, the row outside the grid): the tap reads the constant.
          const std::int64_t source = source_index(r + t.dx, y + t.dy, z + t.dz, problem_.grid, depth, problem_.edge);
          face_offsets[index].push_back(source < 0 ? 0 : source - (z * plane + y * width + r));
          face_outside[index].push_back(source < 0 ? 1 : 0);
          if (source < 0) face_reads_constant[index] = 1;
        }
      }
    }
    if (r < 1 || r > max_interleaved_radius) return;
    // An interior row's x-face points: only x is clamped, wrapped or outside, so one row (y = r, z = rz)
    // stands for all of them.
    const std::int64_t y = r, z = rz, row_start = z * plane + y * width;
    for (const tap& t : problem_.taps) {
      for (int i = 0; i < 2 * r; ++i) {
        const std::int64_t at_x = i < r ? i : width - 2 * r + i;
        const std::int64_t source = source_index(at_x + t.dx, y + t.dy, z + t.dz, problem_.grid, depth, problem_.edge);
        x_face_offsets.push_back(source < 0 ? at_x : source - row_start);
        x_face_outside.push_back(source < 0 ? 1 : 0);
      }
    }
  }

  static constexpr int max_interleaved_radius = 4;

  // The 2r x-face points of an interior row together, tap by tap: each point's sum is x_face_point's (the
  // same sources in the same order through the same multiply-add, so the same bits), but the 2r sums
  // are independent chains in flight at once. One point at a time, its chain of multiply-adds waited
  // on itself tap after tap: at 256^3 they cost more than the row's chunks (the 27-point box 10.2% of
  // a profile against 5.6% for the full chunks; at radius 4, 8 points of 729 taps a row).
  template <int R>
  void interior_x_faces(std::int64_t base) const {
    constexpr int n = 2 * R;
    T sum[n];
    const std::int64_t* offset = x_face_offsets.data();
    const char* outside = x_face_outside.data();
    for (int i = 0; i < n; ++i) sum[i] = weights[0] * (outside[i] != 0 ? edge_value : in[base + offset[i]]);
    for (std::size_t k = 1; k < weights.size(); ++k) {
      const T w = weights[k];
      for (int i = 0; i < n; ++i) {
        const std::size_t at = k * n + static_cast<std::size_t>(i);
        sum[i] = multiply_add(w, outside[at] != 0 ? edge_value : in[base + offset[at]], sum[i]);
      }
    }
    for (int i = 0; i < R; ++i) out[base + i] = sum[i];
    for (int i = 0; i < R; ++i) out[base + width - R + i] = sum[R + i];
  }

  // x_face_offsets is filled only for r = 1 .. max_interleaved_radius.
  void interior_x_faces(std::int64_t base) const {
    switch (r) {
      case 1: interior_x_faces<1>(base); break;
      case 2: interior_x_faces<2>(base); break;
      case 3: interior_x_faces<3>(base); break;
      default: interior_x_faces<4>(base); break;
    }
  }

  void boundary_point(std::int64_t x, std::int64_t y, std::int64_t z) const {
    const std::int64_t index = z * plane + y * width + x;
    if (p->edge == boundary::copy) {
      out[index] = in[index];
      return;
    }
    T sum = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const tap& t = p->taps[k];
      const std::int64_t source = source_index(x + t.dx, y + t.dy, z + t.dz, p->grid, depth, p->edge);
      const T value = source < 0 ? edge_value : in[source];
      sum = k == 0 ? weights[k] * value : multiply_add(weights[k], value, sum);  // as accumulate_chunk
    }
    out[index] = sum;
  }

  // A point within r of an x face, its taps' rows from `taps` (the row's offsets, relative to a point
  // inside in x) and `outside`: tap k's source row starts taps[k] - dx after the point's row, and only x
  // is clamped, wrapped or found outside, without source_index's tests for y and z (at radius 4 the row
  // ends' points had cost 2.2x the sweep).
  void x_face_point(std::int64_t x, std::int64_t base, const std::vector<std::int64_t>& taps, const std::vector<char>& outside) const {
    T sum = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const std::int64_t dx = p->taps[k].dx;
      std::int64_t source_x = x + dx;
      bool constant = outside[k] != 0;
      if (source_x < 0 || source_x >= width) {
        constant = constant || p->edge == boundary::constant;
        source_x = p->edge == boundary::periodic ? (source_x + width) % width : std::clamp<std::int64_t>(source_x, 0, width - 1);
      }
      const T value = constant ? edge_value : in[base + (taps[k] - dx) + source_x];
      sum = k == 0 ? weights[k] * value : multiply_add(weights[k], value, sum);  // as accumulate_chunk
    }
    out[base + x] = sum;
  }

  // accumulate_chunk for a constant boundary's face row: tap k reads the constant where outside[k], in
  // the same order through the same multiply-add.
  SWATH_NO_UNROLL_AND_JAM void chunk_with_constant(const T* in_row, T* __restrict out_row, std::int64_t n,
                                                   const std::vector<std::int64_t>& taps, const std::vector<char>& outside) const {
    T acc[chunk];
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const T w = weights[k];
      if (outside[k] != 0) {
        if (k == 0) {
          for (std::int64_t j = 0; j < n; ++j) acc[j] = w * edge_value;
        } else {
#pragma omp simd
          for (std::int64_t j = 0; j < n; ++j) acc[j] = multiply_add(w, edge_value, acc[j]);
        }
      } else {
        const T* __restrict shifted = in_row + taps[k];
        if (k == 0) {
          for (std::int64_t j = 0; j < n; ++j) acc[j] = w * shifted[j];
        } else {
#pragma omp simd
          for (std::int64_t j = 0; j < n; ++j) acc[j] = multiply_add(w, shifted[j], acc[j]);
        }
      }
    }
    for (std::int64_t j = 0; j < n; ++j) out_row[j] = acc[j];
  }

  void operator()(std::int64_t z, std::int64_t y) const {
    const bool interior_row = y >= r && y < height - r && z >= rz && z < depth - rz;
    const std::int64_t base = z * plane + y * width;
    const std::vector<std::int64_t>* taps = &offsets;
    const std::vector<char>* outside = &no_tap_outside;
    bool some_outside = false;
    if (!interior_row && !face_offsets.empty()) {
      const int y_class = y < r ? static_cast<int>(y) : y >= height - r ? static_cast<int>(r + 1 + (y - (height - r))) : r;
      const int z_class = z < rz ? static_cast<int>(z) : z >= depth - rz ? static_cast<int>(rz + 1 + (z - (depth - rz))) : rz;
      const auto index = static_cast<std::size_t>(z_class * (2 * r + 1) + y_class);
      taps = &face_offsets[index];
      outside = &face_outside[index];
      some_outside = face_reads_constant[index] != 0;
    }
    const bool chunks = interior_row || taps != &offsets;
    const std::int64_t x_begin = chunks ? std::min<std::int64_t>(r, width) : width;
    const std::int64_t x_end = chunks ? std::max<std::int64_t>(width - r, x_begin) : width;
    const auto ends = [&](std::int64_t from, std::int64_t to) {
      for (std::int64_t x = from; x < to; ++x) {
        if (chunks && !face_offsets.empty()) {
          x_face_point(x, base, *taps, *outside);
        } else {
          boundary_point(x, y, z);
        }
      }
    };
    // An interior row's x-face points go together after its chunks, when the lines they read are in the
    // cache. Before them, the far end's reads missed on every row: stars of radius 1 and 2 at 250 x 251 x
    // 253 took 11.1 and 18.1 ms on one core with the faces first, 8.8 and 13.5 with them last.
    const bool faces_together = interior_row && !x_face_offsets.empty();
    if (!faces_together) ends(0, x_begin);
    std::int64_t next = x_begin;
    if (some_outside) {
      for (; next < x_end; next += chunk) chunk_with_constant(in + base + next, out + base + next, std::min(chunk, x_end - next), *taps, *outside);
    } else {
      for (; next + chunk <= x_end; next += chunk) accumulate_chunk<chunk>(in + base + next, out + base + next, chunk, weights, *taps);
      // The rest of a row at least a chunk wide as one more whole chunk ending at x_end: it computes again
      // up to 63 points the chunk before wrote, the same values (the row is this call's alone), and keeps
      // the sums in registers. A chunk of a run-time count keeps them in memory: 3.7% of a profile of the
      // 256^3 box beside 5.6% for the row's three whole chunks.
      if (next < x_end && x_end - x_begin >= chunk) {
        accumulate_chunk<chunk>(in + base + x_end - chunk, out + base + x_end - chunk, chunk, weights, *taps);
      } else if (next < x_end) {
        accumulate_chunk<0>(in + base + next, out + base + next, x_end - next, weights, *taps);
      }
    }
    if (faces_together) {
      interior_x_faces(base);
    } else {
      ends(x_end, width);
    }
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
