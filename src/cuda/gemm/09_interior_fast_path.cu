// CUDA step 09: a fast path for the blocks that need no bounds checks.
// - What changed from 08: a block whose tile lies inside C, with 16-byte aligned operands, walks its
//   full slices with an unpredicated loader (four 128-bit loads a thread, one pointer advanced once a
//   slice); a wide-major operand is transposed in registers into four 128-bit stores instead of sixteen
//   scalar ones; a ragged K makes the first slice the partial one. Edge blocks and unaligned operands
//   take 08's general path (double_buffered_slices), in the same grid.
// - Prediction: ~50 fewer integer and store instructions of ~1170 a slice and thread, ~4%; the unaligned
//   ragged shapes unchanged; about 0.86x cuBLAS at 4096³ and 8192³.
// - Outcome: docs/journal/gemm.md, step 09.
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int block_m = 128, block_n = 128, block_k = 16;
constexpr int warp_m = 64, warp_n = 32, warps_n = block_n / warp_n;
constexpr int threads = 256;
constexpr int pitch = block_m + 4;  // both panels: 128 wide, rows padded as panel_loader pads them
static_assert(block_m == block_n && pitch == panel_loader<block_k, block_m, threads>::pitch,
              "the fast loader shares the general path's panel layout");

// One operand's 16 × 128 slice for 128 threads (half the block), four 128-bit loads each.
//  deep-major (16 stored rows × 128): chunk q of thread u is stored row u / 32 + 4q, columns (u % 32)·4.
//  wide-major (128 stored rows × 16): thread u takes rows (u / 4)·4 + {0..3}, depths (u % 4)·4 + {0..3}.
struct interior_loader {
  const float* source;  // this thread's first chunk, at the current slice
  int row_step;        // between its chunks: 4 stored rows (deep-major) or 1 (wide-major)
  int slice_step;      // to the next slice: 16 stored rows (deep-major) or 16 floats (interior: 16·ld < 2^31)
  int store_offset;    // its first float in the panel
  bool wide_major;
  float4 staged[4];

  __device__ __forceinline__ void start(const float* data, std::int64_t ld, bool contiguous_in_depth, std::int64_t wide0,
                                        int u) {
    wide_major = contiguous_in_depth;
    if (wide_major) {
      source = data + (wide0 + u / 4 * 4) * ld + u % 4 * 4;
      row_step = static_cast<int>(ld);
      slice_step = block_k;
      store_offset = u % 4 * 4 * pitch + u / 4 * 4;
    } else {
      source = data + (u / 32) * ld + wide0 + u % 32 * 4;
      row_step = static_cast<int>(4 * ld);
      slice_step = static_cast<int>(block_k * ld);
      store_offset = u / 32 * pitch + u % 32 * 4;
    }
  }
  __device__ __forceinline__ void load() {
    SWATH_UNROLL
    for (int q = 0; q < 4; ++q) staged[q] = __ldg(reinterpret_cast<const float4*>(source + q * row_step));
    source += slice_step;
  }
  // A partial slice of depth_left < 16 at the start of K: only depth can run out (the block is
  // interior), so depths at or past depth_left read as zeros; then the full slices start at depth_left
  // (a multiple of 4, so a wide-major operand's chunks stay 16-byte aligned).
  __device__ __forceinline__ void load_partial(int depth_left, int u) {
    SWATH_UNROLL
    for (int q = 0; q < 4; ++q) {
      const float* at = source + q * row_step;
      if (wide_major) {  // depths (u % 4)·4 + {0..3} of stored row q
        const int d = u % 4 * 4;
        staged[q].x = d < depth_left ? __ldg(at) : 0.0f;
        staged[q].y = d + 1 < depth_left ? __ldg(at + 1) : 0.0f;
        staged[q].z = d + 2 < depth_left ? __ldg(at + 2) : 0.0f;
        staged[q].w = d + 3 < depth_left ? __ldg(at + 3) : 0.0f;
      } else {  // stored row (depth) u / 32 + 4q
        staged[q] = u / 32 + 4 * q < depth_left ? __ldg(reinterpret_cast<const float4*>(at)) : make_float4(0, 0, 0, 0);
      }
    }
    source += wide_major ? depth_left : depth_left * (row_step / 4);
  }
  __device__ __forceinline__ void store(float* panel) const {
    float* out = panel + store_offset;
    if (wide_major) {  // staged[q] holds depths d..d+3 of row q: write depth j's four rows together
      *reinterpret_cast<float4*>(out + 0 * pitch) = make_float4(staged[0].x, staged[1].x, staged[2].x, staged[3].x);
      *reinterpret_cast<float4*>(out + 1 * pitch) = make_float4(staged[0].y, staged[1].y, staged[2].y, staged[3].y);
      *reinterpret_cast<float4*>(out + 2 * pitch) = make_float4(staged[0].z, staged[1].z, staged[2].z, staged[3].z);
      *reinterpret_cast<float4*>(out + 3 * pitch) = make_float4(staged[0].w, staged[1].w, staged[2].w, staged[3].w);
    } else {
      SWATH_UNROLL
      for (int q = 0; q < 4; ++q) *reinterpret_cast<float4*>(out + q * 4 * pitch) = staged[q];
    }
  }
};

