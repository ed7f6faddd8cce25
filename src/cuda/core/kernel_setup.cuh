#pragma once
// What a step does before a kernel's launch: raise its shared-memory limit and ask its occupancy, once
// per kernel and device (both are properties of the device current at the call).
#include <cuda_runtime.h>

#include <cstddef>

namespace swath::cuda {

// Sets the kernel's shared-memory limit past 48 KiB when it needs it, and returns how many blocks of it
// are resident per SM, on the current device. Cached per (device, kernel, threads, shared bytes): the
// first call on a device does the work, later ones look it up (per_device.cu).
int prepared_blocks_per_sm(const void* kernel, int threads, std::size_t shared_bytes);

template <class Kernel>
int prepare_kernel(Kernel kernel, int threads, std::size_t shared_bytes) {
  return prepared_blocks_per_sm(reinterpret_cast<const void*>(kernel), threads, shared_bytes);
}

}  // namespace swath::cuda
