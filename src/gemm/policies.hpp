#pragma once
// The gemm steps' settings: each one declared once here, as a parameter record (key, allowed values,
// default, help) that the steps' registry rows list, and read by the steps through the policy readers
// below, from the settings the launch chose or else the default. The problem keeps the mathematics.
//
// Why this shape (CUB's tuning policies, adapted): a setting's value is data, found in one place, and a
// step that needs one reads it without the problem, the CLI or the lab knowing its name. Where a
// default differs by architecture it is a measured_default table with its measurement cited beside it.
//
// Adding a step with a new setting: declare the record here and its reader (or read it in the step
// file with launch.setting(record)), list it on the step's row in registry.cpp. docs/contributing.md.
#include <cstdint>
#include <string_view>

#include "swath/gemm.hpp"

namespace swath::gemm {

// ---- The records -------------------------------------------------------------------------------
inline constexpr parameter tile_setting{"tile", "model|N", "model", "the tiled step's square tile; model: three t x t float tiles in the cache, 12 t^2 <= M"};
inline constexpr parameter column_width_setting{"column_width", "model|N", "model", "the band of C's and B's columns; model: the thesis's c = M / (u K), rounded down to whole tiles on the GPU"};
inline constexpr parameter cache_setting{"cache", "L1|L2|L3|BYTES", "L2", "the cache the model fills: a level, or bytes with K|M|G; a CUDA step's L2 is the GPU's"};
inline constexpr parameter order_setting{"order", "row|column|zigzag", "row", "the order in which thread blocks take C's tiles (bands of column_width columns)"};
inline constexpr parameter policy_setting{"policy", "auto|MxNxK", "auto", "the block tile, one of the compiled tile_policies; auto: the tuning file's choice for the nearest size, else the architecture's default"};
inline constexpr parameter blocks_setting{"blocks", "auto|N", "auto", "the persistent grid (steps 11-16, 21); auto: one block per resident slot (21: the fewest blocks that give every block the same count of tiles)"};
inline constexpr parameter strip_setting{"strip", "auto|on|off", "auto", "the last N mod 128 <= 8 columns as a strip of their own; auto: where one strip block an SM pays"};
inline constexpr parameter narrow_setting{"narrow", "auto|on|off", "auto", "256 x 96 tiles; auto: where they fill the SMs' waves and 256 x 128 do not"};
inline constexpr parameter tma_setting{"tma", "auto|on|off", "auto", "the copy engine's kernels; auto: where 256 x 128 tiles make two or more waves, 90% full (step 16: any fill), and the operands' rewrite is cheap"};
inline constexpr parameter register_rows_setting{"rows", "1|2|4|8", "8", "rows of C a thread's register tile holds (32 columns wide)"};
inline constexpr parameter fit_setting{"fit", "auto|256x128|128x128|64x256|128x64|64x128|64x64|64x32", "auto", "steps 17, 19-22's block tile (19: 128x128 to 64x64; 21: 128x128, 64x128 or 64x64; 64x32: steps 17 and 22, never chosen by auto); auto: the step's model (17_split_k.cu, 19_sliced_k.cu, 21_streamed_tiles.cu; 22 as 17)"};
inline constexpr parameter splits_setting{"splits", "auto|N", "auto", "ranges K is cut into, their sums added in order; auto: the wave model's (steps 17-20, 22)"};
inline constexpr parameter groups_setting{"groups", "auto|1|2|4", "auto", "steps 19 and 20's warp groups a block, each over its share of the block's K, their sums added in group order; 1: step 17; auto: the wave model's"};
inline constexpr parameter pass_setting{"pass", "launch|dependent", "launch", "where K is split (steps 17, 19, 20): the parts' sum as a second launch behind the tiles, or the same launched as their programmatic dependent, its blocks placed as the tiles end"};
inline constexpr parameter shares_setting{"shares", "weighted|even", "weighted", "the tail's shares: weighted by when each SM frees (fastest), or even (the same bits every run)"};

// ---- The policies ------------------------------------------------------------------------------
// Which tile of C each thread block takes, in the CUDA steps that say so (schedule/block_order.hpp):
// row-major over the tile grid, or Column/Zigzag bands of column_width columns of C (rounded down to
// whole tiles, at least one). Steps 08-16.
enum class block_order : int { row, column, zigzag };
struct block_walk {
  block_order order = block_order::row;
  std::int64_t column_width = 1;  // columns of C a band (Column, Zigzag); from the GPU's L2 unless chosen
};
// order, column_width, cache. The model's width needs the cache: the launch's L2 for a CUDA step.
block_walk block_walk_of(const problem& p, const launch_context& launch);

// CPU step 02's square tile and step 03's band of columns, sized for this CPU's cache unless chosen.
std::int64_t host_tile_of(const launch_context& launch);                        // tile, cache
std::int64_t host_column_width_of(const problem& p, const launch_context& launch);  // column_width, cache

// Step 08's block tile: the chosen one, else the architecture's default (the lab writes the tuning
// file's choice into the settings when `swath tune gemm` has made one).
tile_policy tile_policy_of(const launch_context& launch);

// Step 11's persistent grid: the chosen block count, or 0 for one block per resident slot.
std::int64_t persistent_blocks_of(const launch_context& launch);

// CPU step 04's register tile: rows of C × 32 columns. Default 8: the fastest on a 2-vCPU AVX-512 Xeon
// (docs/journal/gemm.md, "CPU step 04").
int register_rows_of(const launch_context& launch);

// Whether a step takes one of its paths: when it pays (automatic), always, or never. strip (12),
// narrow (13), tma (14).
enum class path_choice : int { automatic, always, never };
path_choice path_of(const launch_context& launch, const parameter& record);

// Step 16: the tail's shares weighted by when each SM frees and how fast it runs (fastest; where the
// parts of a tile meet moves from run to run, and with it the last bits), or even (the same bits on
// every run).
bool weighted_shares_of(const launch_context& launch);

// Steps 17-18: the block tile (17) and the splits of K chosen, or 0 where the step's model decides.
struct split_choice {
  int block_m = 0, block_n = 0;  // 0: auto
  int splits = 0;                // 0: auto
};
split_choice split_choice_of(const launch_context& launch);

// Steps 17, 19 and 20: whether the parts' sum is launched as the tiles' programmatic dependent.
bool dependent_pass_of(const launch_context& launch);

// Step 19: the warp groups a block chosen (1, 2 or 4), or 0 where the step's model decides.
int warp_groups_of(const launch_context& launch);

}  // namespace swath::gemm
