// CUDA step 12: the last few columns of C as a strip of their own.
// - What changed from 11: when r = N mod 128 is 1-8, the first N − r columns are step 11's problem and
//   the last r a strip kernel that reads op(A) once (bound by A's M·K·4 bytes at the read bandwidth):
//   32 rows a block, K in chunks of 256, op(B)'s chunk in shared memory, fixed-order sums (the same
//   bits every run). 8191 × 257 × 4099 wasted a third of step 11's FMAs on its last tile column.
// - Settings: strip=auto (at least one strip block an SM, M ≥ 32 · SMs) | on | off.
// - Prediction (H200): 8191 × 257 × 4099 0.590 → ≈ 0.44 ms (≈ 1.25x cuBLAS); the other target sizes
//   (r = 0, 127, 56) unchanged. Outcome: docs/journal/gemm.md, step 12.
#include "../core/kernel_setup.cuh"
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int main_tile_n = 128;    // step 11's block tile is 256 × 128
constexpr int widest_strip = 8;     // r FMAs per element of A read: at 8, ~1.2 issue slots a clock an SM
constexpr int strip_threads = 256;  // 8 warps
constexpr int strip_rows = 32;      // rows of C a block
constexpr int strip_chunk = 256;    // depths a chunk: 32 loads of A a thread
static_assert(strip_threads == strip_chunk, "thread t stages depth t of op(B)'s chunk");

// One depth of op(B)'s staged chunk: Width floats, as 16- or 8-byte shared loads (scalar loads of a
// 32-byte row would be 8-way bank conflicts across the lanes of rows_along_k).
template <int Width>
__device__ __forceinline__ void read_depth(const float* row, float (&out)[Width]) {
  if constexpr (Width % 4 == 0) {
    SWATH_UNROLL
    for (int j = 0; j < Width; j += 4) {
      const float4 four = *reinterpret_cast<const float4*>(row + j);
      out[j] = four.x, out[j + 1] = four.y, out[j + 2] = four.z, out[j + 3] = four.w;
    }
  } else if constexpr (Width == 2) {
    const float2 two = *reinterpret_cast<const float2*>(row);
    out[0] = two.x, out[1] = two.y;
  } else {
    out[0] = row[0];
  }
}

// op(B)'s chunk, 256 depths × Width columns, staged by thread t = depth (zeros past K and past n).
template <int Width>
__device__ __forceinline__ void load_b_chunk(const problem& p, const float* b, std::int64_t k0, float (&out)[Width]) {
  const std::int64_t k = k0 + threadIdx.x;
  SWATH_UNROLL
  for (int j = 0; j < Width; ++j) out[j] = k < p.k && j < p.n ? b[index_of_b(p, k, j)] : 0.0f;
}

// Rows along K: warp w's rows are row0 + {0..3}, lane l's depths in a chunk k0 + l + 32·s. Rows past M
// read row M − 1 (inside the matrix; their sums are never stored), depths past K read zeros.
template <int Width>
struct rows_along_k {
  static constexpr int rows = 4, steps = strip_chunk / 32;
  const float* row_start[rows];
  std::int64_t row0;

