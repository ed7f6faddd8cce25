#pragma once
// What the CUDA stencil steps share: the grid as the kernels see it, boundary-resolving loads, the
// weights packed in the order a kernel's loops visit the taps, and launch helpers.
//
// The kernels work in one logical 3D frame (x fastest, then y, then z). A 3D problem maps onto it as
// it is. A 2D problem W × H becomes W × 1 × H: its rows are the "planes" a streaming kernel marches
// through, and the y radius of the frame is 0. One kernel then serves both.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../../stencil/steps.hpp"
#include "../core/async_copy.cuh"
#include "../core/kernel_setup.cuh"
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
  // Rows p.pitch() elements apart (the width, or a pitched grid's padded rows), planes pitch × height.
  if (p.dims == 3) {
    return {static_cast<int>(p.grid.width), static_cast<int>(p.grid.height), static_cast<int>(p.depth),
            p.pitch(), p.pitch() * p.grid.height, p.radius, p.radius, p.edge};
  }
  return {static_cast<int>(p.grid.width), 1, static_cast<int>(p.grid.height), p.pitch(), p.pitch(),
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

// The flat index in(x, y, z) reads with the boundary applied, or -1 for "the constant" (a read
// outside under boundary::constant). Under boundary::copy a read outside is clamped: no output uses it.
// (The host's source_index is the same rule in 64-bit arithmetic; this one stays in 32-bit on the
// in-grid path, which every load takes.)
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

// in(x, y, z) with the boundary applied. The same rule as resolve(), written out: expressed through
// resolve() the compiler allocates registers differently (up to 10 more, and a 16-byte spill in
// step 05), and the steps' measured figures are for this form.
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

// boundary::copy leaves the points within r of a face as their input.
__device__ __forceinline__ bool copies_itself(const frame& f, int x, int y, int z) {
  return f.edge == boundary::copy && (x < f.r || x >= f.nx - f.r || y < f.ry || y >= f.ny - f.ry || z < f.r ||
                                      z >= f.nz - f.r);
}

// Ampere's asynchronous copies (core/async_copy.cuh), for steps 06 and 07.
using swath::cuda::commit_copies;
using swath::cuda::copy_async;
using swath::cuda::wait_copies;

// Once per kernel (core/kernel_setup.cuh): its shared-memory limit and its blocks per SM.
using swath::cuda::prepare_kernel;

// The 16-byte vectors of steps 07 and 08: 4 floats or 2 doubles, one per thread along x.
template <class T>
struct vector16;
template <>
struct vector16<float> {
  using type = float4;
  __device__ static void unpack(const float4& v, float* out) { out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w; }
  __device__ static float4 pack(const float* v) { return {v[0], v[1], v[2], v[3]}; }
};
template <>
struct vector16<double> {
  using type = double2;
  __device__ static void unpack(const double2& v, double* out) { out[0] = v.x, out[1] = v.y; }
  __device__ static double2 pack(const double* v) { return {v[0], v[1]}; }
};

// The weight index of star tap (dx, dy, dz) in pack_weights' order: z, then y, then x.
template <int R, int Ry>
constexpr int star_index(int dx, int dy, int dz) {
  if (dz < 0) return dz + R;
  if (dz > 0) return R + 2 * Ry + 2 * R + dz;
  if (dy < 0) return R + dy + Ry;
  if (dy > 0) return R + Ry + 2 * R + dy;
  return R + Ry + dx + R;
}

// N consecutive elements from shared memory at p, aligned to min(N·sizeof(T), 16) bytes, with the
// widest loads that alignment allows. N·sizeof(T) is 4, 8 or a multiple of 16.
template <class T, int N>
__device__ __forceinline__ void load_run(const T* p, T* out) {
  constexpr int bytes = N * static_cast<int>(sizeof(T));
  if constexpr (bytes == static_cast<int>(sizeof(T))) {
    out[0] = p[0];
  } else if constexpr (bytes == 8) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    out[0] = v.x, out[1] = v.y;
  } else {
    static_assert(bytes % 16 == 0);
    constexpr int per = 16 / static_cast<int>(sizeof(T));
#pragma unroll
    for (int k = 0; k < N / per; ++k) {
      vector16<T>::unpack(*reinterpret_cast<const typename vector16<T>::type*>(p + k * per), out + k * per);
    }
  }
}

// Elements loaded each side of a thread's vector for its x taps: r rounded up to 4, 8 or 16 bytes.
template <class T, int R>
constexpr int window_side() {
  constexpr int bytes = R * static_cast<int>(sizeof(T));
  return (bytes <= 4 ? 4 : bytes <= 8 ? 8 : (bytes + 15) / 16 * 16) / static_cast<int>(sizeof(T));
}

