// The lab's gemm rows: the library's steps (registry.cpp), the vendor baselines, and swath::sgemm itself
// as the "auto" rows, so that every benchmark run measures the dispatch beside cuBLAS and OpenBLAS.
#include "steps.hpp"
#include "swath/bench/lab_table.hpp"
#include "swath/lab/gemm.hpp"

namespace swath::gemm {
namespace {

constexpr double per_k = tolerance_per_k;

using enum backend;
using enum ceiling_kind;

// The library call on the trial's operands: host memory for the cpu row, device memory for the cuda row.
void library_sgemm(const problem& p, const operands& x, const launch_context& launch) {
  if (p.batch != 1) {
    sgemm_strided_batched(p.trans_a ? op::transpose : op::none, p.trans_b ? op::transpose : op::none, p.m, p.n, p.k,
                          p.alpha, x.a, p.lda, p.stride_a, x.b, p.ldb, p.stride_b, p.beta, x.c, p.ldc, p.stride_c,
                          p.batch, static_cast<stream_t>(launch.stream));
    return;
  }
  sgemm(p.trans_a ? op::transpose : op::none, p.trans_b ? op::transpose : op::none, p.m, p.n, p.k, p.alpha, x.a, p.lda,
        x.b, p.ldb, p.beta, x.c, p.ldc, static_cast<stream_t>(launch.stream));
}

// clang-format off
const variant lab_rows[] = {
  {{"gemm/cpu/auto",            cpu,  "swath::sgemm (sgemm_strided_batched for batches) on host memory: the library's dispatch (docs/library.md)", "sgemm", per_k, false, host_memory},   any_batched_gemm, library_sgemm, gemm_work},
#if SWATH_WITH_OPENBLAS
  {{"gemm/cpu/vendor_openblas", cpu,  "OpenBLAS: cblas_sgemm",                                      "sgemm", per_k, true,  host_memory},   any_gemm, cpu::openblas, gemm_work},
#endif
#if SWATH_WITH_CUDA
  {{"gemm/cuda/auto",           cuda, "swath::sgemm (sgemm_strided_batched for batches) on device memory: the library's dispatch (docs/library.md)", "sgemm", per_k, false, device_memory}, any_batched_gemm, library_sgemm, gemm_work},
  {{"gemm/cuda/vendor_cublas",  cuda, "cuBLAS: cublasSgemm (cublasSgemmStridedBatched for batches), pedantic FP32 (no TF32)", "sgemm", per_k, true, device_memory}, any_batched_gemm, cuda::cublas_sgemm, gemm_work},
#endif
};
// clang-format on

}  // namespace

std::span<const variant> variants() {
  static const std::vector<variant> all = bench::join_rows(steps(), lab_rows);
  return all;
}
const variant& find_variant(std::string_view name) { return find_in_table(variants(), "gemm", name); }

}  // namespace swath::gemm
