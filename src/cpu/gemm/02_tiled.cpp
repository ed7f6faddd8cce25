// Step 02 (CPU gemm): square tiles of C, A and B sized so three tiles fit the cache (3 t² u ≤ M), with
// the i-k-j order inside a tile so the innermost loop runs along rows of B and C (contiguous, vectorised).
// Tiles of C are shared among OpenMP threads. Expected: B and A re-read once per tile instead of per
// element; a large gain over 01, well under a tuned BLAS (no register blocking, no packing).
#include <algorithm>

#include "../../gemm/policies.hpp"
#include "../../gemm/steps.hpp"

namespace swath::gemm::cpu {

void tiled(const problem& p, const operands& x, const launch_context& launch) {
  const std::int64_t t = host_tile_of(launch);
  const std::int64_t row_tiles = (p.m + t - 1) / t;
  const std::int64_t col_tiles = (p.n + t - 1) / t;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t ti = 0; ti < row_tiles; ++ti) {
    for (std::int64_t tj = 0; tj < col_tiles; ++tj) {
      const std::int64_t i0 = ti * t, i1 = std::min(i0 + t, p.m);
      const std::int64_t j0 = tj * t, j1 = std::min(j0 + t, p.n);
      for (std::int64_t i = i0; i < i1; ++i) {
        for (std::int64_t j = j0; j < j1; ++j) x.c[i * p.n + j] = 0;
      }
      for (std::int64_t k0 = 0; k0 < p.k; k0 += t) {
        const std::int64_t k1 = std::min(k0 + t, p.k);
        for (std::int64_t i = i0; i < i1; ++i) {
          float* __restrict c_row = x.c + i * p.n;
          for (std::int64_t k = k0; k < k1; ++k) {
            const float a = x.a[i * p.k + k];
            const float* __restrict b_row = x.b + k * p.n;
#pragma omp simd
            for (std::int64_t j = j0; j < j1; ++j) c_row[j] += a * b_row[j];
          }
        }
      }
    }
  }
}

}  // namespace swath::gemm::cpu
