// The iterated steps' shared parts: passes, their buffers, support, work and the policies' readers.
#include "iterate.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "policies.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::stencil {

std::vector<int> plan_passes(int sweeps, int depth, bool same_parity) {
  std::vector<int> passes;
  if (sweeps <= 0) return passes;
  depth = std::max(depth, 1);
  int count = (sweeps + depth - 1) / depth;
  if (same_parity && count % 2 != sweeps % 2) ++count;  // count < sweeps here: a count equal to T has T's parity
  for (int k = 0; k < count; ++k) passes.push_back(sweeps / count + (k < sweeps % count ? 1 : 0));
  return passes;
}

pass_buffers pass_at(const sweep_operands& x, int pass, int passes) {
  void* target = (passes - 1 - pass) % 2 == 0 ? x.out : x.scratch;
  void* other = target == x.out ? x.scratch : x.out;
  return {pass == 0 ? x.in : other, target};
}

work_amount iterated_work(const iterated_problem& p) {
  const work_amount one = stencil_work(p.sweep);
  const auto sweeps = static_cast<double>(p.sweeps);
  return {one.bytes * sweeps, one.flops * sweeps, one.items * sweeps};
}

support any_iterated(const iterated_problem& p) {
  if (p.sweeps < 0) return support::no("sweeps must be at least 0");
  return any_stencil(p.sweep);
}

support skewable(const iterated_problem& p) {
  if (p.sweep.dims != 2) return support::no("time-skewed columns are 2D (3D grids: iterate/cpu/03_skewed_slabs)");
  if (p.sweep.edge == boundary::periodic) return support::no("periodic grids wrap the band's rows: not skewed");
  if (p.sweep.pitch() != p.sweep.grid.width) return support::no("host grids have their rows back to back");
  return any_iterated(p);
}

support skewable_3d(const iterated_problem& p) {
  if (p.sweep.dims != 3) return support::no("time-skewed slabs are 3D (2D grids: iterate/cpu/02_skewed_columns)");
  if (p.sweep.edge == boundary::periodic) return support::no("periodic grids wrap the slab's planes: not skewed");
  if (p.sweep.pitch() != p.sweep.grid.width) return support::no("host grids have their rows back to back");
  return any_iterated(p);
}

support fusable_on_gpu(const iterated_problem& p) {
  const problem& s = p.sweep;
  if (s.edge == boundary::periodic) {
    return support::no("periodic grids need the far side's planes: the fused step streams one way");
  }
  if (fused_depth_limit(s.dims, s.radius, s.form, static_cast<int>(s.element_bytes())) < 2) {
    return support::no("a pass of two sweeps of this box does not fit the step's shared memory");
  }
  if (s.grid.width >= (1LL << 31) || s.grid.height >= (1LL << 31) || s.depth >= (1LL << 31)) {
    return support::no("each extent must be below 2^31");
  }
  return any_iterated(p);
}

support rows_on_gpu(const iterated_problem& p) {
  const problem& s = p.sweep;
  if (s.dims != 3 || s.form != shape::star) return support::no("step 03 takes 3D stars");
  if (register_rows_depth_limit(s.radius, static_cast<int>(s.element_bytes())) < 2) return support::no("step 03 takes radius 1 and 2");
  return fusable_on_gpu(p);
}

support marches_on_gpu(const iterated_problem& p) {
  const problem& s = p.sweep;
  if (s.dims != 3 || s.form != shape::star) return support::no("steps 04-06 take 3D stars");
  if (march_depth_limit(s.radius, static_cast<int>(s.element_bytes())) < 2) return support::no("steps 04-06 take radius 1 and 2");
  return fusable_on_gpu(p);
}

support strips_on_gpu(const iterated_problem& p) {
  const problem& s = p.sweep;
  if (s.dims != 2 || s.form != shape::star) return support::no("step 07 takes 2D stars");
  if (strip_depth_limit(s.radius, static_cast<int>(s.element_bytes())) < 2) return support::no("step 07 takes radius 1 and 2");
  if (s.grid.width >= (1LL << 31) || s.grid.height >= (1LL << 31)) return support::no("each extent must be below 2^31");
  return any_iterated(p);
}

