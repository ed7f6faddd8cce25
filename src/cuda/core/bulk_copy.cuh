#pragma once
// Hopper's copy engine (TMA) and the mbarriers it completes on, for the steps that use it
// (elementwise 07, stencil 08-09, gemm 14). One thread asks for a copy and tells the barrier how many bytes to
// expect; the copy engine counts the bytes down as they land, and the barrier's phase flips when
// both the arrivals and the bytes are in. Waiters spin on the phase's parity.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "swath/core/error.hpp"

namespace swath::cuda {

__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// An mbarrier whose phase completes after `arrivals` arrivals (and any expected bytes).
__device__ __forceinline__ void init_barrier(unsigned barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(arrivals) : "memory");
}
// After a block's barriers are initialised, before any thread or the copy engine uses them (then a
// __syncthreads()).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival that also tells the barrier `bytes` more will land before the phase completes.
__device__ __forceinline__ void arrive_expecting(unsigned barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
}

// One arrival (release: this thread's earlier shared-memory reads are done before it counts).
__device__ __forceinline__ void arrive(unsigned barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier) : "memory");
}

// Blocks until the barrier's phase with this parity has completed.
__device__ __forceinline__ void wait_phase(unsigned barrier, unsigned parity) {
  unsigned ready = 0;
  do {
    asm volatile(
        "{\n .reg .pred done;\n mbarrier.try_wait.parity.shared::cta.b64 done, [%1], %2;\n selp.u32 %0, 1, 0, done;\n}"
        : "=r"(ready)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (ready == 0);
}

// Whether the barrier's phase with this parity has completed, without waiting (acquire: when it has,
// the data that completed it is visible). Asked well before the answer is needed, it hides the
// check's latency, which a blocking wait right before the first read exposes.
__device__ __forceinline__ bool phase_complete(unsigned barrier, unsigned parity) {
  unsigned done = 0;
  asm volatile(
      "{\n .reg .pred done;\n mbarrier.test_wait.parity.shared::cta.b64 done, [%1], %2;\n selp.u32 %0, 1, 0, done;\n}"
      : "=r"(done)
      : "r"(barrier), "r"(parity)
      : "memory");
  return done != 0;
}

// `bytes` (a multiple of 16, both addresses 16-byte aligned) global -> shared, completing on barrier.
__device__ __forceinline__ void bulk_load(void* destination, const void* source, unsigned bytes, unsigned barrier) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :
               : "r"(shared_address(destination)), "l"(source), "r"(bytes), "r"(barrier)
               : "memory");
}

// The box of a 3D tensor map at (x, y, z) -> shared memory at `destination` (128-byte aligned),
// completing on barrier. Elements of the box outside the tensor arrive as zeros, and count as bytes.
__device__ __forceinline__ void tensor_load_3d(unsigned destination, const CUtensorMap* map, int x, int y, int z,
                                               unsigned barrier) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
      :
      : "r"(destination), "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(z), "r"(barrier)
      : "memory");
}

// The box of a 2D tensor map at (x, y) -> shared memory at `destination` (128-byte aligned), as
// tensor_load_3d.
__device__ __forceinline__ void tensor_load_2d(unsigned destination, const CUtensorMap* map, int x, int y,
                                               unsigned barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      :
      : "r"(destination), "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(barrier)
      : "memory");
}

// `bytes` shared -> global; returns once the copy engine has read the shared memory.
__device__ __forceinline__ void bulk_store(void* destination, const void* source, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :
               : "l"(destination), "r"(shared_address(source)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

using encode_tiled = PFN_cuTensorMapEncodeTiled_v12000;

// The driver's tensor-map encoder, found once through the runtime (no link against libcuda).
inline encode_tiled tensor_map_encoder() {
  static const encode_tiled encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    SWATH_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    SWATH_EXPECTS(found == cudaDriverEntryPointSuccess && function != nullptr,
                  "the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer is needed)");
    return reinterpret_cast<encode_tiled>(function);
  }();
  return encode;
}

}  // namespace swath::cuda