  __device__ __forceinline__ rows_along_k(const problem& p, const operand_view& a) {
    row0 = blockIdx.x * std::int64_t{strip_rows} + threadIdx.x / 32 * rows;
    SWATH_UNROLL
    for (int r = 0; r < rows; ++r) row_start[r] = a.data + std::min(row0 + r, p.m - 1) * a.ld + threadIdx.x % 32;
  }
  __device__ __forceinline__ void load(const problem& p, std::int64_t k0, float (&values)[rows][steps]) const {
    const bool whole = k0 + strip_chunk <= p.k;
    SWATH_UNROLL
    for (int r = 0; r < rows; ++r) {
      SWATH_UNROLL
      for (int s = 0; s < steps; ++s) {
        const std::int64_t k = k0 + 32 * s;
        values[r][s] = whole || k + threadIdx.x % 32 < p.k ? __ldg(row_start[r] + k) : 0.0f;
      }
    }
  }
  __device__ __forceinline__ void multiply(const float (&values)[rows][steps], const float (*chunk)[Width],
                                           float (&sum)[rows][Width]) const {
    SWATH_UNROLL
    for (int s = 0; s < steps; ++s) {
      float b[Width];
      read_depth<Width>(chunk[threadIdx.x % 32 + 32 * s], b);
      SWATH_UNROLL
      for (int r = 0; r < rows; ++r) {
        SWATH_UNROLL
        for (int j = 0; j < Width; ++j) sum[r][j] += values[r][s] * b[j];
      }
    }
  }
  // A butterfly over the lanes; lane r·Width + j then holds (and stores) the total of row r, column j.
  __device__ __forceinline__ void finish(const problem& p, float* c, float (&sum)[rows][Width], float*) const {
    const int lane = static_cast<int>(threadIdx.x % 32);
    SWATH_UNROLL
    for (int r = 0; r < rows; ++r) {
      SWATH_UNROLL
      for (int j = 0; j < Width; ++j) {
        SWATH_UNROLL
        for (int offset = 16; offset > 0; offset /= 2) sum[r][j] += __shfl_xor_sync(0xffffffffu, sum[r][j], offset);
        if (lane == r * Width + j && row0 + r < p.m && j < p.n) store_result(p, c, row0 + r, j, sum[r][j]);
      }
    }
  }
};

// Rows along M (A stored K × M): lane l's row is block·32 + l, warp w's depths in a chunk k0 + w + 8·s.
// Rows past M read row M − 1, depths past K read zeros.
template <int Width>
struct rows_along_m {
  static constexpr int rows = 1, steps = strip_chunk / 8;
  const float* column_start;
  std::int64_t ld;

  __device__ __forceinline__ rows_along_m(const problem& p, const operand_view& a) : ld(a.ld) {
    const std::int64_t row = blockIdx.x * std::int64_t{strip_rows} + threadIdx.x % 32;
    column_start = a.data + (threadIdx.x / 32) * a.ld + std::min(row, p.m - 1);
  }
  __device__ __forceinline__ void load(const problem& p, std::int64_t k0, float (&values)[rows][steps]) const {
    const bool whole = k0 + strip_chunk <= p.k;
    const std::int64_t step_stride = 8 * ld;
    const float* from = column_start + k0 * ld;
    const std::int64_t warp = threadIdx.x / 32;
    SWATH_UNROLL
    for (int s = 0; s < steps; ++s, from += step_stride) {
      values[0][s] = whole || k0 + warp + 8 * s < p.k ? __ldg(from) : 0.0f;
    }
  }
  __device__ __forceinline__ void multiply(const float (&values)[rows][steps], const float (*chunk)[Width],
                                           float (&sum)[rows][Width]) const {
    SWATH_UNROLL
    for (int s = 0; s < steps; ++s) {
      float b[Width];  // the same depth for the whole warp: a broadcast
      read_depth<Width>(chunk[threadIdx.x / 32 + 8 * s], b);
      SWATH_UNROLL
      for (int j = 0; j < Width; ++j) sum[0][j] += values[0][s] * b[j];
    }
  }
  // The 8 warps' sums through shared memory, added warp 0 first.
  __device__ __forceinline__ void finish(const problem& p, float* c, float (&sum)[rows][Width], float* scratch) const {
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    SWATH_UNROLL
    for (int j = 0; j < Width; ++j) scratch[(warp * Width + j) * 32 + lane] = sum[0][j];
    __syncthreads();
    for (int q = static_cast<int>(threadIdx.x); q < Width * 32; q += strip_threads) {
      const int j = q / 32;
      float total = 0.0f;
      SWATH_UNROLL
      for (int w = 0; w < strip_threads / 32; ++w) total += scratch[(w * Width + j) * 32 + q % 32];
      const std::int64_t i = blockIdx.x * std::int64_t{strip_rows} + q % 32;
      if (i < p.m && j < p.n) store_result(p, c, i, j, total);
    }
  }
};

