#pragma once
// What the CUDA gemm steps share: the stream, the epilogue C = alpha · sum + beta · C that every step
// ends with (beta = 0 does not read C: BLAS's rule, C may hold anything), the bounds-checked element
// reads of op(A) and op(B) (steps 01-05), and, for steps 06 on, the panel loader that moves a Deep × Wide
// slice of op(A) or op(B) through registers into shared memory with 16-byte loads where the storage
// allows, plus the four-wide epilogue.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../../gemm/policies.hpp"
#include "../../gemm/steps.hpp"
#include "swath/core/error.hpp"
#include "swath/schedule/block_order.hpp"

namespace swath::gemm::cuda {

inline cudaStream_t stream_of(const launch_context& launch) { return static_cast<cudaStream_t>(launch.stream); }

// `kernel` on `stream` behind the work before it, or (dependent) as the programmatic dependent of the
// kernel before it: its blocks may be placed once every block of that one has executed
// griddepcontrol.launch_dependents or ended, so `kernel` must execute griddepcontrol.wait before it
// touches what that kernel writes (the wait returns when it has ended and its writes are visible; in a
// kernel launched plainly it returns at once). The producer warp's launch (producer_warp.cuh) and the
// parts' pass (sum_parts, pass=dependent).
template <typename... Parameters, typename... Arguments>
void launch_kernel(void (*kernel)(Parameters...), dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                   bool dependent, Arguments&&... arguments) {
  if (!dependent) {
    kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Arguments>(arguments)...);
    SWATH_CHECK_LAST();
    return;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  SWATH_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Arguments>(arguments)...));
}

// What a kernel that takes C's tiles in a block order is handed by value: the problem, and the walk its
// policy chose (src/gemm/policies.hpp). Steps 08-16.
struct walked_problem : problem {
  block_order order = block_order::row;
  std::int64_t column_width = 1;
};
inline walked_problem walked(const problem& p, const launch_context& launch) {
  const block_walk walk = block_walk_of(p, launch);
  return {p, walk.order, walk.column_width};
}

__device__ __forceinline__ void store_result(const problem& p, float* c, std::int64_t i, std::int64_t j, float sum) {
  float& out = c[i * p.ldc + j];
  out = p.beta == 0 ? p.alpha * sum : p.alpha * sum + p.beta * out;
}

// op(A)[i][k] and op(B)[k][j], 0 outside the matrices: a tile that hangs over the edge multiplies zeros.
__device__ __forceinline__ float element_of_a(const problem& p, const float* a, std::int64_t i, std::int64_t k) {
  return i < p.m && k < p.k ? a[index_of_a(p, i, k)] : 0.0f;
}
__device__ __forceinline__ float element_of_b(const problem& p, const float* b, std::int64_t k, std::int64_t j) {
  return k < p.k && j < p.n ? b[index_of_b(p, k, j)] : 0.0f;
}

inline unsigned blocks_for(std::int64_t extent, int per_block) {
  const std::int64_t blocks = (extent + per_block - 1) / per_block;
  SWATH_EXPECTS(blocks <= 65535 || per_block == 0, "gemm: the matrix is too tall for the grid's y dimension");
  return static_cast<unsigned>(blocks);
}

inline bool aligned16(const void* pointer, std::int64_t leading_dimension) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0 && leading_dimension % 4 == 0;
}

// Whether every batch of C takes 16-byte stores: its start, its rows and the stride between batches.
inline bool c_takes_vectors(const problem& p, const float* c) {
  return aligned16(c, p.ldc) && (p.batch == 1 || p.stride_c % 4 == 0);
}

// One operand as a panel loader sees it: op(A) is M (wide) × K (deep), op(B) is K (deep) × N (wide).
// Stored row-major either wide-major (rows along the wide dimension, contiguous along depth: A as
// stored, B transposed) or deep-major (rows along depth, contiguous along the wide dimension).
struct operand_view {
  const float* data;
  std::int64_t ld;
  std::int64_t wide;       // M for A, N for B
  std::int64_t deep;       // K
  bool contiguous_in_depth;
  bool vector_ok;          // 16-byte aligned rows: a chunk of four along a row is one float4 load
};

