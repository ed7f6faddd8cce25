// Step 10: boxes, each input plane's taps summed once into the 2r + 1 output planes it feeds. Box
// stencils, radius 1-4, 2D or 3D, float or double, every boundary and row pitch.
// - What changed from 06 (which ran every box until now): step 07's ring of planes, 16 bytes a thread,
//   and the plane's taps turned around. 06 computed each output point from its (2r + 1)^3 taps, one
//   4-byte shared load each (27 a point at radius 1). Here a thread holds, for each of its rows, the
//   running sums of the 2r + 1 output planes z - r ... z + r that input plane z feeds. When plane z
//   lands, the thread reads each of its rows' windows in that plane once (the rows ± r, its 4 floats
//   and r each side) and adds every weight of the plane's offset dz = z - z' into sum z'. After plane
//   z, output plane z - r has all its taps: it is stored, and the sums move down one. Each input plane
//   is read once from shared memory, three 16-byte or narrower loads a row, where 06 read it (2r + 1)
//   times a point; the ring holds the newest plane, the one r below it (boundary=copy's own values)
//   and those in flight. In 3D two output rows a thread up to radius 2 (their input rows shared), one
//   from radius 3 (registers).
// - Prediction (H200, 512³ float, radius 1, copy bandwidth ~4250 GB/s): 06 runs at 0.33 of the copy
//   bandwidth. A thread's step is ~216 FFMAs (27 taps × 8 points), 12 shared loads, ~3 copies (4
//   issue slots each), a barrier and ~20 bookkeeping instructions: ~260 warp instructions a step for
//   256 points. At 0.9 of the copy bandwidth (479 G points a second) that is 487 G warp instructions
//   a second, 47% of the SMs' 1045 G issue slots. So DRAM, not issue, should bound it: ~0.8-0.9 of the
//   copy bandwidth (2.5x 06). Double: 27 DFMAs a point at half the FP32 rate, the same share of
//   issue per byte; ~0.8x. Radius 2 (125 taps) ~0.45-0.55x, bound by the FMA rate: 125 × 479 G = 60
//   T FMAs a second would be twice the H200's 30 T.
// - Outcome (H200, against 06 in the same run): 512³ radius 1 0.65 of the copy bandwidth in float
//   (1.98x 06), 0.77 in double (1.81x): short of the prediction, bound by neither DRAM nor the FMA
//   units (29% busy): ~440 warp instructions a step where ~260 were counted, and a one-wave grid's tail
//   (ncu). 3D radius 2-4 1.9-3.2x 06, at 52-61% of the FMA peak in float.
//   3D float at 508 × 509 × 511 0.93x 06 (the last tile column copies element by element) and 2D
//   double at radius 1 0.86-0.90x. docs/journal/stencil.md, "Step 10: box planes".
// - v2, the lean march (plane_copies below; 2D at radius 1-2 and 3D floats at radius 1): the faces in
//   x and y resolved once into each piece's offset within a plane, a plane pointer moved on a step, a
//   store pointer likewise, inner tiles compiled apart, and z-chunks of 16 planes (3D) or 32 rows (2D).
//   Predicted from the SASS (~440 -> ~320 instructions a step at radius 1 in float): 512^3 in float
//   0.387 -> 0.30-0.33 ms, 508 x 509 x 511 near 512^3's time. Outcome (H200): 512^3 0.325 ms (0.78 of
//   the copy bandwidth; ncu ~340 a step), 508 x 509 x 511 0.391 (0.819 before, 1.95x 06), 2D at 8192^2
//   0.82 (float) and 0.84 (double) from 0.72 and 0.74. At radius 2 in 3D its offsets and pointers
//   spilled and ran 4-5% slower: those keep the ring's copies and stores. 3D doubles at radius 1 spilled
//   too at 3 blocks an SM (0.746 ms against 0.653); at 2, 0.624 (0.81). docs/journal/stencil.md, "Step
//   10 v2".

#include <string>

