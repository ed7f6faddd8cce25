// Step 07 (CUDA): the Hopper bulk-copy engine (TMA) moves each block's tiles, both ways.
// Changed from 06: one thread per block asks the copy engine for the a and b tiles (cp.async.bulk
// global -> shared, completing on an mbarrier with the byte count); the threads wait on the barrier,
// add in shared memory (into a's tile), and one bulk store writes the tile to c. The loads and stores
// cost no registers and no per-thread memory instructions, and each request is one contiguous tile.
// Tile: 256 threads × 3 floats = 768 floats (3 KiB) per operand, 6 KiB of shared memory per block,
// 8 blocks per SM: 48 KiB of loads in flight per SM, the amount CUB's transform asks for on Hopper.
// Expected: the last ~1% to Thrust (which loads the same way on sm_90). Measured on an H200 (sweeps in
// docs/elementwise.md): with bulk loads and float4 stores, 4420 GB/s at 2^28, 0.995-0.999x Thrust;
// with the bulk store too, 4426 GB/s, 1.000x (two rounds of 50). Tiles of 512 floats lose 9% (16 KiB
// in flight per SM is too little), 1024-2048 floats lose 0.5-1.5%; 192 or 128 threads per 768-float
// tile (no idle thread in the add) lose 0.5-1%.
#include "../core/bulk_copy.cuh"
#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {
namespace {

using swath::cuda::bulk_load;
using swath::cuda::bulk_store;
using swath::cuda::shared_address;
using swath::cuda::wait_phase;

// F floats per thread per operand: the tile is threads × F floats.
template <int threads_per_block, int F>
__global__ void __launch_bounds__(threads_per_block) vecadd_bulk_kernel(const float* a, const float* b, float* c,
                                                                        std::int64_t n) {
  constexpr int tile = threads_per_block * F;  // floats per operand; a multiple of 4 (16 bytes)
  static_assert(tile % 4 == 0, "bulk copies move multiples of 16 bytes");
  extern __shared__ __align__(128) float tiles[];  // a's tile, then b's
  __shared__ __align__(8) unsigned long long barrier_word;
  const std::int64_t start = static_cast<std::int64_t>(blockIdx.x) * tile;
  const int count = static_cast<int>(min(static_cast<std::int64_t>(tile), n - start));
  const int bulk = count & ~3;  // the copy engine moves multiples of 16 bytes
  const unsigned barrier = shared_address(&barrier_word);
  if (threadIdx.x == 0) {
    swath::cuda::init_barrier(barrier, 1);
    swath::cuda::fence_barrier_init();
    const unsigned bytes = static_cast<unsigned>(bulk) * 4u;
    swath::cuda::arrive_expecting(barrier, 2 * bytes);
    if (bytes > 0) {
      bulk_load(tiles, a + start, bytes, barrier);
      bulk_load(tiles + tile, b + start, bytes, barrier);
    }
  }
  __syncthreads();
  wait_phase(barrier, 0);
  auto* a4 = reinterpret_cast<float4*>(tiles);
  const auto* b4 = reinterpret_cast<const float4*>(tiles + tile);
#pragma unroll
  for (int k = 0; k < (tile / 4 + threads_per_block - 1) / threads_per_block; ++k) {
    const int i = k * threads_per_block + threadIdx.x;
    if (4 * i < bulk) a4[i] = add4(a4[i], b4[i]);
  }
  // Ordinary stores to shared memory that the copy engine reads next need the proxy fence.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0 && bulk > 0) bulk_store(c + start, tiles, static_cast<unsigned>(bulk) * 4u);
  if (threadIdx.x < count - bulk) {
    const std::int64_t i = start + bulk + threadIdx.x;
    c[i] = a[i] + b[i];
  }
}

template <int threads_per_block, int F>
void launch_bulk(const problem& p, const operands& x, const launch_context& launch) {
  expect_aligned_16(x.a);
  expect_aligned_16(x.b);
  expect_aligned_16(x.c);
  constexpr int tile = threads_per_block * F;
  const std::int64_t n = p.count();
  const unsigned blocks = blocks_for((n + tile - 1) / tile * threads_per_block, threads_per_block);
  const std::size_t shared_bytes = 2 * tile * sizeof(float);
  vecadd_bulk_kernel<threads_per_block, F><<<blocks, threads_per_block, shared_bytes, stream_of(launch)>>>(x.a, x.b, x.c, n);
  SWATH_CHECK_LAST();
}

}  // namespace

void vecadd_bulk_copy(const problem& p, const operands& x, const launch_context& l) { launch_bulk<256, 3>(p, x, l); }

}  // namespace swath::elementwise::cuda
