#pragma once
// What steps 17, 18, 19 and 22 share: K cut into `splits` ranges whose partial sums land in a workspace
// of the stream, then one pass that adds them in split order and applies alpha and beta (step 22: the
// last split of each tile to arrive adds them, no second launch). The order of the additions is fixed
// (split 0 first), so the same inputs give the same bits on every run, whatever the timing: unlike
// atomics.
//
// Layout of the parts: for the launch's batches b (relative to its first), splits s, then C's M rows of
// parts_ld(N) floats (N rounded up to 4): part(b, s) = parts + (b · splits + s) · M · parts_ld(N), row i
// at i · parts_ld(N). Rows a whole number of 16 bytes apart let a tile store its part 16 bytes at a
// time at any N: packed at N = 767, a warp's stores went 4 bytes at a time, each touching 16 L2 sectors
// for 4 sectors' bytes, and 767³ ran 49.4 µs against 768³'s 36 (H200; docs/journal/gemm.md, "The
// parts' rows").
//
// Steps 17, 19 and 22 also share their block tiles, wave model, kernel and launch (below): step 17 runs
// the kernel with one group of warps a block, step 19 with 2 or 4, step 22 as 17 with LastAdds.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../core/per_device.cuh"
#include "async_pipeline.cuh"
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {

// The distance between a part's rows: N rounded up to a whole 16 bytes.
__host__ __device__ inline std::int64_t parts_ld(const problem& p) { return (p.n + 3) / 4 * 4; }

// Partial sums of a launch: floats for `batches` products cut into `splits`.
inline std::int64_t part_floats(const problem& p, std::int64_t batches, int splits) {
  return batches * splits * p.m * parts_ld(p);
}

// The stream's parts workspace, at least `floats` long (grown in stream order, never synchronising).
inline float* split_parts_workspace(cudaStream_t stream, std::int64_t floats) {
  return static_cast<float*>(swath::cuda::stream_workspace(stream, swath::cuda::workspace_use::split_parts,
                                                           static_cast<std::size_t>(floats) * 4, 0));
}

// Step 22's arrival counters, one a tile of each product of a launch: zero when new, and every launch
// leaves them at zero.
inline unsigned* tile_arrivals_workspace(cudaStream_t stream, std::int64_t tiles) {
  const auto bytes = static_cast<std::size_t>(tiles) * sizeof(unsigned);
  return static_cast<unsigned*>(swath::cuda::stream_workspace(stream, swath::cuda::workspace_use::tile_arrivals, bytes, bytes));
}

// C_b[i][j] = alpha · (part(b, 0) + part(b, 1) + … ) + beta · C_b[i][j] for batches [batch0, batch0 +
// batches), on the launch's stream (17_split_k.cu): one thread four columns of a row, the parts read
// once, 16 bytes at a time (from L2 when they fit). `dependent`: launched as the programmatic dependent
// of the grid before it on the stream (its blocks wait at entry until that grid has ended and its stores
// are visible; pass=dependent).
void sum_parts(const problem& p, const float* parts, int splits, float* c, std::int64_t batch0, std::int64_t batches,
               const launch_context& launch, bool dependent = false);

// How many of the problem's batches one launch takes (the grid's z dimension holds at most 65535), so
// that their parts stay within `budget_floats`; at least one.
inline std::int64_t batches_per_launch(const problem& p, int splits, std::int64_t budget_floats) {
  const std::int64_t per_batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(splits) * p.m * parts_ld(p));
  const std::int64_t fit = splits > 1 ? std::max<std::int64_t>(1, budget_floats / per_batch) : p.batch;
  return std::min<std::int64_t>({p.batch, fit, 65535});
}

// ---- The block tiles of steps 17 and 19, and their wave model ----------------------------------

