// CUDA step 18: skinny products, M ≤ 16 (GEMV-like): stream op(B) once at the memory's rate.
// - What changed: with M ≤ 16 rows the product does 2·M FLOPs a float of B read, 0.5-8 FLOP/B: it is
//   bound by reading B (256 MiB at N = K = 8192), not by FMAs, and every tiled step wastes (256 − M) /
//   256 of its tile and reads B at a fraction of the bandwidth (0.76 ms at 1 × 8192 × 8192 on an H100:
//   0.13x cuBLAS). Here a block takes 128 columns of B over a range of K: a lane reads 4 columns with
//   one 16-byte load a row, 8 warps take every 8th group of 4 rows, with 8 loads in flight a thread;
//   the range's M × K piece of op(A) sits in shared memory and is read as broadcasts. The warps' sums
//   are added in warp order in shared memory; K's ranges (splits) store theirs as parts, and the last
//   block of a column block to arrive (an arrival counter) adds them in split order: deterministic, and
//   no second launch (3 µs of a 95 µs product). Any op(A), op(B) as stored (op = nn, tn).
// - Prediction (H100): M = 1 at ≈ 90% of the read-only bandwidth, ≈ 1.0x cuBLAS (its gemv reads at
//   94%: 0.0955 ms); M = 4 and 16 ≈ 1.3x and 1.4x cuBLAS (0.129 and 0.147 ms: it reads at 70% and 61%).
// - Outcome (H100, tuned splits): M = 1 0.993x (2.86 TB/s), M = 4 1.31x, M = 16 0.93x (issue-bound:
//   64 accumulators, 16 broadcasts a row). H200: 0.997x, 1.64x. docs/journal/gemm.md, step 18.
// - v2: two blocks an SM (launch bounds: ≤ 128 registers a thread, from 167-175 at M = 16). Prediction
//   (H200): M = 16 one 8-warp block an SM issued 0.47 a cycle, 53% of cycles no eligible warp (ncu); 16
//   warps an SM should hide the loads' latency, 152 → ~115-125 µs (≈ 1.2x cuBLAS). Outcome (H200, one
//   binary A/B, two rounds): M = 16 over 8192² 151.7 → 114.2 µs (0.96x → 1.28x cuBLAS), 12 × 8191²
//   165.1 → 129.5 (1.40x), 16 × 16384² 580.6 → 407.5 (0.76x → 1.09x); M = 1, 4, 8 unchanged. 16-byte
//   reads of op(A) from shared memory (4 rows at once) were tried beside it and did not help (+2%).
#include <algorithm>

#include "../core/kernel_setup.cuh"
#include "split_k.cuh"

