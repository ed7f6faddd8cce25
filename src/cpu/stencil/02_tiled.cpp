// Step 02 (CPU stencil): square tiles sized so a tile and its halo fit the cache:
// (t + S_w)(t + S_h) u ≤ M. Fixes row-major's refetching on wide grids, but every tile fetches its
// halo again (schedule::tiled_fetches) and starts cold at each tile row: the thesis's argument for
// columns, which keep the vertical reuse across what would be tile boundaries.
#include "stencil_cpu.hpp"

namespace swath::stencil::cpu {
void tiled(const problem& p, const operands& x, const launch_context& launch) { dispatch<schedule::tiled>(p, x, launch, false); }
void tiled_openmp(const problem& p, const operands& x, const launch_context& launch) { dispatch<schedule::tiled>(p, x, launch, true); }
}  // namespace swath::stencil::cpu