// A compiled block tile: its pipeline (micro-tile 8 × thread_n, depth, stages), the blocks an SM holds
// and the share of the FMA peak its loop reached alone (H100, measured full waves of each at 4096³ on
// one tile a block: the model's weights, not a promise).
struct fitted_tile {
  int block_m, block_n;
  int warps;          // a block's
  int resident;       // blocks an SM holds (registers and shared memory)
  double efficiency;  // FMA throughput of a full SM, as a share of the peak
  bool modeled;       // whether fit=auto's model weighs it (false: only when asked for by fit=)
};
// Their kernels, in this order: launch_fitted (below).
// clang-format off
inline constexpr fitted_tile fitted_tiles[] = {
  {256, 128, 8, 1, 0.72, true},   // step 10's: 8 × 16 a thread, 3 stages of 8-deep slices
  {128, 128, 4, 2, 0.66, true},   // 8 × 16 a thread, 4 stages of 16
  { 64, 256, 4, 2, 0.66, true},   // 8 × 16 a thread, 4 stages of 16
  {128,  64, 4, 4, 0.55, true},   // 8 × 8 a thread, 4 stages of 16
  { 64, 128, 4, 4, 0.55, true},   // 8 × 8 a thread, 4 stages of 16
  { 64,  64, 2, 6, 0.45, true},   // 8 × 8 a thread, 4 stages of 16
  // v4: 8 × 4 a thread (step 21's micro-tile), 2 warps, 4 stages of 16 (26.6 KB: 8 blocks an SM).
  // Its efficiency is a guess until measured, so the model leaves it to the tuner (17_split_k.cu, v4).
  { 64,  32, 2, 8, 0.35, false},
};
// clang-format on

// The model's time for one tile, split count and warp groups a block (see 17_split_k.cu's head; step
// 19's groups multiply a block's warps). FMA rate: 128 lanes an SM at ~1.75 GHz, times the tile's
// efficiency, times the share of 8 warps the SM's blocks of a wave give it (a lone 4-warp block cannot
// hide its copies' latency); L2 round trip of the parts at ~4 TB/s; a second launch ~3 µs.
inline double modeled_seconds(const problem& p, const fitted_tile& t, int splits, int sms, int groups = 1) {
  // Step 19's blocks of 8 warps take 145-255 registers a thread (its kernel's note): one an SM.
  const int warps = t.warps * groups, resident = groups == 1 ? t.resident : (warps <= 4 ? 2 : 1);
  const std::int64_t slices = (p.k + 15) / 16;
  const std::int64_t tiles = (p.m + t.block_m - 1) / t.block_m * ((p.n + t.block_n - 1) / t.block_n) * p.batch;
  const std::int64_t blocks = tiles * splits;
  const std::int64_t places = static_cast<std::int64_t>(sms) * resident;
  const std::int64_t waves = (blocks + places - 1) / places;
  const double depth = static_cast<double>((slices + splits - 1) / splits) * 16;
  const std::int64_t busiest = (std::min<std::int64_t>(blocks, places) + sms - 1) / sms;  // blocks on one SM
  const double occupancy = std::min(1.0, static_cast<double>(busiest * warps) / 8);
  const double wave_fmas = static_cast<double>(busiest) * t.block_m * t.block_n * depth;
  const double fma_rate = 128 * 1.75e9 * t.efficiency * occupancy;
  double seconds = static_cast<double>(waves) * (wave_fmas / fma_rate + 1e-6);
  if (splits > 1) {
    seconds += static_cast<double>(splits + 2) * static_cast<double>(p.m * p.n * p.batch) * 4 / 4e12 + 3e-6;
  }
  return seconds;
}

// ---- The kernel of steps 17, 19 and 22 ------------------------------------------------------------

