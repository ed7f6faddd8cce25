#pragma once
// What the CUDA stencil steps share: the grid as the kernels see it, boundary-resolving loads, the
// weights packed in the order a kernel's loops visit the taps, and launch helpers.
//
// The kernels work in one logical 3D frame (x fastest, then y, then z). A 3D problem maps onto it as
// it is. A 2D problem W × H becomes W × 1 × H: its rows are the "planes" a streaming kernel marches
// through, and the y radius of the frame is 0. One kernel then serves both.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "../../stencil/steps.hpp"
#include "swath/core/error.hpp"

namespace swath::stencil::cuda {

struct frame {
  int nx, ny, nz;      // logical extents
  std::int64_t sy, sz;  // strides of y and z in elements
  int r, ry;           // radius in x and z, and in y (0 for 2D problems)
  boundary edge;
};

inline frame frame_of(const problem& p) {
  SWATH_EXPECTS(p.grid.width < (1LL << 31) && p.grid.height < (1LL << 31) && p.depth < (1LL << 31),
                "each extent of a GPU stencil grid must be below 2^31");
  if (p.dims == 3) {
    return {static_cast<int>(p.grid.width), static_cast<int>(p.grid.height), static_cast<int>(p.depth),
            p.grid.width, p.grid.count(), p.radius, p.radius, p.edge};
  }
  return {static_cast<int>(p.grid.width), 1, static_cast<int>(p.grid.height), p.grid.width, p.grid.width,
          p.radius, 0, p.edge};
}

// The problem's tap in the logical frame (a 2D tap's dy becomes dz).
inline tap logical_tap(const tap& t, int dims) { return dims == 3 ? t : tap{t.dx, 0, t.dy, t.weight}; }

// The weight of logical tap (dx, dy, dz), or 0 when the stencil has no such tap.
inline double weight_at(const problem& p, int dx, int dy, int dz) {
  for (const tap& t : p.taps) {
    const tap l = logical_tap(t, p.dims);
    if (l.dx == dx && l.dy == dy && l.dz == dz) return t.weight;
  }
  return 0;
}

__host__ __device__ constexpr int wrap_or_clamp(int i, int n, boundary edge) {
  if (edge == boundary::periodic) return ((i % n) + n) % n;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// in(x, y, z) with the boundary applied: clamp, periodic, the constant, or (copy) a clamped read
// whose value no output uses.
template <class T>
__device__ __forceinline__ T fetch(const T* __restrict__ in, const frame& f, int x, int y, int z, T edge_value) {
  if (static_cast<unsigned>(x) < static_cast<unsigned>(f.nx) && static_cast<unsigned>(y) < static_cast<unsigned>(f.ny) &&
      static_cast<unsigned>(z) < static_cast<unsigned>(f.nz)) {
    return in[z * f.sz + y * f.sy + x];
  }
  if (f.edge == boundary::constant) return edge_value;
  x = wrap_or_clamp(x, f.nx, f.edge);
  y = wrap_or_clamp(y, f.ny, f.edge);
  z = wrap_or_clamp(z, f.nz, f.edge);
  return in[z * f.sz + y * f.sy + x];
}

// The flat index in(x, y, z) reads with the boundary applied, or -1 for "the constant" (a read
// outside under boundary::constant).
__device__ __forceinline__ std::int64_t resolve(const frame& f, int x, int y, int z) {
  if (static_cast<unsigned>(x) >= static_cast<unsigned>(f.nx) || static_cast<unsigned>(y) >= static_cast<unsigned>(f.ny) ||
      static_cast<unsigned>(z) >= static_cast<unsigned>(f.nz)) {
    if (f.edge == boundary::constant) return -1;
    x = wrap_or_clamp(x, f.nx, f.edge);
    y = wrap_or_clamp(y, f.ny, f.edge);
    z = wrap_or_clamp(z, f.nz, f.edge);
  }
  return z * f.sz + y * f.sy + x;
}

// boundary::copy leaves the points within r of a face as their input.
__device__ __forceinline__ bool copies_itself(const frame& f, int x, int y, int z) {
  return f.edge == boundary::copy && (x < f.r || x >= f.nx - f.r || y < f.ry || y >= f.ny - f.ry || z < f.r ||
                                      z >= f.nz - f.r);
}

inline cudaStream_t stream_of(const launch_context& launch) { return static_cast<cudaStream_t>(launch.stream); }

inline unsigned blocks_for(std::int64_t items, int per_block) {
  const std::int64_t blocks = (items + per_block - 1) / per_block;
  SWATH_EXPECTS(blocks <= 0x7fffffff, "grid larger than the 2^31-1 blocks CUDA allows");
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// The 7-point stencil's weights, in the order of its taps: z-1, y-1, x-1, centre, x+1, y+1, z+1.
template <class T>
struct seven_weights {
  T w[7];
};

template <class T>
seven_weights<T> seven_point_weights(const problem& p) {
  seven_weights<T> c{};
  const int order[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int k = 0; k < 7; ++k) c.w[k] = static_cast<T>(weight_at(p, order[k][0], order[k][1], order[k][2]));
  return c;
}

// The seed's progression (steps 02-04) is written for the 3D 7-point stencil only.
inline support seven_point_only(const problem& p) {
  if (p.dims != 3 || p.form != shape::star || p.radius != 1) {
    return support::no("this step is the 3D 7-point stencil (WxHxD, shape=star, radius=1); 05 is the generic one");
  }
  return support::yes();
}

}  // namespace swath::stencil::cuda