inline operand_view view_of_a(const problem& p, const float* a) {
  return {a, p.lda, p.m, p.k, !p.trans_a, aligned16(a, p.lda)};
}
inline operand_view view_of_b(const problem& p, const float* b) {
  return {b, p.ldb, p.n, p.k, p.trans_b, aligned16(b, p.ldb)};
}

// A Deep × Wide slice of one operand, starting at (depth0, wide0), staged in registers and then stored
// into shared memory as panel[d][w] (depth-major, rows padded by 4 floats: 16-byte aligned, and the
// transposing scatter of a wide-major operand lands in different banks for its two depth halves).
// Threads take four-element chunks along the stored rows; a chunk fully inside a 16-byte-aligned matrix
// is one 128-bit load, any other chunk four predicated scalar loads (zeros outside).
template <int Deep, int Wide, int Threads>
struct panel_loader {
  static constexpr int pitch = Wide + 4;
  static constexpr int total_chunks = Deep * Wide / 4;
  static constexpr int chunks = (total_chunks + Threads - 1) / Threads;  // per thread; some idle when it does not divide
  static constexpr bool ragged = total_chunks % Threads != 0;
  static_assert(Deep % 4 == 0 && Wide % 4 == 0, "chunks of four along either dimension");
  float4 staged[chunks];

  __device__ __forceinline__ void load(const operand_view& v, std::int64_t depth0, std::int64_t wide0) {
    // The slice's corner as stored, and how many stored rows and columns remain from it (clamped: only
    // "fewer than the slice" matters), so the per-chunk work is 32-bit.
    const std::int64_t first_row = v.contiguous_in_depth ? wide0 : depth0;
    const std::int64_t first_col = v.contiguous_in_depth ? depth0 : wide0;
    const std::int64_t all_rows = v.contiguous_in_depth ? v.wide : v.deep;
    const std::int64_t all_cols = v.contiguous_in_depth ? v.deep : v.wide;
    const int rows_left = static_cast<int>(all_rows - first_row < 4096 ? all_rows - first_row : 4096);
    const int cols_left = static_cast<int>(all_cols - first_col < 4096 ? all_cols - first_col : 4096);
    const int chunks_per_row = v.contiguous_in_depth ? Deep / 4 : Wide / 4;
    const float* corner = v.data + first_row * v.ld + first_col;
    SWATH_UNROLL
    for (int q = 0; q < chunks; ++q) {
      const int chunk = static_cast<int>(threadIdx.x) + q * Threads;
      if (ragged && chunk >= total_chunks) break;
      const int row = chunk / chunks_per_row, col = chunk % chunks_per_row * 4;
      const float* source = corner + row * v.ld + col;
      if (v.vector_ok && row < rows_left && col + 3 < cols_left) {
        staged[q] = __ldg(reinterpret_cast<const float4*>(source));
      } else {
        const bool in_row = row < rows_left;
        staged[q].x = in_row && col < cols_left ? __ldg(source) : 0.0f;
        staged[q].y = in_row && col + 1 < cols_left ? __ldg(source + 1) : 0.0f;
        staged[q].z = in_row && col + 2 < cols_left ? __ldg(source + 2) : 0.0f;
        staged[q].w = in_row && col + 3 < cols_left ? __ldg(source + 3) : 0.0f;
      }
    }
  }

