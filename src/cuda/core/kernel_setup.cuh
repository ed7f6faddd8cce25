#pragma once
// What a step does once per kernel before its first launch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "swath/core/error.hpp"

namespace swath::cuda {

// Sets the kernel's shared-memory limit past 48 KiB when it needs it, and returns how many blocks
// of it are resident per SM. Call once per kernel (the steps keep it in a static).
template <class Kernel>
int prepare_kernel(Kernel kernel, int threads, std::size_t shared_bytes) {
  if (shared_bytes > 48 * 1024) {
    SWATH_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  }
  int count = 0;
  SWATH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, threads, shared_bytes));
  return std::max(count, 1);
}

}  // namespace swath::cuda
