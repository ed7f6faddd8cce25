#pragma once
// Step 07's ring of planes, which step 10 shares: a block's tile of each plane (its rows and r halo
// rows each side in y, r halo columns each side in x) copied into a ring slot of shared memory by
// cp.async, 16 bytes a thread where the rows allow, every boundary applied on the way. Why it is as it
// is: 07_vector_planes.cu and docs/journal/stencil.md, step 07.
#include <string>

#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {

// C, the block's tile: `vector` points a thread along x, bx × by threads (`threads`), `width` = bx ·
// vector points a tile row, `pad` halo columns each side (r rounded up to a vector), `row` = width + 2
// pad, `rows` tile rows (halo included), `plane` = rows · row elements a slot, `row_passes` tile rows a
// thread copies a piece of, `side` halo-column elements (2r a tile row, one a thread), `ry` the radius
// in y.
template <class T, int R, class C>
struct vector_ring {
  static constexpr int V = C::vector;
  static_assert(C::side <= C::threads, "one halo column element per thread");

  const T* __restrict__ in;
  T* ring;
  const frame& f;
  T edge_value;
  int tx, ty, thread, x0, y0, x, z_end, unit;
  bool x_whole;  // the block's row pieces lie inside the grid in x
  // The halo columns: thread k < side copies element k % 2r of tile row k / 2r.
  int side_row, side_column, side_x, side_offset;
  // Planes inside the grid, in blocks whose tile rows lie inside it in y and whose pieces lie inside
  // it in x, copy with no boundary logic and little arithmetic: one 64-bit plane base per plane,
  // then 32-bit offsets (a plane has fewer than 2^31 points) and 32-bit shared addresses. The halo
  // columns take that path too unless they pass a face in x (the first and last block of a row).
  bool rows_inside, sides_inside;
  unsigned ring_address;
  int piece_offset[C::row_passes];        // the piece's element offset in its plane
  unsigned piece_address[C::row_passes];  // and its byte offset in a slot
  int side_plane_offset;

  // The tile at (x0, y0) of planes up to z_end + r - 1; this thread (tx, ty) copies the V-element
  // piece at x = x0 + tx · V of its tile rows, `unit` elements a copy.
  __device__ __forceinline__ vector_ring(const T* __restrict__ in_, T* ring_, const frame& f_, T edge_value_, int x0_,
                                         int y0_, int z_end_, int unit_)
      : in(in_), ring(ring_), f(f_), edge_value(edge_value_), tx(static_cast<int>(threadIdx.x)),
        ty(static_cast<int>(threadIdx.y)), thread(ty * C::bx + tx), x0(x0_), y0(y0_), x(x0_ + tx * V),
        z_end(z_end_), unit(unit_), x_whole(x0_ + C::width <= f_.nx) {
    side_row = thread / (2 * R), side_column = thread % (2 * R);
    side_x = side_column < R ? x0 - R + side_column : x0 + C::width + side_column - R;
    side_offset = side_row * C::row + (side_column < R ? C::pad - R : C::pad + C::width - R) + side_column;
    rows_inside = x_whole && y0 >= C::ry && y0 + C::rows - C::ry <= f.ny;
    sides_inside = rows_inside && x0 >= R && x0 + C::width + R <= f.nx;
    ring_address = static_cast<unsigned>(__cvta_generic_to_shared(ring));
#pragma unroll
    for (int k = 0; k < C::row_passes; ++k) {
      const int t = ty + k * C::by;
      piece_offset[k] = static_cast<int>((y0 - C::ry + t) * f.sy + x);  // used only where it fits
      piece_address[k] = (t * C::row + C::pad + tx * V) * sizeof(T);
    }
    side_plane_offset = static_cast<int>((y0 - C::ry + side_row) * f.sy + side_x);
  }

  // Tile row t of plane zz (grid row y0 - ry + t): this thread's V-element piece.
  __device__ __forceinline__ void copy_piece(T* slot, int t, int zz) const {
    int yy = y0 - C::ry + t;
    T* target = slot + t * C::row + C::pad + tx * V;
    if (static_cast<unsigned>(yy) >= static_cast<unsigned>(f.ny) || static_cast<unsigned>(zz) >= static_cast<unsigned>(f.nz)) {
      if (f.edge == boundary::constant) {
#pragma unroll
        for (int i = 0; i < V; ++i) target[i] = edge_value;
        return;
      }
      yy = wrap_or_clamp(yy, f.ny, f.edge);
      zz = wrap_or_clamp(zz, f.nz, f.edge);
    }
    const T* source_row = in + (zz * f.sz + yy * f.sy);
    if (x_whole) {
      const int unit_bytes = unit * static_cast<int>(sizeof(T));
      for (int i = 0; i < V; i += unit) copy_async(target + i, source_row + x + i, unit_bytes);
    } else {  // the ragged edge: each element resolved in x
#pragma unroll
      for (int i = 0; i < V; ++i) {
        const int xx = x + i;
        if (xx < f.nx) {
          copy_async(target + i, source_row + xx, sizeof(T));
        } else if (f.edge == boundary::constant) {
          target[i] = edge_value;
        } else {
          copy_async(target + i, source_row + wrap_or_clamp(xx, f.nx, f.edge), sizeof(T));
        }
      }
    }
  }

