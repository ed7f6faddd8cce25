// Step 08: step 07's tile, each plane brought into shared memory by the copy engine (TMA), one warp
// feeding eight that compute, with no block barrier. 3D star stencils, radius 1-4, float or double,
// boundaries clamp, copy and constant; rows a whole number of 16-byte vectors (the copy engine's
// row pitch must be a multiple of 16 bytes: width a multiple of 4 floats or 2 doubles).
//
// Step 07 left per-plane fixed costs as the limit (docs/stencil.md): each thread issued its own
// 16-byte cp.async per tile row piece (4 issue slots each: the compiler pads every LDGSTS with three
// predicated-off shared loads), and every plane every warp met at cp.async.wait_group and a block
// barrier (24% and 19% of the stalls). Here:
//  - one thread of a ninth warp (the producer) asks the copy engine for the whole tile of a plane,
//    (128 + 2·pad) × (8·rows + 2r) elements, as one box of a 3D tensor map; it lands in a ring slot
//    and completes that slot's "full" mbarrier with its byte count;
//  - each of the eight compute warps waits only on the full barrier of the newest plane it reads,
//    and when done with the oldest plane arrives on that slot's "empty" barrier; the producer
//    refills a slot when all eight have arrived. Warps drift apart by up to the ring's depth
//    instead of meeting every plane.
//  - up to radius 2 each compute warp computes two tile rows (16-row tiles): the rows share their
//    y taps (a row's neighbour is the other's centre) and the per-plane wait and arrive, and the
//    y halo is 2r rows per 16 instead of per 8. Radius 3 and 4 keep one row (registers).
// Expected at radius 1 in float, one row per warp: ~7 shared loads, 28 FMAs, one 16-byte store, a
// barrier test and an arrive, ~60 warp instructions per 128 points against the ~250 that 4 issue
// slots per SM-clock allow at 0.95x the copy bandwidth, so DRAM should limit. Measured on an H200:
// 0.74x of the copy bandwidth (07: 0.63x), ncu: 137 warp instructions per 128 points, 59% issue
// active, 46% of stalls long scoreboard (here: the mbarrier wait), DRAM reads 1.45x the input (no
// L2 promotion: 1.26x, the same time). Two rows per warp: 0.76x float, 0.80x double; short
// z-chunks (run_instance): 0.80x and 0.81x; halo columns of a whole 128-byte line, so that the box's
// rows start on a line (tma_config::pad), and 6-plane chunks: 0.93x and 0.94x.
//
// Boundaries. The copy engine fills box elements outside the grid with zeros. `clamp`: the producer
// asks for the clamped plane in z, rows outside in y are read from the clamped tile row, and
// a thread whose x window passes a face replaces those elements with the edge value. `constant`:
// the zeros stay, and the weights of the taps outside the grid times the constant are added (a
// per-thread sum in y, a per-plane one in z; the x window is filled with the constant). `copy`:
// the points within r of a face take their input value. `periodic` would need the wrapped rows and
// columns, which are not in the box: step 07 runs it.

#include "../core/bulk_copy.cuh"
#include "stencil_cuda.cuh"

#include <cudaTypedefs.h>

#include <algorithm>
#include <string>

namespace swath::stencil::cuda {
namespace {

using swath::cuda::arrive;
using swath::cuda::arrive_expecting;
using swath::cuda::shared_address;
using swath::cuda::wait_phase;

template <class T, int R, int Rows>
struct tma_config {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));  // points per thread along x
  static constexpr int consumers = 8;                               // compute warps
  static constexpr int threads = 32 * (consumers + 1);              // and the producer warp
  static constexpr int width = 32 * vector;                         // points per tile row: 128 floats
  static constexpr int by = consumers * Rows;                        // tile rows: Rows per compute warp
  // Blocks per SM (the register allocator is held to it), and as many ring slots as the shared
  // memory then allows (228 KiB per SM, 1 KiB reserved per block), up to 8 planes beyond the 2r + 1
  // read at a time.
  static constexpr int min_blocks = Rows == 2 ? (R == 1 ? 3 : 2) : R == 1 ? 4 : R == 2 ? 3 : 2;
  static constexpr int rows = by + 2 * R;
  // One plane's box with pad_elements halo columns each side, rounded to the 128 bytes the copy
  // engine aligns each slot to, and how many of those slots fit one block's shared memory.
  static constexpr unsigned slot_size(int pad_elements) {
    return ((width + 2 * pad_elements) * rows * static_cast<unsigned>(sizeof(T)) + 127) / 128 * 128;
  }
  static constexpr int slots_that_fit(int pad_elements) {
    return static_cast<int>((228 * 1024 / min_blocks - 1024 - 512) / slot_size(pad_elements));
  }
  // Halo columns each side of the tile. The copy engine reads a box whose rows start 16 bytes before
  // a 128-byte line (the r <= 4 columns rounded to a vector) 8 points slower than one whose rows start
  // on a line, even when the aligned box is 1.5x wider (H200, ring and stores alone at 512^3:
  // 128 + 2·4 floats 84.2% of the copy bandwidth, 128 + 2·32 floats 90.5%, no halo 92.3%). So the pad
  // is a whole line (32 floats, 16 doubles) wherever the ring still has two planes in flight; at
  // radius 4 it does not, and half a line (which fits) measured no better there (docs/stencil.md).
  static constexpr int line_pad = 128 / static_cast<int>(sizeof(T));
  static constexpr int vector_pad = (R + vector - 1) / vector * vector;
  static constexpr int pad = slots_that_fit(line_pad) >= 2 * R + 3 ? line_pad : vector_pad;
  static constexpr int row = width + 2 * pad;  // 192 floats (768 bytes) up to radius 3, 136 at radius 4
  static constexpr unsigned box_bytes = rows * row * sizeof(T);
  static constexpr unsigned slot_bytes = slot_size(pad);
  static constexpr int fit = slots_that_fit(pad);
  static constexpr int slots = fit < 2 * R + 1 + 8 ? fit : 2 * R + 1 + 8;
  static_assert(slots >= 2 * R + 3, "at least two planes in flight beyond those read");
  static constexpr std::size_t shared_bytes = slots * slot_bytes + 2 * 8 * slots;  // ring, full and empty barriers
  static constexpr int taps = 6 * R + 1;
};