// p is the strip's problem (n = r ≤ Width columns); b and c point at its first column. Two blocks an
// SM (≤ 128 registers): 8191 rows are 256 blocks, one wave on 132 SMs. Width 8 along K took 162
// registers unbounded, one block an SM and two waves (0.060 ms alone at 8191 × 8 × 4099 against 0.037
// at width 1, H200); bounded, it spills 68 bytes.
template <int Width, class Rows>
__global__ void __launch_bounds__(strip_threads, 2) narrow_strip_kernel(problem p, operand_view a, const float* b, float* c) {
  __shared__ __align__(16) float chunks[2][strip_chunk][Width];
  __shared__ float scratch[strip_threads / 32 * Width * 32];
  const Rows rows(p, a);
  float sum[Rows::rows][Width] = {};
  float a_now[Rows::rows][Rows::steps], a_next[Rows::rows][Rows::steps], b_next[Width];
  rows.load(p, 0, a_next);
  load_b_chunk<Width>(p, b, 0, b_next);
  SWATH_UNROLL
  for (int j = 0; j < Width; ++j) chunks[0][threadIdx.x][j] = b_next[j];
  __syncthreads();
  const std::int64_t chunk_count = (p.k + strip_chunk - 1) / strip_chunk;
  for (std::int64_t chunk = 0; chunk < chunk_count; ++chunk) {
    SWATH_UNROLL
    for (int r = 0; r < Rows::rows; ++r) {
      SWATH_UNROLL
      for (int s = 0; s < Rows::steps; ++s) a_now[r][s] = a_next[r][s];
    }
    const bool more = chunk + 1 < chunk_count;
    if (more) {  // in flight during this chunk's FMAs
      rows.load(p, (chunk + 1) * strip_chunk, a_next);
      load_b_chunk<Width>(p, b, (chunk + 1) * strip_chunk, b_next);
    }
    rows.multiply(a_now, chunks[chunk % 2], sum);
    if (more) {
      SWATH_UNROLL
      for (int j = 0; j < Width; ++j) chunks[(chunk + 1) % 2][threadIdx.x][j] = b_next[j];
    }
    __syncthreads();
  }
  rows.finish(p, c, sum, scratch);
}

template <int Width>
void launch_strip(const problem& strip, const operand_view& a, const float* b, float* c, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>((strip.m + strip_rows - 1) / strip_rows);
  if (a.contiguous_in_depth) {
    narrow_strip_kernel<Width, rows_along_k<Width>><<<grid, strip_threads, 0, stream>>>(strip, a, b, c);
  } else {
    narrow_strip_kernel<Width, rows_along_m<Width>><<<grid, strip_threads, 0, stream>>>(strip, a, b, c);
  }
  SWATH_CHECK_LAST();
}

}  // namespace

void narrow_strip(const problem& p, const operands& x, const launch_context& launch_on) {
  const std::int64_t remainder = p.n % main_tile_n;
  const std::int64_t blocks = (p.m + strip_rows - 1) / strip_rows;
  const path_choice chosen = path_of(launch_on, strip_setting);
  const bool take_strip = remainder >= 1 && remainder <= widest_strip && chosen != path_choice::never &&
                          (chosen == path_choice::always || blocks >= std::max(launch_on.sm_count, 1));
  if (!take_strip) {
    stream_k(p, x, launch_on);
    return;
  }
  SWATH_EXPECTS(blocks <= 0x7fffffff, "gemm: more rows than the strip's grid holds");
  problem main_part = p;
  main_part.n = p.n - remainder;  // its band: the block walk's width, clamped to these columns
  if (main_part.n > 0) stream_k(main_part, x, launch_on);
  problem strip = p;
  strip.n = remainder;
  // op(B)'s column N − r: element (k, N − r) of B as stored is at index_of_b(p, 0, N − r) + k·(stride).
  const float* b = x.b + index_of_b(p, 0, main_part.n);
  float* c = x.c + main_part.n;
  const operand_view a = view_of_a(p, x.a);
  const cudaStream_t stream = stream_of(launch_on);
  if (remainder == 1) {
    launch_strip<1>(strip, a, b, c, stream);
  } else if (remainder == 2) {
    launch_strip<2>(strip, a, b, c, stream);
  } else if (remainder <= 4) {
    launch_strip<4>(strip, a, b, c, stream);
  } else {
    launch_strip<8>(strip, a, b, c, stream);
  }
}

}  // namespace swath::gemm::cuda
