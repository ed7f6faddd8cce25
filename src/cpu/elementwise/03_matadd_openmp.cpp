// Step 03 (CPU): matrix add, row-major with a leading dimension, rows shared among OpenMP threads.
// The padding between rows (ld - cols elements) is neither read nor written; the check verifies that.
#include "../../elementwise/steps.hpp"

namespace swath::elementwise::cpu {

void matadd_openmp(const problem& p, const operands& x, const launch_context&) {
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < p.rows; ++row) {
    const float* __restrict a = x.a + row * p.ld;
    const float* __restrict b = x.b + row * p.ld;
    float* __restrict c = x.c + row * p.ld;
#pragma omp simd
    for (std::int64_t col = 0; col < p.cols; ++col) c[col] = a[col] + b[col];
  }
}

}  // namespace swath::elementwise::cpu
