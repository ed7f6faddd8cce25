// swath::stencil::apply and iterate: validate, place, pick the step, run on the caller's stream.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "../stencil/iterate.hpp"
#include "../stencil/steps.hpp"
#include "dispatch.hpp"
#include "placement.hpp"
#include "swath/core/device.hpp"

namespace swath::stencil {
namespace {

using rule = api::dispatch_rule<problem, operands>;

// The conditions below with [[maybe_unused]] serve the device tables, which CPU-only builds leave out.
[[maybe_unused]] bool aligned_16(const operands& x) {
  return reinterpret_cast<std::uintptr_t>(x.in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(x.out) % 16 == 0;
}
// Steps 08-09 read tiles through the copy engine, which needs 16-byte aligned grids.
[[maybe_unused]] bool tma_wide(const problem& p, const operands& x) { return aligned_wide_star_3d(p).ok() && aligned_16(x); }
[[maybe_unused]] bool tma_star(const problem& p, const operands& x) { return aligned_star_3d(p).ok() && aligned_16(x); }
// Stars the copy engine cannot take (2D grids, periodic boundaries, rows not on 16 bytes, radius 3-4 on
// such grids): step 11 runs radius 1-2 faster than 06 and 07 everywhere measured, and 3D floats at
// radius 3 and doubles at radius 4; 07 keeps 2D stars at radius 3-4 and 06 the 3D ones left (NVIDIA
// H200, journal, "Step 11: star planes"; 509 x 509 x 511 at radius 1 in double: 11 0.650 ms, 06 0.846,
// 07 1.210; 512^3 periodic in float: 11 0.325, 07 0.477; 16383 x 8193 in float: 11 0.327, 07 0.493; 509
// wide at radius 3: 11 0.754 in float, 06 0.822, and 06 1.008 in double, 11 1.131; at radius 4: 06 0.909
// in float, 11 0.940, and 11 1.397 in double, 06 1.588; radius 4 in 2D at 16383 x 8193: 07 0.447, 11 0.488).
[[maybe_unused]] bool star_planes_pay(const problem& p, const operands&) {
  if (!any_star(p).ok()) return false;
  const bool f32 = p.type == element_type::f32;
  return p.radius <= 2 || (p.dims == 3 && (p.radius == 3 ? f32 : !f32));
}
// Step 10 runs every box at least as fast as step 06 (NVIDIA H200, docs/journal/stencil.md, "Step 10"
// to "Step 10 v3"). The last kind 06 kept, 2D boxes in double at radius 1 on widths not a whole number
// of step 10's 256-double tiles, went with v3's shifted rows (8191 x 4097: 0.163 against 0.164 ms;
// 16383 x 8193: 0.601 against 0.609; 4097^2: 0.097 against 0.123; stencil-10-v3.json).
[[maybe_unused]] bool box(const problem& p, const operands&) { return any_box(p).ok(); }
bool two_d(const problem& p, const operands&) { return p.dims == 2; }

// clang-format off
#if SWATH_WITH_CUDA
constexpr rule device_rules[] = {
  // 3D stars of radius 3-4: two output planes a step (docs/journal/stencil.md, step 09).
  {"stencil/cuda/09_plane_pairs", 90, 999, tma_wide, cuda::plane_pairs, "3D stars r 3-4: the fastest measured"},
  // 3D stars, radius 1-2: 0.93-0.98 of copy bandwidth on an H100 (docs/journal/stencil.md, step 08).
  {"stencil/cuda/08_tma_planes", 90, 999, tma_star, cuda::tma_planes, "3D stars: 0.93-0.98 of copy bandwidth"},
  // Other stars of radius 1-2 (and 3D floats at radius 3), any dimension, boundary, alignment and pitch:
  // each input plane read once into the running sums of the 2r + 1 output planes it feeds.
  {"stencil/cuda/11_star_planes", 0, 999, star_planes_pay, cuda::star_planes, "stars the copy engine cannot take, r 1-2"},
  // Boxes of any dimension, boundary, alignment and pitch: each input plane read once for its 2r + 1
  // output planes (docs/journal/stencil.md, step 10).
  {"stencil/cuda/10_box_planes", 0, 999, box, cuda::box_planes, "every box"},
  // Only stars remain: in 2D (radius 3-4), 16-byte copies ahead into shared memory.
  {"stencil/cuda/07_vector_planes", 0, 999, two_d, cuda::vector_planes, "2D stars r 3-4"},
  // The rest: 3D stars the copy engine cannot take, radius 3 in double and 4 in float.
  {"stencil/cuda/06_async_planes", 0, 999, api::always<problem, operands>, cuda::async_planes, "3D stars r 3-4 off the copy engine"},
};
#else
constexpr std::span<const rule> device_rules;  // no CUDA backend: never chosen
#endif
constexpr rule host_rules[] = {
  // 2D: the column schedule with its width from the cache model (docs/schedules.md), all cores.
  {"stencil/cpu/07_column_openmp", 0, 999, two_d, cpu::column_openmp, "2D: cache-model columns, all cores"},
  // 3D (rows back to back): (z, y) rows among the threads.
  {"stencil/cpu/09_openmp_3d", 0, 999, api::always<problem, operands>, cpu::openmp_3d, "3D, all cores"},
};
// clang-format on

problem problem_of(const char* f, const grid_layout& grid, const operator_spec& op, element_type type) {
  api::require(grid.dims == 2 || grid.dims == 3, f, "grid.dims = " + std::to_string(grid.dims) + " must be 2 or 3");
  api::require(grid.width >= 1 && grid.height >= 1 && grid.depth >= 1, f,
               "grid is " + std::to_string(grid.width) + " x " + std::to_string(grid.height) + " x " +
                   std::to_string(grid.depth) + ": every extent must be at least 1");
  api::require(grid.dims == 3 || grid.depth == 1, f, "a 2D grid (dims = 2) has depth 1");
  api::require(grid.row_pitch == 0 || grid.row_pitch >= grid.width, f,
               "grid.row_pitch = " + std::to_string(grid.row_pitch) + " is smaller than the width " +
                   std::to_string(grid.width));
  api::require(op.radius >= 1 && op.radius <= 4, f, "radius = " + std::to_string(op.radius) + " must be 1 to 4");
  api::require(std::isfinite(op.edge_value), f, "edge_value must be finite");
  problem p;
  p.grid = {grid.width, grid.height};
  p.depth = grid.depth;
  p.row_pitch = grid.row_pitch;
  p.dims = grid.dims;
  p.radius = op.radius;
  p.form = op.form;
  p.edge = op.edge;
  p.edge_value = op.edge_value;
  p.type = type;
  p.taps = default_taps(op.form, op.radius, grid.dims);
  if (!op.weights.empty()) {
    api::require(op.weights.size() == p.taps.size(), f,
                 "weights has " + std::to_string(op.weights.size()) + " values; this stencil has " +
                     std::to_string(p.taps.size()) + " taps (z, then y, then x, each from -r to r)");
    for (std::size_t k = 0; k < p.taps.size(); ++k) {
      api::require(std::isfinite(op.weights[k]), f, "weights[" + std::to_string(k) + "] is not finite");
      p.taps[k].weight = op.weights[k];
    }
  }
  return p;
}

// The grid's stored span in bytes, for the overlap check.
std::int64_t stored_bytes(const problem& p) {
  return ((p.depth - 1) * p.grid.height * p.pitch() + (p.grid.height - 1) * p.pitch() + p.grid.width) * p.element_bytes();
}

struct placed {
  api::call_site site;
  const rule* chosen;
};

placed place(const char* f, problem& p, const operands& x, stream_t stream) {
  api::require(x.in != nullptr, f, "in is null");
  api::require(x.out != nullptr, f, "out is null");
  const auto in = reinterpret_cast<std::uintptr_t>(x.in), out = reinterpret_cast<std::uintptr_t>(x.out);
  const auto bytes = static_cast<std::uintptr_t>(stored_bytes(p));
  api::require(in + bytes <= out || out + bytes <= in, f, "in and out overlap: a sweep reads in while it writes out");
  const api::call_site site = api::place_call(f, {{"in", x.in}, {"out", x.out}}, stream);
  if (!site.on_device) {
    api::require(p.row_pitch == 0 || p.row_pitch == p.grid.width, f,
                 "grids in host memory must have their rows back to back (row_pitch 0 or the width)");
    // The 2D host step's band: the cache model's for this CPU's L2 and its team (policies.cpp).
    return {site, &api::choose<problem, operands>(host_rules, 0, p, x)};
  }
  return {site, &api::choose<problem, operands>(device_rules, site.capability, p, x)};
}

template <class T>
void apply_typed(const T* in, T* out, const grid_layout& grid, const operator_spec& op, stream_t stream) {
  constexpr const char* f = "swath::stencil::apply";
  problem p = problem_of(f, grid, op, sizeof(T) == 4 ? element_type::f32 : element_type::f64);
  const operands x{in, out};
  const placed where = place(f, p, x, stream);
  const api::device_scope on_device(where.site.device);
  where.chosen->run(p, x, where.site.launch);
}

// The iterated steps' choice, where measured faster than T single sweeps (T = 64: bench/results/*/
// *iterate*, *gpu-check*; docs/stencil.md, "Iterated sweeps"): on the GPU the warp strips of step 07
// for 2D stars of radius 1-2, every boundary (H100, 16384^2: r = 1 5.9x the single-sweep roofline in
// float, 3.7x in double, r = 2 3.0x; T sweeps 0.82-0.87x); step 08's stacked strips for 3D 7-point
// stars in float and double (H100, 512^3: 2.12x and 2.38x the roofline, 2.17x and 2.43x T sweeps; step
// 04 1.53x and 1.55x, steps 05-06 no faster; H200 1.68x and 1.80x T sweeps); every other grid (3D radius
// 2: step 08 1.03x T sweeps on the H100, 0.82x on the H200; boxes; periodic 3D grids) runs T single
// sweeps. On the host, 2D grids in time-skewed bands, 3D stars and radius-1 boxes in time-skewed slabs;
// else T sweeps.
// T >= 4: fewer sweeps give passes of one or two.
using iterated_rule = api::dispatch_rule<iterated_problem, sweep_operands>;
bool deep_enough(const iterated_problem& p, const sweep_operands&) { return p.sweeps >= 4; }
[[maybe_unused]] bool strips_pay_on_gpu(const iterated_problem& p, const sweep_operands& x) {
  return deep_enough(p, x) && strips_on_gpu(p).ok();
}
[[maybe_unused]] bool stacks_pay_on_gpu(const iterated_problem& p, const sweep_operands& x) {
  const problem& s = p.sweep;
  return s.form == shape::star && s.dims == 3 && s.radius == 1 && deep_enough(p, x) && stacks_on_gpu(p).ok();
}
bool skewed_on_host(const iterated_problem& p, const sweep_operands& x) { return deep_enough(p, x) && skewable(p).ok(); }
// 3D stars in slabs (2-vCPU Xeon, 256^3, T = 16: 1.22x T sweeps at r = 1, 1.09x at r = 2 in float, 1.33x
// in double), and the 27-point box since the rows' x-face points go together (2-vCPU AMD EPYC, T = 16:
// 1.01x and 1.45x at 256^3 in float and double, 1.12x and 1.29x at 250 x 251 x 253; it had measured
// 0.93x on the Xeon before). Boxes of radius 2 stay with T sweeps: 0.97-1.31x.
bool slabs_on_host(const iterated_problem& p, const sweep_operands& x) {
  const bool pays = p.sweep.form == shape::star || p.sweep.radius == 1;
  return pays && deep_enough(p, x) && skewable_3d(p).ok();
}

// clang-format off
#if SWATH_WITH_CUDA
constexpr iterated_rule iterated_device_rules[] = {
  {"iterate/cuda/08_stacked_strips", 0, 999, stacks_pay_on_gpu, cuda::stacked_strips, "3D 7-point stars"},
  {"iterate/cuda/07_warp_strips", 0, 999, strips_pay_on_gpu, cuda::warp_strips, "2D stars r <= 2"},
  {"iterate/cuda/01_sweeps", 0, 999, api::always<iterated_problem, sweep_operands>, repeated_sweeps, "everything else"},
};
#else
constexpr std::span<const iterated_rule> iterated_device_rules;
#endif
constexpr iterated_rule iterated_host_rules[] = {
  {"iterate/cpu/02_skewed_columns", 0, 999, skewed_on_host, cpu::skewed_columns, "2D: d sweeps per pass, cache-model bands"},
  {"iterate/cpu/03_skewed_slabs", 0, 999, slabs_on_host, cpu::skewed_slabs, "3D stars, radius-1 boxes: d sweeps per pass, cache-model slabs"},
  {"iterate/cpu/01_sweeps", 0, 999, api::always<iterated_problem, sweep_operands>, repeated_sweeps, "3D boxes of radius 2-4, periodic, T < 4"},
};
// clang-format on

template <class T>
T* iterate_typed(T* a, T* b, const grid_layout& grid, const operator_spec& op, int sweeps, stream_t stream) {
  constexpr const char* f = "swath::stencil::iterate";
  api::require(sweeps >= 0, f, "sweeps = " + std::to_string(sweeps) + " is negative");
  problem p = problem_of(f, grid, op, sizeof(T) == 4 ? element_type::f32 : element_type::f64);
  // Placed once (every sweep has the same shape; the two buffers swap roles). The result lands in a
  // when T is even (a is both the input and out, b the scratch) and in b when odd (a the input and the
  // scratch): the steps' passes then never write where they read (sweep_operands).
  const placed where = place(f, p, operands{a, b}, stream);
  const api::device_scope on_device(where.site.device);
  const iterated_problem ip{p, sweeps};
  const sweep_operands x{a, sweeps % 2 == 0 ? a : b, sweeps % 2 == 0 ? b : a};
  const auto& rules = where.site.on_device ? std::span<const iterated_rule>(iterated_device_rules)
                                           : std::span<const iterated_rule>(iterated_host_rules);
  api::choose<iterated_problem, sweep_operands>(rules, where.site.capability, ip, x).run(ip, x, where.site.launch);
  return static_cast<T*>(x.out);
}

}  // namespace

void apply(const float* in, float* out, const grid_layout& grid, const operator_spec& op, stream_t stream) {
  apply_typed(in, out, grid, op, stream);
}
void apply(const double* in, double* out, const grid_layout& grid, const operator_spec& op, stream_t stream) {
  apply_typed(in, out, grid, op, stream);
}
float* iterate(float* a, float* b, const grid_layout& grid, const operator_spec& op, int sweeps, stream_t stream) {
  return iterate_typed(a, b, grid, op, sweeps, stream);
}
double* iterate(double* a, double* b, const grid_layout& grid, const operator_spec& op, int sweeps, stream_t stream) {
  return iterate_typed(a, b, grid, op, sweeps, stream);
}

}  // namespace swath::stencil
