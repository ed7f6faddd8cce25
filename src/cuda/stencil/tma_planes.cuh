#pragma once
// The copy-engine ring of steps 08 and 09: a block's tile, plane by plane, brought into shared memory by
// the copy engine (TMA), one producer warp feeding eight compute warps, with no block barrier. 3D star
// stencils, radius 1-4, float or double, boundaries clamp, copy and constant; rows a whole number of
// 16-byte vectors (the copy engine's row pitch must be a multiple of 16 bytes).
//
// The kernel's shape: each compute warp owns Rows tile rows (32 vectors of 16 bytes across), and each
// step of its march computes Planes output planes of them. Step 08 is Planes = 1 (08_tma_planes.cu says
// how the ring came about); step 09 computes two planes a step, so the planes between them are read
// from shared memory once for both (09_plane_pairs.cu).
//
//  - one thread of a ninth warp (the producer) asks the copy engine for the whole tile of a plane,
//    (128 + 2·pad) × (8·Rows + 2r) elements, as one box of a 3D tensor map (two of half the rows,
//    for rows whose pitch is an odd number of 16 bytes: "split rows" below); it lands in a ring slot
//    and completes that slot's "full" mbarrier with its byte count;
//  - each compute warp waits only on the full barriers of the newest planes it reads, and when done
//    with the oldest arrives on those slots' "empty" barriers; the producer refills a slot when all
//    eight have arrived. Warps drift apart by up to the ring's depth instead of meeting every plane.
//
// Boundaries. The copy engine fills box elements outside the grid with zeros. `clamp`: the producer
// asks for the clamped plane in z, rows outside in y are read from the clamped tile row, and
// a thread whose x window passes a face replaces those elements with the edge value. `constant`:
// the zeros stay, and the weights of the taps outside the grid times the constant are added (a
// per-thread sum in y, a per-plane one in z; the x window is filled with the constant). `copy`:
// the points within r of a face take their input value. `periodic` would need the wrapped rows and
// columns, which are not in the box: step 07 runs it.

#include <algorithm>
#include <cstdint>
#include <string>

#include "../core/bulk_copy.cuh"
#include "../core/per_device.cuh"
#include "stencil_cuda.cuh"
#include "swath/core/device.hpp"

