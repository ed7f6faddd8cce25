#pragma once
// Errors are exceptions that carry the failing call or condition and its file:line. The library never
// exits: only main() turns them into exit codes.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace swath {

// Base of everything swath throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller asked for something the library cannot do (a bad size, an unknown variant, a missing device).
class usage_error : public error {
 public:
  using error::error;
};

// A precondition inside the library did not hold: a bug in the caller or in swath.
class precondition_error : public error {
 public:
  using error::error;
};

// An allocation on the host or the device failed.
class out_of_memory_error : public error {
 public:
  using error::error;
};

// A CUDA runtime or library call failed; code() is the cudaError_t (or cublasStatus_t) value.
class cuda_error : public error {
 public:
  cuda_error(int code, const std::string& what) : error(what), code_(code) {}
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

namespace detail {
[[noreturn]] void throw_precondition(const char* condition, std::string_view message, const char* file, int line);
[[noreturn]] void throw_cuda(int code, const char* name, const char* description, const char* call, const char* file,
                             int line);
[[noreturn]] void throw_cublas(int status, const char* call, const char* file, int line);
}  // namespace detail

// "12.0 GiB" style, for messages about sizes.
std::string format_bytes(double bytes);

}  // namespace swath

#define SWATH_EXPECTS(condition, message)                                                  \
  do {                                                                                     \
    if (!(condition)) ::swath::detail::throw_precondition(#condition, (message), __FILE__, __LINE__); \
  } while (0)

// Only usable where cuda_runtime_api.h is included.
#define SWATH_CUDA_CHECK(call)                                                                         \
  do {                                                                                                 \
    const cudaError_t swath_status_ = (call);                                                          \
    if (swath_status_ != cudaSuccess)                                                                  \
      ::swath::detail::throw_cuda(static_cast<int>(swath_status_), cudaGetErrorName(swath_status_),    \
                                  cudaGetErrorString(swath_status_), #call, __FILE__, __LINE__);       \
  } while (0)

// After every kernel launch: launch-configuration errors surface here, at the launch's line.
#define SWATH_CHECK_LAST() SWATH_CUDA_CHECK(cudaGetLastError())

#define SWATH_CUBLAS_CHECK(call)                                                                        \
  do {                                                                                                  \
    const int swath_status_ = static_cast<int>(call);                                                   \
    if (swath_status_ != 0) ::swath::detail::throw_cublas(swath_status_, #call, __FILE__, __LINE__);    \
  } while (0)
