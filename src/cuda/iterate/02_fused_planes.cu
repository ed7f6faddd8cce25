// Step 02 (GPU iterated stencil): temporal blocking, L sweeps fused per pass over memory (2.5D blocking:
// a tile in x-y, streaming in z, every sweep's planes on chip). Stars and boxes, radius 1-4, 2D and 3D,
// float and double, clamp, constant and copy boundaries (periodic grids run T single sweeps).
//
// A block owns a tile of 32 x 32 columns (3D; rows of 512 in 2D, whose y is the kernel's z), one thread
// a column, and marches up a chunk of z. At each step it loads one plane of the input (sweep 0) and
// every sweep τ = 1..L computes the plane r below the newest of sweep τ - 1: sweep τ trails the input by
// τ r planes. Each sweep keeps its last 2r + 1 planes of its own column in registers (its z taps) and
// the plane its successor needs for x-y taps in shared memory (boxes: all 2r + 1, as a ring). One
// barrier a sweep a step: the plane a sweep writes was last read a barrier ago.
//
// The cost is the halo: sweep τ's values are right only r (L - τ) columns in from the tile's edge, so a
// pass keeps the middle (32 - 2Lr)^2 of 32^2 columns and computes the rest redundantly (L = 4, r = 1:
// 576 of 1024). Blocks at the grid's faces apply the boundary at every sweep by reading their clamped
// neighbour, or the constant, in place of a column outside the grid.
//
// Prediction (H100, 512^3 float, 7-point, T = 64): the model (src/stencil/iterate.cpp) puts a pass of
// L = 3 at the lesser of DRAM's 3 x 375 G points/s and shared memory's 0.66 x 1.48 T/5 ... about 2.4x the
// single-sweep roofline; 1024 threads a block leave one block an SM, so the barriers' stalls will cost
// some of it: expect 1.8-2.4x.
// Outcome (H100): 0.70x in 3D float (T single sweeps: 0.98x), 1.05-1.11x in double, 1.38-1.49x for the
// 2D 5-point at 16384^2. ncu: issue-bound, 0.75 warps issued a scheduler a clock at 50% occupancy, about
// 64 instructions a column-sweep where its taps are 11: the march's bookkeeping (each sweep's range,
// queue shifts, the boundary's tests, the barrier) costs more than the arithmetic. The library takes it
// for 2D stars and 3D 7-point doubles only. docs/journal/stencil.md, "Iterated sweeps".
#include "../../stencil/iterate.hpp"
#include "../stencil/stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R, shape S, int Dims>
struct fused_config {
  static constexpr fused_block block = fused_block_of(Dims);
  static constexpr int bx = block.x, by = block.y;
  static constexpr int ry = Dims == 3 ? R : 0;  // the frame's y radius (2D grids march their y as z)
  static constexpr int depth = fused_depth_limit(Dims, R, S, static_cast<int>(sizeof(T)));  // sweeps a pass, at most
  static constexpr int planes = S == shape::star ? 1 : 2 * R + 1;  // shared planes of each sweep
  static constexpr int tw = bx + 2 * R;  // the tile and a pad of r each side, read only by halo columns
  static constexpr int th = by + 2 * ry;
  static constexpr int taps = S == shape::star ? 2 * R + 2 * ry + 2 * R + 1 : (2 * R + 1) * (2 * ry + 1) * (2 * R + 1);
  static constexpr std::size_t shared_bytes(int sweeps) { return sizeof(T) * sweeps * planes * th * tw; }
  static constexpr int min_blocks = Dims == 3 ? 1 : 2;  // 64 registers a thread either way
};

