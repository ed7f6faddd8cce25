#pragma once
// The march of steps 10 (boxes) and 11 (stars): each input plane read once from a ring of planes in
// shared memory and its taps summed into the 2r + 1 output planes it feeds, the running sums in
// registers. The notes, predictions and outcomes are in 10_box_planes.cu (the march, shifted rows) and
// 11_star_planes.cu (stars); docs/journal/stencil.md, "Step 10" to "Step 10 v3".
#include <string>

#include "../../stencil/policies.hpp"
#include "vector_ring.cuh"

namespace swath::stencil::cuda {
namespace {
template <class T, int R, int Dims, shape Form = shape::box, bool Shifted = false>
struct config {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));  // points per thread along x
  static constexpr int bx = Dims == 3 ? 32 : 128;                  // threads along x
  static constexpr int by = Dims == 3 ? 8 : 1;                     // threads along y
  static constexpr int ry = Dims == 3 ? R : 0;
  // Output rows a thread: two share their input rows (2 + 2r windows for two rows, not 2 (1 + 2r));
  // from radius 3 the 2 × 7-9 running sums of 4 points would pass the registers of 2 blocks an SM.
  static constexpr int rows_each = Dims == 3 && R <= 2 ? 2 : 1;
  static constexpr int width = bx * vector;                       // points per block row: 128 floats in 3D
  // Halo columns each side, a whole number of vectors: r rounded up, or where rows are shifted (below)
  // r + vector - 1 rounded up, so that a row shifted right by up to vector - 1 still holds its halo.
  static constexpr int pad = (R + (Shifted ? vector - 1 : 0) + vector - 1) / vector * vector;
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
  // Weights: the box's (2r + 1)^2 (2ry + 1), or the star's 4r + 2ry + 1 (11_star_planes).
  static constexpr int taps = Form == shape::box ? (2 * R + 1) * (2 * ry + 1) * (2 * R + 1) : 4 * R + 2 * ry + 1;
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
  // Shifted rows (grids whose rows do not all start on 16 bytes: odd widths, or an odd pitch or
  // address): a tile row is copied as the 16-byte vectors of the grid around it, so that every copy
  // is one 16-byte cp.async, and the row lands m = (its first point's address / element) mod vector
  // places right of where an aligned row would. Halo vectors: pad / vector each side of every tile row.
  static constexpr int halo_vectors = 2 * (pad / vector) * rows;
  static_assert(!Shifted || (lean && halo_vectors <= threads), "shifted rows: the lean march, a halo vector a thread");
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

// The first element of the 16-byte vector that holds *p (every grid starts on an element).
template <class T>
__device__ __forceinline__ const T* vector_start(const T* p) {
  return reinterpret_cast<const T*>(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{15});
}

// Where p lies in its 16-byte vector, in elements: a shifted row's m.
template <class T>
__device__ __forceinline__ int shift_of(const T* p) {
  return static_cast<int>((reinterpret_cast<std::uintptr_t>(p) & 15) / sizeof(T));
}

// Step 10's copies where rows do not all start on 16 bytes (C::pad for shifted rows). Slot position p
// of tile row t holds grid point x0 - m - pad + p of that row, m = shift_of(&in(x0, row, plane)): the
// thread's piece is the grid's vector at x0 + tx · vector - m, and pad / vector halo vectors each
// side, one a thread (C::halo_vectors), so that each is one aligned 16-byte copy (the per-element
// copies of such rows cost 2D boxes 0.54 of the copy bandwidth at 8191 x 4097 against 0.78 at 8192 x
// 4096 on the H200). As plane_copies, the faces in x and y are resolved once, into each vector's row
// offset within a plane; a step adds them to the plane pointer and rounds down to the vector. Planes
// outside the grid in z, rows outside it under boundary=constant and, outside inner tiles, vectors
// that cross a face in x take the general path: each vector tested, each element of one that crosses
// a face resolved by the boundary.
template <class T, int R, class C, bool Inner>
struct shifted_copies {
  static constexpr int V = C::vector, per_side = C::pad / V;
  const T* plane;             // the plane issued next, if inside the grid in z
  int offset[C::row_passes];  // in(x, tile row ty + k · by) within a plane, the row clamped or wrapped
  bool row_outside[C::row_passes];  // that row lies outside the grid under boundary=constant
  int halo_offset;             // the halo vector's unshifted first point within a plane (threads < halo_vectors)
  unsigned halo_address;       // and its byte offset in a slot
  int halo_x;                  // its unshifted first point's x
  bool halo_row_outside;
  unsigned inside_end;         // planes zz < inside_end (zz >= 0) take the plain path: none outside inner tiles

