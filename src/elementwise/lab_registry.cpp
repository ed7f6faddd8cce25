// The lab's elementwise rows: the library's steps (registry.cpp), the vendor baselines, and
// swath::vector_add and swath::matrix_add themselves as the "auto" rows.
#include "steps.hpp"
#include "swath/bench/lab_table.hpp"
#include "swath/lab/elementwise.hpp"

namespace swath::elementwise {
namespace {

void library_vector_add(const problem& p, const operands& x, const launch_context& launch) {
  vector_add(x.a, x.b, x.c, p.count(), static_cast<stream_t>(launch.stream));
}
void library_matrix_add(const problem& p, const operands& x, const launch_context& launch) {
  matrix_add(x.a, x.b, x.c, p.rows, p.cols, p.ld, static_cast<stream_t>(launch.stream));
}

using enum backend;
using enum ceiling_kind;
using enum operation;
using enum memory_kind;

// clang-format off
const variant lab_rows[] = {
  {{"elementwise/cpu/auto_vecadd",         cpu,  "swath::vector_add on host memory",                "vector_add", add_tolerance, false, host_memory},   vector_add, host, any_size, library_vector_add, add_work},
  {{"elementwise/cpu/auto_matadd",         cpu,  "swath::matrix_add on host memory",                "matrix_add", add_tolerance, false, host_memory},   matrix_add, host, any_size, library_matrix_add, add_work},
#if SWATH_WITH_CUDA
  {{"elementwise/cuda/auto_vecadd",        cuda, "swath::vector_add on device memory",              "vector_add", add_tolerance, false, device_memory}, vector_add, host, any_size, library_vector_add, add_work},
  {{"elementwise/cuda/auto_matadd",        cuda, "swath::matrix_add on device memory",              "matrix_add", add_tolerance, false, device_memory}, matrix_add, host, any_size, library_matrix_add, add_work},
  {{"elementwise/cuda/vendor_thrust",      cuda, "Thrust: thrust::transform(a, b, c, plus)",        "vector_add", add_tolerance, true,  device_memory}, vector_add, host, any_size, cuda::thrust_transform, add_work},
  {{"elementwise/cuda/vendor_cublas_geam", cuda, "cuBLAS: cublasSgeam, C = A + B",                  "matrix_add", add_tolerance, true,  device_memory}, matrix_add, host, any_size, cuda::cublas_geam, add_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> variants() {
  static const std::vector<variant> all = bench::join_rows(steps(), lab_rows);
  return all;
}
const variant& find_variant(std::string_view name) { return find_in_table(variants(), "elementwise", name); }

}  // namespace swath::elementwise
