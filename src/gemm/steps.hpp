#pragma once
// Every gemm step's entry point, for the registry table.
#include "swath/gemm.hpp"

namespace swath::gemm::cpu {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cpp
void tiled(const problem&, const operands&, const launch_context&);            // 02_tiled.cpp
void column(const problem&, const operands&, const launch_context&);           // 03_column.cpp
void openblas(const problem&, const operands&, const launch_context&);         // vendor_openblas.cpp
}  // namespace swath::gemm::cpu

namespace swath::gemm::cuda {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cu
void coalesced(const problem&, const operands&, const launch_context&);        // 02_coalesced.cu
void cublas_sgemm(const problem&, const operands&, const launch_context&);     // vendor_cublas.cpp
}  // namespace swath::gemm::cuda