// Step 22: after every split of a tile has stored its part, the last one to arrive (an arrival counter
// a tile, zero when new and left at zero) adds the parts in split order and stores C's tile, so no
// second launch reads them: the same order of adds as sum_parts, the same bits every run whichever
// split arrives last. It reads its own part back too (from L2, where it just went) rather than keep its
// sums live beside the total: with both, the 8 × 16 tiles took 255 registers and 696 bytes of stack.
// Parts are read with ld.global.cg (L2: other SMs wrote them, and L1 is not coherent with their
// writes), and added and stored half the thread's rows at a time (all 8 rows of the 8 × 16 tiles took
// 255 registers and 200 bytes of stack); the parts' rows are 16-byte aligned and a thread's four
// columns start at a multiple of 4, so each is one 16-byte load. Rows past M were never stored and are
// neither read nor stored.
template <int ThreadN>
__device__ __forceinline__ void add_parts_if_last(const problem& p, float* c, bool c_vector_ok, const float* parts,
                                                  int splits, unsigned* arrival, std::int64_t i0, std::int64_t j0,
                                                  int row0, int column0) {
  __shared__ bool last;
  __threadfence();  // this block's part is visible before its arrival counts
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned arrived = atomicAdd(arrival, 1u);
    last = arrived == static_cast<unsigned>(splits) - 1;
    if (last) *arrival = 0;  // for the next launch on this stream
  }
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other splits' parts are read after their arrivals
  const std::int64_t ld = parts_ld(p), per_part = p.m * ld;
  SWATH_UNROLL
  for (int half = 0; half < 2; ++half) {  // rows row0 + {0..3}, then row0 + 32 + {0..3}
    float total[4][ThreadN];
    for (int part = 0; part < splits; ++part) {
      float4 four[4][ThreadN / 4];
      SWATH_UNROLL
      for (int r = 0; r < 4; ++r) {
        const std::int64_t i = i0 + row0 + r + half * 32;
        SWATH_UNROLL
        for (int j = 0; j < ThreadN / 4; ++j) {
          const std::int64_t column = j0 + column0 + 16 * j;
          four[r][j] = i < p.m && column < ld
                           ? __ldcg(reinterpret_cast<const float4*>(parts + part * per_part + i * ld + column))
                           : make_float4(0, 0, 0, 0);
        }
      }
      SWATH_UNROLL
      for (int r = 0; r < 4; ++r) {
        SWATH_UNROLL
        for (int j = 0; j < ThreadN / 4; ++j) {
          const float values[4] = {four[r][j].x, four[r][j].y, four[r][j].z, four[r][j].w};
          SWATH_UNROLL
          for (int q = 0; q < 4; ++q) total[r][4 * j + q] = part == 0 ? values[q] : total[r][4 * j + q] + values[q];
        }
      }
    }
    SWATH_UNROLL
    for (int r = 0; r < 4; ++r) {
      SWATH_UNROLL
      for (int j = 0; j < ThreadN / 4; ++j) {
        store_four(p, c, c_vector_ok, i0 + row0 + r + half * 32, j0 + column0 + 16 * j,
                   make_float4(total[r][4 * j], total[r][4 * j + 1], total[r][4 * j + 2], total[r][4 * j + 3]));
      }
    }
  }
}


// Tile blockIdx.x (row-major over C's tiles), split blockIdx.y of K's slices, product batch0 +
// blockIdx.z. One split: C's tile = alpha · sum + beta · C. More: the raw sum into the split's part.
// Step 19's Groups > 1: group g takes the g-th share of the split's slices into its own Stages stages,
// then groups 1.. leave their sums in shared memory (the stages, free by then) and group 0 adds them in
// group order and stores the tile. Its registers as ptxas wants them (145-255 a thread): capped at 128
// for two blocks an SM of 256 threads, the kernels with a transposing copy spilled 36-188 bytes a thread.
// LastAdds (step 22): the last of a tile's splits to arrive adds the parts itself (add_parts_if_last).
template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, int Groups, copy_mode AMode, copy_mode BMode,
          bool LastAdds = false>