#include "../../stencil/policies.hpp"
#include "vector_ring.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R, int Dims>
struct config {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));  // points per thread along x
  static constexpr int bx = Dims == 3 ? 32 : 128;                  // threads along x
  static constexpr int by = Dims == 3 ? 8 : 1;                     // threads along y
  static constexpr int ry = Dims == 3 ? R : 0;
  // Output rows a thread: two share their input rows (2 + 2r windows for two rows, not 2 (1 + 2r));
  // from radius 3 the 2 × 7-9 running sums of 4 points would pass the registers of 2 blocks an SM.
  static constexpr int rows_each = Dims == 3 && R <= 2 ? 2 : 1;
  static constexpr int width = bx * vector;                       // points per block row: 128 floats in 3D
  static constexpr int pad = (R + vector - 1) / vector * vector;  // halo columns each side, a whole vector
  static constexpr int row = width + 2 * pad;                     // a tile row in shared memory
  static constexpr int rows = by * rows_each + 2 * ry;            // tile rows, halo included
  static constexpr int plane = rows * row;
  // Planes in flight beyond the one read: a 3D plane is 8.7-10.9 KiB, 2-3 blocks an SM keep 52-98
  // KiB in flight, past the ~32 KiB Little's law asks at 4.3 TB/s and ~1 µs.
  static constexpr int ahead = Dims == 3 ? 3 : 6;
  // The ring: planes z - r (boundary=copy's own values at output z - r) ... z + ahead, and one spare,
  // so that one barrier a step suffices: the slot written at step z (plane z + ahead) was last read
  // at step z - 2 (as plane z - 2 - r).
  static constexpr int slots = R + ahead + 2;
  static constexpr int threads = bx * by;
  static constexpr int row_passes = (rows + by - 1) / by;  // tile rows each thread copies a piece of
  static constexpr int side = 2 * R * rows;                // halo column elements, one per thread
  static constexpr std::size_t shared_bytes = sizeof(T) * slots * plane;
  static constexpr int taps = (2 * R + 1) * (2 * ry + 1) * (2 * R + 1);
  // Blocks an SM that shared memory allows (227 KiB), at most 3 in 3D (85 registers a thread) and 6
  // in 2D, asked of the register allocator. 3D doubles at radius 1 ask for 2 (128 registers): their
  // lean march below spilled at 3 (80 registers, 32 bytes of stack) and ran 0.746 ms at 512^3; at 2,
  // with no spill, 0.624 (H200).
  static constexpr int fit = static_cast<int>(227 * 1024 / shared_bytes);
  static constexpr int most = Dims == 2 ? 6 : (R == 1 && sizeof(T) == 8 ? 2 : 3);
  static constexpr int min_blocks = fit < most ? fit : most;
  static_assert(min_blocks >= 1, "a block's ring fits an SM");
  // The lean march (plane_copies, a store pointer moved on a plane a step, inner tiles compiled apart)
  // where it fits the registers: at radius 1-2 in 2D and radius 1 in 3D. Elsewhere its offsets and
  // pointers spilled at the registers of min_blocks blocks (8-64 bytes a thread), and radius 2 in 3D
  // measured 4-5% slower with it (H200; docs/journal/stencil.md, "Step 10 v2"); those keep the ring's
  // copies and stores.
  static constexpr bool lean = Dims == 2 ? R <= 2 : R == 1;
};

// The weight of box tap (dx, dy, dz) in pack_weights' order: z, then y, then x, each from -r.
template <int R, int Ry>
constexpr int box_index(int dx, int dy, int dz) {
  return ((dz + R) * (2 * Ry + 1) + dy + Ry) * (2 * R + 1) + dx + R;
}