support stacks_on_gpu(const iterated_problem& p) {
  const problem& s = p.sweep;
  if (s.dims != 3 || s.form != shape::star) return support::no("step 08 takes 3D stars");
  if (stack_depth_limit(s.radius, static_cast<int>(s.element_bytes())) < 1) return support::no("step 08 takes radius 1 and 2");
  return fusable_on_gpu(p);
}

namespace {

// The model of steps 02 and 03: the pass depth L that maximises the step's rate, the lesser of what DRAM
// and the SM's shared-memory and shuffle pipe allow. DRAM: a pass reads and writes each point once
// (the tile's halo comes from L2), so L sweeps cost 2u bytes a point: L · B / (2u) points a second. The
// pipe: each sweep of each column of the tile costs `accesses` shared-memory accesses or shuffles, 32
// lanes a clock an SM for 4-byte words (half for 8-byte), and only the tile's middle, (b_x - 2Lr)
// (b_y - 2Lr) of b_x b_y, is kept. B is Hopper's measured copy bandwidth; the clock 1.75 GHz. Ties go
// to the shallower pass.
constexpr measured_default<double> copy_bandwidth[] = {
    {90, 999, 3.0e12, "bench/results/nvidia-h100: the copy ceiling of every GPU run, 2.95-3.05 TB/s"},
    {0, 999, 1.5e12, "no measurement: a guess for pre-Hopper GPUs"},
};

// Lane-instructions a second the SMs issue at 0.7 of their 4 warp-instructions a clock (1.75 GHz): what
// the models of steps 04-08 divide a point-sweep's instruction count by.
double issued_per_s(const launch_context& launch) { return std::max(launch.sm_count, 1) * 4.0 * 0.7 * 1.75e9 * 32.0; }

struct fused_costs {
  fused_block tile;
  double accesses;  // shared-memory accesses and shuffles a column a sweep
  int limit;        // the deepest compiled pass
};

double modelled_rate(const problem& p, int depth, const fused_costs& costs, int sm_count, double bandwidth) {
  const int r = p.radius, ry = p.dims == 3 ? r : 0;
  const double kept = static_cast<double>((costs.tile.x - 2 * depth * r) * (costs.tile.y - 2 * depth * ry)) /
                      static_cast<double>(costs.tile.x * costs.tile.y);
  if (kept <= 0) return 0;
  const auto u = static_cast<double>(p.element_bytes());
  const double dram = depth * bandwidth / (2 * u);
  const double lanes_per_s = std::max(sm_count, 1) * 1.75e9 * 32 * (u == 4 ? 1.0 : 0.5);
  return std::min(dram, kept * lanes_per_s / costs.accesses);
}

int modelled_depth(const problem& p, const launch_context& launch, const fused_costs& costs) {
  const double bandwidth = default_for<double>(copy_bandwidth, launch.capability);
  int best = std::min(costs.limit, 2);
  double best_rate = 0;
  for (int depth = 2; depth <= costs.limit; ++depth) {
    const double rate = modelled_rate(p, depth, costs, launch.sm_count, bandwidth);
    if (rate > best_rate * 1.02) best = depth, best_rate = rate;
  }
  return best;
}

// The `fused` setting: the model's depth (`model()`), or the chosen one within the compiled `limit`.
template <class Model>
int chosen_depth(const launch_context& launch, int limit, const char* step, const Model& model) {
  const std::string_view chosen = launch.setting(fused_setting);
  if (chosen == "model") return model();
  const auto depth = whole_setting(fused_setting.key, chosen);
  if (depth > limit) {
    throw usage_error("fused=" + std::string(chosen) + ": " + step + " is compiled for at most " +
                      std::to_string(limit) + " sweeps a pass at this radius, shape, dimension and type");
  }
  return static_cast<int>(depth);
}

int chosen_depth(const problem& p, const launch_context& launch, const fused_costs& costs, const char* step) {
  return chosen_depth(launch, costs.limit, step, [&] { return modelled_depth(p, launch, costs); });
}

}  // namespace