// Longer than a screen, on purpose: the sweeps' register queues live across the whole march.
template <class T, int R, shape S, int Dims>
__global__ void __launch_bounds__(fused_config<T, R, S, Dims>::bx* fused_config<T, R, S, Dims>::by,
                                  fused_config<T, R, S, Dims>::min_blocks)
    fused_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int depth, int z_chunk,
                 const __grid_constant__ weights<T, fused_config<T, R, S, Dims>::taps> c) {
  using C = fused_config<T, R, S, Dims>;
  constexpr int L = C::depth, Q = 2 * R + 1, plane_size = C::th * C::tw;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);  // [sweep 0 .. depth - 1][planes][th][tw]

  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int halo = depth * R, halo_y = depth * C::ry;
  const int gx0 = static_cast<int>(blockIdx.x) * (C::bx - 2 * halo) - halo;
  const int gy0 = static_cast<int>(blockIdx.y) * (C::by - 2 * halo_y) - halo_y;
  const int x = gx0 + tx, y = gy0 + ty;
  const int z0 = static_cast<int>(blockIdx.z) * z_chunk, z1 = min(z0 + z_chunk, f.nz);
  const bool inside = static_cast<unsigned>(x) < static_cast<unsigned>(f.nx) && static_cast<unsigned>(y) < static_cast<unsigned>(f.ny);
  // Blocks whose tile lies inside the grid read their neighbours directly; the others resolve the boundary.
  const bool edge_block = gx0 < 0 || gx0 + C::bx > f.nx || gy0 < 0 || gy0 + C::by > f.ny;
  const bool keeps = inside && tx >= halo && tx < C::bx - halo && ty >= halo_y && ty < C::by - halo_y;
  const int own = (ty + C::ry) * C::tw + tx + R;
  const bool constant = f.edge == boundary::constant;
  // boundary::copy: the points within r of a face keep their value (copies_itself, split into the
  // column's part and the plane's, so that a sweep tests one flag).
  const bool copy_planes = f.edge == boundary::copy;
  const bool copy_column = copy_planes && (x < R || x >= f.nx - R || y < C::ry || y >= f.ny - C::ry);

  const auto plane_of = [&](int sweep, int z) -> T* {
    if constexpr (S == shape::star) {
      return shared + sweep * plane_size;
    } else {
      return shared + (sweep * C::planes + (z + C::planes) % C::planes) * plane_size;  // z >= -r
    }
  };
  // The value of sweep `plane`'s grid at (x + dx, y + dy), the boundary applied in edge blocks (Edge is
  // the block's edge_block, a template argument so that each block's path has no branch a tap).
  const auto neighbour = [&]<bool Edge>(const T* plane, int dx, int dy) -> T {
    if constexpr (!Edge) return plane[own + dy * C::tw + dx];
    int xx = x + dx, yy = y + dy;
    if (static_cast<unsigned>(xx) >= static_cast<unsigned>(f.nx) || static_cast<unsigned>(yy) >= static_cast<unsigned>(f.ny)) {
      if (constant) return edge_value;
      xx = min(max(xx, 0), f.nx - 1);
      yy = min(max(yy, 0), f.ny - 1);
    }
    return plane[(yy - gy0 + C::ry) * C::tw + xx - gx0 + R];
  };

  // q[s][k]: sweep s's value at (x, y, z_s - 2r + k), z_s its newest plane.
  T q[L][Q];
  // Sweep s's plane z enters its queue (and its ring); plane 0 also stands for the planes below it.
  const auto push = [&](T(&queue)[Q], int sweep, int z, T value) {
    if (z == 0) {
      const T below = constant ? edge_value : value;
#pragma unroll
      for (int k = 0; k < Q - 1; ++k) queue[k] = below;
      if constexpr (S == shape::box) {
        for (int k = 1; k <= R; ++k) plane_of(sweep, -k)[own] = below;
      }
    } else {
#pragma unroll
      for (int k = 0; k < Q - 1; ++k) queue[k] = queue[k + 1];
    }
    queue[Q - 1] = value;
    if constexpr (S == shape::box) plane_of(sweep, z)[own] = value;
  };
  // Past the top face: the boundary's plane (clamp and copy repeat the last).
  const auto push_beyond = [&](T(&queue)[Q], int sweep, int z) { push(queue, sweep, z, constant ? edge_value : queue[Q - 1]); };

  const int lo0 = max(0, z0 - halo), hi0 = min(f.nz, z1 + halo), last = z1 - 1 + halo;
  const T* column = in + static_cast<std::int64_t>(y) * f.sy + x;
  T next = inside && lo0 < hi0 ? column[lo0 * f.sz] : T(0);
  for (int s = lo0; s <= last; ++s) {
    const T loaded = next;
    if (inside && s + 1 < hi0) next = column[(s + 1) * f.sz];  // one plane ahead, across the sweeps' work
    if (s < hi0) {
      push(q[0], 0, s, loaded);
    } else if (s >= f.nz) {
      push_beyond(q[0], 0, s);
    }
#pragma unroll
    for (int sweep = 1; sweep <= L; ++sweep) {
      if (sweep > depth) break;
      if constexpr (S == shape::star) plane_of(sweep - 1, 0)[own] = q[sweep - 1][R];  // its centre plane's x-y taps
      __syncthreads();
      const int z = s - sweep * R;
      const int lo = max(0, z0 - (depth - sweep) * R), hi = min(f.nz, z1 + (depth - sweep) * R);
      if (z >= lo && z < hi) {
        const T(&from)[Q] = q[sweep - 1];
        const auto taps_sum = [&]<bool Edge>() {
          T sum = 0;
          int k = 0;
#pragma unroll
          for (int dz = -R; dz <= R; ++dz) {
            const T* plane = plane_of(sweep - 1, z + dz);
#pragma unroll
            for (int dy = -C::ry; dy <= C::ry; ++dy) {
#pragma unroll
              for (int dx = -R; dx <= R; ++dx) {
                if (S == shape::star && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
                const T value = dx == 0 && dy == 0 ? from[R + dz] : neighbour.template operator()<Edge>(plane, dx, dy);
                sum += c.w[k++] * value;
              }
            }
          }
          return sum;
        };
        const T sum = edge_block ? taps_sum.template operator()<true>() : taps_sum.template operator()<false>();
        const T result = copy_column || (copy_planes && (z < R || z >= f.nz - R)) ? from[R] : sum;
        // (sweep < L below whenever sweep < depth; the clamped index keeps the unrolled copy for L in bounds)
        if (sweep == depth) {
          if (keeps) out[z * f.sz + static_cast<std::int64_t>(y) * f.sy + x] = result;
        } else {
          push(q[sweep < L ? sweep : L - 1], sweep, z, result);
        }
      } else if (sweep < depth && z >= f.nz) {
        push_beyond(q[sweep < L ? sweep : L - 1], sweep, z);
      }
    }
    if (depth == 1) __syncthreads();  // the one sweep's plane is rewritten next step: wait for its readers
  }
}

