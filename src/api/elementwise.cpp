// swath::vector_add and swath::matrix_add: validate, place, pick the step, run on the caller's stream.
#include <cstdint>

#include "../elementwise/steps.hpp"
#include "dispatch.hpp"
#include "placement.hpp"

namespace swath::elementwise {
namespace {

using rule = api::dispatch_rule<problem, operands>;

// The conditions below with [[maybe_unused]] serve the device tables, which CPU-only builds leave out.
[[maybe_unused]] bool aligned_16(const problem&, const operands& x) {
  const auto off = [](const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16; };
  return off(x.a) == 0 && off(x.b) == 0 && off(x.c) == 0;
}

// clang-format off
#if SWATH_WITH_CUDA
constexpr rule vector_device_rules[] = {
  // Bulk copies: 4425 GB/s at 2^28 on an H100, 1.001x Thrust (docs/elementwise.md); 16-byte aligned only.
  {"elementwise/cuda/07_vecadd_bulk_copy", 90, 999, aligned_16, cuda::vecadd_bulk_copy, "1.00x Thrust, at the copy ceiling"},
  // Any alignment: one float per thread, grid-stride.
  {"elementwise/cuda/03_vecadd_grid_stride", 0, 999, api::always<problem, operands>, cuda::vecadd_grid_stride, "any alignment"},
};
#else
constexpr std::span<const rule> vector_device_rules;  // no CUDA backend: never chosen
#endif
constexpr rule vector_host_rules[] = {
  {"elementwise/cpu/02_vecadd_openmp", 0, 999, api::always<problem, operands>, cpu::vecadd_openmp, "all cores"},
};
// Step 09 takes float4 rows where the operands allow it and falls back to one float a thread itself:
// 4274 GB/s, 0.993x cuBLAS geam on an H100 (docs/elementwise.md).
#if SWATH_WITH_CUDA
constexpr rule matrix_device_rules[] = {
  {"elementwise/cuda/09_matadd_vectorized", 0, 999, api::always<problem, operands>, cuda::matadd_vectorized, "0.99x cuBLAS geam"},
};
#else
constexpr std::span<const rule> matrix_device_rules;  // no CUDA backend: never chosen
#endif
constexpr rule matrix_host_rules[] = {
  {"elementwise/cpu/03_matadd_openmp", 0, 999, api::always<problem, operands>, cpu::matadd_openmp, "all cores"},
};
// clang-format on

void run(const char* function, std::span<const rule> device_rules, std::span<const rule> host_rules, const problem& p,
         const operands& x, stream_t stream) {
  const api::call_site site = api::place_call(function, {{"a", x.a}, {"b", x.b}, {"c", x.c}}, stream);
  if (!site.on_device) {
    api::choose<problem, operands>(host_rules, 0, p, x).run(p, x, site.launch);
    return;
  }
  const api::device_scope on_device(site.device);
  api::choose<problem, operands>(device_rules, site.capability, p, x).run(p, x, site.launch);
}

void require_operands(const char* function, const operands& x) {
  api::require(x.a != nullptr, function, "a is null");
  api::require(x.b != nullptr, function, "b is null");
  api::require(x.c != nullptr, function, "c is null");
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::int64_t n, stream_t stream) {
  constexpr const char* f = "swath::vector_add";
  api::require(n >= 0, f, "n = " + std::to_string(n) + " is negative");
  if (n == 0) return;
  const operands x{a, b, c};
  require_operands(f, x);
  problem p;
  p.op = operation::vector_add, p.rows = 1, p.cols = n, p.ld = n;
  run(f, vector_device_rules, vector_host_rules, p, x, stream);
}

void matrix_add(const float* a, const float* b, float* c, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                stream_t stream) {
  constexpr const char* f = "swath::matrix_add";
  api::require(rows >= 0, f, "rows = " + std::to_string(rows) + " is negative");
  api::require(cols >= 0, f, "cols = " + std::to_string(cols) + " is negative");
  if (rows == 0 || cols == 0) return;
  api::require(ld >= cols, f, "ld = " + std::to_string(ld) + " is smaller than a row (cols = " + std::to_string(cols) + ")");
  const operands x{a, b, c};
  require_operands(f, x);
  problem p;
  p.op = operation::matrix_add, p.rows = rows, p.cols = cols, p.ld = ld;
  run(f, matrix_device_rules, matrix_host_rules, p, x, stream);
}

}  // namespace swath::elementwise