// Step 02: stars write their point and read 2r x and 2r y taps (z from registers); boxes read every tap
// but their column's own.
int fused_depth_of(const problem& p, const launch_context& launch) {
  const int r = p.radius, ry = p.dims == 3 ? r : 0;
  const double reads = p.form == shape::star ? 2.0 * r + 2.0 * ry : static_cast<double>(p.taps.size()) - (2 * r + 1);
  const fused_costs costs{fused_block_of(p.dims), reads + 1,
                          fused_depth_limit(p.dims, p.radius, p.form, static_cast<int>(p.element_bytes()))};
  return chosen_depth(p, launch, costs, "step 02");
}

// Step 03: 2r shuffles for the x taps; for the y taps, 2r rows written and 2r read per 4 rows.
int register_rows_depth_of(const problem& p, const launch_context& launch) {
  const fused_costs costs{{32, 32}, 2.0 * p.radius + p.radius, register_rows_depth_limit(p.radius, static_cast<int>(p.element_bytes()))};
  return chosen_depth(p, launch, costs, "step 03");
}

// Steps 04-06: a pass's time per kept point is the sum, not the larger, of streaming it (2u bytes at
// the copy bandwidth B) and computing its sweeps: L c(L) point-sweeps, c(L) the tile's computed points
// per kept point (a warp is a row of threads: it skips the sweeps none of its rows is needed for, sweep
// τ needing rows τr .. tile_y - τr - 1; all 32 lanes compute), each costing `per_point` instructions at
// 0.7 of the SM's 4 warp-instructions a clock (ncu on step 04: 2.79 a clock issued, 0.70). The sum fits
// the H200's sweep of L for step 04 (512^3 float, r = 1, T = 64: 470, 564, 583, 561 G point-sweeps/s at
// L = 2-5, within 3% of a + b L c(L)): each block marches in step with its barriers, so its loads do not
// overlap its arithmetic. per_point, for a thread's `rows` points a sweep: a shared store each, 2r x
// loads each, r(r + 1) y loads (the taps that fall outside the thread's rows; the rest come from
// registers), 6r + 1 FMAs each (a double FMA takes the pipe twice) and about 12 of bookkeeping (the
// barrier, the loads and stores and their planes), over the rows.
int march_depth_of(const problem& p, const launch_context& launch, march_layout layout) {
  const int r = p.radius, limit = march_depth_limit(r, static_cast<int>(p.element_bytes()));
  return chosen_depth(launch, limit, "steps 04-06", [&] {
    const auto u = static_cast<double>(p.element_bytes());
    const double fma_cost = u == 4 ? 1.0 : 2.0;
    const int rows = layout.rows, tile_y = layout.tile_y();
    const double per_point = (rows * (1.0 + 2.0 * r + (6 * r + 1) * fma_cost) + r * (r + 1.0) + 12.0) / rows;
    const double issue = issued_per_s(launch);
    const double stream = 2 * u / default_for<double>(copy_bandwidth, launch.capability);  // seconds a point a pass
    int best = std::min(limit, 2);
    double best_rate = 0;
    for (int depth = 2; depth <= limit; ++depth) {
      const int kept_x = 32 - 2 * depth * r, kept_y = tile_y - 2 * depth * r;
      if (kept_x <= 0 || kept_y <= 0) break;
      double computed = 0;  // point-sweeps the tile computes, per kept point and sweep
      for (int sweep = 1; sweep <= depth; ++sweep) {
        for (int row0 = 0; row0 < tile_y; row0 += rows) {
          const bool needed = row0 + rows - 1 >= sweep * r && row0 <= tile_y - 1 - sweep * r;
          if (needed) computed += 32.0 * rows;
        }
      }
      computed /= static_cast<double>(depth) * kept_x * kept_y;
      const double rate = depth / (stream + depth * computed * per_point / issue);
      if (rate > best_rate * 1.02) best = depth, best_rate = rate;
    }
    return best;
  });
}

