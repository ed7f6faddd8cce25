// Step 05: the generic streaming kernel: any radius 1-4, star or box, 2D or 3D, float or double.
//
// Every thread computes (no load-only halo threads, unlike steps 02-04): a block of 32 × 8 threads
// (3D; 256 × 1 in 2D) owns as many (x, y) columns and marches up z through a chunk of planes. Each
// thread keeps its own column in a register queue, in(x, y, z - r) ... in(x, y, z + r), plus `ahead`
// planes prefetched beyond it, so each thread has ahead + 1 loads of DRAM in flight across the
// barriers: Little's law wants ~25 KiB in flight per SM on an H100/H200 (4.8 TB/s · ~700 ns / 132
// SMs), and 2048 threads · 4 B would be only 8 KiB with one load each.
//
// The plane a tap needs with its x and y neighbours goes to shared memory, own point plus halo:
// star stencils need it for the current plane only (their z taps come from the queue); box
// stencils need all 2r + 1 planes, kept as a ring. The ring has one slot more than is read at a
// time, so one barrier per plane suffices: the slot written at plane z was last read at plane z - 2,
// and every thread has passed the barrier of plane z - 1 since.
//
// Traffic: each point is read once from DRAM by its own thread; halo points (2r of every 32-wide
// row, 2r rows of every 8-row block) are read again by the neighbouring block, from L2 when it runs
// nearby in time. Chunks of z re-read 2r planes each; the chunk count trades that against filling
// the last wave of blocks (choose_chunks in stencil_cuda.cuh).

#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R, shape S, int Dims>
struct config {
  static constexpr int bx = Dims == 3 ? 32 : 256;  // threads (and columns) in x
  static constexpr int by = Dims == 3 ? 8 : 1;     // in y
  static constexpr int ry = Dims == 3 ? R : 0;     // the frame's y radius (2D problems march their y as z)
  static constexpr int ahead = 4;                  // planes prefetched beyond z + r
  static constexpr int queue = 2 * R + 1 + ahead;
  static constexpr int planes = S == shape::star ? 2 : 2 * R + 2;  // ring slots
  static constexpr int tw = bx + 2 * R;
  static constexpr int th = by + 2 * ry;
  static constexpr int taps = S == shape::star ? 2 * R + 2 * ry + 2 * R + 1
                                               : (2 * R + 1) * (2 * ry + 1) * (2 * R + 1);
  static constexpr std::size_t shared_bytes = sizeof(T) * planes * th * tw;
  // Blocks per SM asked of the register allocator: 6 (40 registers, 1536 threads) where that spills
  // nothing (ptxas -v: star in float at any radius, in double to radius 2), else 4 (64 registers).
  static constexpr int min_blocks = S == shape::star && (sizeof(T) == 4 || R <= 2) ? 6 : 4;
};

