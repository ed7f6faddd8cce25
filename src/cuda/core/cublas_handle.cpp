#include "cublas_handle.hpp"

#include "swath/core/error.hpp"

namespace swath::detail {
namespace {

// Errors at exit are ignored: nothing can be done about them and the process is ending.
class owned_handle {
 public:
  owned_handle() {
    SWATH_CUBLAS_CHECK(cublasCreate(&handle_));
    SWATH_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH));
  }
  ~owned_handle() { cublasDestroy(handle_); }
  owned_handle(const owned_handle&) = delete;
  owned_handle& operator=(const owned_handle&) = delete;
  [[nodiscard]] cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace

cublasHandle_t shared_cublas_handle() {
  static const owned_handle shared;
  return shared.get();
}

}  // namespace swath::detail