namespace swath::gemm::cuda {
namespace {

constexpr int threads = 256, warps = threads / 32;
constexpr int columns_per_block = 128;  // 32 lanes × 4
constexpr int rows_per_group = 4;       // rows of B a warp reads before its FMAs: 4 loads in flight
constexpr int groups_in_flight = 2;     // two groups unrolled: 8 loads in flight a thread

// Four columns j.. j + 3 of row k of B: one 16-byte load inside an aligned matrix, else scalars.
__device__ __forceinline__ float4 row_piece(const problem& p, const float* b, bool vector_ok, std::int64_t k,
                                            std::int64_t j) {
  const float* at = b + k * p.ldb + j;
  if (vector_ok && j + 3 < p.n) return __ldg(reinterpret_cast<const float4*>(at));
  return make_float4(j < p.n ? __ldg(at) : 0.0f, j + 1 < p.n ? __ldg(at + 1) : 0.0f, j + 2 < p.n ? __ldg(at + 2) : 0.0f,
                     j + 3 < p.n ? __ldg(at + 3) : 0.0f);
}

// Rows: the rows of C a thread holds (M ≤ Rows; the rest are zeros of op(A) and never stored).
// Two blocks an SM (at most 128 registers a thread): at Rows = 16 the kernel took 167-175 and ran one
// 8-warp block an SM, issuing 0.47 warps a scheduler and cycle with no warp eligible 53% of the time
// (ncu, H200); with 16 warps an SM M = 16 over N = K = 8192 ran 151.7 → 114.2 µs (H200). Rows ≤ 8 fit
// two blocks already (76-119 registers).
template <int Rows>
__global__ void __launch_bounds__(threads, 2) skinny_kernel(problem p, const float* a, const float* b, float* c,
                                                         bool b_vector_ok, int chunk, float* parts, unsigned* arrivals) {
  extern __shared__ __align__(16) float shared[];  // op(A)'s piece [Rows][chunk], later the warps' sums
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int split = static_cast<int>(blockIdx.y);
  const std::int64_t k0 = static_cast<std::int64_t>(split) * chunk;
  const int depth = static_cast<int>(min(static_cast<std::int64_t>(chunk), p.k - k0));  // ≥ 1
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * columns_per_block + lane * 4;

  // op(A)[i][k0 + kk] for i < Rows, zeros past M: 8 loads in flight a thread before their stores
  // (one at a time, 16 × 482 of them took ~30 dependent round trips a block).
  for (int base = static_cast<int>(threadIdx.x); base < Rows * chunk; base += 8 * threads) {
    float staged[8];
    SWATH_UNROLL
    for (int q = 0; q < 8; ++q) {
      const int e = base + q * threads, i = e / chunk, kk = e % chunk;
      staged[q] = e < Rows * chunk && i < p.m && kk < depth ? __ldg(a + index_of_a(p, i, k0 + kk)) : 0.0f;
    }
    SWATH_UNROLL
    for (int q = 0; q < 8; ++q) {
      if (base + q * threads < Rows * chunk) shared[base + q * threads] = staged[q];
    }
  }
  __syncthreads();

  float sum[Rows][4] = {};
  const auto add_row = [&](int kk, const float4 piece) {
    SWATH_UNROLL
    for (int i = 0; i < Rows; ++i) {
      const float a_ik = shared[i * chunk + kk];
      sum[i][0] += a_ik * piece.x, sum[i][1] += a_ik * piece.y, sum[i][2] += a_ik * piece.z, sum[i][3] += a_ik * piece.w;
    }
  };
  // Groups of 4 rows: warp w takes groups w, w + 8, …; two groups' loads are issued before their FMAs.
  constexpr int stride = warps * rows_per_group;
  int kk = warp * rows_per_group;
  for (; kk + (groups_in_flight - 1) * stride + rows_per_group <= depth; kk += groups_in_flight * stride) {
    float4 pieces[groups_in_flight][rows_per_group];
    SWATH_UNROLL
    for (int g = 0; g < groups_in_flight; ++g) {
      SWATH_UNROLL
      for (int r = 0; r < rows_per_group; ++r) pieces[g][r] = row_piece(p, b, b_vector_ok, k0 + kk + g * stride + r, j);
    }
    SWATH_UNROLL
    for (int g = 0; g < groups_in_flight; ++g) {
      SWATH_UNROLL
      for (int r = 0; r < rows_per_group; ++r) add_row(kk + g * stride + r, pieces[g][r]);
    }
  }
  for (; kk < depth; kk += stride) {  // the groups left, the last one partial
    SWATH_UNROLL
    for (int r = 0; r < rows_per_group; ++r) {
      if (kk + r < depth) add_row(kk + r, row_piece(p, b, b_vector_ok, k0 + kk + r, j));
    }
  }

  // The warps' sums, added in warp order: sums[w][i][column] over the block's 128 columns.
  __syncthreads();  // op(A)'s piece is no longer read
  float* sums = shared;
  SWATH_UNROLL
  for (int i = 0; i < Rows; ++i) {
    SWATH_UNROLL
    for (int q = 0; q < 4; ++q) sums[(warp * Rows + i) * columns_per_block + lane * 4 + q] = sum[i][q];
  }
  __syncthreads();
  const std::int64_t j_block = static_cast<std::int64_t>(blockIdx.x) * columns_per_block;
  const int splits = static_cast<int>(gridDim.y);
  for (int e = static_cast<int>(threadIdx.x); e < Rows * columns_per_block; e += threads) {
    const int i = e / columns_per_block, column = e % columns_per_block;
    const std::int64_t jj = j_block + column;
    if (i >= p.m || jj >= p.n) continue;
    float total = 0;
    SWATH_UNROLL
    for (int w = 0; w < warps; ++w) total += sums[(w * Rows + i) * columns_per_block + column];
    if (splits == 1) {
      float& out = c[i * p.ldc + jj];
      out = p.beta == 0 ? p.alpha * total : p.alpha * total + p.beta * out;
    } else {
      parts[(static_cast<std::int64_t>(split) * p.m + i) * p.n + jj] = total;
    }
  }
  if (splits == 1) return;
  // The last split of this column block to arrive adds all the parts, in split order.
  __shared__ bool last;
  __threadfence();  // this block's parts are visible before its arrival counts
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned arrived = atomicAdd(&arrivals[blockIdx.x], 1u);
    last = arrived == static_cast<unsigned>(splits) - 1;
    if (last) arrivals[blockIdx.x] = 0;  // for the next launch on this stream
  }
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other splits' parts are read after their arrivals
  for (int e = static_cast<int>(threadIdx.x); e < Rows * columns_per_block; e += threads) {
    const int i = e / columns_per_block, column = e % columns_per_block;
    const std::int64_t jj = j_block + column;
    if (i >= p.m || jj >= p.n) continue;
    float total = 0;
    for (int s = 0; s < splits; ++s) total += __ldcg(parts + (static_cast<std::int64_t>(s) * p.m + i) * p.n + jj);
    float& out = c[i * p.ldc + jj];
    out = p.beta == 0 ? p.alpha * total : p.alpha * total + p.beta * out;
  }
}

template <int Rows>
void launch_skinny(const problem& p, const operands& x, int splits, const launch_context& launch) {
  const cudaStream_t stream = stream_of(launch);
  const std::int64_t chunk64 = (p.k + splits - 1) / splits;
  const int chunk = static_cast<int>(chunk64);
  splits = static_cast<int>((p.k + chunk - 1) / chunk);  // none empty
  const std::size_t shared_bytes =
      static_cast<std::size_t>(std::max(Rows * chunk, warps * Rows * columns_per_block)) * 4;
  (void)swath::cuda::prepare_kernel(skinny_kernel<Rows>, threads, shared_bytes);
  const std::int64_t column_blocks = (p.n + columns_per_block - 1) / columns_per_block;
  SWATH_EXPECTS(column_blocks <= 0x7fffffff, "gemm: more column blocks than a grid holds");
  float* parts = nullptr;
  unsigned* arrivals = nullptr;
  if (splits > 1) {
    parts = split_parts_workspace(stream, part_floats(p, 1, splits));
    const auto counter_bytes = static_cast<std::size_t>(column_blocks) * sizeof(unsigned);
    arrivals = static_cast<unsigned*>(swath::cuda::stream_workspace(stream, swath::cuda::workspace_use::split_counters,
                                                                    counter_bytes, counter_bytes));
  }
  const dim3 grid(static_cast<unsigned>(column_blocks), static_cast<unsigned>(splits));
  skinny_kernel<Rows><<<grid, threads, shared_bytes, stream>>>(p, x.a, x.b, x.c, aligned16(x.b, p.ldb), chunk, parts,
                                                               arrivals);
  SWATH_CHECK_LAST();
}

// The splits: enough blocks for ~8 an SM over the column groups, each range at least 64 rows deep,
// and op(A)'s piece within 64 KiB of shared memory (chunk ≤ 16384 / Rows floats).
int skinny_splits(const problem& p, int rows, const launch_context& launch) {
  const split_choice chosen = split_choice_of(launch);
  const std::int64_t groups = (p.n + columns_per_block - 1) / columns_per_block;
  const std::int64_t most_deep = 16384 / rows;
  std::int64_t splits = chosen.splits;
  if (splits == 0) {
    splits = std::max<std::int64_t>(1, (8 * std::max(launch.sm_count, 1) + groups - 1) / groups);
    splits = std::min<std::int64_t>(splits, std::max<std::int64_t>(1, p.k / 64));
  }
  splits = std::clamp<std::int64_t>(splits, (p.k + most_deep - 1) / most_deep, std::max<std::int64_t>(p.k, 1));
  return static_cast<int>(std::min<std::int64_t>(splits, 65535));
}

}  // namespace

support skinny_shape(const problem& p) {
  if (p.batch != 1) return support::no("one product only (batch=1)");
  if (p.m > 16) return support::no("M <= 16 only (the rows of C a thread holds)");
  if (p.trans_b) return support::no("op(B) as stored only (op=nn, tn): B's rows are read along N");
  return support::yes();
}

void skinny(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(skinny_shape(p).ok(), "gemm step 18 takes M <= 16, op(B) as stored, one product");
  if (p.k == 0) {  // C = beta · C: the parts' pass with no parts
    sum_parts(p, nullptr, 0, x.c, 0, 1, launch);
    return;
  }
  const int rows = p.m <= 1 ? 1 : p.m <= 2 ? 2 : p.m <= 4 ? 4 : p.m <= 8 ? 8 : 16;
  const int splits = skinny_splits(p, rows, launch);
  switch (rows) {
    case 1: return launch_skinny<1>(p, x, splits, launch);
    case 2: return launch_skinny<2>(p, x, splits, launch);
    case 4: return launch_skinny<4>(p, x, splits, launch);
    case 8: return launch_skinny<8>(p, x, splits, launch);
    default: return launch_skinny<16>(p, x, splits, launch);
  }
}

}  // namespace swath::gemm::cuda
