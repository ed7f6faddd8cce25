#pragma once
// The stencil steps' settings: the CPU traversal steps' schedule parameters (the thesis's), declared
// once as parameter records that their registry rows list, and read by the steps from the settings the
// launch chose or else the defaults, which the cache model resolves. The problem keeps the mathematics.
// (gemm's policies.hpp says why this shape.)
#include <cstdint>

#include "swath/schedule/tiled.hpp"
#include "swath/stencil.hpp"

namespace swath::stencil {

// ---- The records -------------------------------------------------------------------------------
inline constexpr auto named_always = parameter::naming::always;  // every traversal row names them
inline constexpr parameter column_width_setting{"column_width", "model|N", "model", "the column band in elements; model: the cache model's width for this cache, stencil and team", named_always};
inline constexpr parameter tile_setting{"tile", "model|N|WxH", "model", "the tiled steps' tile; model: the largest square whose halo-extended block fits, (t + 2r)^2 u <= M", named_always};
inline constexpr parameter cache_setting{"cache", "L1|L2|L3|BYTES", "L2", "the cache the model fills: a level, or bytes with K|M|G", named_always};
inline constexpr parameter ways_setting{"ways", "auto|0|N", "auto", "the associativity the model keeps the width within; auto: the system's, 0: ignore it", named_always};
inline constexpr parameter schedule_settings[] = {column_width_setting, tile_setting, cache_setting, ways_setting};
// Steps 10 and 11's z-chunks (stencil/cuda/10_box_planes, 11_star_planes): a block marches `chunk` planes.
inline constexpr parameter chunk_setting{"chunk", "auto|wave|N", "auto", "planes a block marches; wave: the fewest chunks that fill the GPU's waves of blocks (plan_marching); auto: in 3D 16 at radius 1 and for stars at radius 2, 32 for other stars and boxes at radius 2, else wave; in 2D 32 at radius 1-2, else wave", parameter::naming::unless_default};
inline constexpr parameter box_planes_settings[] = {chunk_setting};

// ---- The policies ------------------------------------------------------------------------------
// The column steps' band, within the grid: the widest the cache model allows for the chosen cache,
// this stencil and the team, where `shared_column` (the OpenMP column and zigzag steps: all threads in
// one column, the model's t rows in flight), unless chosen. The CPU's caches are write-allocate, so the
// output row counts, and the width stays within one way of the cache.
std::int64_t column_width_of(const problem& p, const launch_context& launch, bool shared_column);

// The tiled steps' tile: the largest square whose halo-extended block fits, (t + 2r)² u ≤ M, unless
// chosen (N or WxH).
schedule::tiled tile_of(const problem& p, const launch_context& launch);

}  // namespace swath::stencil