__global__ void __launch_bounds__(Groups * pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::threads,
                                  Groups == 1 ? pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::blocks_per_sm : 1)
    split_tile_kernel(problem p, operand_view a, operand_view b, float* c, bool c_vector_ok, int splits, float* parts,
                      std::int64_t batch0, unsigned* arrivals) {
  static_assert(!LastAdds || Groups == 1, "step 22 takes step 17's blocks (its barrier is the block's)");
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  extern __shared__ __align__(16) float stages[];
  const std::int64_t batch = batch0 + blockIdx.z;
  a.data += batch * p.stride_a;
  b.data += batch * p.stride_b;
  const std::int64_t tiles_n = (p.n + BlockN - 1) / BlockN;
  // A tile that the bottom or right edge cuts is moved back inside what the kernel may read (step 13's
  // shift), so that its slices are copied unchecked like every other tile's, and it stores only the rows
  // and columns it owns. Its checked copies had cost it ~19% more instructions, in a kernel whose issue
  // is its limit (0.78 of a warp a scheduler a cycle): 992 × 992 × 1024 tn ran 69.7 µs against 52.2 at
  // 960 and 51.6 at 1024 (ncu, H200, 64 × 64 in 2 groups). Rows move by any count except where A's
  // copies are 16-byte ones; columns by a multiple of 4, which B's 16-byte copies and C's 16-byte
  // stores need, and which keeps a thread's four columns owned or not together. Not in step 22's kernel
  // (LastAdds): its last split adds the parts of the tile it was given.
  std::int64_t i0 = blockIdx.x / tiles_n * BlockM, j0 = blockIdx.x % tiles_n * BlockN;
  if constexpr (!LastAdds) {
    if (a.wide >= BlockM && (AMode != copy_mode::vector || a.wide % 4 == 0)) i0 = min(i0, a.wide - BlockM);
    if (b.wide >= BlockN && b.wide % 4 == 0) j0 = min(j0, b.wide - BlockN);
  }
  const int group = Groups == 1 ? 0 : static_cast<int>(threadIdx.x) / s::threads;
  const int t = Groups == 1 ? static_cast<int>(threadIdx.x) : static_cast<int>(threadIdx.x) % s::threads;
  const int warp = t / 32, lane = t % 32;
  const int row0 = warp / s::warps_n * s::warp_m + lane / 4 * 4;
  const int column0 = warp % s::warps_n * s::warp_n + lane % 4 * 4;
  const std::int64_t slices = slice_split<BlockK>(p.k).slices;
  const int split = static_cast<int>(blockIdx.y);
  const std::int64_t begin = slices * split / splits, end = slices * (split + 1) / splits;
  float sum[8][ThreadN] = {};
  if constexpr (Groups == 1) {
    accumulate_slices<BlockM, BlockN, BlockK, ThreadN, Stages, AMode, BMode>(a, b, stages, p.k, i0, j0, begin, end,
                                                                            row0, column0, sum);
  } else {
    const std::int64_t group_begin = begin + (end - begin) * group / Groups;
    const std::int64_t group_end = begin + (end - begin) * (group + 1) / Groups;
    accumulate_slices<BlockM, BlockN, BlockK, ThreadN, Stages, AMode, BMode, Groups>(
        a, b, stages + group * Stages * s::stage_floats, p.k, i0, j0, group_begin, group_end, row0, column0, sum);
    // A group with a slice fewer than the largest share waits on its own barrier once more, so that
    // every group has passed as many barriers when the block's barrier below joins them. Not needed by
    // the hardware (the block's barrier orders everything): compute-sanitizer's racecheck otherwise
    // reports the sums' hand-off below as a race wherever a writing group waited more often than group
    // 0 (a 20-line kernel of the same shape, correct bits every run, does the same:
    // bench/results/nvidia-h200/2026-11-28-racecheck-named-barriers.txt). One barrier of 4 warps, once.
    const std::int64_t largest_share = (end - begin + Groups - 1) / Groups;
    for (std::int64_t extra = group_end - group_begin; extra < largest_share; ++extra) {
      asm volatile("bar.sync %0, %1;" ::"r"(1 + group), "n"(s::threads) : "memory");
    }
    __syncthreads();  // every group's copies landed and its reads done: the stages are free
    // Group g ≥ 1's sums at left[((g - 1) · 8 · ThreadN + e) · threads + t]: a warp's 32 stores and
    // loads of one element are 32 consecutive floats, no bank conflict.
    constexpr int elements = 8 * ThreadN;
    static_assert((Groups - 1) * elements * s::threads <= Groups * Stages * s::stage_floats, "the sums fit the stages");
    float* left = stages;
    if (group > 0) {
      SWATH_UNROLL
      for (int e = 0; e < elements; ++e) left[((group - 1) * elements + e) * s::threads + t] = sum[e / ThreadN][e % ThreadN];
    }
    __syncthreads();
    if (group > 0) return;
    SWATH_UNROLL
    for (int g = 1; g < Groups; ++g) {
      SWATH_UNROLL
      for (int e = 0; e < elements; ++e) sum[e / ThreadN][e % ThreadN] += left[((g - 1) * elements + e) * s::threads + t];
    }
  }
  // One split: C's tile = alpha · sum + beta · C. More: the plain sum into the split's part, whose rows
  // run to parts_ld(N): its columns up to there are stored, so the edge tile's stores are 16 bytes wide
  // too (the columns past N hold sums of the zeros copied there, and no one reads them).
  // One call of store_tile for both (step 16's lesson): with a call for each, the 256 × 128 kernel was
  // ~9300 instructions against ~6300 and ran 768³ nt 16% slower on an H200 (docs/journal/gemm.md,
  // "The tile's stores").
  // The parts' pass, where it is this grid's programmatic dependent (pass=dependent), may be placed from
  // here on: its blocks take SMs as the tiles end, and wait at entry for the whole grid. Elsewhere a
  // no-op.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  problem target = p;
  float* out = c + batch * p.stride_c;
  bool out_vector_ok = c_vector_ok;
  if (splits > 1) {
    target.alpha = 1, target.beta = 0, target.n = target.ldc = parts_ld(p);
    out = parts + (static_cast<std::int64_t>(blockIdx.z) * splits + split) * p.m * target.ldc;
    out_vector_ok = reinterpret_cast<std::uintptr_t>(parts) % 16 == 0;  // cudaMallocAsync's are; rows 16 bytes apart
  }
  if constexpr (LastAdds) {
    store_tile(target, out, out_vector_ok, i0, j0, row0, column0, sum);
  } else {
    // The tile's own corner, worked out again here rather than held in registers through the slices.
    const std::int64_t own_i0 = blockIdx.x / tiles_n * BlockM, own_j0 = blockIdx.x % tiles_n * BlockN;
    store_owned(target, out, out_vector_ok, i0, j0, own_i0, own_j0, row0, column0, sum);
  }
  if constexpr (LastAdds) {
    if (splits > 1) {
      add_parts_if_last<ThreadN>(p, c + batch * p.stride_c, c_vector_ok,
                                 parts + static_cast<std::int64_t>(blockIdx.z) * splits * p.m * target.ldc, splits,
                                 arrivals + static_cast<std::int64_t>(blockIdx.z) * gridDim.x + blockIdx.x, i0, j0,
                                 row0, column0);
    }
  }
}