// The CPU's pass depth: chosen, else 4 (the traffic falls as 1/d while the band narrows as 1/(d + 1); at
// d = 4 it still spans thousands of points), fewer where the rows in flight would outnumber the cache's
// ways. Rows whose stride is near a multiple of a way (4096 floats, 16387 ...) put the same x of every
// row in one set; a pass of d sweeps at radius r reads about 2r + 1 + d (r + 1) rows at once (7 at r = 1,
// d = 2; 11 at d = 4), and more than the ways thrash: measured under cachegrind at 16387 x 256 with an
// 8-way cache, d = 4 missed 1.24x what four single sweeps did, d = 2 0.51x (docs/journal/stencil.md).
int skewed_depth_of(const problem& p, const launch_context& launch) {
  const std::string_view chosen = launch.setting(fused_setting);
  if (chosen != "model") return static_cast<int>(std::min<std::int64_t>(whole_setting(fused_setting.key, chosen), 64));
  const int ways = parse_cache_size(std::string(launch.setting(cache_setting))).ways;
  int depth = 4;
  while (ways > 0 && depth > 1 && 2 * p.radius + 1 + depth * (p.radius + 1) > ways) --depth;
  return depth;
}

namespace {

// The skewed steps' band across `across` positions, each `unit_bytes` wide (a point in 2D, a grid row in
// 3D): chosen, else the widest within the cache (schedule::skewed_column_width) and narrow enough to give
// each thread one (a 2-vCPU Xeon's 2 MiB L2 holds a band wider than a 4099-point grid, which would leave
// one thread idle).
std::int64_t skewed_width(const problem& p, int depth, const launch_context& launch, std::int64_t unit_bytes, std::int64_t across) {
  const std::string_view chosen = launch.setting(column_width_setting);
  std::int64_t width = 0;
  if (chosen == "model") {
    const cache_size cache = parse_cache_size(std::string(launch.setting(cache_setting)));
    const schedule::stencil_footprint footprint{cache.bytes, unit_bytes, p.extent(), p.extent(), 1, 1, 0};
    width = schedule::skewed_column_width(footprint, depth);
    const std::int64_t threads = std::max(launch.cpu_threads, 1);
    width = std::min(width, (across + static_cast<std::int64_t>(depth) * p.radius + threads - 1) / threads);
  } else {
    width = whole_setting(column_width_setting.key, chosen);
  }
  return std::clamp<std::int64_t>(width, 1, std::max<std::int64_t>(across, 1));
}

}  // namespace

std::int64_t skewed_band_of(const problem& p, int depth, const launch_context& launch) {
  return skewed_width(p, depth, launch, p.element_bytes(), p.grid.width);
}

// The 3D step's slab: step 02's band model with a grid row (W u bytes) for an element, rows of y for
// columns and planes of z for rows: (d + 1)(2r + 1) planes of c + (2 + d) r rows in flight.
std::int64_t skewed_slab_of(const problem& p, int depth, const launch_context& launch) {
  return skewed_width(p, depth, launch, p.grid.width * p.element_bytes(), p.grid.height);
}

namespace {

// The depth (2 .. limit) whose passes take the least time for T sweeps, from a pass's time per kept
// point at each depth: T is cut into whole passes (plan_passes), so the deepest pass is not always the
// fastest T. Ties (within 2%) go to the shallower.
template <class PassTime>
int least_time_depth(int sweeps, int limit, const PassTime& pass_time) {
  sweeps = std::max(sweeps, 1);
  int best = std::min(limit, 2);
  double best_time = 0;
  for (int depth = 2; depth <= limit; ++depth) {
    double time = 0;
    for (const int d : plan_passes(sweeps, depth)) time += pass_time(d);
    if (best_time == 0 || time < best_time / 1.02) best = depth, best_time = time;
  }
  return best;
}

}  // namespace