  __device__ __forceinline__ void store(const operand_view& v, float* panel) const {
    SWATH_UNROLL
    for (int q = 0; q < chunks; ++q) {
      const int chunk = static_cast<int>(threadIdx.x) + q * Threads;
      if (ragged && chunk >= total_chunks) break;
      if (v.contiguous_in_depth) {  // transpose: four depths of one wide index
        const int w = chunk / (Deep / 4);
        const int d = chunk % (Deep / 4) * 4;
        panel[(d + 0) * pitch + w] = staged[q].x;
        panel[(d + 1) * pitch + w] = staged[q].y;
        panel[(d + 2) * pitch + w] = staged[q].z;
        panel[(d + 3) * pitch + w] = staged[q].w;
      } else {
        const int d = chunk / (Wide / 4);
        const int w = chunk % (Wide / 4) * 4;
        *reinterpret_cast<float4*>(panel + d * pitch + w) = staged[q];
      }
    }
  }
};

// Four consecutive results of row i from column j: one 16-byte access where C allows, else scalars
// inside the matrix only.
__device__ __forceinline__ void store_four(const problem& p, float* c, bool c_vector_ok, std::int64_t i,
                                           std::int64_t j, float4 sum) {
  if (i >= p.m) return;
  float* out = c + i * p.ldc + j;
  if (c_vector_ok && j + 3 < p.n) {
    float4 value = make_float4(p.alpha * sum.x, p.alpha * sum.y, p.alpha * sum.z, p.alpha * sum.w);
    if (p.beta != 0) {
      const float4 old = *reinterpret_cast<const float4*>(out);
      value.x += p.beta * old.x;
      value.y += p.beta * old.y;
      value.z += p.beta * old.z;
      value.w += p.beta * old.w;
    }
    *reinterpret_cast<float4*>(out) = value;
    return;
  }
  const float values[4] = {sum.x, sum.y, sum.z, sum.w};
  SWATH_UNROLL
  for (int q = 0; q < 4; ++q) {
    if (j + q < p.n) out[q] = p.beta == 0 ? p.alpha * values[q] : p.alpha * values[q] + p.beta * out[q];
  }
}

// An 8 × 8 micro-tile held as 2 × 2 blocks of 4 × 4: rows first_row + {0..3} and + row_split, columns
// first_column + {0..3} and + column_split (a split of 4 makes the rows or columns consecutive).
// Eight values of one panel row: two 16-byte shared-memory reads, at `at` and at `at + split`.
__device__ __forceinline__ void read_eight(const float* at, int split, float (&out)[8]) {
  const float4 low = *reinterpret_cast<const float4*>(at);
  const float4 high = *reinterpret_cast<const float4*>(at + split);
  out[0] = low.x, out[1] = low.y, out[2] = low.z, out[3] = low.w;
  out[4] = high.x, out[5] = high.y, out[6] = high.z, out[7] = high.w;
}

// sum += a ⊗ b: the register outer product, 64 FMAs.
__device__ __forceinline__ void add_outer_product(float (&sum)[8][8], const float (&a)[8], const float (&b)[8]) {
  SWATH_UNROLL
  for (int r = 0; r < 8; ++r) {
    SWATH_UNROLL
    for (int s = 0; s < 8; ++s) sum[r][s] += a[r] * b[s];
  }
}

// One Deep-slice of the panels (depth-major, pitches as the loaders lay them out) into the micro-tile.
template <int Deep, int APitch, int BPitch>
__device__ __forceinline__ void multiply_panels(const float* a_panel, const float* b_panel, int first_row, int row_split,
                                                int first_column, int column_split, float (&sum)[8][8]) {
  SWATH_UNROLL
  for (int kk = 0; kk < Deep; ++kk) {
    float a_values[8], b_values[8];
    read_eight(a_panel + kk * APitch + first_row, row_split, a_values);
    read_eight(b_panel + kk * BPitch + first_column, column_split, b_values);
    add_outer_product(sum, a_values, b_values);
  }
}

