// Vendor baseline: OpenBLAS cblas_sgemm (row-major, no transposes, alpha = 1, beta = 0), with its own
// threads. Built when CMake finds OpenBLAS (Debian: libopenblas-dev).
#include "../../gemm/steps.hpp"

#if SWATH_WITH_OPENBLAS
#include <cblas.h>

#include "swath/core/error.hpp"

namespace swath::gemm::cpu {

void openblas(const problem& p, const operands& x, const launch_context&) {
  SWATH_EXPECTS(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff, "BLAS takes 32-bit extents");
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(p.m), static_cast<int>(p.n),
              static_cast<int>(p.k), 1.0f, x.a, static_cast<int>(p.k), x.b, static_cast<int>(p.n), 0.0f, x.c,
              static_cast<int>(p.n));
}

}  // namespace swath::gemm::cpu
#endif
