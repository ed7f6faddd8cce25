// The decomposition: slab sizes, one rank's slab, the exchange periods and their geometry.
#include <algorithm>
#include <numeric>
#include <string>

#include "../api/placement.hpp"
#include "periods.hpp"

namespace swath::distributed {
namespace {

std::int64_t cut_extent(const stencil::grid_layout& g) { return g.dims == 3 ? g.depth : g.height; }

}  // namespace

std::vector<std::int64_t> even_slabs(std::int64_t planes, int ranks) {
  constexpr const char* f = "swath::distributed::even_slabs";
  api::require(ranks >= 1, f, "ranks = " + std::to_string(ranks) + " must be at least 1");
  api::require(planes >= ranks, f,
               std::to_string(planes) + " planes cannot give each of " + std::to_string(ranks) + " ranks one");
  std::vector<std::int64_t> slabs(static_cast<std::size_t>(ranks), planes / ranks);
  for (std::int64_t k = 0; k < planes % ranks; ++k) ++slabs[static_cast<std::size_t>(k)];
  return slabs;
}

slab slab_of(const slab_grid& grid, const stencil::operator_spec& op, int rank) {
  constexpr const char* f = "swath::distributed::slab_of";
  const stencil::grid_layout& g = grid.global;
  api::require(g.dims == 2 || g.dims == 3, f, "grid.global.dims = " + std::to_string(g.dims) + " must be 2 or 3");
  api::require(g.width >= 1 && g.height >= 1 && g.depth >= 1, f, "every extent of the global grid must be at least 1");
  api::require(g.dims == 3 || g.depth == 1, f, "a 2D grid (dims = 2) has depth 1");
  api::require(g.row_pitch == 0 || g.row_pitch >= g.width, f,
               "grid.global.row_pitch = " + std::to_string(g.row_pitch) + " is smaller than the width " + std::to_string(g.width));
  api::require(op.radius >= 1 && op.radius <= 4, f, "radius = " + std::to_string(op.radius) + " must be 1 to 4");
  const int ranks = static_cast<int>(grid.slabs.size());
  api::require(ranks >= 1, f, "slabs is empty: give each rank's planes (even_slabs splits them evenly)");
  api::require(rank >= 0 && rank < ranks, f, "rank " + std::to_string(rank) + " is not one of the " + std::to_string(ranks) + " slabs");
  const std::int64_t extent = cut_extent(g);
  const char* axis = g.dims == 3 ? "depth" : "height";
  for (std::size_t k = 0; k < grid.slabs.size(); ++k) {
    api::require(grid.slabs[k] >= 1, f, "slabs[" + std::to_string(k) + "] = " + std::to_string(grid.slabs[k]) + " must be at least 1");
  }
  const std::int64_t total = std::accumulate(grid.slabs.begin(), grid.slabs.end(), std::int64_t{0});
  api::require(total == extent, f,
               "the slabs hold " + std::to_string(total) + " planes; the grid's " + axis + " is " + std::to_string(extent));
  const int halo = grid.halo == 0 ? op.radius : grid.halo;
  api::require(halo > 0 && halo % op.radius == 0, f,
               "halo = " + std::to_string(grid.halo) + " must be a positive multiple of the radius " + std::to_string(op.radius) +
                   " (halo / radius sweeps run between exchanges)");
  slab s;
  s.rank = rank;
  s.ranks = ranks;
  s.halo = halo;
  s.sweeps_per_exchange = halo / op.radius;
  s.planes = grid.slabs[static_cast<std::size_t>(rank)];
  s.first = std::accumulate(grid.slabs.begin(), grid.slabs.begin() + rank, std::int64_t{0});
  const std::int64_t pitch = g.row_pitch > 0 ? g.row_pitch : g.width;
  s.plane_elements = g.dims == 3 ? pitch * g.height : pitch;
  if (ranks > 1) {
    // A neighbour's halo of h planes comes from this slab alone: each slab must be at least h thick.
    for (std::size_t k = 0; k < grid.slabs.size(); ++k) {
      api::require(grid.slabs[k] >= halo, f,
                   "slabs[" + std::to_string(k) + "] = " + std::to_string(grid.slabs[k]) + " planes is thinner than the halo of " +
                       std::to_string(halo) + ": its neighbours would need planes from two ranks away (use a smaller halo, or fewer ranks)");
    }
    const bool wraps = op.edge == stencil::boundary::periodic;
    s.lower = rank > 0 ? rank - 1 : (wraps ? ranks - 1 : -1);
    s.upper = rank < ranks - 1 ? rank + 1 : (wraps ? 0 : -1);
  }
  return s;
}

std::vector<int> exchange_periods(int sweeps, int sweeps_per_exchange) {
  constexpr const char* f = "swath::distributed::exchange_periods";
  api::require(sweeps >= 0, f, "sweeps = " + std::to_string(sweeps) + " is negative");
  api::require(sweeps_per_exchange >= 1, f, "sweeps_per_exchange must be at least 1");
  std::vector<int> periods(static_cast<std::size_t>(sweeps / sweeps_per_exchange), sweeps_per_exchange);
  if (sweeps % sweeps_per_exchange != 0) periods.push_back(sweeps % sweeps_per_exchange);
  return periods;
}

namespace detail {

stencil::grid_layout layout_of(const stencil::grid_layout& global, std::int64_t planes) {
  stencil::grid_layout g = global;
  if (g.dims == 3) {
    g.depth = planes;
  } else {
    g.height = planes;
  }
  return g;
}

period geometry(const slab& s, int radius, int sweeps, int next_sweeps) {
  period p;
  p.sweeps = sweeps;
  p.next_sweeps = next_sweeps;
  const std::int64_t h = s.halo, n = s.planes;
  const std::int64_t reach = std::int64_t{sweeps} * radius, next = std::int64_t{next_sweeps} * radius;
  p.grid = {s.lower >= 0 ? h - reach : h, s.upper >= 0 ? h + n + reach : h + n};
  const auto clip = [&](plane_range r) { return plane_range{std::max(r.first, p.grid.first), std::min(r.last, p.grid.last)}; };
  if (s.lower >= 0) {
    p.lower.present = true;
    p.lower.sent = {h, h + next};
    p.lower.inputs = clip({h - reach, h + next + reach});
    p.lower.halo = {h - next, h};
  }
  if (s.upper >= 0) {
    p.upper.present = true;
    p.upper.sent = {h + n - next, h + n};
    p.upper.inputs = clip({h + n - next - reach, h + n + reach});
    p.upper.halo = {h + n, h + n + next};
  }
  return p;
}

}  // namespace detail
}  // namespace swath::distributed