template <class T, int R, int Rows>
__global__ void __launch_bounds__(tma_config<T, R, Rows>::threads, tma_config<T, R, Rows>::min_blocks)
    tma_planes_kernel(const __grid_constant__ CUtensorMap map, T* __restrict__ out, frame f, T edge_value, int z_chunk,
                      const weights<T, tma_config<T, R, Rows>::taps> c) {
  using C = tma_config<T, R, Rows>;
  constexpr int V = C::vector;
  constexpr int S = C::slots;
  extern __shared__ __align__(1024) unsigned char shared_raw[];
  const unsigned ring_address = shared_address(shared_raw);
  const unsigned full = ring_address + S * C::slot_bytes;  // full[s] at full + 8 s
  const unsigned empty = full + 8 * S;

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int x0 = static_cast<int>(blockIdx.x) * C::width, y0 = static_cast<int>(blockIdx.y) * C::by;
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  const int planes = z_end - z_begin + 2 * R;  // plane i is z_begin - R + i

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      swath::cuda::init_barrier(full + 8 * s, 1);
      swath::cuda::init_barrier(empty + 8 * s, C::consumers);
    }
    swath::cuda::fence_barrier_init();
  }
  __syncthreads();

  if (warp == C::consumers) {  // the producer: plane i into slot i mod S, once slot's last reader is done
    if (lane == 0) {
      int s = 0;
      unsigned round = 0;
      for (int i = 0; i < planes; ++i) {
        if (round > 0) wait_phase(empty + 8 * s, (round - 1) & 1);
        int zz = z_begin - R + i;
        if (f.edge == boundary::clamp) zz = min(max(zz, 0), f.nz - 1);
        arrive_expecting(full + 8 * s, C::box_bytes);
        swath::cuda::tensor_load_3d(ring_address + s * C::slot_bytes, &map, x0 - C::pad, y0 - R, zz, full + 8 * s);
        if (++s == S) s = 0, ++round;
      }
    }
    return;
  }

  // A compute warp: tile rows warp·Rows ... warp·Rows + Rows - 1, 32 vectors of V points each.
  const T* ring = reinterpret_cast<const T*>(shared_raw);
  constexpr int slot_elements = C::slot_bytes / sizeof(T);
  const int x = x0 + lane * V, y = y0 + warp * Rows;  // the first row's first point
  const int own = (warp * Rows + R) * C::row + C::pad + lane * V;  // this thread's vector of the first row in a slot
  constexpr int LW = window_side<T, R>();

  // Rows of the y taps as element offsets from the row's own, for warps at a y face. Under clamp a
  // row outside the grid is read from the nearest one inside (still in the tile); otherwise from the
  // zero-filled row, and under constant the weights of those taps times the constant are added.
  int y_shift[Rows][2 * R];
  T y_outside[Rows];
