#pragma once
// The matrix-multiplication family: C = A · B in float32, row-major, A is M × K, B is K × N, C is
// M × N, any M, N, K ≥ 1. 2·M·N·K flops; the fewest bytes are one read of A and B and one write of C,
// 4 (MK + KN + MN). The CPU steps follow the thesis's matrix-multiplication section: B is read down its
// columns, so the order in which C's columns are visited decides how often B leaves the cache.
#include <cstdint>
#include <span>
#include <string>

#include "swath/bench/family.hpp"
#include "swath/registry.hpp"

namespace swath::gemm {

struct problem {
  std::int64_t m = 1, n = 1, k = 1;
  std::int64_t column_width = 0;  // the column step's band of C and B columns (from the cache model unless given)
  std::int64_t tile = 0;          // the tiled step's square tile
  double cache_bytes = 0;
};

struct operands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
};

struct variant {
  variant_info info;
  support (*supports)(const problem&) = nullptr;
  void (*run)(const problem&, const operands&, const launch_context&) = nullptr;
  work_amount (*work)(const problem&) = nullptr;
};

work_amount gemm_work(const problem& p);
support any_gemm(const problem& p);

// Relative tolerance for float accumulation over K positive products: each sum is within K · 2^-24 of
// the exact value; twice that passes.
double tolerance(const problem& p);

std::span<const variant> variants();
const variant& find_variant(std::string_view name);
problem make_problem(const variant& v, const bench::problem_spec& spec);
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);
const bench::family& family();

}  // namespace swath::gemm