namespace swath::stencil::cuda::tma {

using swath::cuda::arrive;
using swath::cuda::arrive_expecting;
using swath::cuda::shared_address;
using swath::cuda::wait_phase;

// DRAM bytes per SM clock, from the device's peak figures (double data rate): 12.8 on an H100 SXM,
// 18.4 on an H200, whose SMs, clocks and L2 are the same. Asked once per device; 0 where it cannot be
// asked.
inline double dram_bytes_per_sm_clock() {
  static swath::cuda::per_device<double> ratios;
  return ratios.get([] {
    const std::optional<gpu_info> gpu = query_gpu();
    if (!gpu || gpu->sm_count <= 0 || gpu->sm_clock_khz <= 0) return 0.0;
    const double dram_bytes_per_second = 2.0 * gpu->memory_clock_khz * 1e3 * gpu->memory_bus_bits / 8;
    return dram_bytes_per_second / (static_cast<double>(gpu->sm_count) * gpu->sm_clock_khz * 1e3);
  });
}

// Whether the DRAM is slow beside the SMs: under 16 bytes an SM clock. Both steps take shorter z-chunks
// there: on an H100 08 ran faster at radius 1-2 with 5r planes than with 6r, and 09 with 40 than with
// 96, where on an H200 6r and 96 were the faster. Why we think so, and that the threshold rests on those
// two GPUs alone: 09_plane_pairs.cu, v10-v11.
inline bool dram_slow_beside_sms() { return dram_bytes_per_sm_clock() < 16; }

// Rows tile rows per compute warp, Planes output planes per step, Blocks blocks per SM (the register
// allocator is held to it, and the ring takes the shared memory they leave). LinePad: whether the
// halo columns may be a whole line (below) where the ring then still fits. SplitRows: each plane's
// tile rows of either parity come as their own box (below), for rows whose pitch is an odd multiple of
// 16 bytes.
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad = true, bool SplitRows = false>
struct config {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));  // points per thread along x
  static constexpr int consumers = 8;                               // compute warps
  static constexpr int threads = 32 * (consumers + 1);              // and the producer warp
  static constexpr int width = 32 * vector;                         // points per tile row: 128 floats
  static constexpr int by = consumers * Rows;                       // tile rows
  static constexpr int rows = by + 2 * R;
  // A step reads planes z - r ... z + Planes - 1 + r; the ring should hold at least one more step
  // beyond them (two planes when a step takes one) so that the copy engine works ahead.
  static constexpr int reads = 2 * R + Planes;
  static constexpr int ahead = Planes < 2 ? 2 : Planes;
  // One plane's box with rows of row_elements, rounded to the 128 bytes the copy engine aligns each
  // slot to (each half's box when split, below), and how many of those slots fit one block's shared
  // memory (228 KiB per SM, 1 KiB reserved per block).
  //
  // Split rows. The copy engine reads a box row that starts mid-sector (16 bytes past a 32-byte
  // boundary) much more slowly than one that starts on a sector (ring and stores alone at 512^3 on an
  // H200: 84.2% of the copy bandwidth against 88.4%, the same sectors moved). With a row pitch that is
  // an odd multiple of 16 bytes (508 floats: 2032 bytes) every other row of the grid starts mid-sector,
  // whatever the box's x origin. So the tile's rows of either parity go as two boxes of rows/2 rows each,
  // through a tensor map whose row stride is two rows, into the two halves of the slot, and the box of
  // the rows that start mid-sector begins a vector (16 bytes) further left, on a sector. Which half that
  // is depends on the grid's base address and, when a plane's size is also an odd multiple of 16 bytes,
  // on the plane's parity: the compute warps find a row at its half, its pair and that shift.
  static constexpr int halves = SplitRows ? 2 : 1;
  static_assert(!SplitRows || Rows % 2 == 0, "split rows keep a warp's rows' parities fixed at compile time");
  static constexpr unsigned half_size(int row_elements) {
    return (row_elements * (rows / halves) * static_cast<unsigned>(sizeof(T)) + 127) / 128 * 128;
  }
  static constexpr unsigned slot_size(int row_elements) { return halves * half_size(row_elements); }
  static constexpr int slots_that_fit(int row_elements) {
    return static_cast<int>((228 * 1024 / Blocks - 1024 - 512) / slot_size(row_elements));
  }
  // Halo columns each side of the tile. The copy engine reads a box whose rows start 16 bytes before
  // a 128-byte line (the r <= 4 columns rounded to a vector) 8 points slower than one whose rows start
  // on a line, even when the aligned box is 1.5x wider (H200, ring and stores alone at 512^3:
  // 128 + 2·4 floats 84.2% of the copy bandwidth, 128 + 2·32 floats 90.5%, no halo 92.3%). So the pad
  // is a whole line (32 floats, 16 doubles) wherever the ring still has a step in flight and LinePad
  // allows it; at radius 4 it does not, and half a line (which fits) measured no better there. Step 09
  // measured a deeper ring worth more than aligned rows except at radius 3 in float (docs/journal/stencil.md).
  // Otherwise each pad is the x window's side rounded up to a sector (32 bytes), so that rows start
  // and end on a sector: 8 floats or 4 doubles at radius 4, where a vector (4 floats) started them
  // mid-sector (09 at radius 4 in float, 512^3 on an H200: 0.334 -> 0.309 ms). The right one holds a
  // vector more for split rows, whose shifted box begins a vector left. Measured and not kept, at
  // radius 4 in float: a right pad of one vector (140 floats, 17 slots in place of 16; the rows end
  // mid-sector), 0.323 against 0.312 ms; the line pad (12 slots), 0.354.
  static constexpr int line_pad = 128 / static_cast<int>(sizeof(T));
  static constexpr int window = window_side<T, R>();
  static constexpr int sector_pad(int elements) {
    return (elements * static_cast<int>(sizeof(T)) + 31) / 32 * 32 / static_cast<int>(sizeof(T));
  }
  static constexpr int left_pad = sector_pad(window);
  static constexpr int right_pad = sector_pad(window + (SplitRows ? vector : 0));
  static constexpr bool line_padded = LinePad && slots_that_fit(width + 2 * line_pad) >= reads + ahead;
  static constexpr int pad = line_padded ? line_pad : left_pad;  // the tile's first point in a box row
  static constexpr int row = line_padded ? width + 2 * line_pad : width + left_pad + right_pad;
  static_assert(pad >= window && row - width - pad >= window + (SplitRows ? vector : 0),
                "the box must hold the x window on both sides");
  static constexpr unsigned box_bytes = rows * row * sizeof(T);  // both halves' boxes when split
  static constexpr unsigned half_bytes = half_size(row);
  static constexpr unsigned slot_bytes = slot_size(row);
  static constexpr int fit = slots_that_fit(row);
  static constexpr int slots = fit < reads + 8 ? fit : reads + 8;  // up to 8 planes beyond those read
  static_assert(slots >= reads + ahead, "the ring must hold a step in flight beyond the planes a step reads");
  static constexpr std::size_t shared_bytes = slots * slot_bytes + 2 * 8 * slots;  // ring, full and empty barriers
  static constexpr int taps = 6 * R + 1;
};

// Split rows: which half of a slot holds the rows that start mid-sector (its box begins a vector left),
// the one rule the producer and the compute warps both follow. first: from the grid's base address and
// the parity of the tile's first row; flips: 1 where a plane's size is an odd multiple of 16 bytes, so
// that the parity turns from plane to plane.
struct row_parity {
  int first, flips;
  // Whether half 0's rows start mid-sector in plane z; half 1's are then the other parity.
  __device__ int half0_shifted(int z) const { return (first ^ (z & flips)) & 1; }
  // The four layouts as one number, 0-3 (planes_kernel's Parity), and back.
  constexpr int code() const { return first | flips << 1; }
  static constexpr row_parity of(int code) { return {code & 1, code >> 1}; }
};