// Longer than a screen, on purpose: the z-window of registers spans the whole march (the step's point),
// and the figures in docs/journal/stencil.md are of this body as compiled.
template <class T, int R, shape S, int Dims>
__global__ void __launch_bounds__(config<T, R, S, Dims>::bx* config<T, R, S, Dims>::by, config<T, R, S, Dims>::min_blocks)
    streaming_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk,
                     const __grid_constant__ weights<T, config<T, R, S, Dims>::taps> c) {
  using C = config<T, R, S, Dims>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* ring = reinterpret_cast<T*>(shared_raw);  // [planes][th][tw]

  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int x0 = static_cast<int>(blockIdx.x) * C::bx, y0 = static_cast<int>(blockIdx.y) * C::by;
  const int x = x0 + tx, y = y0 + ty;
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  // Blocks whose halo lies inside the grid in x and y skip the boundary logic for in-plane reads.
  const bool xy_inside = x0 >= R && x0 + C::bx + R <= f.nx && y0 >= C::ry && y0 + C::by + C::ry <= f.ny;
  const auto load = [&](int xx, int yy, int zz) -> T {
    if (xy_inside && static_cast<unsigned>(zz) < static_cast<unsigned>(f.nz)) return in[zz * f.sz + yy * f.sy + xx];
    return fetch(in, f, xx, yy, zz, edge_value);
  };
  const auto slot = [&](int plane) { return ring + ((plane - z_begin + R) % C::planes) * (C::th * C::tw); };
  // Plane zz into its ring slot: the thread's own point, and its share of the halo.
  const auto write_plane = [&](int zz, T own) {
    T* s = slot(zz);
    s[(ty + C::ry) * C::tw + tx + R] = own;
    if (tx < R) {
      s[(ty + C::ry) * C::tw + tx] = load(x - R, y, zz);
      s[(ty + C::ry) * C::tw + tx + C::bx + R] = load(x + C::bx, y, zz);
    }
    if constexpr (C::ry > 0) {
      if (ty < C::ry) {
        s[ty * C::tw + tx + R] = load(x, y - C::ry, zz);
        s[(ty + C::by + C::ry) * C::tw + tx + R] = load(x, y + C::by, zz);
        if constexpr (S == shape::box) {
          if (tx < R) {
            s[ty * C::tw + tx] = load(x - R, y - C::ry, zz);
            s[ty * C::tw + tx + C::bx + R] = load(x + C::bx, y - C::ry, zz);
            s[(ty + C::by + C::ry) * C::tw + tx] = load(x - R, y + C::by, zz);
            s[(ty + C::by + C::ry) * C::tw + tx + C::bx + R] = load(x + C::bx, y + C::by, zz);
          }
        }
      }
    }
  };

  // The queue: q[k] = in(x, y, z - R + k) at plane z. Planes past z_end + R are never needed.
  T q[C::queue];
#pragma unroll
  for (int k = 0; k < C::queue; ++k) {
    const int zz = z_begin - R + k;
    q[k] = zz < z_end + R ? load(x, y, zz) : T(0);
  }
  if constexpr (S == shape::box) {
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) write_plane(z_begin - R + k, q[k]);
  }

  const bool stores = x < f.nx && y < f.ny;
  for (int z = z_begin; z < z_end; ++z) {
    if constexpr (S == shape::box) {
      write_plane(z + R, q[2 * R]);
    } else {
      write_plane(z, q[R]);
    }
    __syncthreads();
    T sum = 0;
    int k = 0;
#pragma unroll
    for (int dz = -R; dz <= R; ++dz) {
      const T* s = slot(z + dz);
#pragma unroll
      for (int dy = -C::ry; dy <= C::ry; ++dy) {
#pragma unroll
        for (int dx = -R; dx <= R; ++dx) {
          if (S == shape::star && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
          const T value = (S == shape::star && dz != 0) ? q[R + dz] : s[(ty + C::ry + dy) * C::tw + tx + R + dx];
          sum += c.w[k++] * value;
        }
      }
    }
    if (stores) out[z * f.sz + y * f.sy + x] = copies_itself(f, x, y, z) ? q[R] : sum;
#pragma unroll
    for (int j = 0; j + 1 < C::queue; ++j) q[j] = q[j + 1];
    const int next = z + R + C::ahead + 1;
    q[C::queue - 1] = next < z_end + R ? load(x, y, next) : T(0);
  }
}

template <class T, int R, shape S, int Dims>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, S, Dims>;
  const auto kernel = streaming_kernel<T, R, S, Dims>;
  const int blocks_per_sm = prepare_kernel(kernel, C::bx * C::by, C::shared_bytes);
  const frame f = frame_of(p);
  const marching_launch plan = plan_marching(f, C::bx, C::by, blocks_per_sm, launch);
  kernel<<<plan.grid, dim3(C::bx, C::by), C::shared_bytes, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), plan.z_chunk,
      pack_weights<T, C::taps>(p, R, C::ry, S));
  SWATH_CHECK_LAST();
}

}  // namespace

void streaming(const problem& p, const operands& x, const launch_context& launch) {
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() { run_instance<T, R, S, Dims>(p, x, launch); });
}

}  // namespace swath::stencil::cuda