  __device__ __forceinline__ shifted_copies(const vector_ring<T, R, C>& planes, const frame& f, int first_plane) {
    plane = planes.in + static_cast<std::int64_t>(first_plane) * f.sz;
    const bool constant = f.edge == boundary::constant;
#pragma unroll
    for (int k = 0; k < C::row_passes; ++k) {
      const int yy = planes.y0 - C::ry + planes.ty + k * C::by;
      row_outside[k] = constant && static_cast<unsigned>(yy) >= static_cast<unsigned>(f.ny);
      offset[k] = static_cast<int>(wrap_or_clamp(yy, f.ny, f.edge) * f.sy + planes.x);
    }
    const int t = planes.thread / (2 * per_side), j = planes.thread % (2 * per_side);
    const int delta = j < per_side ? -C::pad + j * V : C::width + (j - per_side) * V;
    const int yy = planes.y0 - C::ry + t;
    halo_row_outside = constant && static_cast<unsigned>(yy) >= static_cast<unsigned>(f.ny);
    halo_x = planes.x0 + delta;
    halo_offset = static_cast<int>(wrap_or_clamp(yy, f.ny, f.edge) * f.sy + halo_x);
    halo_address = (t * C::row + C::pad + delta) * sizeof(T);
    inside_end = Inner ? static_cast<unsigned>(min(f.nz, planes.z_end + R)) : 0u;
  }

  // The ring's element at shared byte address `address`.
  __device__ __forceinline__ static T* element_at(const vector_ring<T, R, C>& planes, unsigned address) {
    return planes.ring + (address - planes.ring_address) / sizeof(T);
  }

  // A vector of boundary=constant's value at `address` (a row or plane outside the grid).
  __device__ __forceinline__ static void fill(const vector_ring<T, R, C>& planes, unsigned address) {
    T* target = element_at(planes, address);
#pragma unroll
    for (int i = 0; i < V; ++i) target[i] = planes.edge_value;
  }

  // The vector whose unshifted first point is in(x, row) at `source`, into `slot_address` + `address`:
  // one 16-byte copy if it lies inside the row, else element by element through the boundary.
  __device__ __forceinline__ void copy_vector(const vector_ring<T, R, C>& planes, const frame& f, unsigned address,
                                              const T* source, int x) const {
    const int m = shift_of(source);
    const int first = x - m;  // the vector's first point
    const T* row_start = source - x;
    if (first >= 0 && first + V <= f.nx) {
      copy_async(address, vector_start(source), 16);
      return;
    }
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int xx = first + i;
      const unsigned target = address + i * sizeof(T);
      if (static_cast<unsigned>(xx) < static_cast<unsigned>(f.nx)) {
        copy_async(target, row_start + xx, sizeof(T));
      } else if (f.edge == boundary::constant) {
        *element_at(planes, target) = planes.edge_value;
      } else {
        copy_async(target, row_start + wrap_or_clamp(xx, f.nx, f.edge), sizeof(T));
      }
    }
  }

