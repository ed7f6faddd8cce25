// CUDA step 14: the copy engine (TMA) fills the stages: no block barrier, no copy instructions.
// - What changed from 10/13: one thread asks for each operand's slice as one 2D box completing the
//   stage's "full" mbarrier (boxes past the edge arrive as zeros); threads arrive on "empty" after their
//   last read, and the checks are asked early so their latency hides behind the FMAs. Operands the copy
//   engine cannot read as stored are first rewritten into a workspace (part of the timed run: ~1.6% of
//   4096³). 32-deep slices, three stages; tile, micro-tile and epilogue are step 10's.
// - Settings: tma=auto (≥ 2 waves ≥ 90% full and a cheap rewrite, copy_engine_pays) | on | off;
//   otherwise step 13.
// - Prediction: the loop loses ~0.17e9 of 2.42e9 instructions and its barrier stalls: ≈ 1.0x cuBLAS at
//   4096³ and ≈ 1.01x at 8192³.
// - Outcome (H100): the first version was 1-4% slower (the blocking wait cost more than the barrier);
//   asking early with 32-deep slices: 8192³ 0.995x cuBLAS (H200 1.005x), 4096³ 0.95x. Every version:
//   docs/journal/gemm.md, step 14.
// - Since (H200): the rewrite holds 16 elements a thread in registers before it stores (it had one load
//   in flight a thread). Predicted ~29 → ~10 µs for a 2047² operand; ncu read 16.8 → 11.9 µs, and 2047³
//   on step 16 with tma=on 1-3% faster (docs/journal/gemm.md, "The rewrite in registers").
// - Since (H200): both operands rewritten in one launch where both must be (deep_major_pair_of; blockIdx.z
//   picks the operand): 2047³ 370 → 366 µs on step 20, which shares the rewrite.
#include <algorithm>
#include <string>

#include "../core/bulk_copy.cuh"
#include "../core/per_device.cuh"
#include "copy_engine.cuh"
#include "swath/core/buffer.hpp"

