// Step 02 (CPU): vector add over all cores with OpenMP.
// Changed from 01: the range is cut into one contiguous chunk per thread (static schedule), so each
// core streams its own part. Expected: up to the all-cores copy ceiling, i.e. the ratio of the
// all-cores to the one-core bandwidth over step 01 (on a small machine, a single core already draws
// much of the socket's bandwidth, so the gain is well under the core count).
#include "../../elementwise/steps.hpp"

namespace swath::elementwise::cpu {

void vecadd_openmp(const problem& p, const operands& x, const launch_context&) {
  const std::int64_t n = p.count();
  const float* __restrict a = x.a;
  const float* __restrict b = x.b;
  float* __restrict c = x.c;
#pragma omp parallel for simd schedule(static)
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

}  // namespace swath::elementwise::cpu
