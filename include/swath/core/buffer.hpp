#pragma once
// RAII buffers on the host (pageable), the host (pinned, page-locked) and the device. Sizes are kept
// in elements; bytes() gives the byte count. Move-only.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "swath/core/error.hpp"

namespace swath {

enum class memory_kind { host, pinned_host, device };

const char* to_string(memory_kind kind);

namespace detail {
// Throws out_of_memory_error naming the kind and the size when the allocation fails.
void* allocate_bytes(memory_kind kind, std::size_t bytes);
void free_bytes(memory_kind kind, void* pointer) noexcept;
}  // namespace detail

template <class T>
class buffer {
 public:
  buffer() = default;
  buffer(memory_kind kind, std::size_t count) : kind_(kind), count_(count) {
    SWATH_EXPECTS(count <= std::numeric_limits<std::size_t>::max() / sizeof(T), "buffer size overflows size_t");
    if (count > 0) data_ = static_cast<T*>(detail::allocate_bytes(kind, count * sizeof(T)));
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& other) noexcept { swap(other); }
  buffer& operator=(buffer&& other) noexcept {
    buffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~buffer() {
    if (data_ != nullptr) detail::free_bytes(kind_, data_);
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  [[nodiscard]] memory_kind kind() const noexcept { return kind_; }
  [[nodiscard]] bool host_accessible() const noexcept { return kind_ != memory_kind::device; }
  // Only for host-accessible buffers.
  [[nodiscard]] std::span<T> span() {
    SWATH_EXPECTS(host_accessible(), "span() of a device buffer");
    return {data_, count_};
  }
  [[nodiscard]] std::span<const T> span() const {
    SWATH_EXPECTS(host_accessible(), "span() of a device buffer");
    return {data_, count_};
  }

 private:
  void swap(buffer& other) noexcept {
    std::swap(kind_, other.kind_);
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }
  memory_kind kind_ = memory_kind::host;
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Copies between any two kinds (cudaMemcpy when either side is on the device). Synchronous.
void copy_bytes(void* destination, memory_kind destination_kind, const void* source, memory_kind source_kind,
                std::size_t bytes);

template <class T>
void copy(buffer<T>& destination, const buffer<T>& source) {
  SWATH_EXPECTS(destination.size() == source.size(), "copy between buffers of different sizes");
  copy_bytes(destination.data(), destination.kind(), source.data(), source.kind(), source.bytes());
}

}  // namespace swath
