#pragma once
// Step 04's march (docs in 04_unrolled_march.cu), for any layout: step 06 runs it with four rows a
// thread. Step s loads the input's plane s; sweep τ computes plane s - τ r from sweep τ - 1's queues
// and its plane in shared memory; the last sweep stores.
#include "march.cuh"

namespace swath::stencil::cuda::march {

template <class C, int L, bool Edge, class T = typename C::value, int R = C::radius>
__device__ __forceinline__ void unrolled_march(const T* __restrict__ in, T* __restrict__ out, const frame& f, T edge_value,
                                               const rows<C, L, Edge>& at, T* shared, const weights<T, 6 * R + 1>& c) {
  constexpr int Q = 2 * R + 1, halo = L * R, n = C::rows;

  // q[s][j][slot]: sweep s's planes of row j (s = 0 the input), L of them: the last sweep is stored.
  T q[L][n][Q];
#pragma unroll
  for (int s = 0; s < L; ++s)
#pragma unroll
    for (int j = 0; j < n; ++j)
#pragma unroll
      for (int k = 0; k < Q; ++k) q[s][j][k] = T(0);

  // The march: step s loads plane s and sweep τ computes plane s - τ r. Planes z0 - L r .. z1 - 1 + L r
  // of the input feed planes z0 .. z1 - 1 of the last sweep (clipped to the grid at the faces).
  const int first = max(0, at.z0 - halo), last = at.z1 - 1 + halo;
  T next[n];
#pragma unroll
  for (int j = 0; j < n; ++j) next[j] = at.inside[j] ? in[static_cast<std::int64_t>(first) * f.sz + at.offset[j]] : edge_value;
  std::int64_t load_plane = static_cast<std::int64_t>(first + 1) * f.sz;   // the plane the next load reads
  std::int64_t store_plane = static_cast<std::int64_t>(first - halo) * f.sz;  // the plane the last sweep writes

  // Step s at unrolled phase P (plane z of a sweep in slot (z - first) mod Q); Face: the z boundary's tests.
  const auto step = [&]<int P, bool Face>(int s) {
    take_input<Face>(at, q[0], next, P, s, in, load_plane, f, edge_value);
    load_plane += f.sz;
#pragma unroll
    for (int sweep = 1; sweep <= L; ++sweep) {
      T* plane = shared + (sweep - 1) * C::plane_size;
      const int centre_at = -sweep * R;  // the plane this sweep computes, from s
      // Sweep - 1's plane z in shared memory for this sweep's in-plane taps (its reader waits below).
      if (sweep - 1 <= at.reach) {
#pragma unroll
        for (int j = 0; j < n; ++j) plane[at.own[j]] = q[sweep - 1][j][slot_of<Q>(P, centre_at)];
      }
      __syncthreads();
      if (sweep > at.reach) continue;
      const int z = s - sweep * R;
#pragma unroll
      for (int j = 0; j < n; ++j) {
        const T result = sweep_point<Face>(at, j, q[sweep - 1], P, centre_at, plane, z, f, edge_value, c);
        if (sweep == L) {
          if (at.stores[j] && z >= at.z0 && z < at.z1) out[store_plane + at.offset[j]] = result;
        } else {
          push<Face>(q[sweep < L ? sweep : 0][j], P, centre_at, z, result, f, edge_value);
        }
      }
    }
    store_plane += f.sz;
    if constexpr (L == 1) __syncthreads();  // the one sweep's plane is rewritten next step: wait for its readers
  };
  // A few steps past `last` compute planes that are neither stored nor read.
  climb<Q, L>(first, last, f.nz, R, R, step);
}

template <class C, int L, class T = typename C::value, int R = C::radius>
__global__ void __launch_bounds__(C::bx* C::by, C::min_blocks)
    unrolled_march_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk,
                          const __grid_constant__ weights<T, 6 * R + 1> c) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);  // [sweep 0 .. L - 1][width_y][width_x]
  run_block<C, L>(f, z_chunk, shared, L, [&]<bool Edge>(const rows<C, L, Edge>& at) {
    unrolled_march<C, L, Edge>(in, out, f, edge_value, at, shared, c);
  });
}

// The step's kernel for a layout: `planes(L)` = L shared planes (one a sweep but the last, and the input's).
template <march_layout (*Layout)(int)>
struct unrolled_kernels {
  template <class T>
  static constexpr march_layout layout() { return Layout(static_cast<int>(sizeof(T))); }
  static constexpr int planes(int depth) { return depth; }
  template <class T, int R, int L>
  static auto kernel() { return unrolled_march_kernel<config<T, R, layout<T>()>, L>; }
};

}  // namespace swath::stencil::cuda::march