__device__ __forceinline__ void store_micro_tile(const problem& p, float* c, bool c_vector_ok, std::int64_t first_row,
                                                 int row_split, std::int64_t first_column, int column_split,
                                                 const float (&sum)[8][8]) {
  SWATH_UNROLL
  for (int r = 0; r < 8; ++r) {
    const std::int64_t i = first_row + r % 4 + r / 4 * row_split;
    store_four(p, c, c_vector_ok, i, first_column, make_float4(sum[r][0], sum[r][1], sum[r][2], sum[r][3]));
    store_four(p, c, c_vector_ok, i, first_column + column_split, make_float4(sum[r][4], sum[r][5], sum[r][6], sum[r][7]));
  }
}

// Step 08's main loop, from depth k_begin to K, for a BlockM × BlockN tile at (i0, j0): two panels of
// each operand; the next slice's global loads are issued before the current slice's FMAs and stored into
// the other panel after them, one barrier per slice. The caller has passed a barrier since anyone last
// read the panels.
template <int BlockM, int BlockN, int BlockK, int Threads>
__device__ __forceinline__ void double_buffered_slices(const problem& p, const operand_view& a, const operand_view& b,
                                                       float* a_panels, float* b_panels, std::int64_t i0,
                                                       std::int64_t j0, std::int64_t k_begin, int row0, int column0,
                                                       float (&sum)[8][8]) {
  using a_loader = panel_loader<BlockK, BlockM, Threads>;
  using b_loader = panel_loader<BlockK, BlockN, Threads>;
  constexpr int a_size = BlockK * a_loader::pitch, b_size = BlockK * b_loader::pitch;
  a_loader a_load;
  b_loader b_load;
  a_load.load(a, k_begin, i0);
  b_load.load(b, k_begin, j0);
  a_load.store(a, a_panels);
  b_load.store(b, b_panels);
  __syncthreads();
  float* a_now = a_panels;
  float* b_now = b_panels;
  float* a_next = a_panels + a_size;
  float* b_next = b_panels + b_size;
  for (std::int64_t k0 = k_begin; k0 < p.k; k0 += BlockK) {
    const bool more = k0 + BlockK < p.k;
    if (more) {  // in flight during the math below
      a_load.load(a, k0 + BlockK, i0);
      b_load.load(b, k0 + BlockK, j0);
    }
    multiply_panels<BlockK, a_loader::pitch, b_loader::pitch>(a_now, b_now, row0, 32, column0, 16, sum);
    if (more) {
      a_load.store(a, a_next);
      b_load.store(b, b_next);
    }
    __syncthreads();
    float* swap = a_now;
    a_now = a_next, a_next = swap;
    swap = b_now;
    b_now = b_next, b_next = swap;
  }
}

// The grid of block_m × block_n tiles over C (partial tiles at the bottom and right edges).
SWATH_HD_INLINE schedule::extent2d tile_grid(const problem& p, int block_m, int block_n) {
  return {(p.n + block_n - 1) / block_n, (p.m + block_m - 1) / block_m};
}

// A 1D launch over that grid: one block per tile.
inline unsigned blocks_for_tiles(const problem& p, int block_m, int block_n) {
  const std::int64_t tiles = tile_grid(p, block_m, block_n).count();
  SWATH_EXPECTS(tiles <= 0x7fffffff, "gemm: more tiles of C than a grid holds");
  return static_cast<unsigned>(tiles);
}

// The tile of C that block `block` takes, in the problem's block order. Column and Zigzag bands are
// column_width columns of C wide, i.e. column_width / block_n tiles (at least one).
__device__ __forceinline__ schedule::tile_coordinate tile_for_block(const walked_problem& p, std::int64_t block, int block_m,
                                                                    int block_n) {
  const schedule::extent2d tiles = tile_grid(p, block_m, block_n);
  const std::int64_t band = p.column_width / block_n > 1 ? p.column_width / block_n : 1;
  switch (p.order) {
    case block_order::column:
      return schedule::tile_of_block(schedule::column{band}, block, tiles);
    case block_order::zigzag:
      return schedule::tile_of_block(schedule::zigzag{band}, block, tiles);
    default:
      return schedule::tile_of_block(schedule::row_major{}, block, tiles);
  }
}

}  // namespace swath::gemm::cuda