// PartialVectors: rows whose width is not whole vectors (a pitched grid's 510 floats), whose last vector
// is partly past the face: its window is fixed element by element and its store masked. A kernel of its
// own, because the fix in every kernel cost registers (09 in double at radius 4 spilled).
//
// Parity (split rows): -1, the compute warps read the halves' layout from `parity` each step; 0-3, it
// is known when compiled (row_parity::code), for kernels whose every step starts on an even plane
// (Planes even, chunks of even length). Each plane's rows then sit at a fixed offset from its slot, an
// immediate in the loads. Read at run time, the offsets cost 09 at radius 4 in float 7.6% more
// instructions split than not (ncu, H100, 508 against 504 wide); known, 2.0% (docs/journal/stencil.md, "Split
// rows"). Float only: in double at radius 3 two of the four kernels spilled 8 bytes.
//
// AlignedStores (split rows, one plane a step: step 08): a row that starts mid-sector is computed and
// stored a vector to the left, at x - V ... x - 1, its box's own origin. A warp's 512 bytes then cover 16
// whole sectors instead of 17, whose first and last are halves that the neighbouring tile column's
// block writes at another time (3% more sectors written at 508 floats, to an L2 that radius 1 keeps 95%
// busy). Each tap of such a row is read a vector left of where the unshifted kernel reads it, and the
// y taps between a warp's own rows, which then sit a vector apart, come from shared memory rather than
// from the windows. The tile columns then cover x = -V ... ncols·width - V - 1, so the host takes this
// kernel only where the last column has a vector to spare (every dense split grid has). Predicted from
// a diagnostic build that only moved the stores (docs/journal/stencil.md): 08 at radius 1 in float at
// 508 x 509 x 511 on an H100, 93.75% -> ~94.4% of the copy bandwidth. Measured, alternately with the
// unshifted kernel: 93.85% -> 94.5%, radius 2 90.4% -> 90.65%, double (rows on sectors) and 512^3 unchanged.
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad, bool SplitRows, bool PartialVectors, int Parity = -1,
          bool AlignedStores = false>
__global__ void __launch_bounds__(config<T, R, Rows, Planes, Blocks, LinePad, SplitRows>::threads, Blocks)
    planes_kernel(const __grid_constant__ CUtensorMap map, const __grid_constant__ CUtensorMap odd_rows_map,
                  row_parity parity, T* __restrict__ out, frame f, T edge_value, int z_chunk, int chunks, int rows_per_group,
                  const weights<T, config<T, R, Rows, Planes, Blocks, LinePad, SplitRows>::taps> c) {
  using C = config<T, R, Rows, Planes, Blocks, LinePad, SplitRows>;
  constexpr int V = C::vector;
  constexpr int S = C::slots;
  constexpr int P = Planes;
  extern __shared__ __align__(1024) unsigned char shared_raw[];
  const unsigned ring_address = shared_address(shared_raw);
  const unsigned full = ring_address + S * C::slot_bytes;  // full[s] at full + 8 s
  const unsigned empty = full + 8 * S;

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  // Tile rows in groups (launch_planes): blockIdx.z counts the z-chunks of each group in turn.
  const int tile_row = static_cast<int>(blockIdx.z) / chunks * rows_per_group + static_cast<int>(blockIdx.y);
  const int x0 = static_cast<int>(blockIdx.x) * C::width, y0 = tile_row * C::by;
  if (y0 >= f.ny) return;  // the last group's rows past the grid (the whole block)
  const int z_begin = static_cast<int>(blockIdx.z) % chunks * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  // Plane i is z_begin - R + i. A chunk whose length is not a multiple of P takes the planes its last
  // step reads beyond z_end too (zeros past the grid, or the clamped plane); that step stores only the
  // planes the chunk owns.
  const int planes = (z_end - z_begin + P - 1) / P * P + 2 * R;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      swath::cuda::init_barrier(full + 8 * s, 1);
      swath::cuda::init_barrier(empty + 8 * s, C::consumers);
    }
    swath::cuda::fence_barrier_init();
  }
  __syncthreads();

  if (warp == C::consumers) {  // the producer: plane i into slot i mod S, once slot's last reader is done
    if (lane == 0) {
      int s = 0;
      unsigned round = 0;
      for (int i = 0; i < planes; ++i) {
        if (round > 0) wait_phase(empty + 8 * s, (round - 1) & 1);
        int zz = z_begin - R + i;
        if (f.edge == boundary::clamp) zz = min(max(zz, 0), f.nz - 1);
        arrive_expecting(full + 8 * s, C::box_bytes);
        if constexpr (!SplitRows) {
          swath::cuda::tensor_load_3d(ring_address + s * C::slot_bytes, &map, x0 - C::pad, y0 - R, zz, full + 8 * s);
        } else {
          // Half h holds tile rows h, h + 2, ...: grid rows y0 - R + h + 2k, all of parity (R + h) & 1
          // (y0 is even), row (y - parity) / 2 of that parity's map. The layout follows the plane the
          // step reads (z_begin - R + i), also where clamp loads another.
          const int half0_shifted = parity.half0_shifted(z_begin - R + i);
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int odd = (R + h) & 1;
            swath::cuda::tensor_load_3d(ring_address + s * C::slot_bytes + h * C::half_bytes, odd ? &odd_rows_map : &map,
                                        x0 - C::pad - V * ((h ^ half0_shifted) & 1), (y0 - R + h - odd) / 2, zz,
                                        full + 8 * s);
          }
        }
        if (++s == S) s = 0, ++round;
      }
    }
    return;
  }

  // A compute warp: tile rows warp·Rows ... warp·Rows + Rows - 1, 32 vectors of V points each.
  const int x = x0 + lane * V, y = y0 + warp * Rows;  // the first row's first point
  // This thread's vector of its first row in a slot (tile row warp·Rows + R); split, of its rows' pair
  // k0 = warp·Rows / 2 in half 0, unshifted.
  const int own = SplitRows ? warp * Rows / 2 * C::row + C::pad + lane * V : (warp * Rows + R) * C::row + C::pad + lane * V;
  constexpr int LW = window_side<T, R>();
  const row_parity rule = Parity < 0 ? parity : row_parity::of(Parity);  // split: the halves' layout
  static_assert(!AlignedStores || (SplitRows && Planes == 1 && !PartialVectors && C::pad >= LW + V),
                "aligned stores: split rows, one plane a step, whole vectors, and a left pad that holds the window a vector left");

  // Under constant, the weights of the y taps outside the grid times the constant, added to each
  // output of a row (the zero-filled rows contribute nothing).
  T y_outside[Rows];