  // Plane zz into slot `slot_index` and one commit group (empty past the chunk's last plane read).
  __device__ __forceinline__ void issue(const vector_ring<T, R, C>& planes, const frame& f, int slot_index, int zz) {
    constexpr unsigned plane_bytes = C::plane * sizeof(T);
    const unsigned slot_address = planes.ring_address + slot_index * plane_bytes;
    if (static_cast<unsigned>(zz) < inside_end) {
#pragma unroll
      for (int k = 0; k < C::row_passes; ++k) {
        if (C::rows % C::by == 0 || planes.ty + k * C::by < C::rows) {
          copy_async(slot_address + planes.piece_address[k], vector_start(plane + offset[k]), 16);
        }
      }
      if (planes.thread < C::halo_vectors) copy_async(slot_address + halo_address, vector_start(plane + halo_offset), 16);
    } else if (zz < planes.z_end + R) {
      const bool z_inside = static_cast<unsigned>(zz) < static_cast<unsigned>(f.nz);
      const bool fill_plane = !z_inside && f.edge == boundary::constant;
      const T* base = z_inside ? plane : planes.in + static_cast<std::int64_t>(wrap_or_clamp(zz, f.nz, f.edge)) * f.sz;
#pragma unroll
      for (int k = 0; k < C::row_passes; ++k) {
        if (C::rows % C::by == 0 || planes.ty + k * C::by < C::rows) {
          const unsigned address = slot_address + planes.piece_address[k];
          if (fill_plane || row_outside[k]) {
            fill(planes, address);
          } else {
            copy_vector(planes, f, address, base + offset[k], planes.x);
          }
        }
      }
      if (planes.thread < C::halo_vectors) {
        if (fill_plane || halo_row_outside) {
          fill(planes, slot_address + halo_address);
        } else {
          copy_vector(planes, f, slot_address + halo_address, base + halo_offset, halo_x);
        }
      }
    }
    commit_copies();
    plane += f.sz;
  }
};

// A shifted row's window: window[i] = at[m - lw + i], i < lw + V + lw, `at` on a vector. Element by
// element those are lw + V + lw 4- or 8-byte loads 16 bytes apart across a warp, 4-way bank
// conflicts each; here the 16-byte vectors around them (3-4 loads, as an aligned row's) and the run
// picked by m through selects.
template <class T, int V, int LW>
__device__ __forceinline__ void shifted_window(const T* at, int m, T (&window)[LW + V + LW]) {
  constexpr int low = (LW + V - 1) / V, high = (2 * V + LW - 2) / V;  // vectors before and after at's
  T around[(low + 1 + high) * V];
#pragma unroll
  for (int k = 0; k < low + 1 + high; ++k) load_run<T, V>(at + (k - low) * V, around + k * V);
  // Selects, not a switch on m: branches split the step into blocks ptxas does not schedule across (3D
  // floats at 509 wide: 0.377 of the copy bandwidth with a switch, 0.400 with selects). By m's low bit,
  // then its high one.
  T half[(low + 1 + high) * V - 1];
#pragma unroll
  for (int j = 0; j < (low + 1 + high) * V - 1; ++j) half[j] = (m & 1) ? around[j + 1] : around[j];
#pragma unroll
  for (int i = 0; i < LW + V + LW; ++i) {
    const int j = low * V - LW + i;
    if constexpr (V == 4) {
      window[i] = (m & 2) ? half[j + 2] : half[j];
    } else {
      window[i] = half[j];
    }
  }
}

// A warp's row of results in a tile of shifted rows, each thread's V at `target` (its first point,
// `left` points before the grid's last column ends), the row's point x0 lying m places into its
// 16-byte vector: stored as the output's aligned vectors. Element by element each thread's V stores
// touched the same sectors as its neighbours' (a warp's 4-byte stores 16 bytes apart): ncu at 8191 x
// 4097 (2D, radius 1, float) counted 2.6x the sectors into the L2 of 8192 x 4096, and the L2 79% busy
// with DRAM at 39%. Here thread i stores its last m results and thread i + 1's first V - m (a
// shuffle) as one vector; the warp's first thread also stores its first V - m alone, and its last its
// last m. Guarded (tiles at a face in x): points at or past the grid's last column are not stored.
// Every thread of the warp calls it.
template <class T, int V, bool Guarded>
__device__ __forceinline__ void store_across_warp(T* target, const T (&sum)[V], int m, int left) {
  using vector = typename vector16<T>::type;
  const auto inside = [&](int i) { return !Guarded || i < left; };
  if (m == 0) {
    if (!Guarded || left >= V) {
      *reinterpret_cast<vector*>(target) = vector16<T>::pack(sum);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        if (inside(i)) target[i] = sum[i];
      }
    }
    return;
  }
  const int lane = static_cast<int>(threadIdx.x) % 32;
  T next[V], joined[V];
