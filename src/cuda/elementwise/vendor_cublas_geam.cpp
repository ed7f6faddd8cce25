// Vendor baseline for matrix add: cuBLAS geam, C = alpha·A + beta·B with alpha = beta = 1.
// cuBLAS is column-major; a row-major rows × cols matrix with leading dimension ld is the same memory
// as a column-major cols × rows matrix with leading dimension ld, and an elementwise add does not care
// which way the indices are named.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../../elementwise/steps.hpp"
#include "swath/core/error.hpp"

namespace swath::elementwise::cuda {
namespace {

// One handle for the process, created on first use and destroyed at exit (errors then are ignored:
// nothing can be done about them and the process is ending).
class shared_handle {
 public:
  shared_handle() { SWATH_CUBLAS_CHECK(cublasCreate(&handle_)); }
  ~shared_handle() { cublasDestroy(handle_); }
  shared_handle(const shared_handle&) = delete;
  shared_handle& operator=(const shared_handle&) = delete;
  [[nodiscard]] cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

cublasHandle_t handle() {
  static const shared_handle shared;
  return shared.get();
}

}  // namespace

void cublas_geam(const problem& p, const operands& x, const launch_context& launch) {
  SWATH_EXPECTS(p.cols <= 0x7fffffff && p.rows <= 0x7fffffff && p.ld <= 0x7fffffff, "cuBLAS takes 32-bit extents");
  const float one = 1.0f;
  SWATH_CUBLAS_CHECK(cublasSetStream(handle(), static_cast<cudaStream_t>(launch.stream)));
  SWATH_CUBLAS_CHECK(cublasSgeam(handle(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(p.cols), static_cast<int>(p.rows),
                                 &one, x.a, static_cast<int>(p.ld), &one, x.b, static_cast<int>(p.ld), x.c,
                                 static_cast<int>(p.ld)));
}

}  // namespace swath::elementwise::cuda