#pragma unroll
  for (int j = 0; j < Rows; ++j) {
    y_outside[j] = 0;
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) {
      const int dy = k < R ? k - R : k - R + 1;
      if (f.edge == boundary::constant && static_cast<unsigned>(y + j + dy) >= static_cast<unsigned>(f.ny)) {
        y_outside[j] += edge_value * c.w[star_index<R, R>(0, dy, 0)];
      }
    }
  }
  const bool x_face = (AlignedStores ? x - V : x) < LW || x + V + LW > f.nx;  // the x window passes a face (or the lane is past the grid)
  const bool warp_at_y_face = y < R || y + Rows - 1 + R >= f.ny;
  const bool thread_copies = f.edge == boundary::copy && ((AlignedStores ? x - V : x) < R || x + V > f.nx - R || y < R || y + Rows - 1 >= f.ny - R);
  const bool x_inside = x < f.nx;
  const bool x_whole = !PartialVectors || x + V <= f.nx;  // false for the last vector of a ragged row

  // Planes 0 ... 2R - 1 before the first step; then each step waits for its P newest planes.
  for (int i = 0; i < 2 * R; ++i) wait_phase(full + 8 * i, 0);
  int low = 0;  // the slot of plane z - R
  int newest = 2 * R;
  unsigned newest_parity = 0;

  T* target = out + (static_cast<std::int64_t>(z_begin) * f.sz + static_cast<std::int64_t>(y) * f.sy + x);
  for (int z = z_begin; z < z_end; z += P, target += P * f.sz) {
    // Plane z - R + i is in slot low + i, or low + i - S where that passes the ring's end. The step
    // picks each plane's address from two bases, this thread's vector in slot low and the same less
    // the ring, by the first i that wraps; the plane's offset i·slot_bytes is then the load's
    // immediate: a compare and a select a plane, where wrapping the index, multiplying and adding for
    // each plane afresh took ~4-5 (~45 instructions a step at radius 4 with P = 2).
    const unsigned char* const mine_in_low = shared_raw + own * sizeof(T) + low * C::slot_bytes;
    const int wraps_from = S - low;
    const auto mine = [&](int d) {  // this thread's vector of the first row (split: of pair k0) of plane z + d
      const int i = R + d;
      const unsigned char* base = i >= wraps_from ? mine_in_low - S * C::slot_bytes : mine_in_low;
      return reinterpret_cast<const T*>(base + i * C::slot_bytes);
    };
    // Split: whether half 0 of plane z + d is the shifted one, for even and odd d. Where the layout is
    // known when compiled, z is even at every step, and 0 in its place makes the answer a constant.
    const int half0_shifted_even = rule.half0_shifted(Parity < 0 ? z : 0);
    const int half0_shifted_odd = half0_shifted_even ^ rule.flips;
    // Aligned stores: row j's outputs this step are at x - shift[j]·V (the rows of the shifted half), and
    // each of its taps is read as far left.
    int shift[Rows];
#pragma unroll
    for (int j = 0; j < Rows; ++j) shift[j] = AlignedStores ? (((R + j) & 1) ^ half0_shifted_even) & 1 : 0;
    const auto output_x = [&](int j) {
      if constexpr (AlignedStores) {
        return x - shift[j] * V;
      } else {
        return x;
      }
    };
    const auto in_half = [&](int d, int h, int pairs_from_k0) {  // split: this thread's vector in pair k0 + ... of half h
      const int shifted = (h ^ ((d & 1) ? half0_shifted_odd : half0_shifted_even)) & 1;
      return reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(mine(d)) + h * C::half_bytes) +
             pairs_from_k0 * C::row + shifted * V;
    };
    // This thread's vector of a row of plane z + d, e rows from its first (tile row t0 = warp·Rows + R):
    // split, tile row 2·k0 + R + e is in half (R + e) & 1, pair k0 + (R + e) / 2.
    const auto row_at = [&](int d, int e) {
      if constexpr (!SplitRows) {
        return mine(d) + e * C::row;
      } else {
        return in_half(d, (R + e) & 1, (R + e) >> 1);
      }
    };
    // The y tap dy of row j of plane z + p for warps at a y face: under clamp a row outside the grid is
    // read from the nearest one inside (still in the tile), otherwise from the zero-filled row. Worked
    // out where it is used, on the edge path only, rather than held in 2R·Rows registers through the march.
    const auto y_tap_at_face = [&](int p, int j, int dy) {
      const int self = warp * Rows + j + R;  // the row's tile row
      int t = self + dy;
      if (f.edge == boundary::clamp) t = min(max(t, R - y0), R - y0 + f.ny - 1);
      if constexpr (!SplitRows) {
        return row_at(p, j) + (t - self) * C::row;
      } else {
        return in_half(p, t & 1, (t >> 1) - warp * Rows / 2);
      }
    };
    {  // newest itself moves on after the step, with low: the order step 08's measured code has
      int slot_index = newest;
      unsigned parity = newest_parity;
#pragma unroll
      for (int q = 0; q < P; ++q) {
        wait_phase(full + 8 * slot_index, parity);
        if (++slot_index == S) slot_index = 0, parity ^= 1;
      }
    }
    T sum[P][Rows][V];
    // Edge: the y and z boundary rules (a warp at a y face, or a plane within r of a z face). The x
    // rules are one lane's window, fixed on either path.
    const auto step = [&]<bool Edge>() {
      T window[P][Rows][LW + V + LW];  // window[p][j][LW + i] = row j of plane z + p at x + i
#pragma unroll
      for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
          const T* centre = row_at(p, j);
          if constexpr (AlignedStores) centre -= shift[j] * V;
          load_run<T, LW>(centre - LW, window[p][j]);
          load_run<T, V>(centre, window[p][j] + LW);
          load_run<T, LW>(centre + V, window[p][j] + LW + V);
        }
      }
      if (x_face && f.edge != boundary::copy) {  // lanes whose window passes an x face
        // The window's sides, in pieces of G elements, are each wholly inside or wholly outside the
        // grid when x is a multiple of V and so is nx (dense 16-byte rows), and a side is either shorter
        // than a vector (one piece, outside only for the first or last vector of a row) or whole
        // vectors. So each piece outside is filled in one go, outward from the lane's own vector:
        // clamp repeats the element next to it (in(0) or in(nx - 1), or a piece already filled),
        // constant writes the value. Testing and selecting each of the LW + V + LW elements instead
        // cost ~190 instructions a step at radius 4 in float, in every warp of a block at an x face.
        constexpr int G = LW < V ? LW : V;
        const bool clamp = f.edge == boundary::clamp;
#pragma unroll
        for (int p = 0; p < P; ++p) {
#pragma unroll
          for (int j = 0; j < Rows; ++j) {
            T* w = window[p][j];
            const int xj = output_x(j);
#pragma unroll
            for (int q = 0; q < LW / G; ++q) {
              const int k = LW - (q + 1) * G;  // the piece at xj - (q + 1)·G ... xj - q·G - 1
              if (xj < (q + 1) * G) {
                const T fill = clamp ? w[k + G] : edge_value;
#pragma unroll
                for (int i = 0; i < G; ++i) w[k + i] = fill;
              }
            }
#pragma unroll
            for (int q = 0; q < LW / G; ++q) {
              const int k = LW + V + q * G;  // the piece at xj + V + q·G ...
              if (xj + V + q * G >= f.nx) {
                const T fill = clamp ? w[k - 1] : edge_value;
#pragma unroll
                for (int i = 0; i < G; ++i) w[k + i] = fill;
              }
            }
          }
        }
        if constexpr (PartialVectors) {
          // A pitched grid's rows need not be whole vectors: the face then falls inside a piece, whose
          // elements past it hold the copy engine's zeros. Each element past nx - 1 takes in(nx - 1)
          // (clamp, found by a select over the window: a run-time index would put the window in local
          // memory) or the constant. Every lane at either x face runs it, every step: at radius 4 in
          // float 09 runs 6-25% slower at 510 x 509 x 511 than at 508 (H100, H200), and two cheaper-looking
          // versions ran slower still (docs/journal/stencil.md, "Pitched grids").
#pragma unroll
          for (int p = 0; p < P; ++p) {
#pragma unroll
            for (int j = 0; j < Rows; ++j) {
              T* w = window[p][j];
              T last = w[LW];
#pragma unroll
              for (int k = 0; k < LW + V + LW; ++k) {
                if (x - LW + k == f.nx - 1) last = w[k];
              }
#pragma unroll
              for (int k = 0; k < LW + V + LW; ++k) {
                if (x - LW + k >= f.nx) w[k] = clamp ? last : edge_value;
              }
            }
          }
        }
      }