#pragma unroll
  for (int i = 0; i < V; ++i) next[i] = __shfl_down_sync(0xffffffffu, sum[i], 1);
  if constexpr (V == 4) {  // joined = sum[V - m ...], then next[...]
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const T one = i < 1 ? sum[3 + i] : next[i - 1], two = i < 2 ? sum[2 + i] : next[i - 2],
              three = i < 3 ? sum[1 + i] : next[i - 3];
      joined[i] = m == 1 ? one : m == 2 ? two : three;
    }
  } else {
    joined[0] = sum[1], joined[1] = next[0];
  }
  if (lane == 0) {
#pragma unroll
    for (int i = 0; i < V; ++i) {
      if (i < V - m && inside(i)) target[i] = sum[i];
    }
  }
  if (lane < 31) {
    if (!Guarded || left >= 2 * V - m) {
      *reinterpret_cast<vector*>(target + V - m) = vector16<T>::pack(joined);
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        if (inside(V - m + i)) target[V - m + i] = joined[i];
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) {
      if (i >= V - m && inside(i)) target[i] = sum[i];
    }
  }
}

// A block's march over its chunk of z: the running sums live in registers from the first plane read
// to the last.
template <class T, int R, int Dims, shape Form, bool Shifted, bool Inner>
__device__ __forceinline__ void march(const vector_ring<T, R, config<T, R, Dims, Form, Shifted>>& planes, T* __restrict__ out,
                                      const frame& f, int z_begin, int z_end, int unit,
                                      const weights<T, config<T, R, Dims, Form, Shifted>::taps>& c) {
  using C = config<T, R, Dims, Form, Shifted>;
  constexpr int V = C::vector, E = C::rows_each, LW = window_side<T, R>();
  const int x = planes.x, y = planes.y0 + planes.ty * E;  // this thread's first point: rows y ... y + E - 1

  // Step i reads plane z_begin - r + i, in slot i mod slots, and stores output plane z_begin - 2r + i
  // (from i = 2r: the steps before only start the sums).
  // Shifted rows: every plane through shifted_copies, whose layout the reads below follow.
  auto copies = [&] {
    if constexpr (Shifted) {
      return shifted_copies<T, R, C, Inner>(planes, f, z_begin - R);
    } else {
      return plane_copies<T, R, C, Inner>(planes, f, z_begin - R + C::ahead, unit);  // unused unless C::lean
    }
  }();
  for (int i = 0; i < C::ahead; ++i) {
    if constexpr (Shifted) {
      copies.issue(planes, f, i, z_begin - R + i);
    } else {
      planes.issue_plane(i, z_begin - R + i);
    }
  }
  const int own = planes.ty * E * C::row + C::pad + planes.tx * V;  // this thread's vector in its first input row (y - ry)
  const bool face_block = f.edge == boundary::copy &&
                          (planes.x0 < R || planes.x0 + C::width + R > f.nx || planes.y0 < C::ry ||
                           planes.y0 + C::by * E + C::ry > f.ny);
  // The thread's first output point of the next plane stored, moved on by a plane a store; its piece
  // takes one vector store where it lies inside the grid in x and rows are whole vectors.
  T* target = out + (static_cast<std::int64_t>(z_begin) * f.sz + static_cast<std::int64_t>(y) * f.sy + x);
  const bool whole_store = !Shifted && (Inner || (unit == V && x + V <= f.nx));
  // Shifted rows: input row t of plane zz lands shift_of(&in(x0, row, zz)) places right, which is
  // (element + zz · sz + row · sy) mod V, `element` being where the grid starts in its vector.
  const unsigned element = static_cast<unsigned>(shift_of(planes.in)), out_element = static_cast<unsigned>(shift_of(out));
  const auto shift_at = [&](unsigned first, int plane, int row) {  // first: element or out_element
    return static_cast<int>((first + static_cast<unsigned>(plane) * static_cast<unsigned>(f.sz) +
                             static_cast<unsigned>(row) * static_cast<unsigned>(f.sy)) & (V - 1));
  };
  unsigned row_term[E + 2 * C::ry];
#pragma unroll
  for (int t = 0; t < E + 2 * C::ry; ++t) {
    row_term[t] = element + static_cast<unsigned>(wrap_or_clamp(y - C::ry + t, f.ny, f.edge)) * static_cast<unsigned>(f.sy);
  }

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
    if constexpr (C::lean) {  // shifted_copies or plane_copies
      copies.issue(planes, f, write_slot, z_begin - R + step + C::ahead);
    } else {
      planes.issue_plane(write_slot, z_begin - R + step + C::ahead);
    }
    wait_copies<C::ahead>();  // this thread's copies of the plane read here have landed
    __syncthreads();          // and everyone's

    const T* first_row = planes.ring + read_slot * C::plane + own;
    const int read_plane = z_begin - R + step;
    const unsigned plane_term =
        static_cast<unsigned>(static_cast<unsigned>(read_plane) < static_cast<unsigned>(f.nz) ? read_plane
                                                                                              : wrap_or_clamp(read_plane, f.nz, f.edge)) *
        static_cast<unsigned>(f.sz);
#pragma unroll
    for (int t = 0; t < E + 2 * C::ry; ++t) {  // input row y - ry + t
      T window[LW + V + LW];                     // window[LW + i] = the row at x + i
      const T* at = first_row + t * C::row;
      if constexpr (Shifted) {  // the window m places right: whole vectors, then the m-th run of them
        shifted_window<T, V, LW>(at, static_cast<int>((plane_term + row_term[t]) & (V - 1)), window);
      } else {
        load_run<T, LW>(at - LW, window);
        load_run<T, V>(at, window + LW);
        load_run<T, LW>(at + V, window + LW + V);
      }
#pragma unroll
      for (int j = 0; j < E; ++j) {
        const int dy = t - C::ry - j;
        if (dy < -C::ry || dy > C::ry) continue;
#pragma unroll
        for (int k = 0; k <= 2 * R; ++k) {  // output plane p - r + k: this plane is its dz = r - k
#pragma unroll
          for (int dx = -R; dx <= R; ++dx) {
            const int dz = R - k;
            // A star's taps lie on the axes: at most one of dx, dy, dz is not 0 (the others are
            // known once the loops are unrolled, so no instruction tests them).
            if (Form == shape::star && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
            const T weight = c.w[Form == shape::box ? box_index<R, C::ry>(dx, dy, dz) : star_index<R, C::ry>(dx, dy, dz)];
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
          const T* own_values = planes.ring + own_slot * C::plane + own + (j + C::ry) * C::row +
                                (Shifted ? shift_at(element, z, y + j) : 0);
#pragma unroll
          for (int i = 0; i < V; ++i) {
            if (copies_itself(f, x + i, y + j, z)) sums[j][0][i] = own_values[i];
          }
        }
        if (!C::lean) {
          planes.store(out + (z * f.sz + (y + j) * f.sy + x), sums[j][0]);
        } else if (whole_store) {
          *reinterpret_cast<typename vector16<T>::type*>(target + j * f.sy) = vector16<T>::pack(sums[j][0]);
        } else if (Shifted) {
          store_across_warp<T, V, !Inner>(target + j * f.sy, sums[j][0], shift_at(out_element, z, y + j), f.nx - x);
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
template <class T, int R, int Dims, shape Form, bool Shifted>
__global__ void __launch_bounds__(config<T, R, Dims, Form, Shifted>::threads, config<T, R, Dims, Form, Shifted>::min_blocks)
    box_planes_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk, int unit,
                      const weights<T, config<T, R, Dims, Form, Shifted>::taps> c) {
  using C = config<T, R, Dims, Form, Shifted>;
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
  // Shifted rows: inner tiles are those whose vectors, shifted up to V - 1 left, all lie inside the grid
  // in x (every tile column but the first and the last one or two).
  const bool inner = Shifted ? x0 >= C::pad + C::vector && x0 + C::width + C::pad <= f.nx
                             : unit == C::vector && x0 + C::width <= f.nx;
  if (C::lean && inner && rows_usable) {
    march<T, R, Dims, Form, Shifted, true>(planes, out, f, z_begin, z_end, unit, c);
  } else {
    march<T, R, Dims, Form, Shifted, false>(planes, out, f, z_begin, z_end, unit, c);
  }
}

template <class T, int R, int Dims, shape Form>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, Dims, Form>;
  // The z-chunk (H200; docs/journal/stencil.md, "Step 10 v2"). 3D floats at radius 1 take 16 planes:
  // at 512^3 0.327 ms against 0.343 for the one-wave chunks (171 planes), and 0.392 against 0.600 at
  // 508 x 509 x 511, whose last tile column runs the slower march and, with chunks of one wave, holds
  // every SM to its time; 8 planes cost more in the 2r planes each chunk reads again (0.474 ms there).
  // 3D doubles at radius 1 likewise: 0.624 ms at 512^3 against 0.687, and 0.648 against 1.002 at 508
  // wide. 2D grids at radius 1-2 take 32 rows: 3-6% ahead of one wave at 8191 x 4097 and 16383 x 8193,
  // level at 8192^2; 64 and 128 lost at radius 1. In 3D from radius 2 one-wave chunks held every SM
  // to the last tile column's time at ragged widths too: stars at radius 2 take 16 planes (508 x 509 x
  // 511 in float 0.796 -> 0.466 ms, 509 wide 0.800 -> 0.640; 512^3 0.405 -> 0.357), stars at radius 3-4
  // and boxes at radius 2 take 32 (508 wide: star r 3 0.746 -> 0.599 ms, box 1.260 -> 1.030; 512^3
  // level). Boxes at radius 3-4 keep one wave: bound by their FMAs, they lost more to the 2r planes a
  // chunk computes again (253 x 255 x 257 at radius 3: 0.436 ms with 32 against 0.350). 2D grids at
  // radius 3-4 keep one wave.
  const std::string_view chunk = launch.setting(chunk_setting);
  constexpr int auto_planes = Dims == 3 ? (R == 1 || (R == 2 && Form == shape::star) ? 16 : R == 2 || Form == shape::star ? 32 : 0)
                              : R <= 2  ? 32
                                        : 0;
  const int planes_per_chunk =
      chunk == "auto"   ? auto_planes
      : chunk == "wave" ? 0
                        : static_cast<int>(std::min<std::int64_t>(whole_setting(chunk_setting.key, chunk), 1 << 30));
  // Rows that do not all start on 16 bytes (odd widths, pitches or addresses) take shifted rows in 2D
  // and in 3D doubles (H200: 8191 x 4097 at radius 1 in float 0.54 -> 0.62 of the copy bandwidth,
  // 16383 x 8193 0.58 -> 0.77; 509 x 509 x 511 in double 0.61 -> 0.69). 3D floats ran slower with them
  // (509 x 509 x 511: 0.38-0.42 against 0.43), and they and the kinds off the lean march copy such rows
  // element by element (vector_ring::copy_piece). docs/journal/stencil.md, "Step 10 v3".
  if constexpr (C::lean && (Dims == 2 || sizeof(T) == 8)) {
    using S = config<T, R, Dims, Form, true>;
    if (access_unit<T>(frame_of(p), x.in, x.out) < C::vector) {
      launch_ring_kernel<T, R, S>(box_planes_kernel<T, R, Dims, Form, true>, p, x, launch, S::by * S::rows_each, Form,
                                  Form == shape::box ? "box_planes" : "star_planes", planes_per_chunk);
      return;
    }
  }
  launch_ring_kernel<T, R, C>(box_planes_kernel<T, R, Dims, Form, false>, p, x, launch, C::by * C::rows_each, Form,
                              Form == shape::box ? "box_planes" : "star_planes", planes_per_chunk);
}

}  // namespace
}  // namespace swath::stencil::cuda
