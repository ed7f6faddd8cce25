// Step 05 (GPU iterated stencil): step 04 with one barrier a step where it had one a sweep a step.
//
// In step 04, sweep τ computes plane s - τ r at step s from sweep τ - 1's plane computed in the same
// step: each sweep waits at a barrier for the one before, L barriers a step, and the sweeps of a step
// form one chain of dependent work (a plane's shared store, the barrier, its loads, its FMAs).
//
// Here each sweep trails the one before by r + 1 planes instead of r: sweep τ computes plane s - τ(r + 1)
// and needs sweep τ - 1 only up to plane s - τ(r + 1) + r, which that sweep computed a step ago. So a
// step reads only what the step before wrote: the sweeps run last to first (each reads its
// predecessor's queue before the predecessor moves it on), each writes the plane its successor needs
// next step into the other of two shared-memory buffers, and one barrier ends the step. The L sweeps of
// a step are independent of one another: their loads and FMA chains can interleave.
//
// The cost: the pass's planes in z run L more steps (the trailing sweeps' lag), 2% of a 128-plane chunk at
// L = 3, and twice the shared memory (2 L planes of 34 x 34).
//
// Prediction (H200, 512^3 float, 7-point, T = 64): step 04 measured 487 G point-sweeps/s at L = 3 (0.92x
// the single-sweep roofline of 532 G/s), with 3 barriers a step and each sweep's chain exposed. With
// one barrier and three independent chains, expect issue to rise from the chains' latency towards the
// instruction count: 1.4-1.8x step 04, 1.3-1.6x the roofline at L = 3-4 on an H200 (1.8-2.2x on an
// H100's lower roofline).
// Outcome (H200): slower than step 04 in float, 507 against 564 G/s at L = 3 (526 against 583 at L = 4),
// within 2% in double. ncu on the first versions: issue rose (2.98 a clock against 2.79) but the
// instructions rose more (the lagged sweeps' extra steps, the buffers' addresses, the stores inside
// each sweep): the barriers were not what bounded step 04. Registered as measured; the library does not
// take it. docs/journal/stencil.md, "Iterated sweeps on the GPU: steps 04 and 05".
#include "march.cuh"

namespace swath::stencil::cuda {
namespace {

template <class C, int L, bool Edge, class T = typename C::value, int R = C::radius>
__device__ __forceinline__ void one_barrier_march(const T* __restrict__ in, T* __restrict__ out, const frame& f, T edge_value,
                                                  const march::rows<C, L, Edge>& at, T* shared,
                                                  const weights<T, 6 * R + 1>& c) {
  constexpr int Q = 2 * R + 1, halo = L * R;
  constexpr int lag = R + 1;  // each sweep's distance behind the one before
  using march::slot_of;

  // q[s][j][slot]: sweep s's planes of row j (s = 0 the input), L of them: the last sweep is stored.
  T q[L][C::rows][Q];
#pragma unroll
  for (int s = 0; s < L; ++s)
#pragma unroll
    for (int j = 0; j < C::rows; ++j)
#pragma unroll
      for (int k = 0; k < Q; ++k) q[s][j][k] = T(0);

  // The march: step s loads plane s and sweep τ computes plane s - τ (r + 1). Planes z0 - L r ..
  // z1 + L r - 1 of the input feed planes z0 .. z1 - 1 of the last sweep (clipped to the grid).
  const int first = max(0, at.z0 - halo), last = at.z1 - 1 + L * lag;
  T next[C::rows];
#pragma unroll
  for (int j = 0; j < C::rows; ++j) next[j] = at.inside[j] ? in[static_cast<std::int64_t>(first) * f.sz + at.offset[j]] : edge_value;
  std::int64_t load_plane = static_cast<std::int64_t>(first + 1) * f.sz;      // the plane the next load reads
  std::int64_t store_plane = static_cast<std::int64_t>(first - L * lag) * f.sz;  // the plane the last sweep writes

  // Step s at unrolled phase P (plane z of a sweep in slot (z - first) mod Q); Face: the z boundary's tests.
  const auto step = [&]<int P, bool Face>(int s) {
    // This step reads the planes the step before wrote and writes the other buffer.
    const bool odd = ((s - first) & 1) != 0;
    const T* written = shared + (odd ? 0 : L * C::plane_size);
    T* writing = shared + (odd ? L * C::plane_size : 0);
#pragma unroll
    for (int sweep = L; sweep >= 1; --sweep) {
      if (sweep > at.reach) continue;
      const T* plane = written + (sweep - 1) * C::plane_size;
      const int centre_at = -sweep * lag;  // the plane this sweep computes, from s
      const int z = s - sweep * lag;       // sweep - 1 holds planes z - r .. z + r, the newest a step old
#pragma unroll
      for (int j = 0; j < C::rows; ++j) {
        const T result = march::sweep_point<Face>(at, j, q[sweep - 1], P, centre_at, plane, z, f, edge_value, c);
        if (sweep == L) {
          if (at.stores[j] && z >= at.z0 && z < at.z1) out[store_plane + at.offset[j]] = result;
        } else {
          T(&to)[Q] = q[sweep < L ? sweep : 0][j];
          march::push<Face>(to, P, centre_at, z, result, f, edge_value);
          // The plane the next sweep computes next step: r behind this one.
          writing[sweep * C::plane_size + at.own[j]] = to[slot_of<Q>(P, centre_at - R)];
        }
      }
    }
    // Sweep 0 (the input), and its plane s - r for sweep 1's next step.
    march::take_input<Face>(at, q[0], next, P, s, in, load_plane, f, edge_value);
#pragma unroll
    for (int j = 0; j < C::rows; ++j) writing[at.own[j]] = q[0][j][slot_of<Q>(P, -R)];
    load_plane += f.sz;
    store_plane += f.sz;
    __syncthreads();
  };
  // A few steps past `last` compute planes that are neither stored nor read.
  march::climb<Q, L>(first, last, f.nz, R, lag, step);
}

template <class C, int L, class T = typename C::value, int R = C::radius>
__global__ void __launch_bounds__(C::bx* C::by, C::min_blocks)
    one_barrier_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk,
                       const __grid_constant__ weights<T, 6 * R + 1> c) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);  // [step parity][sweep 0 .. L - 1][width_y][width_x]
  march::run_block<C, L>(f, z_chunk, shared, 2 * L, [&]<bool Edge>(const march::rows<C, L, Edge>& at) {
    one_barrier_march<C, L, Edge>(in, out, f, edge_value, at, shared, c);
  });
}

struct one_barrier_step {
  static constexpr const char* name = "iterate step 05";
  template <class T>
  static constexpr march_layout layout() { return two_row_layout(static_cast<int>(sizeof(T))); }
  static constexpr int planes(int depth) { return 2 * depth; }  // two buffers of step 04's planes
  template <class T, int R, int L>
  static auto kernel() { return one_barrier_kernel<march::config<T, R, layout<T>()>, L>; }
};

}  // namespace

void one_barrier_a_step(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  march::run<one_barrier_step>(ip, x, launch);
}

}  // namespace swath::stencil::cuda