// Step 10's copies of a plane. The ring's issue_plane recomputes each piece's offset from the plane
// index every step (two 64-bit multiply-adds and ~20 instructions a piece in its SASS at radius 1 in
// float), and sends every tile at a face of the grid in x or y, and every plane of it, down the path
// that resolves each piece against the faces. Here the faces in x and y are resolved once: a
// thread's pieces (one a tile row it copies) and its halo column element keep their offsets within
// a plane, rows outside the grid in y already clamped or wrapped, and a step adds them to the
// plane's base: ~3 instructions a copy beside the copy's own 4 issue slots. The pieces that still
// take issue_plane: a plane outside the grid in z (the chunks at the grid's two ends in z), a piece
// the grid's last column cuts (ragged widths), rows outside the grid under boundary=constant (their
// value is not read), and rows that are not whole vectors (unit < vector).
template <class T, int R, class C, bool Inner>
struct plane_copies {
  const T* plane;                  // the plane issued next (moves on by a plane a step)
  int offset[C::row_passes];       // the thread's piece of tile row ty + k · by, within a plane
  int side_source;                 // its halo column element within a plane (threads < C::side)
  // The planes zz < fast_end (zz >= 0) whose pieces copy as they are: the chunk's planes inside the
  // grid, none where a piece is not usable (not in inner tiles, where every piece is).
  unsigned fast_end;
  bool side_usable;

  __device__ __forceinline__ plane_copies(const vector_ring<T, R, C>& planes, const frame& f, int first_plane, int unit) {
    plane = planes.in + static_cast<std::int64_t>(first_plane) * f.sz;
    const bool constant = f.edge == boundary::constant;
    bool usable = Inner || (unit == C::vector && planes.x + C::vector <= f.nx);
#pragma unroll
    for (int k = 0; k < C::row_passes; ++k) {
      const int yy = planes.y0 - C::ry + planes.ty + k * C::by;
      const bool inside = static_cast<unsigned>(yy) < static_cast<unsigned>(f.ny);
      if (!Inner && !inside && constant && (C::rows % C::by == 0 || planes.ty + k * C::by < C::rows)) usable = false;
      offset[k] = static_cast<int>(wrap_or_clamp(yy, f.ny, f.edge) * f.sy + planes.x);
    }
    const int side_y = planes.y0 - C::ry + planes.side_row;
    side_usable = !constant || (static_cast<unsigned>(side_y) < static_cast<unsigned>(f.ny) &&
                                static_cast<unsigned>(planes.side_x) < static_cast<unsigned>(f.nx));
    side_source = static_cast<int>(wrap_or_clamp(side_y, f.ny, f.edge) * f.sy + wrap_or_clamp(planes.side_x, f.nx, f.edge));
    fast_end = usable ? static_cast<unsigned>(min(f.nz, planes.z_end + R)) : 0u;
  }

  // Plane zz into slot `slot_index` and one commit group, as planes.issue_plane(slot_index, zz) does;
  // then on to the next plane.
  __device__ __forceinline__ void issue(const vector_ring<T, R, C>& planes, const frame& f, int slot_index, int zz) {
    if (static_cast<unsigned>(zz) < fast_end) {
      constexpr unsigned plane_bytes = C::plane * sizeof(T);
      const unsigned slot_address = planes.ring_address + slot_index * plane_bytes;
#pragma unroll
      for (int k = 0; k < C::row_passes; ++k) {
        if (C::rows % C::by == 0 || planes.ty + k * C::by < C::rows) {
          copy_async(slot_address + planes.piece_address[k], plane + offset[k], 16);
        }
      }
      if (planes.thread < C::side) {
        if (side_usable) {
          copy_async(slot_address + planes.side_offset * sizeof(T), plane + side_source, sizeof(T));
        } else {
          planes.ring[slot_index * C::plane + planes.side_offset] = planes.edge_value;
        }
      }
      commit_copies();
    } else {
      planes.issue_plane(slot_index, zz);
    }
    plane += f.sz;
  }
};

