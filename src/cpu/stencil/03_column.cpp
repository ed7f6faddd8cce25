// Step 03 (CPU stencil): the thesis's column schedule, width from the cache model: the widest c with
// u (c + s_w)(s_h + ceil(t/c)) ≤ M (schedule::stencil_column_width). Each column streams top to bottom
// with its s_h rows in cache, so each input line is fetched about once:
// F ≤ ceil(W/c) · ceil((c + S_w)/L) · (H + S_h). Expected: the traffic of row-major when row-major's
// rows fit, and s_h times less when they do not.
#include "stencil_cpu.hpp"

namespace swath::stencil::cpu {
void column(const problem& p, const operands& x, const launch_context& launch) { dispatch<schedule::column>(p, x, launch, false); }
void column_openmp(const problem& p, const operands& x, const launch_context& launch) {
  dispatch<schedule::column>(p, x, launch, true);
}
}  // namespace swath::stencil::cpu