template <class T, int R, shape S, int Dims>
void run_pass(const problem& p, const void* source, void* target, int depth, const launch_context& launch) {
  if constexpr (fused_depth_limit(Dims, R, S, static_cast<int>(sizeof(T))) < 2) {
    SWATH_EXPECTS(false, "iterate step 02: this radius, shape and type do not fit a pass of two sweeps");
  } else {
    using C = fused_config<T, R, S, Dims>;
    SWATH_EXPECTS(depth >= 1 && depth <= C::depth, "iterate step 02: pass depth outside its compiled range");
    const auto kernel = fused_kernel<T, R, S, Dims>;
    const int blocks_per_sm = prepare_kernel(kernel, C::bx * C::by, C::shared_bytes(C::depth));
    const frame f = frame_of(p);
    const int halo = depth * R, halo_y = depth * C::ry;
    const unsigned gx = blocks_for(f.nx, C::bx - 2 * halo), gy = blocks_for(f.ny, C::by - 2 * halo_y);
    SWATH_EXPECTS(gy <= 65535, "iterate step 02: more than 65535 tiles in y");
    const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
    const int chunks = choose_chunks(static_cast<std::int64_t>(gx) * gy, static_cast<std::int64_t>(sms) * blocks_per_sm,
                                     f.nz, halo);
    const int z_chunk = std::max((f.nz + chunks - 1) / chunks, (f.nz + 65534) / 65535);
    const dim3 grid(gx, gy, static_cast<unsigned>((f.nz + z_chunk - 1) / z_chunk));
    kernel<<<grid, dim3(C::bx, C::by), C::shared_bytes(depth), stream_of(launch)>>>(
        static_cast<const T*>(source), static_cast<T*>(target), f, static_cast<T>(p.edge_value), depth, z_chunk,
        pack_weights<T, C::taps>(p, R, C::ry, S));
    SWATH_CHECK_LAST();
  }
}

}  // namespace

void copy_grid(const problem& p, const void* in, void* out, const launch_context& launch) {
  const auto u = static_cast<std::size_t>(p.element_bytes());
  const auto pitch = static_cast<std::size_t>(p.pitch()) * u;
  SWATH_CUDA_CHECK(cudaMemcpy2DAsync(out, pitch, in, pitch, static_cast<std::size_t>(p.grid.width) * u,
                                     static_cast<std::size_t>(p.grid.height * p.depth), cudaMemcpyDeviceToDevice,
                                     stream_of(launch)));
}

void fused_planes(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  run_passes(ip, x, launch, fused_depth_of(p, launch), [&](const void* source, void* target, int depth) {
    for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() { run_pass<T, R, S, Dims>(p, source, target, depth, launch); });
  });
}

}  // namespace swath::stencil::cuda
