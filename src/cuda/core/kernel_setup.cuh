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

// How many clusters of `cluster` blocks (stacked in y) of a prepared kernel the current device holds at
// once (cudaOccupancyMaxActiveClusters: a cluster's blocks share one GPC, so a GPC whose SMs are not a
// multiple of the cluster leaves some idle). Cached as prepared_blocks_per_sm is; 0: none fits.
int prepared_active_clusters(const void* kernel, int threads, std::size_t shared_bytes, int cluster);

// The launch attribute of thread-block clusters of `cluster` blocks stacked in y (1 × cluster × 1).
inline cudaLaunchAttribute y_cluster_attribute(int cluster) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 1;
  attribute.val.clusterDim.y = static_cast<unsigned>(cluster);
  attribute.val.clusterDim.z = 1;
  return attribute;
}

}  // namespace swath::cuda