namespace swath::gemm::cuda {
namespace {

constexpr int threads = 256;  // 8 warps of 64 × 64, 8 × 16 results a lane

using swath::cuda::arrive;
using swath::cuda::arrive_expecting;
using swath::cuda::fence_barrier_init;
using swath::cuda::init_barrier;
using swath::cuda::phase_complete;
using swath::cuda::tensor_load_2d;
using swath::cuda::tensor_map_encoder;
using swath::cuda::wait_phase;

template <int BlockK, int Stages>
__global__ void __launch_bounds__(threads, 1)
    copy_engine_kernel(walked_problem p, const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                       float* c, bool c_vector_ok) {
  using s = engine_shape<BlockK, Stages>;
  extern __shared__ __align__(1024) float stages[];
  const unsigned stages_address = shared_address(stages);
  const unsigned full = stages_address + s::barriers_at, empty = full + Stages * 8;
  const schedule::tile_coordinate tile = tile_for_block(p, blockIdx.x, tile_m, tile_n);
  const int i0 = static_cast<int>(tile.y) * tile_m, j0 = static_cast<int>(tile.x) * tile_n;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / 2 * 64 + lane / 4 * 4, column0 = warp % 2 * 64 + lane % 4 * 4;
  const int slices = static_cast<int>((p.k + BlockK - 1) / BlockK);

  // Slice `slice` of both operands into stage `stage` (thread 0 only).
  const auto fill = [&](int stage, int slice) {
    const unsigned a_panel = stages_address + static_cast<unsigned>(stage) * s::stage_bytes;
    arrive_expecting(full + 8 * stage, s::stage_bytes);
    tensor_load_2d(a_panel, &a_map, i0, slice * BlockK, full + 8 * stage);
    tensor_load_2d(a_panel + s::a_floats * 4, &b_map, j0, slice * BlockK, full + 8 * stage);
  };
  if (t == 0) {
    for (int stage = 0; stage < Stages; ++stage) {
      init_barrier(full + 8 * stage, 1);
      init_barrier(empty + 8 * stage, threads);
    }
    fence_barrier_init();
  }
  __syncthreads();  // the only block barrier: the mbarriers exist before anyone waits on them
  if (t == 0) {
    for (int slice = 0; slice < Stages && slice < slices; ++slice) fill(slice, slice);
  }
  // Thread 0's refills: the next slice to ask for, its stage, and the parity of the "empty" phase that
  // frees that stage (its previous slice, fill_slice - Stages, read by everyone).
  int fill_slice = Stages, fill_stage = 0;
  unsigned fill_parity = 0;
  // One refill if its stage is free; `read` = the slices this thread has finished reading.
  const auto refill = [&](int read, bool blocking) {
    if (fill_slice >= slices || fill_slice - Stages >= read) return;
    if (blocking) {
      wait_phase(empty + 8 * fill_stage, fill_parity);
    } else if (!phase_complete(empty + 8 * fill_stage, fill_parity)) {
      return;
    }
    fill(fill_stage, fill_slice);
    ++fill_slice;
    if (++fill_stage == Stages) fill_stage = 0, fill_parity ^= 1;
  };

  float sum[8][16] = {};
  // Thread 0 asks twice a slice, without waiting, whether a stage is free to refill; and slice + 1
  // must have been asked for before it waits for it.
  multiply_slices<BlockK, Stages>(
      stages, full, empty, slices, row0, column0, sum,
      [&](int slice) {
        if (t == 0) refill(slice, false);
      },
      [&](int slice) {
        if (t == 0) {
          while (fill_slice <= slice + 1) refill(slice + 1, true);
        }
      });
  store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
}

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  using s = engine_shape<BlockK, Stages>;
  const cudaStream_t stream = stream_of(launch_on);
  const slice_maps maps = slice_maps_of<BlockK>(p, x, stream);
  constexpr auto kernel = copy_engine_kernel<BlockK, Stages>;
  const int blocks_per_sm = prepare_kernel(kernel, threads, s::shared_bytes);
  (void)blocks_per_sm;
  kernel<<<blocks_for_tiles(p, tile_m, tile_n), threads, s::shared_bytes, stream>>>(walked(p, launch_on), maps.a, maps.b, x.c,
                                                                                     aligned16(x.c, p.ldc));
  SWATH_CHECK_LAST();
}

// One operand as deep-major rows: row d holds op(X)[d][0..wide) (op(A) transposed, op(B) as is), then
// zeros to to_ld.
// Blocks of 32 × 8 threads over tiles of 64 × 64, stepping down K by the grid's height (65535 at most:
// K may be deeper). Each thread loads its 16 elements into registers before it stores any: the
// rewrite is a copy bound by DRAM, and with a load then a store each, as at first, a thread had one
// load in flight (the store may alias the next load), 4 bytes a thread against the ~18 KB an SM must
// have in flight to reach the copy bandwidth (~4 TB/s × ~600 ns over 132 SMs).
constexpr int rewrite_tile = 64, rewrite_rows = rewrite_tile / 8, rewrite_columns = rewrite_tile / 32;

// One operand's rewrite: its view, where its rows go and how far apart.
struct rewrite_job {
  operand_view v;
  float* to;
  std::int64_t to_ld;
};

// blockIdx.z picks the job: one launch rewrites op(A) and op(B) when both need it (their depth is K for
// both, so one grid height serves), and a block past its own operand's width has nothing to do.
__global__ void __launch_bounds__(256) deep_major_copy_kernel(rewrite_job first, rewrite_job second) {
  // A kernel launched as this one's programmatic dependent (step 16's whole tiles) may start as this
  // one's blocks end; it waits for all of them before it reads.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  __shared__ float tile[rewrite_tile][rewrite_tile + 1];  // + 1: the transposed reads fall in 32 distinct banks
  const operand_view v = blockIdx.z == 0 ? first.v : second.v;
  float* __restrict__ to = blockIdx.z == 0 ? first.to : second.to;
  const std::int64_t to_ld = blockIdx.z == 0 ? first.to_ld : second.to_ld;
  const float* __restrict__ from = v.data;
  const std::int64_t w0 = static_cast<std::int64_t>(blockIdx.x) * rewrite_tile;
  if (w0 >= to_ld) return;  // the whole block: the wider operand's grid
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  float held[rewrite_rows][rewrite_columns];
  for (std::int64_t d0 = static_cast<std::int64_t>(blockIdx.y) * rewrite_tile; d0 < v.deep;
       d0 += static_cast<std::int64_t>(gridDim.y) * rewrite_tile) {
    if (v.contiguous_in_depth) {
      // Read along the stored rows (depth), write along the wide dimension.
      SWATH_UNROLL
      for (int i = 0; i < rewrite_rows; ++i) {
        SWATH_UNROLL
        for (int j = 0; j < rewrite_columns; ++j) {
          const std::int64_t w = w0 + y + 8 * i, d = d0 + x + 32 * j;
          held[i][j] = w < v.wide && d < v.deep ? __ldg(from + w * v.ld + d) : 0.0f;
        }
      }
      SWATH_UNROLL
      for (int i = 0; i < rewrite_rows; ++i) {
        SWATH_UNROLL
        for (int j = 0; j < rewrite_columns; ++j) tile[y + 8 * i][x + 32 * j] = held[i][j];
      }
      __syncthreads();
      SWATH_UNROLL
      for (int i = 0; i < rewrite_rows; ++i) {
        SWATH_UNROLL
        for (int j = 0; j < rewrite_columns; ++j) {
          const std::int64_t d = d0 + y + 8 * i, w = w0 + x + 32 * j;
          if (w < to_ld && d < v.deep) to[d * to_ld + w] = tile[x + 32 * j][y + 8 * i];  // the pad: zeros
        }
      }
      __syncthreads();  // the tile is read before the next block of K overwrites it
    } else {
      SWATH_UNROLL
      for (int i = 0; i < rewrite_rows; ++i) {
        SWATH_UNROLL
        for (int j = 0; j < rewrite_columns; ++j) {
          const std::int64_t d = d0 + y + 8 * i, w = w0 + x + 32 * j;
          held[i][j] = w < v.wide && d < v.deep ? __ldg(from + d * v.ld + w) : 0.0f;
        }
      }
      SWATH_UNROLL
      for (int i = 0; i < rewrite_rows; ++i) {
        SWATH_UNROLL
        for (int j = 0; j < rewrite_columns; ++j) {
          const std::int64_t d = d0 + y + 8 * i, w = w0 + x + 32 * j;
          if (w < to_ld && d < v.deep) to[d * to_ld + w] = held[i][j];  // the pad: zeros
        }
      }
    }
  }
}

// The rewritten operands, in device memory of the stream's own, kept from call to call and grown when
// a larger one comes (per_device.cuh).
float* workspace_for(int which, std::int64_t floats, cudaStream_t stream) {
  const auto use = which == 0 ? swath::cuda::workspace_use::rewritten_a : swath::cuda::workspace_use::rewritten_b;
  return static_cast<float*>(swath::cuda::stream_workspace(stream, use, static_cast<std::size_t>(floats) * 4, 0));
}

// Whether the copy engine cannot read the operand as stored: its rows run along K, or they are not a
// whole number of 16 bytes apart (the copy engine's stride rule). Then deep_major_of rewrites it.
bool rewritten(const operand_view& v) { return v.contiguous_in_depth || !v.vector_ok; }

}  // namespace

