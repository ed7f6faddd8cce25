// Step 01 (iterated stencil, CPU and GPU): the reference point, T sweeps of swath::stencil::apply, each a
// pass over memory with the fastest single-sweep step for the grid (on an H100, step 08 at 0.93-0.98 of
// copy bandwidth in 3D). Its rate is the single-sweep roofline at best: copy bandwidth / (2 u) points a
// second, whatever T is. Every fused step is measured against it in the same run.
#include <cstring>

#include "../../stencil/iterate.hpp"
#include "../../stencil/steps.hpp"

namespace swath::stencil {
namespace {

template <class T>
void run_typed(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  const grid_layout grid = layout_of(p);
  const operator_spec spec = operator_of(p);
  const auto stream = static_cast<stream_t>(launch.stream);
  if (ip.sweeps == 0) {
    if (x.in == x.out) return;
#if SWATH_WITH_CUDA
    if (launch.capability > 0) return cuda::copy_grid(p, x.in, x.out, launch);
#endif
    std::memcpy(x.out, x.in, static_cast<std::size_t>(p.stored_elements()) * sizeof(T));
    return;
  }
  for (int sweep = 0; sweep < ip.sweeps; ++sweep) {
    const pass_buffers at = pass_at(x, sweep, ip.sweeps);
    apply(static_cast<const T*>(at.source), static_cast<T*>(at.target), grid, spec, stream);
  }
}

}  // namespace

void repeated_sweeps(const iterated_problem& p, const sweep_operands& x, const launch_context& launch) {
  if (p.sweep.type == element_type::f32) {
    run_typed<float>(p, x, launch);
  } else {
    run_typed<double>(p, x, launch);
  }
}

}  // namespace swath::stencil