#pragma unroll
  for (int j = 0; j < Rows; ++j) {
    y_outside[j] = 0;
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) {
      const int dy = k < R ? k - R : k - R + 1;
      const int self = warp * Rows + j + R;  // the row's tile row
      int t = self + dy;
      if (f.edge == boundary::clamp) t = min(max(t, R - y0), R - y0 + f.ny - 1);
      y_shift[j][k] = (t - self) * C::row;
      if (f.edge == boundary::constant && static_cast<unsigned>(y + j + dy) >= static_cast<unsigned>(f.ny)) {
        y_outside[j] += edge_value * c.w[star_index<R, R>(0, dy, 0)];
      }
    }
  }
  const bool x_face = x < LW || x + V + LW > f.nx;  // the x window passes a face (or the lane is past the grid)
  const bool warp_at_y_face = y < R || y + Rows - 1 + R >= f.ny;
  const bool thread_copies = f.edge == boundary::copy && (x < R || x + V > f.nx - R || y < R || y + Rows - 1 >= f.ny - R);
  const bool x_inside = x < f.nx;

  // Planes 0 ... 2R - 1 before the first step; then each step waits for its newest plane.
  for (int i = 0; i < 2 * R; ++i) wait_phase(full + 8 * i, 0);
  int low = 0;  // the slot of plane z - R
  int newest = 2 * R;
  unsigned newest_parity = 0;
  const auto slot = [&](int d) {  // the slot of plane z + d
    const int index = low + R + d;
    return ring + (index >= S ? index - S : index) * slot_elements;
  };

  T* target = out + (static_cast<std::int64_t>(z_begin) * f.sz + static_cast<std::int64_t>(y) * f.sy + x);
  for (int z = z_begin; z < z_end; ++z, target += f.sz) {
    wait_phase(full + 8 * newest, newest_parity);
    T sum[Rows][V];
    // Edge: the y and z boundary rules (a warp at a y face, or a plane within r of a z face). The x
    // rules are one lane's window, fixed on either path.
    const auto step = [&]<bool Edge>() {
      const T* centre = slot(0) + own;
      T window[Rows][LW + V + LW];  // window[j][LW + i] = row j of the centre plane at x + i
#pragma unroll
      for (int j = 0; j < Rows; ++j) {
        load_run<T, LW>(centre + j * C::row - LW, window[j]);
        load_run<T, V>(centre + j * C::row, window[j] + LW);
        load_run<T, LW>(centre + j * C::row + V, window[j] + LW + V);
      }
      if (x_face && f.edge != boundary::copy) {  // one lane in a block at an x face
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
          T left = window[j][LW], right = window[j][LW + V - 1];  // in(0) and in(nx - 1) where the window has them
#pragma unroll
          for (int k = 0; k < LW + V + LW; ++k) {
            if (x - LW + k == 0) left = window[j][k];
            if (x - LW + k == f.nx - 1) right = window[j][k];
          }
          const bool clamp = f.edge == boundary::clamp;
#pragma unroll
          for (int k = 0; k < LW + V + LW; ++k) {
            const int xx = x - LW + k;
            if (xx < 0) window[j][k] = clamp ? left : edge_value;
            if (xx >= f.nx) window[j][k] = clamp ? right : edge_value;
          }
        }
      }
      T start[Rows];
#pragma unroll
      for (int j = 0; j < Rows; ++j) start[j] = 0;
      if constexpr (Edge) {
        if (f.edge == boundary::constant) {
          T z_outside = 0;
#pragma unroll
          for (int dz = -R; dz <= R; ++dz) {
            if (static_cast<unsigned>(z + dz) >= static_cast<unsigned>(f.nz)) z_outside += edge_value * c.w[star_index<R, R>(0, 0, dz)];
          }
#pragma unroll
          for (int j = 0; j < Rows; ++j) start[j] = y_outside[j] + z_outside;
        }
      }
#pragma unroll
      for (int j = 0; j < Rows; ++j) {
#pragma unroll
        for (int i = 0; i < V; ++i) sum[j][i] = start[j];
      }
      const auto add = [&](int j, T weight, const T* values) {
#pragma unroll
        for (int i = 0; i < V; ++i) sum[j][i] += weight * values[i];
      };
#pragma unroll
      for (int dz = -R; dz <= R; ++dz) {
        if (dz == 0) continue;
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
          T values[V];
          load_run<T, V>(slot(dz) + own + j * C::row, values);
          add(j, c.w[star_index<R, R>(0, 0, dz)], values);
        }
      }
      // y taps: a row the warp owns comes from its window (not at a y face), the others from shared memory.
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) {
        const int dy = k < R ? k - R : k - R + 1;
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
          const T weight = c.w[star_index<R, R>(0, dy, 0)];
          if (!Edge && j + dy >= 0 && j + dy < Rows) {
            add(j, weight, window[j + dy] + LW);
          } else {
            T values[V];
            load_run<T, V>(centre + j * C::row + (Edge ? y_shift[j][k] : dy * C::row), values);
            add(j, weight, values);
          }
        }
      }