// Whether every row of both grids starts on a 16-byte boundary: the 16-byte loads and stores of the
// iterated steps 07 and 08 (a plane's stride is a whole number of rows).
inline bool rows_aligned16(const frame& f, const void* source, const void* target, std::size_t element_bytes) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return f.sy * static_cast<std::int64_t>(element_bytes) % 16 == 0 && aligned(source) && aligned(target);
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

// Runs f.template operator()<T>() with T the problem's element type.
template <class F>
void for_element_type(const problem& p, F&& f) {
  if (p.type == element_type::f32) {
    f.template operator()<float>();
  } else {
    f.template operator()<double>();
  }
}

// The generic steps (05, 06) are compiled for every element type, radius, shape and dimension:
// runs f.template operator()<T, R, S, Dims>() with the problem's.
template <class F>
void for_generic_instance(const problem& p, F&& f) {
  for_element_type(p, [&]<class T>() {
    const auto with_radius = [&]<int R>() {
      if (p.dims == 3) {
        p.form == shape::star ? f.template operator()<T, R, shape::star, 3>() : f.template operator()<T, R, shape::box, 3>();
      } else {
        p.form == shape::star ? f.template operator()<T, R, shape::star, 2>() : f.template operator()<T, R, shape::box, 2>();
      }
    };
    switch (p.radius) {
      case 1: return with_radius.template operator()<1>();
      case 2: return with_radius.template operator()<2>();
      case 3: return with_radius.template operator()<3>();
      case 4: return with_radius.template operator()<4>();
      default: SWATH_EXPECTS(false, "generic stencil steps: radius must be 1 to 4");
    }
  });
}

// The generic steps' weights, in their loops' tap order: z, then y (within ±ry), then x, each from
// -r; a star skips the off-axis offsets.
template <class T, int N>
struct weights {
  T w[N];
};

template <class T, int N>
weights<T, N> pack_weights(const problem& p, int r, int ry, shape form) {
  weights<T, N> packed{};
  int k = 0;
  for (int dz = -r; dz <= r; ++dz) {
    for (int dy = -ry; dy <= ry; ++dy) {
      for (int dx = -r; dx <= r; ++dx) {
        if (form == shape::star && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
        SWATH_EXPECTS(k < N, "pack_weights: more taps than the kernel has");
        packed.w[k++] = static_cast<T>(weight_at(p, dx, dy, dz));
      }
    }
  }
  SWATH_EXPECTS(k == N, "pack_weights: fewer taps than the kernel has");
  return packed;
}

// How many z-chunks the generic steps cut each column of blocks into: enough blocks to fill the
// last wave well (`resident` blocks fit the GPU at once), few enough that the 2r planes each chunk
// re-reads stay a small part of the traffic (reads are half of the bytes).
inline int choose_chunks(std::int64_t xy_blocks, std::int64_t resident, int nz, int r) {
  int best = 1;
  double best_score = 0;
  const int most = std::max(1, std::min(nz / std::max(4 * r, 8), 256));
  for (int chunks = 1; chunks <= most; ++chunks) {
    const std::int64_t blocks = xy_blocks * chunks;
    const std::int64_t waves = (blocks + resident - 1) / resident;
    const double fill = static_cast<double>(blocks) / static_cast<double>(waves * resident);
    const double length = std::ceil(static_cast<double>(nz) / chunks);
    const double traffic = 1.0 + 0.5 * (2.0 * r) / length;
    const double score = fill / traffic;
    if (score > best_score * 1.001) {
      best = chunks;
      best_score = score;
    }
  }
  return best;
}

// The launch shape of a generic step: blocks of `block` threads covering block_width × block_height
// points of each plane, and z cut into chunks of z_chunk planes.
struct marching_launch {
  dim3 grid;
  int z_chunk;
};

// planes_per_chunk > 0 asks for chunks of that many planes instead of the fewest that fill a wave
// (more where CUDA's 65535 blocks in z demand it).
inline marching_launch plan_marching(const frame& f, int block_width, int block_height, int blocks_per_sm,
                                     const launch_context& launch, int planes_per_chunk = 0) {
  const unsigned gx = blocks_for(f.nx, block_width);
  const unsigned gy = blocks_for(f.ny, block_height);
  SWATH_EXPECTS(gy <= 65535, "generic stencil steps: height / block height exceeds CUDA's 65535 blocks in y");
  const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
  const int chunks = choose_chunks(static_cast<std::int64_t>(gx) * gy, static_cast<std::int64_t>(sms) * blocks_per_sm,
                                   f.nz, f.r);
  const int z_chunk = planes_per_chunk > 0 ? std::max(planes_per_chunk, (f.nz + 65534) / 65535)
                                           : (f.nz + chunks - 1) / chunks;
  return {dim3(gx, gy, static_cast<unsigned>((f.nz + z_chunk - 1) / z_chunk)), z_chunk};
}

}  // namespace swath::stencil::cuda
