// Step 06: whole planes copied into shared memory by cp.async, `ahead` planes before they are needed.
// Generic as step 05: any radius 1-4, star or box, 2D or 3D, float or double, every boundary.
// - What changed from 05: 05 loaded its halo in the plane it needed it and paid one memory latency a
//   plane (~1.5 µs under load: a quarter of the copy bandwidth). Here every element of a plane goes to
//   shared memory by cp.async, `ahead` planes early (~25 KiB in flight an SM, what Little's law asks).
// - Prediction: radius 1-2 reach the DRAM limit; radius 4 stops near 0.85 of the copy bandwidth on
//   shared-memory bandwidth (18.3 words a point against 16.8 allowed); boxes are bound by shared memory
//   (and the FMA rate at radius 4 in 3D).
// - Outcome: issue-bound at half the DRAM bandwidth in float (89% of issue slots busy), which step 07
//   answers. docs/journal/stencil.md, step 06.

#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R, shape S, int Dims>
struct config {
  static constexpr int bx = Dims == 3 ? 32 : 256;
  static constexpr int by = Dims == 3 ? 8 : 1;
  static constexpr int ry = Dims == 3 ? R : 0;
  // Output rows per thread. With one, ncu finds the kernel issue-bound (89% of issue slots at half
  // the DRAM bandwidth in float). Two adjacent rows per thread (sharing their y taps' loads and the
  // fixed cost of a plane step) halved the issue load but, at 64 registers and 4 blocks per SM,
  // left it latency-bound and slower: 0.645 against 0.509 ms for float radius 1 at 512^3 on an
  // H200 (docs/journal/stencil.md). The code keeps the parameter; one row is the measured better choice.
  static constexpr int rows = 1;
  static constexpr int ahead = sizeof(T) == 4 ? 6 : 4;  // planes in flight beyond the newest one read
  static constexpr int below = S == shape::box ? R : 0;  // planes under the centre kept for the box's taps
  // The ring: planes z - below ... z + R + ahead, and one spare so that one barrier per plane
  // suffices (the slot written at plane z was last read at plane z - 2).
  static constexpr int slots = below + R + ahead + 2;
  static constexpr int tw = bx + 2 * R;
  static constexpr int th = by * rows + 2 * ry;
  static constexpr int plane = th * tw;
  static constexpr int threads = bx * by;
  static constexpr int copies = (plane + threads - 1) / threads;  // elements each thread copies per plane
  static constexpr std::size_t shared_bytes = sizeof(T) * slots * plane;
  static constexpr int taps = S == shape::star ? 4 * R + 2 * ry + 1 : (2 * R + 1) * (2 * ry + 1) * (2 * R + 1);
  // Blocks per SM asked of the register allocator, the most that spill nothing (ptxas -v): 6 (40
  // registers) with one row per thread, 4 (64) with two, 3 (80) for double stars past radius 1.
  static constexpr int min_blocks = rows == 1 ? 6 : (sizeof(T) == 8 && R >= 2 ? 3 : 4);
};

