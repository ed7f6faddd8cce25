#include "swath/core/buffer.hpp"

#include <cstdlib>
#include <cstring>

#include "cuda_glue.hpp"

namespace swath {

const char* to_string(memory_kind kind) {
  switch (kind) {
    case memory_kind::host: return "host";
    case memory_kind::pinned_host: return "pinned host";
    case memory_kind::device: return "device";
  }
  return "?";
}

namespace detail {

void* allocate_bytes(memory_kind kind, std::size_t bytes) {
  if (kind != memory_kind::host) return cuda_allocate(kind, bytes);
  // 4 KiB alignment: page-aligned, so 16-byte and cache-line-aligned vector accesses always hold.
  constexpr std::size_t alignment = 4096;
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* pointer = rounded < bytes ? nullptr : std::aligned_alloc(alignment, rounded);
  if (pointer == nullptr) throw out_of_memory_error("out of host memory: could not allocate " + format_bytes(bytes));
  return pointer;
}

void free_bytes(memory_kind kind, void* pointer) noexcept {
  if (kind == memory_kind::host) {
    std::free(pointer);
  } else {
    cuda_free(kind, pointer);
  }
}

}  // namespace detail

void copy_bytes(void* destination, memory_kind destination_kind, const void* source, memory_kind source_kind,
                std::size_t bytes) {
  if (bytes == 0) return;
  const bool destination_on_device = destination_kind == memory_kind::device;
  const bool source_on_device = source_kind == memory_kind::device;
  if (!destination_on_device && !source_on_device) {
    std::memcpy(destination, source, bytes);
  } else {
    detail::cuda_copy(destination, source, bytes, destination_on_device, source_on_device);
  }
}

}  // namespace swath
