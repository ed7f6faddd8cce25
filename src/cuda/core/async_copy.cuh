#pragma once
// Ampere's asynchronous copies global -> shared (cp.async, LDGSTS: no register round trip), for the
// steps that stage data through shared memory (stencil 06-07, gemm 10). A thread issues copies,
// closes them into a group with commit_copies(), and wait_copies<N>() blocks until at most N of its
// groups are still in flight; other threads see the data after a barrier.
#include <cuda_runtime.h>

namespace swath::cuda {

// One copy of 16, 8 or 4 bytes to a shared-memory address (32-bit: no conversion per copy). 16-byte
// copies bypass L1 (.cg); 4 and 8-byte ones may only use .ca.
__device__ __forceinline__ void copy_async(unsigned address, const void* global, int bytes) {
  if (bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(address), "l"(global) : "memory");
  } else if (bytes == 8) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(address), "l"(global) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(address), "l"(global) : "memory");
  }
}
__device__ __forceinline__ void copy_async(void* shared, const void* global, int bytes) {
  copy_async(static_cast<unsigned>(__cvta_generic_to_shared(shared)), global, bytes);
}

// A copy of Bytes (4 or 16) that reads only `source_bytes` of them and fills the rest of the
// destination with zeros (0: nothing is read, `global` only has to be a valid address).
template <int Bytes>
__device__ __forceinline__ void copy_async_or_zeros(unsigned address, const void* global, unsigned source_bytes) {
  static_assert(Bytes == 4 || Bytes == 16, "a float or a 16-byte piece");
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(address), "l"(global), "r"(source_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(address), "l"(global), "r"(source_bytes)
                 : "memory");
  }
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

}  // namespace swath::cuda