#pragma unroll
      for (int p = 0; p < P; ++p) {
        T start[Rows];
#pragma unroll
        for (int j = 0; j < Rows; ++j) start[j] = 0;
        if constexpr (Edge) {
          if (f.edge == boundary::constant) {
            T z_outside = 0;
#pragma unroll
            for (int dz = -R; dz <= R; ++dz) {
              if (static_cast<unsigned>(z + p + dz) >= static_cast<unsigned>(f.nz)) z_outside += edge_value * c.w[star_index<R, R>(0, 0, dz)];
            }
#pragma unroll
            for (int j = 0; j < Rows; ++j) start[j] = y_outside[j] + z_outside;
          }
        }
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
#pragma unroll
          for (int i = 0; i < V; ++i) sum[p][j][i] = start[j];
        }
      }
      const auto add = [&](int p, int j, T weight, const T* values) {
#pragma unroll
        for (int i = 0; i < V; ++i) sum[p][j][i] += weight * values[i];
      };
      // z taps: plane z + d feeds the outputs within r of it, read once for all of them (from the
      // window when it is itself an output plane).
#pragma unroll
      for (int d = -R; d < P + R; ++d) {
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
          T loaded[V];
          const T* values = loaded;
          if (d >= 0 && d < P) {
            values = window[d][j] + LW;
          } else {
            const T* tap = row_at(d, j);
            if constexpr (AlignedStores) tap -= shift[j] * V;
            load_run<T, V>(tap, loaded);
          }
#pragma unroll
          for (int p = 0; p < P; ++p) {
            const int dz = d - p;
            if (dz != 0 && dz >= -R && dz <= R) add(p, j, c.w[star_index<R, R>(0, 0, dz)], values);
          }
        }
      }
      // y taps: a row the warp owns comes from its window (not at a y face), the others from shared memory.
