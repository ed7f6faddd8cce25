#pragma once
// The copy-engine ring of stencil steps 08 and 09, layer 2 of 3: the kernel (policy.cuh says the
// layers). A block's tile, plane by plane, brought into shared memory by the copy engine (TMA), one
// producer warp feeding eight compute warps, with no block barrier. 3D star stencils, radius 1-4, float
// or double, boundaries clamp, copy and constant; rows a whole number of 16-byte vectors (the copy
// engine's row pitch must be a multiple of 16 bytes).
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

#include "../../core/bulk_copy.cuh"
#include "policy.cuh"

namespace swath::stencil::cuda::tma {

using swath::cuda::arrive;
using swath::cuda::arrive_expecting;
using swath::cuda::shared_address;
using swath::cuda::wait_phase;

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
// Longer than a screen, on purpose: the producer's loop and the compute warps' march share the ring's
// slot and phase arithmetic, and every measured figure of steps 08-09 (docs/journal/stencil.md) is of this
// body as ptxas scheduled it; a split into inlined functions is a change to be measured, not a tidy-up.

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

}  // namespace swath::stencil::cuda::tma
