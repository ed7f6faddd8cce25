// Step 04 (CPU stencil): the zigzag variation, same columns as 03, alternate rows reversed and
// alternate columns walked bottom-up (schedule/zigzag.hpp). It changes which lines are touched first,
// not how many: expected the same fetch count as 03, and a small gain at most, in the lower cache
// levels (the thesis's note on L1 when column widths are not powers of two).
#include "stencil_cpu.hpp"

namespace swath::stencil::cpu {
void zigzag(const problem& p, const operands& x, const launch_context& launch) { dispatch<schedule::zigzag>(p, x, launch, false); }
void zigzag_openmp(const problem& p, const operands& x, const launch_context& launch) {
  dispatch<schedule::zigzag>(p, x, launch, true);
}
}  // namespace swath::stencil::cpu