namespace {

// Where op(X) goes if it is rewritten: rows of its width rounded up to a whole 128 bytes.
rewrite_job job_for(const operand_view& v, int which, cudaStream_t stream) {
  const std::int64_t ld = (v.wide + 31) / 32 * 32;
  return {v, workspace_for(which, v.deep * ld, stream), ld};
}

// The jobs' rewrite in one launch (its tiles of 64 cover each ld; two jobs share K, the grid's height;
// one job is passed as both, so the wider ld is its own).
void launch_rewrite(const rewrite_job& first, const rewrite_job& second, int jobs, cudaStream_t stream) {
  const std::int64_t tiles_wide = (std::max(first.to_ld, second.to_ld) + rewrite_tile - 1) / rewrite_tile;
  SWATH_EXPECTS(tiles_wide <= 0x7fffffff, "gemm: op(A) or op(B) is too wide for step 14's copy grid");
  const dim3 grid(static_cast<unsigned>(tiles_wide),
                  static_cast<unsigned>(std::min<std::int64_t>((first.v.deep + rewrite_tile - 1) / rewrite_tile, 65535)),
                  static_cast<unsigned>(jobs));
  deep_major_copy_kernel<<<grid, dim3(32, 8), 0, stream>>>(first, second);
  SWATH_CHECK_LAST();
}

}  // namespace

