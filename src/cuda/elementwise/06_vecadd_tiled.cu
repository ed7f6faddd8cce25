// EXPERIMENT (step 06 candidates): one tile per block instead of a grid-stride loop.
// Each 256-thread block adds one tile of 256 × K float4 per operand; every thread issues all 2K loads
// before its first add. The grid has one block per tile (~65k blocks at 2^28 for K = 4), so blocks
// retire and start continuously and the hardware keeps every SM fed to the very end. Optional:
// the L2::256B prefetch-size hint on the loads, which asks L2 to fetch 256-byte sectors groups from DRAM.
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

template <bool prefetch_256>
__device__ __forceinline__ float4 load4(const float4* pointer) {
  if constexpr (prefetch_256) {
    float4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(pointer));
    return v;
  } else {
    return __ldg(pointer);
  }
}

template <int threads_per_block, int K, bool prefetch_256>
__global__ void __launch_bounds__(threads_per_block) vecadd_tiled_kernel(const float* a, const float* b, float* c,
                                                                         std::int64_t n) {
  const std::int64_t n4 = n / 4;
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  auto* c4 = reinterpret_cast<float4*>(c);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * threads_per_block * K + threadIdx.x;
  float4 x[K];
  float4 y[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::int64_t i = base + k * threads_per_block;
    if (i < n4) {
      x[k] = load4<prefetch_256>(a4 + i);
      y[k] = load4<prefetch_256>(b4 + i);
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::int64_t i = base + k * threads_per_block;
    if (i < n4) c4[i] = add4(x[k], y[k]);
  }
  // The last n mod 4 elements: by the first threads of the last block.
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x < n - 4 * n4) {
    const std::int64_t i = 4 * n4 + threadIdx.x;
    c[i] = a[i] + b[i];
  }
}

template <int threads_per_block, int K, bool prefetch_256>
void launch_tiled(const problem& p, const operands& x, const launch_context& launch) {
  expect_aligned_16(x.a);
  expect_aligned_16(x.b);
  expect_aligned_16(x.c);
  const std::int64_t n = p.count();
  const unsigned blocks = blocks_for((n / 4 + threads_per_block * K - 1) / (threads_per_block * K) * threads_per_block,
                                     threads_per_block);
  vecadd_tiled_kernel<threads_per_block, K, prefetch_256><<<blocks, threads_per_block, 0, stream_of(launch)>>>(x.a, x.b, x.c, n);
  SWATH_CHECK_LAST();
}

}  // namespace

void vecadd_tiled_t256_k1(const problem& p, const operands& x, const launch_context& l) { launch_tiled<256, 1, false>(p, x, l); }
void vecadd_tiled_t256_k2(const problem& p, const operands& x, const launch_context& l) { launch_tiled<256, 2, false>(p, x, l); }
void vecadd_tiled_t128_k2(const problem& p, const operands& x, const launch_context& l) { launch_tiled<128, 2, false>(p, x, l); }
void vecadd_tiled_t512_k1(const problem& p, const operands& x, const launch_context& l) { launch_tiled<512, 1, false>(p, x, l); }

}  // namespace swath::elementwise::cuda