// A block's march over its chunk of z: the running sums live in registers from the first plane read
// to the last.
template <class T, int R, int Dims, bool Inner>
__device__ __forceinline__ void march(const vector_ring<T, R, config<T, R, Dims>>& planes, T* __restrict__ out,
                                      const frame& f, int z_begin, int z_end, int unit,
                                      const weights<T, config<T, R, Dims>::taps>& c) {
  using C = config<T, R, Dims>;
  constexpr int V = C::vector, E = C::rows_each, LW = window_side<T, R>();
  const int x = planes.x, y = planes.y0 + planes.ty * E;  // this thread's first point: rows y ... y + E - 1

  // Step i reads plane z_begin - r + i, in slot i mod slots, and stores output plane z_begin - 2r + i
  // (from i = 2r: the steps before only start the sums).
  for (int i = 0; i < C::ahead; ++i) planes.issue_plane(i, z_begin - R + i);
  plane_copies<T, R, C, Inner> copies(planes, f, z_begin - R + C::ahead, unit);  // unused unless C::lean
  const int own = planes.ty * E * C::row + C::pad + planes.tx * V;  // this thread's vector in its first input row (y - ry)
  const bool face_block = f.edge == boundary::copy &&
                          (planes.x0 < R || planes.x0 + C::width + R > f.nx || planes.y0 < C::ry ||
                           planes.y0 + C::by * E + C::ry > f.ny);
  // The thread's first output point of the next plane stored, moved on by a plane a store; its piece
  // takes one vector store where it lies inside the grid in x and rows are whole vectors.
  T* target = out + (static_cast<std::int64_t>(z_begin) * f.sz + static_cast<std::int64_t>(y) * f.sy + x);
  const bool whole_store = Inner || (unit == V && x + V <= f.nx);

  // sums[j][k][i]: output row y + j, plane (the plane read) - r + k, point x + i. The move down a
  // plane at the end of a step costs nothing: ptxas writes each sum's last multiply-add of the step
  // into the register the moved sum lives in, and the newest sum's first into a fresh one.
  T sums[E][2 * R + 1][V];
#pragma unroll
  for (int j = 0; j < E; ++j) {
#pragma unroll
    for (int k = 0; k <= 2 * R; ++k) {
#pragma unroll
      for (int i = 0; i < V; ++i) sums[j][k][i] = 0;
    }
  }
  int read_slot = 0, write_slot = C::ahead, own_slot = C::slots - R;  // planes p, p + ahead, p - r
  const int steps = z_end - z_begin + 2 * R;
  for (int step = 0; step < steps; ++step) {
    if constexpr (C::lean) {
      copies.issue(planes, f, write_slot, z_begin - R + step + C::ahead);
    } else {
      planes.issue_plane(write_slot, z_begin - R + step + C::ahead);
    }
    wait_copies<C::ahead>();  // this thread's copies of the plane read here have landed
    __syncthreads();          // and everyone's

    const T* first_row = planes.ring + read_slot * C::plane + own;
#pragma unroll
    for (int t = 0; t < E + 2 * C::ry; ++t) {  // input row y - ry + t
      T window[LW + V + LW];                     // window[LW + i] = the row at x + i
      const T* at = first_row + t * C::row;
      load_run<T, LW>(at - LW, window);
      load_run<T, V>(at, window + LW);
      load_run<T, LW>(at + V, window + LW + V);
#pragma unroll
      for (int j = 0; j < E; ++j) {
        const int dy = t - C::ry - j;
        if (dy < -C::ry || dy > C::ry) continue;
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) {  // output plane p - r + k: this plane is its dz = r - k
#pragma unroll
          for (int dx = -R; dx <= R; ++dx) {
            const T weight = c.w[box_index<R, C::ry>(dx, dy, R - k)];
#pragma unroll
            for (int i = 0; i < V; ++i) sums[j][k][i] += weight * window[LW + i + dx];
          }
        }
      }
    }

    const int z = z_begin - 2 * R + step;  // the output plane whose taps are all in
    if (z >= z_begin) {
      const bool own_values_here = face_block || (f.edge == boundary::copy && (z < R || z >= f.nz - R));
#pragma unroll
      for (int j = 0; j < E; ++j) {
        if (y + j >= f.ny) continue;
        if (own_values_here) {
          const T* own_values = planes.ring + own_slot * C::plane + own + (j + C::ry) * C::row;
#pragma unroll
          for (int i = 0; i < V; ++i) {
            if (copies_itself(f, x + i, y + j, z)) sums[j][0][i] = own_values[i];
          }
        }
        if (!C::lean) {
          planes.store(out + (z * f.sz + (y + j) * f.sy + x), sums[j][0]);
        } else if (whole_store) {
          *reinterpret_cast<typename vector16<T>::type*>(target + j * f.sy) = vector16<T>::pack(sums[j][0]);
        } else {
          planes.store(target + j * f.sy, sums[j][0]);
        }
      }
      if (C::lean) target += f.sz;
    }
#pragma unroll
    for (int j = 0; j < E; ++j) {
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) {
#pragma unroll
        for (int i = 0; i < V; ++i) sums[j][k][i] = sums[j][k + 1][i];
      }
#pragma unroll
      for (int i = 0; i < V; ++i) sums[j][2 * R][i] = 0;
    }
    read_slot = read_slot + 1 == C::slots ? 0 : read_slot + 1;
    write_slot = write_slot + 1 == C::slots ? 0 : write_slot + 1;
    own_slot = own_slot + 1 == C::slots ? 0 : own_slot + 1;
  }
  wait_copies<0>();  // no copy may land in shared memory after the block has gone
}

