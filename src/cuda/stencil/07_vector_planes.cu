// Step 07: step 06's asynchronous plane ring, 16 bytes a thread. Star stencils, radius 1-4, 2D or 3D,
// float or double, every boundary (boxes stay with step 06).
// - What changed from 06: each thread owns one 16-byte vector of a row: one cp.async.cg a tile row piece,
//   y and z taps as 16-byte shared loads, the x taps from one window of the centre row; from radius 3
//   the z taps come from a register queue (shared-memory bandwidth: ~17 loads a thread and plane fit at
//   0.95x the copy bandwidth). Widths not a multiple of 4 floats copy in 8- or 4-byte units.
// - Prediction: ~14 warp instructions per 32 points at radius 1 (06: ~110, budget 66): bound by DRAM.
// - Outcome (H200): 0.63x of the copy bandwidth at radius 1 in float: per-plane fixed costs (cp.async
//   issue, wait_group and a block barrier every plane) are the limit, which step 08 removes.
//   docs/journal/stencil.md, step 07.


#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R, int Dims>
struct config {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));  // points per thread along x
  static constexpr int bx = Dims == 3 ? 32 : 128;                  // threads along x
  static constexpr int by = Dims == 3 ? 8 : 1;                     // threads (rows) along y
  static constexpr int ry = Dims == 3 ? R : 0;
  static constexpr int width = bx * vector;                        // points per block row: 128 floats in 3D
  static constexpr int pad = (R + vector - 1) / vector * vector;   // halo columns each side, a whole vector
  static constexpr int row = width + 2 * pad;                      // a tile row in shared memory
  static constexpr int rows = by + 2 * ry;
  static constexpr int plane = rows * row;
  // Planes in flight beyond the newest one read. A 3D plane is 5.3-9 KiB; with 2-4 blocks per SM
  // these keep 35-110 KiB per SM in flight, past the ~25 KiB Little's law asks at 4.3 TB/s.
  static constexpr int ahead = Dims == 3 ? (R == 1 ? 5 : R == 2 ? 4 : 3) : 8;
  // The ring: planes z - R ... z + R + ahead and one spare, so one barrier per plane suffices (the
  // slot written at plane z was last read at plane z - 2).
  static constexpr int slots = 2 * R + ahead + 2;
  static constexpr int threads = bx * by;
  static constexpr int row_passes = (rows + by - 1) / by;  // tile rows each thread copies a piece of
  static constexpr int side = 2 * R * rows;                // halo column elements, one per thread
  static constexpr bool z_in_registers = R >= 3;
  static constexpr std::size_t shared_bytes = sizeof(T) * slots * plane;
  static constexpr int taps = 4 * R + 2 * ry + 1;
  // Blocks per SM that the shared memory allows (48-110 KiB a block of 228 KiB), asked of the
  // register allocator so that it does not stop occupancy short of them.
  static constexpr int min_blocks = Dims == 3 ? (R == 1 ? 4 : R == 2 ? 3 : 2) : (R <= 2 ? 6 : 4);
  static_assert(side <= threads, "one halo column element per thread");
};

