// The lab's stencil rows: the library's steps (registry.cpp) and swath::stencil::apply itself as the
// "auto" rows (no vendor library computes these stencils; the ceiling is the measured copy bandwidth).
#include "steps.hpp"
#include "swath/bench/lab_table.hpp"
#include "swath/lab/stencil.hpp"

namespace swath::stencil {
namespace {

constexpr double tolerance = float_tolerance;

using enum backend;
using enum ceiling_kind;
using enum traversal;

// The CPU call takes grids with their rows back to back, as its steps do.
support host_stencil(const problem& p) { return any_dense_stencil(p); }

void library_apply(const problem& p, const operands& x, const launch_context& launch) {
  const grid_layout grid = layout_of(p);
  const operator_spec spec = operator_of(p);
  const auto stream = static_cast<stream_t>(launch.stream);
  if (p.type == element_type::f32) {
    apply(static_cast<const float*>(x.in), static_cast<float*>(x.out), grid, spec, stream);
  } else {
    apply(static_cast<const double*>(x.in), static_cast<double*>(x.out), grid, spec, stream);
  }
}

// clang-format off
const variant lab_rows[] = {
  {{"stencil/cpu/auto",  cpu,  "swath::stencil::apply on host memory",   "stencil", tolerance, false, host_memory},   row_major, true,  host_stencil, library_apply, stencil_work},
#if SWATH_WITH_CUDA
  {{"stencil/cuda/auto", cuda, "swath::stencil::apply on device memory", "stencil", tolerance, false, device_memory}, row_major, false, any_stencil,  library_apply, stencil_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> variants() {
  static const std::vector<variant> all = bench::join_rows(steps(), lab_rows);
  return all;
}
const variant& find_variant(std::string_view name) { return find_in_table(variants(), "stencil", name); }

}  // namespace swath::stencil
