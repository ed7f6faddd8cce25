// Step 01 (CPU stencil): row-major, the storage order. Each output row reads s_h = 2r + 1 input rows.
// While those rows fit in cache (the layer condition, u (W + s_w)(s_h + 1) ≤ M) every input line is
// fetched once; on wider grids each output row fetches its s_h rows again: s_h times the traffic
// (schedule::row_major_fetches). That is the case the column schedule (03) exists for.
#include "stencil_cpu.hpp"

namespace swath::stencil::cpu {
void naive(const problem& p, const operands& x, const launch_context& launch) { dispatch<schedule::row_major>(p, x, launch, false); }
void naive_openmp(const problem& p, const operands& x, const launch_context& launch) {
  dispatch<schedule::row_major>(p, x, launch, true);
}
}  // namespace swath::stencil::cpu