#pragma unroll
      for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int k = 0; k < 2 * R; ++k) {
          const int dy = k < R ? k - R : k - R + 1;
#pragma unroll
          for (int j = 0; j < Rows; ++j) {
            const T weight = c.w[star_index<R, R>(0, dy, 0)];
            if (!Edge && !AlignedStores && j + dy >= 0 && j + dy < Rows) {
              add(p, j, weight, window[p][j + dy] + LW);
            } else {
              T values[V];
              const T* tap = Edge ? y_tap_at_face(p, j, dy) : row_at(p, j + dy);
              if constexpr (AlignedStores) tap -= shift[j] * V;
              load_run<T, V>(tap, values);
              add(p, j, weight, values);
            }
          }
        }
      }
#pragma unroll
      for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
#pragma unroll
          for (int dx = -R; dx <= R; ++dx) add(p, j, c.w[star_index<R, R>(dx, 0, 0)], window[p][j] + LW + dx);
        }
      }
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if (thread_copies || (f.edge == boundary::copy && (z + p < R || z + p >= f.nz - R))) {
#pragma unroll
          for (int j = 0; j < Rows; ++j) {
#pragma unroll
            for (int i = 0; i < V; ++i) {
              if (copies_itself(f, output_x(j) + i, y + j, z + p)) sum[p][j][i] = window[p][j][LW + i];
            }
          }
        }
      }
    };
    if (warp_at_y_face || (f.edge != boundary::clamp && (z < R || z + P - 1 >= f.nz - R))) {
      step.template operator()<true>();
    } else {
      step.template operator()<false>();
    }
    if (AlignedStores || x_inside) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if (p == 0 || z + p < z_end) {
#pragma unroll
          for (int j = 0; j < Rows; ++j) {
            bool stored = y + j < f.ny;
            if constexpr (AlignedStores) stored = stored && static_cast<unsigned>(output_x(j)) < static_cast<unsigned>(f.nx);
            if (stored) {
              T* row = target + p * f.sz + j * f.sy;
              if constexpr (AlignedStores) row -= shift[j] * V;
              if (x_whole) {
                *reinterpret_cast<typename vector16<T>::type*>(row) = vector16<T>::pack(sum[p][j]);
              } else {  // a ragged row's last, partial vector: the pad past it is not ours to write
#pragma unroll
                for (int i = 0; i < V; ++i) {
                  if (x + i < f.nx) row[i] = sum[p][j][i];
                }
              }
            }
          }
        }
      }
    }
    // Planes z - R ... z - R + P - 1 are read by no later step of this warp.
    __syncwarp();
#pragma unroll
    for (int q = 0; q < P; ++q) {
      if (lane == 0) arrive(empty + 8 * low);
      low = low + 1 == S ? 0 : low + 1;
      if (++newest == S) newest = 0, newest_parity ^= 1;
    }
  }
}

using swath::cuda::tensor_map_encoder;

