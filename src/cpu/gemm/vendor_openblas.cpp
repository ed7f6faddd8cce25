// Vendor baseline: OpenBLAS cblas_sgemm (row-major, no transposes, alpha = 1, beta = 0), with its own
// threads. Built when CMake finds OpenBLAS (Debian: libopenblas-dev).
#include "../../gemm/steps.hpp"

#if SWATH_WITH_OPENBLAS
#include <cblas.h>

#include "swath/core/error.hpp"

namespace swath::gemm::cpu {

void openblas(const problem& p, const operands& x, const launch_context&) {
  SWATH_EXPECTS(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff && p.lda <= 0x7fffffff &&
                    p.ldb <= 0x7fffffff && p.ldc <= 0x7fffffff,
                "BLAS takes 32-bit extents and leading dimensions");
  cblas_sgemm(CblasRowMajor, p.trans_a ? CblasTrans : CblasNoTrans, p.trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), p.alpha, x.a,
              static_cast<int>(p.lda), x.b, static_cast<int>(p.ldb), p.beta, x.c, static_cast<int>(p.ldc));
}

}  // namespace swath::gemm::cpu
#endif
