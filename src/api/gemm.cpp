// swath::sgemm and sgemm_strided_batched: validate, place, pick the step from the GPU's tuned table
// (src/gemm/dispatch/) or the rules below, run on the caller's stream.
#include <memory>

#include "../gemm/dispatch_table.hpp"
#include "../gemm/steps.hpp"
#include "dispatch.hpp"
#include "placement.hpp"

namespace swath::gemm {
namespace {

using rule = api::dispatch_rule<problem, operands>;

bool k_is_zero(const problem& p, const operands&) { return p.k == 0; }

// clang-format off
#if SWATH_WITH_CUDA
bool skinny(const problem& p, const operands&) { return cuda::skinny_shape(p).ok(); }
bool batched(const problem& p, const operands&) { return p.batch > 1; }
// Where the GPU has no tuned table, or the call is far from every shape in it (dispatch_table.hpp).
constexpr rule device_rules[] = {
  // A strided batch: step 17 (its tile and splits from its model; K = 0 too: no slices, every
  // product's C = beta C). Steps 19 and 21 take batches too, where a GPU's table chose them (step 21:
  // 1024 x 64^3 on the H200); without a table, step 17 is the one measured at every batch on both GPUs.
  {"gemm/cuda/17_split_k", 80, 999, batched, cuda::split_k, "the batched step measured on both GPUs"},
  // K = 0: C = beta C, one thread an element (no step's pipeline has a slice to fill).
  {"gemm/cuda/01_naive", 0, 999, k_is_zero, cuda::naive, "K = 0 only scales C"},
  // M <= 16: op(B) streamed once at ~0.93-1.3x cuBLAS's rate (src/gemm/dispatch/, 1-16 x 8192^2).
  {"gemm/cuda/18_skinny", 80, 999, skinny, cuda::skinny, "GEMV-like shapes are bound by reading B"},
  // Step 16 (and below it 13, where the copy engine does not pay): 1.02-1.19x cuBLAS from 4096^3 up and
  // at the ragged target shapes (src/gemm/dispatch/nvidia-h100-80gb-hbm3.json, nvidia-h200.json).
  {"gemm/cuda/16_balanced_tail", 90, 90, api::always<problem, operands>, cuda::balanced_tail,
   "fastest measured step at the large shapes on the H100 and H200"},
  // Hopper parts other than sm_90 (none yet) and the sm_90 pass: step 13 needs no sm_90a instruction.
  {"gemm/cuda/13_wave_fitted_tiles", 80, 999, api::always<problem, operands>, cuda::wave_fitted_tiles,
   "the fastest step without Hopper's arch-specific instructions"},
};
#else
constexpr std::span<const rule> device_rules;  // no CUDA backend: never chosen
#endif
constexpr rule host_rules[] = {
  {"gemm/cpu/01_naive", 0, 999, k_is_zero, cpu::naive, "K = 0 only scales C"},
  // Every form: step 04's register tiles over packed 32-column panels of op(B) (op(A) = A^T copied once
  // into rows): 1.6-5.2x step 04 on C = A B on a 2-vCPU Xeon, the transposed forms within 1.4x of it,
  // 100-400x step 01 (docs/journal/gemm.md, "CPU step 05").
  {"gemm/cpu/05_packed_panels", 0, 999, api::always<problem, operands>, cpu::packed_panels, "the CPU's fastest step, every form"},
};
// clang-format on

void check_arguments(const char* f, std::int64_t m, std::int64_t n, std::int64_t k, const problem& p, const operands& x) {
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

// The problem placed: on the CPU one product after another; on a GPU the tuned table's choice for the
// nearest shape (src/gemm/dispatch/, dispatch_table.hpp), else the architecture's rules.
void run_placed(const char* function, const problem& p, const operands& x, stream_t stream) {
  api::call_site site = api::place_call(function, {{"a", x.a}, {"b", x.b}, {"c", x.c}}, stream);
  if (!site.on_device) {
    // The CPU steps' band of B (steps 03-04) from the cache model, for this CPU's L2 and all its threads
    // (policies.cpp).
    problem one = p;
    one.batch = 1;
    const rule& chosen = api::choose<problem, operands>(host_rules, 0, one, x);  // the shape decides, not where
    for (std::int64_t batch = 0; batch < p.batch; ++batch) {
      const operands product{x.a != nullptr ? x.a + batch * p.stride_a : nullptr,
                             x.b != nullptr ? x.b + batch * p.stride_b : nullptr, x.c + batch * p.stride_c};
      chosen.run(one, product, site.launch);
    }
    return;
  }
  const api::device_scope on_device(site.device);
  const api::captured_workspaces_scope graph_frees(stream);  // inside a graph capture: the graph frees its own
  if (p.k > 0) {
    if (const dispatch_table* table = dispatch_table_for(site.device_name, site.capability)) {
      if (const auto pick = pick_step(*table, p)) {
        site.launch.settings = pick->settings;
        pick->step->run(p, x, site.launch);
        return;
      }
    }
  }
  // The same bits on every run, whatever else the GPU runs: step 16's even shares (weighted shares
  // are up to 2% faster at 4096^3, but where the parts of a tile meet then moves with the timing).
  static const auto library_settings = std::make_shared<const chosen_settings>(chosen_settings{{"shares", "even"}});
  site.launch.settings = library_settings;
  api::choose<problem, operands>(device_rules, site.capability, p, x).run(p, x, site.launch);
}

}  // namespace

void sgemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc, stream_t stream) {
  problem p;
  p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  p.trans_a = op_a == op::transpose, p.trans_b = op_b == op::transpose;
  p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  const operands x{k > 0 ? a : nullptr, k > 0 ? b : nullptr, c};
  check_arguments("swath::sgemm", m, n, k, p, x);
  if (m == 0 || n == 0) return;
  run_placed("swath::sgemm", p, x, stream);
}

void sgemm_strided_batched(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                           const float* a, std::int64_t lda, std::int64_t stride_a, const float* b, std::int64_t ldb,
                           std::int64_t stride_b, float beta, float* c, std::int64_t ldc, std::int64_t stride_c,
                           std::int64_t batch, stream_t stream) {
  constexpr const char* f = "swath::sgemm_strided_batched";
  problem p;
  p.m = m, p.n = n, p.k = k, p.alpha = alpha, p.beta = beta;
  p.trans_a = op_a == op::transpose, p.trans_b = op_b == op::transpose;
  p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  p.batch = batch, p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
  const operands x{k > 0 ? a : nullptr, k > 0 ? b : nullptr, c};
  api::require(batch >= 0, f, "batch = " + std::to_string(batch) + " is negative");
  api::require(stride_a >= 0, f, "stride_a = " + std::to_string(stride_a) + " is negative");
  api::require(stride_b >= 0, f, "stride_b = " + std::to_string(stride_b) + " is negative");
  api::require(stride_c >= 0, f, "stride_c = " + std::to_string(stride_c) + " is negative");
  check_arguments(f, m, n, k, p, x);
  if (m == 0 || n == 0 || batch == 0) return;
  const std::int64_t c_extent = (m - 1) * ldc + n;
  api::require(batch == 1 || stride_c >= c_extent, f,
               "stride_c = " + std::to_string(stride_c) + " makes the products of C overlap (C's extent is (M - 1) * ldc + N = " +
                   std::to_string(c_extent) + " elements)");
  if (batch == 1) p.stride_a = p.stride_b = p.stride_c = 0;
  run_placed(f, p, x, stream);
}

}  // namespace swath::gemm
