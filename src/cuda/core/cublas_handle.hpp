#pragma once
// One cuBLAS handle for the process, shared by the vendor rows: created on first use with
// CUBLAS_PEDANTIC_MATH (plain FP32, no TF32 or other reduced-precision shortcuts) and destroyed at exit.
// Callers set its stream before each call.
#include <cublas_v2.h>

namespace swath::detail {
cublasHandle_t shared_cublas_handle();  // cublas_handle.cpp
}  // namespace swath::detail
