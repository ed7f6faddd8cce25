// Step 03 (CPU gemm): the thesis's column schedule. C and B are cut into bands of c columns, with c from
// the model M = u h c (h = K rows of B): the K × c slice of B stays in cache while every row of C walks
// past it, so B is fetched once in all and A once per band. Within a band the threads share the slice
// (rows of C dealt among them), as the model's t assumes. Expected: B's traffic from M·N·K/L lines
// (01) to K·N/L, A's to M·K·ceil(N/c)/L; between 02 and a tuned BLAS, since the inner loop is the same
// unblocked multiply-add.
#include <algorithm>

#include "../../gemm/policies.hpp"
#include "../../gemm/steps.hpp"

namespace swath::gemm::cpu {

void column(const problem& p, const operands& x, const launch_context& launch) {
  const std::int64_t c = host_column_width_of(p, launch);
  for (std::int64_t j0 = 0; j0 < p.n; j0 += c) {
    const std::int64_t j1 = std::min(j0 + c, p.n);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < p.m; ++i) {
      float* __restrict c_row = x.c + i * p.n;
      for (std::int64_t j = j0; j < j1; ++j) c_row[j] = 0;
      for (std::int64_t k = 0; k < p.k; ++k) {
        const float a = x.a[i * p.k + k];
        const float* __restrict b_row = x.b + k * p.n;
#pragma omp simd
        for (std::int64_t j = j0; j < j1; ++j) c_row[j] += a * b_row[j];
      }
    }
  }
}

}  // namespace swath::gemm::cpu
