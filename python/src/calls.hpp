#pragma once
// What every binding does around a library call: integers as pointers and streams, and the call made
// without the GIL, swath::usage_error becoming ValueError (std::invalid_argument), any other
// swath::error RuntimeError.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>

#include "swath/core/error.hpp"
#include "swath/core/stream.hpp"

namespace swath::python {

template <class T>
T* pointer(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

inline swath::stream_t stream_of(std::uintptr_t handle) { return reinterpret_cast<swath::stream_t>(handle); }

template <class Call>
void released(Call&& call) {
  nanobind::gil_scoped_release unlocked;
  try {
    call();
  } catch (const swath::usage_error& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace swath::python
