// Vendor baseline for matrix add: cuBLAS geam, C = alpha·A + beta·B with alpha = beta = 1.
// cuBLAS is column-major; a row-major rows × cols matrix with leading dimension ld is the same memory
// as a column-major cols × rows matrix with leading dimension ld, and an elementwise add does not care
// which way the indices are named.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../../elementwise/steps.hpp"
#include "../core/cublas_handle.hpp"
#include "swath/core/error.hpp"

namespace swath::elementwise::cuda {

void cublas_geam(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.cols <= 0x7fffffff && p.rows <= 0x7fffffff && p.ld <= 0x7fffffff, "cuBLAS takes 32-bit extents");
  const float one = 1.0f;
  const cublasHandle_t handle = detail::shared_cublas_handle();
  SWATH_CUBLAS_CHECK(cublasSetStream(handle, static_cast<cudaStream_t>(launch.stream)));
  SWATH_CUBLAS_CHECK(cublasSgeam(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(p.cols), static_cast<int>(p.rows),
                                 &one, x.a, static_cast<int>(p.ld), &one, x.b, static_cast<int>(p.ld), x.c,
                                 static_cast<int>(p.ld)));
}

}  // namespace swath::elementwise::cuda