// Step 07: each warp's strip streams its points independently of the others (no barrier), so a pass's
// time per kept point is the larger, not the sum, of streaming it (2u bytes at the copy bandwidth B; the
// halo columns and the segments' overlapping rows are read again by the next strip, mostly from L2) and
// computing its sweeps: L (128 / kept) point-sweeps for each kept point, each costing `per_point`
// instructions at 0.7 of the SM's 4 warp-instructions a clock: 4r + 1 FMAs (a double FMA takes the
// pipe twice), 2r shuffles for 4 points, and about 2 of bookkeeping (the pass's loads and stores and the
// queue moves the unrolling leaves). Float r = 1: 7.5 instructions, compute-bound past L = 7 on an H100.
// The depth minimises the T sweeps' time, not a pass's rate: T is cut into whole passes (plan_passes),
// so at T = 64 a depth of 7 costs 10 passes where 8 costs 8 (measured on an H100: 13.3 against 10.9 ms).
int strip_depth_of(const iterated_problem& ip, const launch_context& launch) {
  const problem& p = ip.sweep;
  const int r = p.radius, limit = strip_depth_limit(r, static_cast<int>(p.element_bytes()));
  return chosen_depth(launch, limit, "step 07", [&] {
    const auto u = static_cast<double>(p.element_bytes());
    const double per_point = (4 * r + 1) * (u == 4 ? 1.0 : 2.0) + 2.0 * r / strip_columns + 2.0;
    const double issue = issued_per_s(launch);
    const double stream = 2 * u / default_for<double>(copy_bandwidth, launch.capability);
    const auto pass_time = [&](int depth) {  // a pass's seconds per kept point
      const double computed = static_cast<double>(strip_width) / strip_kept(depth, r);
      return std::max(stream, depth * computed * per_point / issue);
    };
    return least_time_depth(ip.sweeps, limit, pass_time);
  });
}

// Step 08: as step 07's model, over the stacked strips' tile: a block's loads run ahead of its march by
// cp.async, so a pass's time per kept point is again the larger of streaming it and computing its sweeps
// over the tile, (32 V / kept x) (tile y / kept y) computed for each kept one. A point-sweep costs 6r + 1
// FMAs (a double FMA takes the pipe twice) and, for a thread's V points a row, 2r shuffles, the rows
// around its own from shared memory ((rows + 2r) / rows loads a row, and r - 1 of the planes above), a
// store of its result, and about one instruction of bookkeeping a point (the barrier, the copies, the
// unrolled march's few others). Float r = 1: 8.5 instructions; L = 4 keeps 120 x 24 of 128 x 32.
int stack_depth_of(const iterated_problem& ip, const launch_context& launch) {
  const problem& p = ip.sweep;
  const int r = p.radius, u = static_cast<int>(p.element_bytes()), limit = stack_depth_limit(r, u);
  return chosen_depth(launch, limit, "step 08", [&] {
    const stack_layout layout = stack_layout_of(r);
    const double loads = (layout.rows + 2.0 * r) / layout.rows + (r - 1);
    const double per_point = (6 * r + 1) * (u == 4 ? 1.0 : 2.0) + (2.0 * r + loads + 1.0) / stack_columns(u) + 1.0;
    const double issue = issued_per_s(launch);
    const double stream = 2.0 * u / default_for<double>(copy_bandwidth, launch.capability);
    const auto pass_time = [&](int depth) {  // a pass's seconds per kept point
      const double computed = static_cast<double>(stack_width(u)) / stack_kept_x(depth, r, u) * stack_tile_y(r) / stack_kept_y(depth, r);
      return std::max(stream, depth * computed * per_point / issue);
    };
    return least_time_depth(ip.sweeps, limit, pass_time);
  });
}

int stack_cluster_of(const launch_context& launch, int ny, int depth, int radius, std::span<const int> resident) {
  const std::string_view chosen = launch.setting(cluster_setting);
  if (chosen != "model") {
    const auto cluster = whole_setting(cluster_setting.key, chosen);
    if (cluster > stack_cluster_limit) {
      throw usage_error("cluster=" + std::string(chosen) + ": at most " + std::to_string(stack_cluster_limit) + " blocks a cluster");
    }
    return static_cast<int>(cluster);
  }
  int best = 1;
  double best_rows = 0;
  for (int cluster = 1; cluster <= 4 && cluster <= static_cast<int>(resident.size()); ++cluster) {
    const int kept = stack_cluster_kept_y(depth, radius, cluster);
    const int blocks = resident[static_cast<std::size_t>(cluster - 1)];
    if (cluster * stack_tile_y(radius) > ny || kept < 1 || blocks < 1) continue;
    const double rows = static_cast<double>((ny + kept - 1) / kept) * cluster * stack_tile_y(radius) / blocks;
    if (best_rows == 0 || rows < best_rows * 0.999) {
      best = cluster;
      best_rows = rows;
    }
  }
  return best;
}

}  // namespace swath::stencil