__global__ void __launch_bounds__(threads, 2) interior_fast_path_kernel(walked_problem p, operand_view a, operand_view b, float* c,
                                                                        bool c_vector_ok) {
  constexpr int panel_size = block_k * pitch;
  __shared__ __align__(16) float a_panels[2 * panel_size];
  __shared__ __align__(16) float b_panels[2 * panel_size];
  const schedule::tile_coordinate tile = tile_for_block(p, blockIdx.x, block_m, block_n);
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / warps_n * warp_m + lane / 4 * 4;     // rows row0 + {0..3, 32..35}
  const int column0 = warp % warps_n * warp_n + lane % 4 * 4;  // columns column0 + {0..3, 16..19}
  const std::int64_t i0 = tile.y * block_m, j0 = tile.x * block_n;
  float sum[8][8] = {};
  // 32-bit steps inside the fast loop: every leading dimension × 16 and K under 2^31.
  // K a multiple of 4: the full slices after a partial first one stay 16-byte aligned.
  const bool interior = i0 + block_m <= p.m && j0 + block_n <= p.n && a.vector_ok && b.vector_ok &&
                        a.ld < (1 << 27) && b.ld < (1 << 27) && p.k < (1ll << 31) && p.k % 4 == 0;
  if (interior) {
    const int partial = static_cast<int>(p.k % block_k);  // a first slice this deep, when K does not divide
    const int slices = static_cast<int>(p.k / block_k) + (partial > 0 ? 1 : 0);
    const int u = t % (threads / 2);
    const bool loads_a = t < threads / 2;  // warp-uniform: warps 0-3 take A, 4-7 take B
    float* panels = loads_a ? a_panels : b_panels;
    interior_loader loader;
    // Field by field: a conditional reference to one of two kernel parameters would copy both to the stack.
    loader.start(loads_a ? a.data : b.data, loads_a ? a.ld : b.ld,
                 loads_a ? a.contiguous_in_depth : b.contiguous_in_depth, loads_a ? i0 : j0, u);
    if (partial > 0) {
      loader.load_partial(partial, u);
    } else {
      loader.load();
    }
    loader.store(panels);
    __syncthreads();
    int current = 0;
    for (int slice = 0; slice < slices; ++slice) {
      const bool more = slice + 1 < slices;
      if (more) loader.load();  // in flight during the math
      multiply_panels<block_k, pitch, pitch>(a_panels + current * panel_size, b_panels + current * panel_size, row0, 32,
                                             column0, 16, sum);
      if (more) loader.store(panels + (current ^ 1) * panel_size);
      __syncthreads();
      current ^= 1;
    }
  } else {
    double_buffered_slices<block_m, block_n, block_k, threads>(p, a, b, a_panels, b_panels, i0, j0, 0, row0, column0, sum);
  }
  store_micro_tile(p, c, c_vector_ok, i0 + row0, 32, j0 + column0, 16, sum);
}

}  // namespace

void interior_fast_path(const problem& p, const operands& x, const launch_context& launch) {
  interior_fast_path_kernel<<<blocks_for_tiles(p, block_m, block_n), threads, 0, stream_of(launch)>>>(
      walked(p, launch), view_of_a(p, x.a), view_of_b(p, x.b), x.c, aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

}  // namespace swath::gemm::cuda