// How a problem is cut: a tile, a number of splits of K, and the model's estimate (17_split_k.cu: for
// each tile and split count the modeled time, the least wins; a setting given is taken as it is).
struct split_plan {
  int tile = 0;  // index into fitted_tiles
  int splits = 1;
  double seconds = 0;
};
split_plan plan_split(const problem& p, const split_choice& chosen, int sms);

// How far along its rows the kernel may read op(A) and op(B) (0: their own widths, M and N). Step 20's
// rewrites pad their rows with zeros to a whole 128 bytes, so the edge tiles' copies of 1023³ are
// 16 bytes wide as at 1024³ where they went float by float: 80.0 → 63.7 µs (H200, 64 × 64 tiles).
struct readable_widths {
  std::int64_t a = 0, b = 0;
};
void split_k_with_pad(const problem& p, const operands& x, const launch_context& launch, readable_widths readable);
void sliced_k_with_pad(const problem& p, const operands& x, const launch_context& launch, readable_widths readable);

// The tile's kernel over C's tiles, `splits` splits of K and the batch (several launches where the
// parts would pass 64 Mi floats), then the parts' sum where K is split.
template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, int Groups, bool LastAdds = false>
void launch_split(const problem& p, const operands& x, int splits, const launch_context& launch,
                  readable_widths readable) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  constexpr int threads = Groups * s::threads, shared_bytes = Groups * s::shared_bytes;
  const cudaStream_t stream = stream_of(launch);
  const std::int64_t tiles = (p.m + BlockM - 1) / BlockM * ((p.n + BlockN - 1) / BlockN);
  SWATH_EXPECTS(tiles <= 0x7fffffff, "gemm: more tiles of C than a grid holds");
  // Parts of at most 64 Mi floats (256 MiB) a launch; a larger batch is cut into several launches.
  const std::int64_t per_launch = batches_per_launch(p, splits, std::int64_t{1} << 26);
  // A product's 16-byte copies need its own rows aligned: every product's, so the strides too.
  operand_view a = view_of_a(p, x.a), b = view_of_b(p, x.b);
  a.vector_ok = a.vector_ok && (p.batch == 1 || p.stride_a % 4 == 0);
  b.vector_ok = b.vector_ok && (p.batch == 1 || p.stride_b % 4 == 0);
  a.wide = std::max(a.wide, readable.a), b.wide = std::max(b.wide, readable.b);  // the stores still stop at M, N
  const bool c_vector_ok = c_takes_vectors(p, x.c);
  const bool dependent_pass = !LastAdds && dependent_pass_of(launch);
  with_copy_modes(a, b, [&](auto a_mode, auto b_mode) {
    constexpr auto kernel =
        split_tile_kernel<BlockM, BlockN, BlockK, ThreadN, Stages, Groups, a_mode.value, b_mode.value, LastAdds>;
    (void)prepare_kernel(kernel, threads, shared_bytes);
    for (std::int64_t batch0 = 0; batch0 < p.batch; batch0 += per_launch) {
      const std::int64_t batches = std::min(per_launch, p.batch - batch0);
      float* parts = splits > 1 ? split_parts_workspace(stream, part_floats(p, batches, splits)) : nullptr;
      unsigned* arrivals = LastAdds && splits > 1 ? tile_arrivals_workspace(stream, tiles * batches) : nullptr;
      const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(splits), static_cast<unsigned>(batches));
      kernel<<<grid, threads, shared_bytes, stream>>>(p, a, b, x.c, c_vector_ok, splits, parts, batch0, arrivals);
      SWATH_CHECK_LAST();
      if (splits > 1 && !LastAdds) sum_parts(p, parts, splits, x.c, batch0, batches, launch, dependent_pass);
    }
  });
}

// Steps 17 and 22: the kernel of the plan's tile (fitted_tiles' order), one group of warps a block.
template <bool LastAdds = false>
void launch_fitted(const split_plan& plan, const problem& p, const operands& x, const launch_context& launch,
                   readable_widths readable) {
  switch (plan.tile) {
    case 0: return launch_split<256, 128, 8, 16, 3, 1, LastAdds>(p, x, plan.splits, launch, readable);
    case 1: return launch_split<128, 128, 16, 16, 4, 1, LastAdds>(p, x, plan.splits, launch, readable);
    case 2: return launch_split<64, 256, 16, 16, 4, 1, LastAdds>(p, x, plan.splits, launch, readable);
    case 3: return launch_split<128, 64, 16, 8, 4, 1, LastAdds>(p, x, plan.splits, launch, readable);
    case 4: return launch_split<64, 128, 16, 8, 4, 1, LastAdds>(p, x, plan.splits, launch, readable);
    case 5: return launch_split<64, 64, 16, 8, 4, 1, LastAdds>(p, x, plan.splits, launch, readable);
    default: return launch_split<64, 32, 16, 4, 4, 1, LastAdds>(p, x, plan.splits, launch, readable);
  }
}

}  // namespace swath::gemm::cuda
