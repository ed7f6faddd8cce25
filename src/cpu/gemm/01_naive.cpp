// Step 01 (CPU gemm): the seed's triple loop, C[i][j] = Σ_k A[i][k] B[k][j], k innermost, rows of C
// shared among OpenMP threads; any op, alpha, beta and leading dimensions. B is read down a column with a stride of N floats: one cache line per
// element for every (i, j), K·M·N line fetches when B does not fit in cache. Expected: far below the
// FMA peak, and slowest on wide B.
#include "../../gemm/steps.hpp"

namespace swath::gemm::cpu {

void naive(const problem& p, const operands& x, const launch_context&) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      float sum = 0;
      for (std::int64_t k = 0; k < p.k; ++k) sum += x.a[index_of_a(p, i, k)] * x.b[index_of_b(p, k, j)];
      float& c = x.c[i * p.ldc + j];
      // beta = 0 does not read C (BLAS's rule: C may hold anything, NaN included).
      c = p.beta == 0 ? p.alpha * sum : p.alpha * sum + p.beta * c;
    }
  }
}

}  // namespace swath::gemm::cpu
