// Step 07: step 06's asynchronous plane ring, 16 bytes a thread. Star stencils, radius 1-4, 2D or 3D,
// float or double, every boundary (boxes run on step 10).
// - What changed from 06: each thread owns one 16-byte vector of a row: one cp.async.cg a tile row piece,
//   y and z taps as 16-byte shared loads, the x taps from one window of the centre row; from radius 3
//   the z taps come from a register queue (shared-memory bandwidth: ~17 loads a thread and plane fit at
//   0.95x the copy bandwidth). Widths not a multiple of 4 floats copy in 8- or 4-byte units.
// - Prediction: ~14 warp instructions per 32 points at radius 1 (06: ~110, budget 66): bound by DRAM.
// - Outcome (H200): 0.63x of the copy bandwidth at radius 1 in float: per-plane fixed costs (cp.async
//   issue, wait_group and a block barrier every plane) are the limit, which step 08 removes.
//   docs/journal/stencil.md, step 07.
// - The ring's copies and stores are in vector_ring.cuh, shared with step 10 (boxes).


#include "vector_ring.cuh"

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
  const int x0 = static_cast<int>(blockIdx.x) * C::width, y0 = static_cast<int>(blockIdx.y) * C::by;
  const int x = x0 + tx * V, y = y0 + ty;  // this thread's first point
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  const vector_ring<T, R, C> planes(in, ring, f, edge_value, x0, y0, z_end, unit);

  // Plane z_begin - R + i lives in slot i mod slots.
  const auto slot_of = [&](int i) { return ring + i * C::plane; };
  const int own = (ty + C::ry) * C::row + C::pad + tx * V;  // this thread's vector in a slot
  for (int i = 0; i < 2 * R + C::ahead; ++i) planes.issue_plane(i, z_begin - R + i);

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
    planes.issue_plane(slot_index(R + C::ahead), z + R + C::ahead);
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
      planes.store(target, sum);
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

template <class T, int R, int Dims>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, Dims>;
  launch_ring_kernel<T, R, C>(vector_planes_kernel<T, R, Dims>, p, x, launch, C::by, shape::star, "vector_planes");
}

}  // namespace

void vector_planes(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.form == shape::star, "vector_planes: star stencils only (boxes run on step 10)");
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star) run_instance<T, R, Dims>(p, x, launch);
  });
}

}  // namespace swath::stencil::cuda