  // A halo column element through the boundary rule (its x, y or z may lie outside the grid).
  __device__ __forceinline__ void copy_side_resolved(T* slot, int zz) const {
    const std::int64_t source = resolve(f, side_x, y0 - C::ry + side_row, zz);
    if (source < 0) {
      slot[side_offset] = edge_value;
    } else {
      copy_async(slot + side_offset, in + source, sizeof(T));
    }
  }

  // Plane zz into ring slot `slot_index`, one commit group (empty for planes past z_end + r, which are
  // never read, so that the count of groups in flight stays the same).
  __device__ __forceinline__ void issue_plane(int slot_index, int zz) const {
    T* slot = ring + slot_index * C::plane;
    constexpr unsigned plane_bytes = C::plane * sizeof(T);
    if (zz >= z_end + R) {
    } else if (rows_inside && static_cast<unsigned>(zz) < static_cast<unsigned>(f.nz)) {
      const T* plane_base = in + zz * f.sz;
      const unsigned slot_address = ring_address + slot_index * plane_bytes;
#pragma unroll
      for (int k = 0; k < C::row_passes; ++k) {
        if (C::rows % C::by == 0 || ty + k * C::by < C::rows) {
          const T* source = plane_base + piece_offset[k];
          if (unit == V) {
            copy_async(slot_address + piece_address[k], source, 16);
          } else {
            for (int i = 0; i < V; i += unit) copy_async(slot_address + piece_address[k] + i * sizeof(T), source + i, unit * static_cast<int>(sizeof(T)));
          }
        }
      }
      if (thread < C::side) {
        if (sides_inside) {
          copy_async(slot_address + side_offset * sizeof(T), plane_base + side_plane_offset, sizeof(T));
        } else {
          copy_side_resolved(slot, zz);
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < C::row_passes; ++k) {
        const int t = ty + k * C::by;
        if (C::rows % C::by == 0 || t < C::rows) copy_piece(slot, t, zz);
      }
      if (thread < C::side) copy_side_resolved(slot, zz);
    }
    commit_copies();
  }

  // A thread's V results of one row to `target` (its first point, at x): one 16-byte store where every
  // row starts 16-byte aligned, 8-byte ones where rows of floats are 8-byte aligned, else element by
  // element inside the grid.
  __device__ __forceinline__ void store(T* target, const T (&sum)[V]) const {
    if (x_whole && unit == V) {
      *reinterpret_cast<typename vector16<T>::type*>(target) = vector16<T>::pack(sum);
    } else if (x_whole && unit == 2) {  // floats in rows 8-byte aligned
#pragma unroll
      for (int i = 0; i < V; i += 2) *reinterpret_cast<float2*>(target + i) = float2{float(sum[i]), float(sum[i + 1])};
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) {
        if (x + i < f.nx) target[i] = sum[i];
      }
    }
  }
};

// Elements per global access: a whole vector when every row start is 16-byte aligned, else 8 bytes
// (floats) when rows are 8-byte aligned, else one element.
template <class T>
int access_unit(const frame& f, const void* in, const void* out) {
  const auto aligned = [&](int elements) {
    const auto bytes = static_cast<std::uintptr_t>(elements) * sizeof(T);
    return f.sy % elements == 0 && f.sz % elements == 0 && reinterpret_cast<std::uintptr_t>(in) % bytes == 0 &&
           reinterpret_cast<std::uintptr_t>(out) % bytes == 0;
  };
  constexpr int vector = 16 / static_cast<int>(sizeof(T));
  if (aligned(vector)) return vector;
  if (sizeof(T) == 4 && aligned(2)) return 2;
  return 1;
}

// Launches `kernel`, a march over this ring's tiles (steps 07 and 10), on the launch's stream: its shared
// memory, a grid of C::width × block_rows tiles of each plane in z-chunks, the rows' access unit and the
// weights of a `form` stencil in the kernel's tap order. `step` names it in the error for planes of
// 2^31 points or more (its offsets within a plane are 32-bit). planes_per_chunk > 0: z-chunks of that
// many planes, not plan_marching's fewest that fill the waves.
template <class T, int R, class C, class Kernel>
void launch_ring_kernel(Kernel kernel, const problem& p, const operands& x, const launch_context& launch,
                        int block_rows, shape form, const char* step, int planes_per_chunk = 0) {
  const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
  const frame f = frame_of(p);
  SWATH_EXPECTS(f.sz < (1LL << 31), std::string(step) + ": a plane must have fewer than 2^31 points (32-bit offsets)");
  const marching_launch plan = plan_marching(f, C::width, block_rows, blocks_per_sm, launch, planes_per_chunk);
  kernel<<<plan.grid, dim3(C::bx, C::by), C::shared_bytes, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), plan.z_chunk,
      access_unit<T>(f, x.in, x.out), pack_weights<T, C::taps>(p, R, C::ry, form));
  SWATH_CHECK_LAST();
}

}  // namespace swath::stencil::cuda