// Longer than a screen, on purpose: the window's registers live from the first plane to the last, and
// the figures in docs/journal/stencil.md are of this body as compiled; splitting it is a measured change.
template <class T, int R, int Dims>
__global__ void __launch_bounds__(config<T, R, Dims>::threads, config<T, R, Dims>::min_blocks)
    vector_planes_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk, int unit,
                         const weights<T, config<T, R, Dims>::taps> c) {
  using C = config<T, R, Dims>;
  constexpr int V = C::vector;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* ring = reinterpret_cast<T*>(shared_raw);  // [slots][rows][row]

  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int thread = ty * C::bx + tx;
  const int x0 = static_cast<int>(blockIdx.x) * C::width, y0 = static_cast<int>(blockIdx.y) * C::by;
  const int x = x0 + tx * V, y = y0 + ty;  // this thread's first point
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  const bool x_whole = x0 + C::width <= f.nx;  // the block's row pieces lie inside the grid in x
  const int unit_bytes = unit * static_cast<int>(sizeof(T));

  // Tile row t of plane zz (grid row y0 - ry + t): this thread's V-element piece.
  const auto copy_piece = [&](T* slot, int t, int zz) {
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
  };
  // The halo columns: thread k < side copies element k % 2r of tile row k / 2r.
  const int side_row = thread / (2 * R), side_column = thread % (2 * R);
  const int side_x = side_column < R ? x0 - R + side_column : x0 + C::width + side_column - R;
  const int side_offset = side_row * C::row + (side_column < R ? C::pad - R : C::pad + C::width - R) + side_column;
  // Planes inside the grid, in blocks whose tile rows lie inside it in y and whose pieces lie inside
  // it in x, copy with no boundary logic and little arithmetic: one 64-bit plane base per plane,
  // then 32-bit offsets (a plane has fewer than 2^31 points) and 32-bit shared addresses. The halo
  // columns take that path too unless they pass a face in x (the first and last block of a row).
  const bool rows_inside = x_whole && y0 >= C::ry && y0 + C::by + C::ry <= f.ny;
  const bool sides_inside = rows_inside && x0 >= R && x0 + C::width + R <= f.nx;
  const auto ring_address = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  constexpr unsigned plane_bytes = C::plane * sizeof(T);
  int piece_offset[C::row_passes];         // the piece's element offset in its plane
  unsigned piece_address[C::row_passes];   // and its byte offset in a slot
#pragma unroll
  for (int k = 0; k < C::row_passes; ++k) {
    const int t = ty + k * C::by;
    piece_offset[k] = static_cast<int>((y0 - C::ry + t) * f.sy + x);  // used only where it fits
    piece_address[k] = (t * C::row + C::pad + tx * V) * sizeof(T);
  }
  const int side_plane_offset = static_cast<int>((y0 - C::ry + side_row) * f.sy + side_x);
  // A halo column element through the boundary rule (its x, y or z may lie outside the grid).
  const auto copy_side_resolved = [&](T* slot, int zz) {
    const std::int64_t source = resolve(f, side_x, y0 - C::ry + side_row, zz);
    if (source < 0) {
      slot[side_offset] = edge_value;
    } else {
      copy_async(slot + side_offset, in + source, sizeof(T));
    }
  };
  const auto issue_plane = [&](int slot_index, int zz) {
    T* slot = ring + slot_index * C::plane;
    if (zz >= z_end + R) {  // planes past z_end + R are never read: an empty group keeps the count
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
            for (int i = 0; i < V; i += unit) copy_async(slot_address + piece_address[k] + i * sizeof(T), source + i, unit_bytes);
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
  };

  // Plane z_begin - R + i lives in slot i mod slots.
  const auto slot_of = [&](int i) { return ring + i * C::plane; };
  const int own = (ty + C::ry) * C::row + C::pad + tx * V;  // this thread's vector in a slot
  for (int i = 0; i < 2 * R + C::ahead; ++i) issue_plane(i, z_begin - R + i);

  // From radius 3, the z taps come from registers: q[k] = this thread's vector at plane z - R + k.
  T q[C::z_in_registers ? 2 * R + 1 : 1][V];
  if constexpr (C::z_in_registers) {
    wait_copies<C::ahead>();  // planes z_begin - R ... z_begin + R - 1 have landed
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) load_run<T, V>(slot_of(k) + own, q[k]);
  }

  const bool face_block = f.edge == boundary::copy &&
                          (x0 < R || x0 + C::width + R > f.nx || y0 < C::ry || y0 + C::by + C::ry > f.ny);
  const bool y_inside = y < f.ny;
  constexpr int LW = window_side<T, R>();

  // Plane z + d is in ring position low + R + d, wrapped once (low: plane z - R's position).
  int low = 0;
  const auto slot_index = [&](int d) {
    const int index = low + R + d;
    return index >= C::slots ? index - C::slots : index;
  };
  const auto slot = [&](int d) { return slot_of(slot_index(d)); };
  T* target = out + (z_begin * f.sz + y * f.sy + x);
  for (int z = z_begin; z < z_end; ++z, target += f.sz) {
    issue_plane(slot_index(R + C::ahead), z + R + C::ahead);
    wait_copies<C::ahead>();  // this thread's copies of plane z + R have landed
    __syncthreads();          // and everyone's

    const T* centre = slot(0) + own;
    T window[LW + V + LW];  // window[LW + i] = the centre row at x + i
    load_run<T, LW>(centre - LW, window);
    load_run<T, V>(centre, window + LW);
    load_run<T, LW>(centre + V, window + LW + V);
    if constexpr (C::z_in_registers) load_run<T, V>(slot(R) + own, q[2 * R]);

    T sum[V];
#pragma unroll
    for (int i = 0; i < V; ++i) sum[i] = 0;
    const auto add = [&](T weight, const T* values) {
#pragma unroll
      for (int i = 0; i < V; ++i) sum[i] += weight * values[i];
    };
#pragma unroll
    for (int dz = -R; dz <= R; ++dz) {
      if (dz == 0) continue;
      if constexpr (C::z_in_registers) {
        add(c.w[star_index<R, C::ry>(0, 0, dz)], q[R + dz]);
      } else {
        T values[V];
        load_run<T, V>(slot(dz) + own, values);
        add(c.w[star_index<R, C::ry>(0, 0, dz)], values);
      }
    }
#pragma unroll
    for (int dy = -C::ry; dy <= C::ry; ++dy) {
      if (dy == 0) continue;
      T values[V];
      load_run<T, V>(centre + dy * C::row, values);
      add(c.w[star_index<R, C::ry>(0, dy, 0)], values);
    }
#pragma unroll
    for (int dx = -R; dx <= R; ++dx) add(c.w[star_index<R, C::ry>(dx, 0, 0)], window + LW + dx);

    if (y_inside) {
      if (face_block || (f.edge == boundary::copy && (z < R || z >= f.nz - R))) {
#pragma unroll
        for (int i = 0; i < V; ++i) {
          if (copies_itself(f, x + i, y, z)) sum[i] = window[LW + i];
        }
      }
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
    if constexpr (C::z_in_registers) {
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) {
#pragma unroll
        for (int i = 0; i < V; ++i) q[k][i] = q[k + 1][i];
      }
    }
    low = low + 1 == C::slots ? 0 : low + 1;
  }
  wait_copies<0>();  // no copy may land in shared memory after the block has gone
}

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

template <class T, int R, int Dims>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, Dims>;
  const auto kernel = vector_planes_kernel<T, R, Dims>;
  const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
  const frame f = frame_of(p);
  SWATH_EXPECTS(f.sz < (1LL << 31), "vector_planes: a plane must have fewer than 2^31 points (32-bit offsets)");
  const marching_launch plan = plan_marching(f, C::width, C::by, blocks_per_sm, launch);
  kernel<<<plan.grid, dim3(C::bx, C::by), C::shared_bytes, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), plan.z_chunk,
      access_unit<T>(f, x.in, x.out), pack_weights<T, C::taps>(p, R, C::ry, shape::star));
  SWATH_CHECK_LAST();
}

}  // namespace

void vector_planes(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.form == shape::star, "vector_planes: star stencils only (boxes run on step 06)");
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star) run_instance<T, R, Dims>(p, x, launch);
  });
}

}  // namespace swath::stencil::cuda
