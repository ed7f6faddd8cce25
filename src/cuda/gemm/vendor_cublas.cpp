// The vendor row: cuBLAS SGEMM in plain FP32 (the shared handle's CUBLAS_PEDANTIC_MATH: no TF32).
// cuBLAS is column-major. A row-major M × N matrix C with leading dimension ldc is, read column-major,
// C^T (N × M, same ld); so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T, i.e. cuBLAS gets B
// before A, N before M, and each operand's transpose flag unchanged (a row-major B read column-major is
// already B^T). A strided batch goes to cublasSgemmStridedBatched, the same way.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../../gemm/steps.hpp"
#include "../core/cublas_handle.hpp"
#include "swath/core/error.hpp"

namespace swath::gemm::cuda {

void cublas_sgemm(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff && p.lda <= 0x7fffffff &&
                    p.ldb <= 0x7fffffff && p.ldc <= 0x7fffffff,
                "cuBLAS takes 32-bit extents and leading dimensions");
  const cublasHandle_t handle = detail::shared_cublas_handle();
  SWATH_CUBLAS_CHECK(cublasSetStream(handle, static_cast<cudaStream_t>(launch.stream)));
  if (p.batch > 1) {  // the batched call: strides in elements, as the problem's
    SWATH_EXPECTS(p.batch <= 0x7fffffff, "cuBLAS takes a 32-bit batch count");
    SWATH_CUBLAS_CHECK(cublasSgemmStridedBatched(
        handle, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(p.n),
        static_cast<int>(p.m), static_cast<int>(p.k), &p.alpha, x.b, static_cast<int>(p.ldb), p.stride_b, x.a,
        static_cast<int>(p.lda), p.stride_a, &p.beta, x.c, static_cast<int>(p.ldc), p.stride_c, static_cast<int>(p.batch)));
    return;
  }
  SWATH_CUBLAS_CHECK(cublasSgemm(handle, p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &p.alpha, x.b,
                                 static_cast<int>(p.ldb), x.a, static_cast<int>(p.lda), &p.beta, x.c,
                                 static_cast<int>(p.ldc)));
}

}  // namespace swath::gemm::cuda