#pragma unroll
      for (int j = 0; j < Rows; ++j) {
#pragma unroll
        for (int dx = -R; dx <= R; ++dx) add(j, c.w[star_index<R, R>(dx, 0, 0)], window[j] + LW + dx);
      }
      if (thread_copies || (f.edge == boundary::copy && (z < R || z >= f.nz - R))) {
#pragma unroll
        for (int j = 0; j < Rows; ++j) {
#pragma unroll
          for (int i = 0; i < V; ++i) {
            if (copies_itself(f, x + i, y + j, z)) sum[j][i] = window[j][LW + i];
          }
        }
      }
    };
    if (warp_at_y_face || (f.edge != boundary::clamp && (z < R || z >= f.nz - R))) {
      step.template operator()<true>();
    } else {
      step.template operator()<false>();
    }
    if (x_inside) {
#pragma unroll
      for (int j = 0; j < Rows; ++j) {
        if (y + j < f.ny) *reinterpret_cast<typename vector16<T>::type*>(target + j * f.sy) = vector16<T>::pack(sum[j]);
      }
    }
    // Plane z - R is read by no later step of this warp.
    __syncwarp();
    if (lane == 0) arrive(empty + 8 * low);
    low = low + 1 == S ? 0 : low + 1;
    if (++newest == S) newest = 0, newest_parity ^= 1;
  }
}

using encode_tiled = PFN_cuTensorMapEncodeTiled_v12000;

// The driver's tensor-map encoder, found once through the runtime (no link against libcuda).
encode_tiled tensor_map_encoder() {
  static const encode_tiled encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    SWATH_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    SWATH_EXPECTS(found == cudaDriverEntryPointSuccess && function != nullptr,
                  "tma_planes: the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer is needed)");
    return reinterpret_cast<encode_tiled>(function);
  }();
  return encode;
}

// The input as a 3D tensor (x, y, z) whose box is one plane of a block's tile with its halo.
template <class T, int R, int Rows>
CUtensorMap plane_tiles(const T* in, const frame& f) {
  using C = tma_config<T, R, Rows>;
  CUtensorMap map{};
  const cuuint64_t extents[3] = {static_cast<cuuint64_t>(f.nx), static_cast<cuuint64_t>(f.ny), static_cast<cuuint64_t>(f.nz)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(f.sy) * sizeof(T), static_cast<cuuint64_t>(f.sz) * sizeof(T)};
  const cuuint32_t box[3] = {C::row, C::rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = tensor_map_encoder()(
      &map, sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 3, const_cast<T*>(in),
      extents, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  SWATH_EXPECTS(result == CUDA_SUCCESS, "tma_planes: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(result));
  return map;
}

template <class T, int R, int Rows>
void run_instance(const problem& p, const operands& x, const launch_context& launch) {
  using C = tma_config<T, R, Rows>;
  const auto kernel = tma_planes_kernel<T, R, Rows>;
  static const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
  const frame f = frame_of(p);
  SWATH_EXPECTS(reinterpret_cast<std::uintptr_t>(x.in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(x.out) % 16 == 0,
                "tma_planes: the grids must start 16-byte aligned");
  // Short z-chunks, not the few long ones plan_marching picks to fill one wave. Measured at 512^3
  // in float with the line pad: 6-plane chunks at radius 1 (0.273 ms against 0.289 with 16), 12 at
  // radius 2 (0.289 against 0.296), 8r from radius 3, whose 2r re-read planes weigh more
  // (docs/stencil.md). The resident blocks (~3 rows of chunks at 512^2) then span fewer planes, so the
  // halo rows and the 2r planes each chunk re-reads are more likely still in the L2 when a neighbour
  // or the next chunk reads them; longer chunks let blocks drift further apart in z. They lost on a
  // plane wider than one wave of blocks too (2048 x 1100 x 1000, 200-plane chunks: 5.32 ms against
  // 5.08 in float; docs/stencil.md, "Grids beyond 2^31 points").
  const int planes_per_chunk = R <= 2 ? 6 * R : 8 * R;
  const marching_launch plan = plan_marching(f, C::width, C::by, blocks_per_sm, launch, planes_per_chunk);
  kernel<<<plan.grid, C::threads, C::shared_bytes, stream_of(launch)>>>(
      plane_tiles<T, R, Rows>(static_cast<const T*>(x.in), f), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value),
      plan.z_chunk, pack_weights<T, C::taps>(p, R, R, shape::star));
  SWATH_CHECK_LAST();
}

}  // namespace

void tma_planes(const problem& p, const operands& x, const launch_context& launch) {
  const support fits = aligned_star_3d(p);
  SWATH_EXPECTS(fits.ok(), "tma_planes: " + std::string(fits.why));
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star && Dims == 3) {
      run_instance<T, R, (R <= 2 ? 2 : 1)>(p, x, launch);
    }
  });
}

}  // namespace swath::stencil::cuda
