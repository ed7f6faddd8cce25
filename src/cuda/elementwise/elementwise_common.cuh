#pragma once
// What the CUDA elementwise steps share.
#include <cuda_runtime.h>

#include <cstdint>

#include "../../elementwise/steps.hpp"
#include "swath/core/error.hpp"

namespace swath::elementwise::cuda {

__device__ __forceinline__ float4 add4(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

inline cudaStream_t stream_of(const launch_context& launch) { return static_cast<cudaStream_t>(launch.stream); }

inline unsigned blocks_for(std::int64_t work_items, int threads_per_block) {
  const std::int64_t blocks = (work_items + threads_per_block - 1) / threads_per_block;
  SWATH_EXPECTS(blocks <= 0x7fffffff, "grid larger than the 2^31-1 blocks CUDA allows");
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

inline void expect_aligned_16(const void* pointer) {
  SWATH_EXPECTS(reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0, "float4 steps need 16-byte aligned operands");
}

}  // namespace swath::elementwise::cuda
