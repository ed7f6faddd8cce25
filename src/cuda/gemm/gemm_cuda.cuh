#pragma once
// What the CUDA gemm steps share: the stream, and the epilogue C = alpha · sum + beta · C that every
// step ends with (beta = 0 does not read C: BLAS's rule, C may hold anything).
#include <cuda_runtime.h>

#include "../../gemm/steps.hpp"
#include "swath/core/error.hpp"

namespace swath::gemm::cuda {

inline cudaStream_t stream_of(const launch_context& launch) { return static_cast<cudaStream_t>(launch.stream); }

__device__ __forceinline__ void store_result(const problem& p, float* c, std::int64_t i, std::int64_t j, float sum) {
  float& out = c[i * p.ldc + j];
  out = p.beta == 0 ? p.alpha * sum : p.alpha * sum + p.beta * out;
}

inline unsigned blocks_for(std::int64_t extent, int per_block) {
  const std::int64_t blocks = (extent + per_block - 1) / per_block;
  SWATH_EXPECTS(blocks <= 65535 || per_block == 0, "gemm: the matrix is too tall for the grid's y dimension");
  return static_cast<unsigned>(blocks);
}

}  // namespace swath::gemm::cuda
