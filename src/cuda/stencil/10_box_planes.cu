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
//   double at radius 1 0.86-0.90x: the library keeps 06 for those. docs/journal/stencil.md, "Step 10:
//   box planes".

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
  // in 2D, asked of the register allocator.
  static constexpr int fit = static_cast<int>(227 * 1024 / shared_bytes);
  static constexpr int min_blocks = fit < (Dims == 3 ? 3 : 6) ? fit : (Dims == 3 ? 3 : 6);
  static_assert(min_blocks >= 1, "a block's ring fits an SM");
};

// The weight of box tap (dx, dy, dz) in pack_weights' order: z, then y, then x, each from -r.
template <int R, int Ry>
constexpr int box_index(int dx, int dy, int dz) {
  return ((dz + R) * (2 * Ry + 1) + dy + Ry) * (2 * R + 1) + dx + R;
}

// One block a tile of the plane, marching a chunk of z; the running sums live in registers from the
// first plane read to the last.
template <class T, int R, int Dims>
__global__ void __launch_bounds__(config<T, R, Dims>::threads, config<T, R, Dims>::min_blocks)
    box_planes_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk, int unit,
                      const weights<T, config<T, R, Dims>::taps> c) {
  using C = config<T, R, Dims>;
  constexpr int V = C::vector, E = C::rows_each, LW = window_side<T, R>();
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* ring = reinterpret_cast<T*>(shared_raw);  // [slots][rows][row]

  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int x0 = static_cast<int>(blockIdx.x) * C::width, y0 = static_cast<int>(blockIdx.y) * C::by * E;
  const int x = x0 + tx * V, y = y0 + ty * E;  // this thread's first point: rows y ... y + E - 1
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  const vector_ring<T, R, C> planes(in, ring, f, edge_value, x0, y0, z_end, unit);

  // Step i reads plane z_begin - r + i, in slot i mod slots, and stores output plane z_begin - 2r + i
  // (from i = 2r: the steps before only start the sums).
  for (int i = 0; i < C::ahead; ++i) planes.issue_plane(i, z_begin - R + i);
  const int own = ty * E * C::row + C::pad + tx * V;  // this thread's vector in its first input row (y - ry)
  const bool face_block = f.edge == boundary::copy &&
                          (x0 < R || x0 + C::width + R > f.nx || y0 < C::ry || y0 + C::by * E + C::ry > f.ny);

  // sums[j][k][i]: output row y + j, plane (the plane read) - r + k, point x + i.
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
    planes.issue_plane(write_slot, z_begin - R + step + C::ahead);
    wait_copies<C::ahead>();  // this thread's copies of the plane read here have landed
    __syncthreads();          // and everyone's

    const T* first_row = ring + read_slot * C::plane + own;
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
#pragma unroll
      for (int j = 0; j < E; ++j) {
        if (y + j >= f.ny) continue;
        if (face_block || (f.edge == boundary::copy && (z < R || z >= f.nz - R))) {
          const T* own_values = ring + own_slot * C::plane + own + (j + C::ry) * C::row;
#pragma unroll
          for (int i = 0; i < V; ++i) {
            if (copies_itself(f, x + i, y + j, z)) sums[j][0][i] = own_values[i];
          }
        }
        planes.store(out + (z * f.sz + (y + j) * f.sy + x), sums[j][0]);
      }
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

template <class T, int R, int Dims>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, Dims>;
  launch_ring_kernel<T, R, C>(box_planes_kernel<T, R, Dims>, p, x, launch, C::by * C::rows_each, shape::box, "box_planes");
}

}  // namespace

void box_planes(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.form == shape::box, "box_planes: box stencils only (stars run on steps 07-09)");
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::box) run_instance<T, R, Dims>(p, x, launch);
  });
}

}  // namespace swath::stencil::cuda
