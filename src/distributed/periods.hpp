#pragma once
// The geometry of one exchange period on one rank, shared by the host and device backends: which planes
// of the local buffer the period's sweeps run over, which planes it sends, and which input planes compute
// those (the faces) on their own. Planes are counted from the buffer's first (its lower halo's first).
#include <cstdint>

#include "swath/distributed.hpp"

namespace swath::distributed::detail {

struct plane_range {
  std::int64_t first = 0, last = 0;  // [first, last)
  [[nodiscard]] std::int64_t count() const { return last - first; }
};

// One face: the planes sent to a neighbour and the input planes that compute them after the period's
// sweeps. The sweeps reach r planes a sweep, so s sweeps of the sent planes need s·r planes either side
// (clipped to the local grid: where the clip is a face of the grid, the step's own boundary is the right
// one there).
struct face {
  bool present = false;  // a neighbour on this side
  plane_range sent;      // interior planes the neighbour's halo takes
  plane_range inputs;    // the sub-grid that computes them
  plane_range halo;      // this side's halo planes filled by the neighbour
};

struct period {
  int sweeps = 0;
  int next_sweeps = 0;   // the next period's (0: none, nothing to send)
  plane_range grid;      // the local grid this period's sweeps run over: interior plus depth planes a side
  face lower, upper;
};

period geometry(const slab& s, int radius, int sweeps, int next_sweeps);

// The global grid's layout with `planes` planes on the cut axis: a local grid, a face's sub-grid.
stencil::grid_layout layout_of(const stencil::grid_layout& global, std::int64_t planes);

}  // namespace swath::distributed::detail