// The input as a 3D tensor (x, y, z) whose box is one plane of a block's tile with its halo; split
// (row_step 2), its rows of one parity (from first_row), whose box is half the tile's rows.
//
// L2 promotion of 128 bytes: each of the copy engine's reads brings whole 128-byte lines into the L2.
// A box row that starts or ends mid-line (a row pitch that is not whole lines, the sector pads of 09 and
// of 08 at radius 3-4, split rows) asks for part of a line whose rest the neighbouring tile's box asks
// for at another time. Our reading (not profiled): without promotion the L2 fills only the sectors
// asked for, and the rest of the line comes from DRAM later in a second, smaller request; with it, the
// second box finds the line whole. Measured alternately against no promotion (H100 and H200;
// docs/journal/stencil.md, "L2 promotion"): on the H100 08 at radius 1 in float at 508 x 509 x 511 94.4% ->
// 95.3% of the copy bandwidth, and +0.3 to +2.3 points on every grid whose rows miss the lines, every
// radius and type of 08 and 09; at 512^3 the boxes whose rows start on lines moved under 0.15 points and
// the sector-padded ones (09, 08 at radius 4) gained 0.5-1.4. The H200 gained up to 1.5 points and lost
// none beyond 0.1. Step 08's first form had promotion and lost no time without it, before its boxes
// were line-padded.
template <class C, class T>
CUtensorMap plane_tiles(const T* in, const frame& f, int first_row = 0, int row_step = 1) {
  CUtensorMap map{};
  const cuuint64_t extents[3] = {static_cast<cuuint64_t>(f.nx), static_cast<cuuint64_t>((f.ny - first_row + row_step - 1) / row_step),
                                 static_cast<cuuint64_t>(f.nz)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(f.sy * row_step) * sizeof(T), static_cast<cuuint64_t>(f.sz) * sizeof(T)};
  const cuuint32_t box[3] = {C::row, static_cast<cuuint32_t>(C::rows / row_step), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = tensor_map_encoder()(
      &map, sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 3,
      const_cast<T*>(in + first_row * f.sy), extents, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  SWATH_EXPECTS(result == CUDA_SUCCESS, "tma_planes: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(result));
  return map;
}

// Split rows: row y of plane z starts mid-sector when (base / 16 + y + z · plane / 16) is odd (row
// pitch / 16 odd); half 0's rows are y0 - R + 2k with y0 even.
template <class T, int R>
row_parity parity_of_split_rows(const T* in, const frame& f) {
  const auto sixteens = [](std::uint64_t bytes) { return static_cast<int>((bytes / 16) & 1); };
  return {(sixteens(reinterpret_cast<std::uintptr_t>(in)) ^ R) & 1, sixteens(static_cast<std::uint64_t>(f.sz) * sizeof(T))};
}

// One launch over the grid, its rows split by parity or not. Split in float with an even number of
// planes a step, the kernel is the one compiled for the grid's parity (planes_kernel, Parity).
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad, bool SplitRows, bool PartialVectors = false, int Parity = -1,
          bool AlignedStores = false>
void launch_planes(const frame& f, const problem& p, const operands& x, const launch_context& launch, int planes_per_chunk) {
  const T* in = static_cast<const T*>(x.in);
  if constexpr (SplitRows && Planes % 2 == 0 && sizeof(T) == 4 && Parity < 0 && !AlignedStores) {
    const row_parity parity = parity_of_split_rows<T, R>(in, f);
    switch (parity.code()) {
      case 0: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 0>(f, p, x, launch, planes_per_chunk);
      case 1: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 1>(f, p, x, launch, planes_per_chunk);
      case 2: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 2>(f, p, x, launch, planes_per_chunk);
      default: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 3>(f, p, x, launch, planes_per_chunk);
    }
  } else {
    using C = config<T, R, Rows, Planes, Blocks, LinePad, SplitRows>;
    const auto kernel = planes_kernel<T, R, Rows, Planes, Blocks, LinePad, SplitRows, PartialVectors, Parity, AlignedStores>;
    const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
    marching_launch plan = plan_marching(f, C::width, C::by, blocks_per_sm, launch, planes_per_chunk);
    if constexpr (Parity >= 0) {  // every chunk, and so every step, starts on an even plane
      if (plan.z_chunk % 2 != 0) {
        ++plan.z_chunk;
        plan.grid.z = static_cast<unsigned>((f.nz + plan.z_chunk - 1) / plan.z_chunk);
      }
    }
    // Tile rows in groups of at most one wave of blocks, each group's chunks launched in turn (group 0's
    // first chunks, then its second ones, ..., then group 1's). The hardware starts blocks in launch order,
    // so a tile's next chunk then starts about when its last one ends, and reads the 2r planes they share
    // while the L2 still holds them. Launched chunk by chunk over the whole plane instead, a plane wider
    // than a wave (09 in double at 512^2: 256 tiles, 1.94 waves of 132) starts a tile's next chunk about
    // a wave after its last one ended, and the planes are gone: ncu on an H100 at 512^3, radius 4, read
    // 1.21 GB from DRAM for a 1.07 GB input (1.16 grouped; float, whose 128 tiles are one wave, 1.00).
    const int chunks = static_cast<int>(plan.grid.z), tile_rows = static_cast<int>(plan.grid.y);
    int rows_per_group = tile_rows;
    const int resident = (launch.sm_count > 0 ? launch.sm_count : 1) * blocks_per_sm;
    if (static_cast<int>(plan.grid.x) * tile_rows > resident) rows_per_group = std::max(1, resident / static_cast<int>(plan.grid.x));
    const int groups = (tile_rows + rows_per_group - 1) / rows_per_group;
    SWATH_EXPECTS(static_cast<std::int64_t>(groups) * chunks <= 65535,
                  "tma_planes: " + std::to_string(groups) + " groups of tile rows x " + std::to_string(chunks) +
                      " z-chunks exceed CUDA's 65535 blocks in z");
    plan.grid.y = static_cast<unsigned>(rows_per_group);
    plan.grid.z = static_cast<unsigned>(groups * chunks);
    const CUtensorMap map = plane_tiles<C>(in, f, 0, C::halves);
    const row_parity parity = SplitRows ? parity_of_split_rows<T, R>(in, f) : row_parity{0, 0};
    kernel<<<plan.grid, C::threads, C::shared_bytes, stream_of(launch)>>>(
        map, SplitRows ? plane_tiles<C>(in, f, 1, 2) : map, parity, static_cast<T*>(x.out), f, static_cast<T>(p.edge_value),
        plan.z_chunk, chunks, rows_per_group, pack_weights<T, C::taps>(p, R, R, shape::star));
    SWATH_CHECK_LAST();
  }
}

// One launch over the grid. planes_per_chunk: the z-chunks' length (a multiple of Planes is best:
// a chunk's last step otherwise computes planes it does not store). Rows whose pitch is an odd multiple
// of 16 bytes (half of them start mid-sector) are split by parity where a warp's rows are an even
// count, up to radius 3, and at radius 4 in float. Measured on an H200 at 508 x 509 x 511 in float:
// radius 1 0.297 -> 0.283 ms, radius 2 0.314 -> 0.300, radius 3 (step 09) 0.312 -> 0.303. At radius 4
// (09) in float: 0.324 ms split against 0.321 not on the H200 at v3; after v4's sector pads 0.3243
// against 0.3250 on the H200 and 0.4247 against 0.4372 on an H100 (161 registers against 142). Not in
// double, where the split kernel spilled. A width that is not whole vectors (pitched grids only) takes
// the PartialVectors kernel, never split: a line pitch starts every row on a line anyway.
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad = true>
void run(const problem& p, const operands& x, const launch_context& launch, int planes_per_chunk) {
  const frame f = frame_of(p);
  SWATH_EXPECTS(reinterpret_cast<std::uintptr_t>(x.in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(x.out) % 16 == 0,
                "tma_planes: the grids must start 16-byte aligned");
  SWATH_EXPECTS(f.sy * static_cast<std::int64_t>(sizeof(T)) % 16 == 0, "tma_planes: rows must start 16 bytes apart");
  if (f.nx % (16 / static_cast<int>(sizeof(T))) != 0) {
    return launch_planes<T, R, Rows, Planes, Blocks, LinePad, false, true>(f, p, x, launch, planes_per_chunk);
  }
  if constexpr (Rows % 2 == 0 && (R <= 3 || (R == 4 && sizeof(T) == 4))) {
    const bool rows_off_sectors = f.sy * static_cast<std::int64_t>(sizeof(T)) % 32 == 16 && f.ny >= 2;
    if (rows_off_sectors) {
      if constexpr (Planes == 1) {
        // Aligned stores where the last tile column has a vector to spare: a dense split grid's width is an
        // odd number of vectors; a pitched one may be whole tiles wide (128 floats pitched to 132).
        constexpr int width = config<T, R, Rows, Planes, Blocks, LinePad, true>::width, V = 16 / static_cast<int>(sizeof(T));
        const bool room_for_a_vector = (f.nx + width - 1) / width * width - f.nx >= V;
        if (room_for_a_vector) {
          return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, false, -1, true>(f, p, x, launch, planes_per_chunk);
        }
      }
      return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true>(f, p, x, launch, planes_per_chunk);
    }
  }
  // At radius 3 (step 08: one row a warp, 2 blocks an SM) the line pad leaves 10 ring slots where the
  // sector pad leaves 14, and it puts the box rows on lines only where the grid's rows start on lines.
  // Elsewhere the deeper ring wins: on an H100, 08 at radius 3 went from 79.7% to 82.8% of the copy
  // bandwidth at 508 x 509 x 511 in float and from 83.9% to 87.8% in double, and by 1.3-4.7 points at
  // 504 x 509 x 511 and 1000 x 700 x 300, both types. At radius 1-2 the same switch won only where the
  // planes are 504 or 508 floats wide; it lost in double at every width, by up to 3.4 points, and lost or
  // tied in float at every other width from 252 to 1020. So there the line pad stays wherever the ring
  // fits (docs/journal/stencil.md, "The pad off lines").
  if constexpr (R == 3 && config<T, R, Rows, Planes, Blocks, LinePad, false>::line_padded) {
    const bool rows_on_lines = f.sy * static_cast<std::int64_t>(sizeof(T)) % 128 == 0 && reinterpret_cast<std::uintptr_t>(x.in) % 128 == 0;
    if (!rows_on_lines) return launch_planes<T, R, Rows, Planes, Blocks, false, false>(f, p, x, launch, planes_per_chunk);
  }
  launch_planes<T, R, Rows, Planes, Blocks, LinePad, false>(f, p, x, launch, planes_per_chunk);
}

}  // namespace swath::stencil::cuda::tma
