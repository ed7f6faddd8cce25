// The stencil registry: every step, in the order a reader should meet them. The CLI, the tests and
// the benchmarks all iterate this table.
#include "steps.hpp"

namespace swath::stencil {
namespace {

// Tolerances are for float; double runs scale them by ε_f64 / ε_f32 (family.cpp). With positive taps
// and inputs, the float sum of at most 81 products is within 81 ε_f32 ≈ 4.8e-6 of the exact value.
constexpr double tolerance = 1e-5;

using enum backend;
using enum ceiling_kind;
using enum traversal;

// clang-format off
const variant table[] = {
  {{"stencil/cpu/01_naive",         cpu, "row-major, one core",                                    "stencil2d", tolerance, false, host_memory_one_core}, row_major, false, any_stencil, cpu::naive, stencil_work},
  {{"stencil/cpu/02_tiled",         cpu, "square tiles sized to the cache, one core",              "stencil2d", tolerance, false, host_memory_one_core}, tiled, false, any_stencil, cpu::tiled, stencil_work},
  {{"stencil/cpu/03_column",        cpu, "column schedule, width from the cache model, one core",  "stencil2d", tolerance, false, host_memory_one_core}, column, false, any_stencil, cpu::column, stencil_work},
  {{"stencil/cpu/04_zigzag",        cpu, "zigzag columns (boustrophedon rows), one core",          "stencil2d", tolerance, false, host_memory_one_core}, zigzag, false, any_stencil, cpu::zigzag, stencil_work},
  {{"stencil/cpu/05_naive_openmp",  cpu, "row-major, rows split among OpenMP threads",             "stencil2d", tolerance, false, host_memory},          row_major, true, any_stencil, cpu::naive_openmp, stencil_work},
  {{"stencil/cpu/06_tiled_openmp",  cpu, "tiles split among OpenMP threads",                       "stencil2d", tolerance, false, host_memory},          tiled, true, any_stencil, cpu::tiled_openmp, stencil_work},
  {{"stencil/cpu/07_column_openmp", cpu, "threads share each column, rows dealt round-robin",      "stencil2d", tolerance, false, host_memory},          column, true, any_stencil, cpu::column_openmp, stencil_work},
  {{"stencil/cpu/08_zigzag_openmp", cpu, "threads share each zigzag column",                       "stencil2d", tolerance, false, host_memory},          zigzag, true, any_stencil, cpu::zigzag_openmp, stencil_work},
};
// clang-format on

}  // namespace

std::span<const variant> variants() { return table; }

const variant& find_variant(std::string_view name) { return find_in_table(variants(), "stencil", name); }

}  // namespace swath::stencil
