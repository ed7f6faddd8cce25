// Step 04 (GPU iterated stencil): step 02's temporal blocking for 3D stars, with the march's bookkeeping
// taken out of the loop. ncu put step 02 at about 64 instructions a column-sweep where a 7-point star's
// taps need 11 (4 shared loads, 7 FMAs): each sweep's plane range, the queue shifts, the boundary's tests
// and the store's conditions ran at every step of every sweep, for a depth known only at run time.
//
// Here everything the march decides once is decided once:
// - the pass depth L is a template parameter: every sweep's loop is unrolled, its ranges constants;
// - the z queues rotate by renaming: the march is unrolled by the queue's length 2r + 1, so each plane
//   stays in its register and the slot of "sweep s's plane z" is a constant of the unrolled step;
// - a block takes one of two paths, chosen once: whether its tile crosses an x-y face (the boundary's
//   neighbours, precomputed per thread, and the columns outside the grid); and each group of steps
//   one of two, whether a sweep in it may meet a z face (the planes below 0 and past the top). Most
//   steps of most blocks test nothing but the store's plane;
// - the loads and stores advance 64-bit plane offsets instead of multiplying z by the plane's stride;
// - a sweep's range needs no test in the middle: a sweep computed below or above its valid planes only
//   feeds planes of later sweeps that are themselves invalid and never stored;
// - warps whose rows the sweep does not need skip it: sweep τ is right only τ r rows in from the tile's
//   edge, so its warps outside those rows idle through it (at L = 4, r = 1, 108 of 128 row-sweeps run);
// - each thread owns two rows of its column (32 x 16 threads over the 32 x 32 tile), so the barrier,
//   the loads' addresses and the plane's bookkeeping are shared by two points, and each row's y tap
//   towards the other comes from a register.
//
// Prediction (H100, 512^3 float, 7-point, T = 64, L = 4): a column-sweep costs about 2 shared stores
// and 6 loads and 14 FMAs for two points, plus the barrier and a dozen instructions of bookkeeping:
// about 18 instructions a point where step 02 spent 64. The tile keeps 24^2 of 32^2 columns and its
// warps compute 27 of 32 rows on average: 1.5 point-sweeps computed per point-sweep kept, and 6% more
// for the chunks' overlapping z ranges. At 0.8 warp-instructions a scheduler a clock (two 512-thread
// blocks an SM), 1.75 GHz: 132 x 4 x 0.8 x 1.75e9 x 32 / (18 x 1.5 x 1.06) = 0.83 T point-sweeps/s, 2.2x
// the single-sweep roofline of 377 G/s (DRAM allows 4x at L = 4), about 1.6x the H200's 529 G/s.
// Double: half the FMA rate and twice the shared bytes, about 1.8x of its own roofline (188 G/s on an
// H100). Radius 2 in float at L = 3: 1.5x.
// Outcome (H200, copy 4234 GB/s: a roofline of 529 G/s): first 487 G/s at L = 3 (0.92x, T sweeps
// 0.93x), ncu 42.6 instructions a kept point-sweep, a third of them 64-bit address arithmetic; with the
// plane offsets and the face tests confined to the steps near a face, 564 G/s at L = 3 and 583 at L = 4:
// 1.10x the roofline, 1.19x T sweeps (double 1.13x, 1.20x). The library takes it for 3D 7-point stars.
// docs/journal/stencil.md, "Iterated sweeps on the GPU: steps 04 and 05".
#include "march.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R, int L, bool Edge>
__device__ __forceinline__ void unrolled_march(const T* __restrict__ in, T* __restrict__ out, const frame& f, T edge_value,
                                               const march::rows<T, R, L, Edge>& at, T* shared,
                                               const weights<T, 6 * R + 1>& c) {
  using C = march::config<T, R>;
  constexpr int Q = 2 * R + 1, halo = L * R;
  using march::slot_of;

  // q[s][j][slot]: sweep s's planes of row j (s = 0 the input), L of them: the last sweep is stored.
  T q[L][2][Q];
#pragma unroll
  for (int s = 0; s < L; ++s)
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int k = 0; k < Q; ++k) q[s][j][k] = T(0);

  // The march: step s loads plane s and sweep τ computes plane s - τ r. Planes z0 - L r .. z1 - 1 + L r
  // of the input feed planes z0 .. z1 - 1 of the last sweep (clipped to the grid at the faces).
  const int first = max(0, at.z0 - halo), last = at.z1 - 1 + halo;
  T next[2];
#pragma unroll
  for (int j = 0; j < 2; ++j) next[j] = at.inside[j] ? in[static_cast<std::int64_t>(first) * f.sz + at.offset[j]] : edge_value;
  std::int64_t load_plane = static_cast<std::int64_t>(first + 1) * f.sz;   // the plane the next load reads
  std::int64_t store_plane = static_cast<std::int64_t>(first - halo) * f.sz;  // the plane the last sweep writes

  // Step s at unrolled phase P (plane z of a sweep in slot (z - first) mod Q); Face: the z boundary's tests.
  const auto step = [&]<int P, bool Face>(int s) {
    march::take_input<Face>(at, q[0], next, P, s, in, load_plane, f, edge_value);
    load_plane += f.sz;
#pragma unroll
    for (int sweep = 1; sweep <= L; ++sweep) {
      T* plane = shared + (sweep - 1) * C::plane_size;
      const int centre_at = -sweep * R;  // the plane this sweep computes, from s
      // Sweep - 1's plane z in shared memory for this sweep's in-plane taps (its reader waits below).
      if (sweep - 1 <= at.reach) {
#pragma unroll
        for (int j = 0; j < 2; ++j) plane[at.own[j]] = q[sweep - 1][j][slot_of<Q>(P, centre_at)];
      }
      __syncthreads();
      if (sweep > at.reach) continue;
      const int z = s - sweep * R;
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const T result = march::sweep_point<Face>(at, j, q[sweep - 1], P, centre_at, plane, z, f, edge_value, c);
        if (sweep == L) {
          if (at.stores[j] && z >= at.z0 && z < at.z1) out[store_plane + at.offset[j]] = result;
        } else {
          march::push<Face>(q[sweep < L ? sweep : 0][j], P, centre_at, z, result, f, edge_value);
        }
      }
    }
    store_plane += f.sz;
    if constexpr (L == 1) __syncthreads();  // the one sweep's plane is rewritten next step: wait for its readers
  };
  // A few steps past `last` compute planes that are neither stored nor read.
  march::climb<Q, L>(first, last, f.nz, R, R, step);
}

template <class T, int R, int L>
__global__ void __launch_bounds__(march::config<T, R>::bx* march::config<T, R>::by, march::config<T, R>::min_blocks)
    unrolled_march_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk,
                          const __grid_constant__ weights<T, 6 * R + 1> c) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);  // [sweep 0 .. L - 1][width][width]
  march::run_block<T, R, L>(f, z_chunk, shared, L, [&]<bool Edge>(const march::rows<T, R, L, Edge>& at) {
    unrolled_march<T, R, L, Edge>(in, out, f, edge_value, at, shared, c);
  });
}

struct unrolled_step {
  static constexpr const char* name = "iterate step 04";
  static constexpr int planes(int depth) { return depth; }  // one a sweep but the last, and the input's
  template <class T, int R, int L>
  static auto kernel() { return unrolled_march_kernel<T, R, L>; }
};

}  // namespace

void unrolled_march(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  march::run<unrolled_step>(ip, x, launch);
}

}  // namespace swath::stencil::cuda
