// swath::sgemm: validate, place, pick the step from the dispatch table, run on the caller's stream.
#include <memory>

#include "../gemm/steps.hpp"
#include "dispatch.hpp"
#include "placement.hpp"

namespace swath::gemm {
namespace {

using rule = api::dispatch_rule<problem, operands>;

bool k_is_zero(const problem& p, const operands&) { return p.k == 0; }
bool plain_product(const problem& p, const operands&) { return plain(p); }

// clang-format off
#if SWATH_WITH_CUDA
constexpr rule device_rules[] = {
  // K = 0: C = beta C, one thread an element (no step's pipeline has a slice to fill).
  {"gemm/cuda/01_naive", 0, 999, k_is_zero, cuda::naive, "K = 0 only scales C"},
  // Step 16 (and below it 13, where the copy engine does not pay): 1.04-1.10x cuBLAS at 4096^3-8192^3,
  // 1.05-1.24x at the ragged target shapes (bench/results/nvidia-h100/, nvidia-h200/ 2026-11-26).
  {"gemm/cuda/16_balanced_tail", 90, 90, api::always<problem, operands>, cuda::balanced_tail,
   "fastest measured step at every target shape on the H100 and H200"},
  // Hopper parts other than sm_90 (none yet) and the sm_90 pass: step 13 needs no sm_90a instruction.
  {"gemm/cuda/13_wave_fitted_tiles", 80, 999, api::always<problem, operands>, cuda::wave_fitted_tiles,
   "the fastest step without Hopper's arch-specific instructions"},
};
#else
constexpr std::span<const rule> device_rules;  // no CUDA backend: never chosen
#endif
constexpr rule host_rules[] = {
  {"gemm/cpu/01_naive", 0, 999, k_is_zero, cpu::naive, "K = 0 only scales C"},
  // C = A B: the column schedule keeps a band of B in the cache (thesis chapter; docs/journal/gemm.md, CPU).
  {"gemm/cpu/03_column", 0, 999, plain_product, cpu::column, "the CPU's fastest step for C = A B"},
  {"gemm/cpu/01_naive", 0, 999, api::always<problem, operands>, cpu::naive, "the CPU step that takes every form"},
};
// clang-format on

void check_arguments(std::int64_t m, std::int64_t n, std::int64_t k, const problem& p, const operands& x) {
  constexpr const char* f = "swath::sgemm";
  api::require(m >= 0, f, "m = " + std::to_string(m) + " is negative");
  api::require(n >= 0, f, "n = " + std::to_string(n) + " is negative");
  api::require(k >= 0, f, "k = " + std::to_string(k) + " is negative");
  if (m == 0 || n == 0) return;
  const auto at_least = [&](const char* name, std::int64_t ld, std::int64_t row, const char* what) {
    api::require(ld >= std::max<std::int64_t>(row, 1), f,
                 std::string(name) + " = " + std::to_string(ld) + " is smaller than " + what + " (" +
                     std::to_string(row) + " elements)");
  };
  if (k > 0) {
    api::require(x.a != nullptr, f, "a is null");
    api::require(x.b != nullptr, f, "b is null");
    at_least("lda", p.lda, cols_of_a(p), p.trans_a ? "a row of A as stored (K x M): M" : "a row of A (M x K): K");
    at_least("ldb", p.ldb, cols_of_b(p), p.trans_b ? "a row of B as stored (N x K): K" : "a row of B (K x N): N");
  }
  api::require(x.c != nullptr, f, "c is null");
  at_least("ldc", p.ldc, n, "a row of C (M x N): N");
}

}  // namespace

void sgemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc, stream_t stream) {
  problem p;
  p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  p.trans_a = op_a == op::transpose, p.trans_b = op_b == op::transpose;
  p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  const operands x{k > 0 ? a : nullptr, k > 0 ? b : nullptr, c};
  check_arguments(m, n, k, p, x);
  if (m == 0 || n == 0) return;
  api::call_site site = api::place_call("swath::sgemm", {{"a", x.a}, {"b", x.b}, {"c", x.c}}, stream);
  if (!site.on_device) {
    // Step 03's band of B from the cache model, for this CPU's L2 and all its threads (policies.cpp).
    api::choose<problem, operands>(host_rules, 0, p, x).run(p, x, site.launch);
    return;
  }
  const api::device_scope on_device(site.device);
  // The same bits on every run, whatever else the GPU runs: step 16's even shares (weighted shares
  // are up to 2% faster at 4096^3, but where the parts of a tile meet then moves with the timing).
  static const auto library_settings = std::make_shared<const chosen_settings>(chosen_settings{{"shares", "even"}});
  site.launch.settings = library_settings;
  api::choose<problem, operands>(device_rules, site.capability, p, x).run(p, x, site.launch);
}

}  // namespace swath::gemm