// One block a tile of the plane, marching a chunk of z.
template <class T, int R, int Dims>
__global__ void __launch_bounds__(config<T, R, Dims>::threads, config<T, R, Dims>::min_blocks)
    box_planes_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk, int unit,
                      const weights<T, config<T, R, Dims>::taps> c) {
  using C = config<T, R, Dims>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* ring = reinterpret_cast<T*>(shared_raw);  // [slots][rows][row]
  const int x0 = static_cast<int>(blockIdx.x) * C::width, y0 = static_cast<int>(blockIdx.y) * C::by * C::rows_each;
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  const vector_ring<T, R, C> planes(in, ring, f, edge_value, x0, y0, z_end, unit);
  // Inner tiles: every row piece inside the grid in x, rows whole vectors, and no row outside it in y
  // under boundary=constant (whose rows are filled, not copied). At 512^3 every tile; at 508 wide all
  // but the last column. Compiled apart, their steps test no piece: with a per-thread test in the same
  // loop ptxas recomputed it from its terms every step (~40 instructions).
  const bool rows_usable = f.edge != boundary::constant || (y0 >= C::ry && y0 + C::rows - C::ry <= f.ny);
  if (C::lean && unit == C::vector && x0 + C::width <= f.nx && rows_usable) {
    march<T, R, Dims, true>(planes, out, f, z_begin, z_end, unit, c);
  } else {
    march<T, R, Dims, false>(planes, out, f, z_begin, z_end, unit, c);
  }
}

template <class T, int R, int Dims>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, Dims>;
  // The z-chunk (H200; docs/journal/stencil.md, "Step 10 v2"). 3D floats at radius 1 take 16 planes:
  // at 512^3 0.327 ms against 0.343 for the one-wave chunks (171 planes), and 0.392 against 0.600 at
  // 508 x 509 x 511, whose last tile column runs the slower march and, with chunks of one wave, holds
  // every SM to its time; 8 planes cost more in the 2r planes each chunk reads again (0.474 ms there).
  // 3D doubles at radius 1 likewise: 0.624 ms at 512^3 against 0.687, and 0.648 against 1.002 at 508
  // wide. 2D grids at radius 1-2 take 32 rows: 3-6% ahead of one wave at 8191 x 4097 and 16383 x 8193,
  // level at 8192^2; 64 and 128 lost at radius 1. The other kinds keep one wave (not swept).
  const std::string_view chunk = launch.setting(chunk_setting);
  const int planes_per_chunk =
      chunk == "auto"   ? (Dims == 3 && R == 1 ? 16 : Dims == 2 && R <= 2 ? 32 : 0)
      : chunk == "wave" ? 0
                        : static_cast<int>(std::min<std::int64_t>(whole_setting(chunk_setting.key, chunk), 1 << 30));
  launch_ring_kernel<T, R, C>(box_planes_kernel<T, R, Dims>, p, x, launch, C::by * C::rows_each, shape::box, "box_planes",
                              planes_per_chunk);
}

}  // namespace

void box_planes(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.form == shape::box, "box_planes: box stencils only (stars run on steps 07-09)");
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::box) run_instance<T, R, Dims>(p, x, launch);
  });
}

}  // namespace swath::stencil::cuda