// Longer than a screen, on purpose: the copies in flight and the registers they feed span the whole
// march, and the figures in docs/journal/stencil.md are of this body as compiled.
template <class T, int R, shape S, int Dims>
__global__ void __launch_bounds__(config<T, R, S, Dims>::threads, config<T, R, S, Dims>::min_blocks)
    async_planes_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk,
                        const weights<T, config<T, R, S, Dims>::taps> c) {
  using C = config<T, R, S, Dims>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* ring = reinterpret_cast<T*>(shared_raw);  // [slots][th][tw]

  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int thread = ty * C::bx + tx;
  const int x0 = static_cast<int>(blockIdx.x) * C::bx, y0 = static_cast<int>(blockIdx.y) * C::by * C::rows;
  const int x = x0 + tx, y = y0 + ty * C::rows;  // this thread's first row; it has C::rows
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  // Blocks whose halo lies inside the grid in x and y (most of them) copy without boundary logic.
  const bool xy_inside = x0 >= R && x0 + C::bx + R <= f.nx && y0 >= C::ry && y0 + C::by * C::rows + C::ry <= f.ny;
  // Ring slots without division (a modulo by 9 cost ~60 instructions per plane, measured by ncu as
  // an issue-bound kernel): `low` is the slot of plane z - below, and plane z + d sits in slot
  // low + below + d, wrapped once.
  int low = 0;
  const auto slot = [&](int d) {
    const int index = low + C::below + d;
    return ring + (index >= C::slots ? index - C::slots : index) * C::plane;
  };

  // The block's th × tw tile of a plane is copied as one flat array: element e = thread + k·threads,
  // so every warp copies whole stretches of rows (no lanes idle on halo-only paths). The offsets
  // from the tile's corner (x0 - r, y0 - ry) are the same in every plane: computed once.
  int offset[C::copies];  // < th · sy, checked below 2^31 at launch
#pragma unroll
  for (int k = 0; k < C::copies; ++k) {
    const int e = thread + k * C::threads;
    offset[k] = (e / C::tw) * static_cast<int>(f.sy) + (e % C::tw);
  }
  const std::int64_t corner = (y0 - C::ry) * f.sy + (x0 - R);
  // Plane zz into ring slot s; `base` is its tile corner in global memory when the plane is inside.
  const auto issue_plane = [&](int zz, T* s, const T* base) {
    if (zz < z_end + R) {  // planes past z_end + R are never read: an empty group keeps the count
      if (xy_inside && static_cast<unsigned>(zz) < static_cast<unsigned>(f.nz)) {
#pragma unroll
        for (int k = 0; k < C::copies; ++k) {
          const int e = thread + k * C::threads;
          if (k + 1 < C::copies || e < C::plane) copy_async(s + e, base + offset[k], sizeof(T));
        }
      } else {
#pragma unroll
        for (int k = 0; k < C::copies; ++k) {
          const int e = thread + k * C::threads;
          if (k + 1 < C::copies || e < C::plane) {
            const std::int64_t source = resolve(f, x0 - R + e % C::tw, y0 - C::ry + e / C::tw, zz);
            if (source < 0) {
              s[e] = edge_value;
            } else {
              copy_async(s + e, in + source, sizeof(T));
            }
          }
        }
      }
    }
    commit_copies();
  };

  // A star's z taps come from its own column in registers: q[j][k] = in(x, y + j, z - R + k) at
  // plane z. The first 2r are read directly; after that each plane's own value comes from the ring.
  T q[C::rows][2 * R + 1];
  if constexpr (S == shape::star) {
#pragma unroll
    for (int j = 0; j < C::rows; ++j) {
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) q[j][k] = fetch(in, f, x, y + j, z_begin - R + k, edge_value);
    }
  }
  for (int i = 0; i < C::below + R + C::ahead; ++i) {
    const int zz = z_begin - C::below + i;
    issue_plane(zz, ring + i * C::plane, in + (zz * f.sz + corner));
  }

  const int own = (ty * C::rows + C::ry) * C::tw + tx + R;  // the first row's point in a slot
  T* target = out + (z_begin * f.sz + y * f.sy + x);
  const T* source = in + ((z_begin + R + C::ahead) * f.sz + corner);  // the tile of the plane issued next
  for (int z = z_begin; z < z_end; ++z, target += f.sz, source += f.sz) {
    issue_plane(z + R + C::ahead, slot(R + C::ahead), source);
    wait_copies<C::ahead>();  // this thread's copies of plane z + R have landed
    __syncthreads();          // and everyone's
    const T* centre_plane = slot(0);
#pragma unroll
    for (int j = 0; j < C::rows; ++j) {
      if constexpr (S == shape::star) q[j][2 * R] = slot(R)[own + j * C::tw];
      T sum = 0;
      int k = 0;
#pragma unroll
      for (int dz = -R; dz <= R; ++dz) {
        const T* s = (S == shape::box ? slot(dz) : centre_plane) + own + j * C::tw;
#pragma unroll
        for (int dy = -C::ry; dy <= C::ry; ++dy) {
#pragma unroll
          for (int dx = -R; dx <= R; ++dx) {
            if (S == shape::star && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
            T value;
            if constexpr (S == shape::star) {
              value = dz != 0 ? q[j][R + dz] : (dx == 0 && dy == 0 ? q[j][R] : s[dy * C::tw + dx]);
            } else {
              value = s[dy * C::tw + dx];
            }
            sum += c.w[k++] * value;
          }
        }
      }
      if (x < f.nx && y + j < f.ny) {
        target[j * f.sy] = copies_itself(f, x, y + j, z) ? centre_plane[own + j * C::tw] : sum;
      }
      if constexpr (S == shape::star) {
#pragma unroll
        for (int i = 0; i < 2 * R; ++i) q[j][i] = q[j][i + 1];
      }
    }
    low = low + 1 == C::slots ? 0 : low + 1;
  }
  wait_copies<0>();  // no copy may land in shared memory after the block has gone
}

template <class T, int R, shape S, int Dims>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = config<T, R, S, Dims>;
  const auto kernel = async_planes_kernel<T, R, S, Dims>;
  const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
  const frame f = frame_of(p);
  SWATH_EXPECTS(static_cast<std::int64_t>(C::th) * f.sy < (1LL << 31), "async_planes: rows too long for 32-bit tile offsets");
  const marching_launch plan = plan_marching(f, C::bx, C::by * C::rows, blocks_per_sm, launch);
  kernel<<<plan.grid, dim3(C::bx, C::by), C::shared_bytes, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), plan.z_chunk,
      pack_weights<T, C::taps>(p, R, C::ry, S));
  SWATH_CHECK_LAST();
}

}  // namespace

void async_planes(const problem& p, const operands& x, const launch_context& launch) {
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() { run_instance<T, R, S, Dims>(p, x, launch); });
}

}  // namespace swath::stencil::cuda
