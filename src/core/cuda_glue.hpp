#pragma once
// The few runtime entry points that differ between CUDA and CPU-only builds. Implemented in
// src/cuda/core/runtime.cu, or in no_cuda.cpp where they throw usage_error("built without CUDA").
#include <cstddef>

#include "swath/core/buffer.hpp"

namespace swath::detail {
void* cuda_allocate(memory_kind kind, std::size_t bytes);
void cuda_free(memory_kind kind, void* pointer) noexcept;
void cuda_copy(void* destination, const void* source, std::size_t bytes, bool destination_on_device,
               bool source_on_device);
}  // namespace swath::detail