deep_major deep_major_of(const operand_view& v, int which, cudaStream_t stream) {
  if (!rewritten(v)) return {v.data, v.ld, v.wide};
  const rewrite_job job = job_for(v, which, stream);
  launch_rewrite(job, job, 1, stream);
  return {job.to, job.to_ld, job.to_ld};
}

deep_major_pair deep_major_pair_of(const operand_view& a, const operand_view& b, cudaStream_t stream) {
  if (!rewritten(a) || !rewritten(b)) return {deep_major_of(a, 0, stream), deep_major_of(b, 1, stream)};
  const rewrite_job first = job_for(a, 0, stream), second = job_for(b, 1, stream);
  launch_rewrite(first, second, 2, stream);
  return {{first.to, first.to_ld, first.to_ld}, {second.to, second.to_ld, second.to_ld}};
}

CUtensorMap slices_of(const deep_major& x, std::int64_t wide, std::int64_t deep, int box_wide, int box_deep) {
  CUtensorMap map{};
  const cuuint64_t extents[2] = {static_cast<cuuint64_t>(wide), static_cast<cuuint64_t>(deep)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(x.ld) * 4};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_wide), static_cast<cuuint32_t>(box_deep)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result = tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(x.data), extents, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  SWATH_EXPECTS(result == CUDA_SUCCESS, "gemm step 14: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(result));
  return map;
}

// tma=auto's rule, from the H100's figures (docs/journal/gemm.md, step 14): the kernel pays where
//  - its 256 × 128 tiles fill at least 90% of the SMs' waves, and at least two waves: at 2048³ (one
//    wave of 128 tiles, 64 slices each) it ran 5-10% behind step 13 in every op. Step 16, which
//    balances the last wave, needs two waves only: 3071³ and 3072³ (2.2 waves, the last 18% full) ran
//    7-16% ahead of step 13 in every op on an H200 (docs/journal/gemm.md, "The copy engine at 2-4
//    waves");
//  - the rewrite is at most ~4% of the product. It moves 8 bytes an element of each rewritten operand,
//    the product 2·M·N·K flops, at ~16 flops a byte (an H100's FMA rate over its copy bandwidth):
//    a share of 64 · elements / (M·N·K). 16384 × 1024 × 8192 with op(A) rewritten (6.3%) ran 6% behind
//    step 13; 4095³ with both rewritten (3.1%) 2% ahead, because step 13 copies B's unaligned rows
//    float by float there.
static bool copy_engine_pays(const problem& p, const operands& x, std::int64_t sms, bool tail_balanced) {
  const std::int64_t tiles = tile_grid(p, tile_m, tile_n).count();
  if (tiles < 2 * sms || (!tail_balanced && wave_fill(tiles, sms) < full_enough)) return false;
  const double rewritten_elements = (rewritten(view_of_a(p, x.a)) ? static_cast<double>(p.m) * p.k : 0.0) +
                                    (rewritten(view_of_b(p, x.b)) ? static_cast<double>(p.n) * p.k : 0.0);
  return 64.0 * rewritten_elements / (static_cast<double>(p.m) * p.n * p.k) <= 0.04;
}

bool copy_engine_chosen(const problem& p, const operands& x, const launch_context& launch_on, bool tail_balanced) {
  const path_choice chosen = path_of(launch_on, tma_setting);
  return chosen == path_choice::always ||
         (chosen == path_choice::automatic && copy_engine_pays(p, x, std::max(launch_on.sm_count, 1), tail_balanced));
}

void copy_engine(const problem& p, const operands& x, const launch_context& launch_on) {
  if (copy_engine_chosen(p, x, launch_on)) {
    // 32-deep slices in 3 stages of 48 KiB: the fastest of the eleven shapes timed (8-48 deep, 3-8
    // stages; docs/journal/gemm.md, step 14).
    launch<32, 3>(p, x, launch_on);
  } else {
    wave_fitted_tiles(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
