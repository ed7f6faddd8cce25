// The gemm registry: every step, in reading order. The CPU steps come from the
// schedules issue (the thesis's column width for matrix multiplication); the CUDA progression follows
// the seed's matmul items and the SGEMM issue.
#include "policies.hpp"
#include "steps.hpp"

namespace swath::gemm {
namespace {

constexpr double per_k = tolerance_per_k;

using enum backend;
using enum ceiling_kind;

// The steps' settings (declared in policies.hpp). A row lists the ones its step reads, directly or
// through the step it falls back to (16 and 15 -> 13, 14 -> 13 -> 12 -> 11 -> 10).
constexpr parameter tile = tile_setting, column_width = column_width_setting, cache = cache_setting,
                    order = order_setting, policy = policy_setting, blocks = blocks_setting,
                    strip = strip_setting, narrow = narrow_setting, tma = tma_setting, shares = shares_setting,
                    rows = register_rows_setting, fit = fit_setting, splits = splits_setting,
                    groups = groups_setting, pass = pass_setting;

constexpr parameter every_setting[] = {tile, column_width, cache, rows, order, policy, blocks, strip, narrow, tma, shares, fit, splits, groups, pass};
constexpr parameter tiled_settings[] = {tile, cache};
constexpr parameter column_settings[] = {column_width, cache};
constexpr parameter register_tile_settings[] = {column_width, cache, rows};
constexpr parameter tunable_settings[] = {order, column_width, cache, policy};
constexpr parameter ordered_settings[] = {order, column_width, cache};
constexpr parameter stream_k_settings[] = {order, column_width, cache, blocks};
constexpr parameter strip_settings[] = {order, column_width, cache, blocks, strip};
constexpr parameter wave_fitted_settings[] = {order, column_width, cache, blocks, strip, narrow};
constexpr parameter copy_engine_settings[] = {order, column_width, cache, blocks, strip, narrow, tma};
constexpr parameter balanced_tail_settings[] = {order, column_width, cache, blocks, strip, narrow, tma, shares};
constexpr parameter split_k_settings[] = {fit, splits, pass};
constexpr parameter last_split_adds_settings[] = {fit, splits};  // no second launch to make dependent
constexpr parameter skinny_settings[] = {splits};
constexpr parameter sliced_k_settings[] = {fit, splits, groups, pass};
constexpr parameter streamed_tiles_settings[] = {fit, blocks};

// clang-format off
const variant table[] = {
  {{"gemm/cpu/01_naive",        cpu, "triple loop, k innermost, rows among OpenMP threads",     "sgemm", per_k, false, host_memory}, any_gemm, cpu::naive, gemm_work},
  {{"gemm/cpu/02_tiled",        cpu, "square cache tiles, i-k-j inside, tiles among threads",   "sgemm", per_k, false, host_memory, tiled_settings}, plain_gemm, cpu::tiled, gemm_work},
  {{"gemm/cpu/03_column",       cpu, "column bands of B and C, width c = M / (u K)",            "sgemm", per_k, false, host_memory, column_settings}, plain_gemm, cpu::column, gemm_work},
  {{"gemm/cpu/04_register_tile", cpu, "03's bands, rows x 32 tiles of C summed in registers over all of K", "sgemm", per_k, false, host_memory, register_tile_settings}, plain_gemm, cpu::register_tile, gemm_work},
  {{"gemm/cpu/05_packed_panels", cpu, "04 over packed 32-column panels of op(B); every op, alpha, beta, ld", "sgemm", per_k, false, host_memory, register_tile_settings}, any_gemm, cpu::packed_panels, gemm_work},
#if SWATH_WITH_CUDA
  {{"gemm/cuda/01_naive",       cuda, "the seed's kernel: one thread per C element, warps down C's columns", "sgemm", per_k, false, device_memory}, any_gemm, cuda::naive, gemm_work},
  {{"gemm/cuda/02_coalesced",   cuda, "warps along C's rows: B and C accesses coalesced, no transpose",      "sgemm", per_k, false, device_memory}, any_gemm, cuda::coalesced, gemm_work},
  {{"gemm/cuda/03_smem_tiled",   cuda, "32 x 32 tiles of op(A) and op(B) in shared memory, one C element a thread", "sgemm", per_k, false, device_memory}, any_gemm, cuda::smem_tiled, gemm_work},
  {{"gemm/cuda/04_blocktile_1d", cuda, "64 x 64 block tile, a column of 8 results a thread",                     "sgemm", per_k, false, device_memory}, any_gemm, cuda::blocktile_1d, gemm_work},
  {{"gemm/cuda/05_blocktile_2d", cuda, "the seed's 8 x 8 register outer product, 128 x 128 block tile",          "sgemm", per_k, false, device_memory}, any_gemm, cuda::blocktile_2d, gemm_work},
  {{"gemm/cuda/06_vectorized",  cuda, "16-byte loads, op(A) transposed in shared memory",                       "sgemm", per_k, false, device_memory}, any_gemm, cuda::vectorized, gemm_work},
  {{"gemm/cuda/07_warptiled",   cuda, "64 x 32 warp tiles, 2 x 2 blocks of 4 x 4 a lane: conflict-free reads",  "sgemm", per_k, false, device_memory}, any_gemm, cuda::warptiled, gemm_work},
  {{"gemm/cuda/08_double_buffered", cuda, "two shared panels, next slice's loads in flight", "sgemm", per_k, false, device_memory, tunable_settings}, any_gemm, cuda::double_buffered, gemm_work},
  {{"gemm/cuda/09_interior_fast_path", cuda, "08 at 128x128x16 with unpredicated 128-bit loads and stores in interior blocks", "sgemm", per_k, false, device_memory, ordered_settings}, any_gemm, cuda::interior_fast_path, gemm_work},
  {{"gemm/cuda/10_async_pipeline", cuda, "3-stage cp.async pipeline, 256 x 128 x 8 tiles, 8 x 16 a thread, any alignment", "sgemm", per_k, false, device_memory, ordered_settings}, any_gemm, cuda::async_pipeline, gemm_work},
  {{"gemm/cuda/11_stream_k",    cuda, "10's pipeline on one block an SM, the last tiles' K slices split evenly (stream-K)", "sgemm", per_k, false, device_memory, stream_k_settings}, any_gemm, cuda::stream_k, gemm_work},
  {{"gemm/cuda/12_narrow_strip", cuda, "11, and the last N mod 128 <= 8 columns as a strip that reads op(A) once", "sgemm", per_k, false, device_memory, strip_settings}, any_gemm, cuda::narrow_strip, gemm_work},
  {{"gemm/cuda/13_wave_fitted_tiles", cuda, "12, or 256 x 96 x 16 tiles (8 x 12 a thread, edge tiles moved inside) where they fill the SMs' waves and 256 x 128 do not", "sgemm", per_k, false, device_memory, wave_fitted_settings}, any_gemm, cuda::wave_fitted_tiles, gemm_work},
  {{"gemm/cuda/14_copy_engine", cuda, "13, or 10's tile and micro-tile fed by the copy engine (TMA boxes, mbarriers, no block barrier, 32-deep slices) where its tiles make 2+ full waves and the operands' rewrite is cheap", "sgemm", per_k, false, device_memory, copy_engine_settings}, any_gemm, cuda::copy_engine, gemm_work},
  {{"gemm/cuda/15_producer_warp", cuda, "14 with a producer warpgroup feeding the copy engine (setmaxnreg: 24 registers it, 240 the compute warps), 16-deep slices in 8 stages", "sgemm", per_k, false, device_memory, copy_engine_settings}, any_gemm, cuda::producer_warp, gemm_work},
  {{"gemm/cuda/16_balanced_tail", cuda, "15 for the full waves, then the last wave's tiles cut along K and shared evenly over the SMs (stream-K on 15's warps)", "sgemm", per_k, false, device_memory, balanced_tail_settings}, any_gemm, cuda::balanced_tail, gemm_work},
  {{"gemm/cuda/17_split_k", cuda, "10's pipeline at the block tile that fits the shape (256x128 to 64x64; 64x32 when asked), K split to fill the waves and the splits added in order; strided batches", "sgemm", per_k, false, device_memory, split_k_settings}, any_batched_gemm, cuda::split_k, gemm_work},
  {{"gemm/cuda/18_skinny", cuda, "M <= 16: 128 columns of op(B) a block streamed once with 16-byte loads, op(A) in shared memory, K split and added in order", "sgemm", per_k, false, device_memory, skinny_settings}, cuda::skinny_shape, cuda::skinny, gemm_work},
  {{"gemm/cuda/19_sliced_k", cuda, "17's tile with its warps doubled along K: 2 or 4 warp groups a block, each over its share of K, their sums added in shared memory; strided batches", "sgemm", per_k, false, device_memory, sliced_k_settings}, any_batched_gemm, cuda::sliced_k, gemm_work},
  {{"gemm/cuda/20_rewritten_operands", cuda, "op(A) and op(B) rewritten deep-major with 16-byte rows (a workspace), then 19 as op=tn: every copy 16 bytes; batches handed to 19", "sgemm", per_k, false, device_memory, sliced_k_settings}, any_batched_gemm, cuda::rewritten_operands, gemm_work},
  {{"gemm/cuda/21_streamed_tiles", cuda, "17's tile on a persistent grid: each block a run of equal length of the tiles of every product, their K slices streamed through one pipeline; strided batches", "sgemm", per_k, false, device_memory, streamed_tiles_settings}, any_batched_gemm, cuda::streamed_tiles, gemm_work},
  {{"gemm/cuda/22_last_split_adds", cuda, "17 with K's parts added by the last split of each tile to arrive, in split order: no second launch; strided batches", "sgemm", per_k, false, device_memory, last_split_adds_settings}, any_batched_gemm, cuda::last_split_adds, gemm_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> steps() { return table; }
std::span<const parameter> step_settings() { return every_setting; }

}  // namespace swath::gemm
