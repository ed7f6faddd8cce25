#pragma once
// What every binding does around a library call: integers as pointers and streams, and the call made
// without the GIL, swath::usage_error becoming ValueError (std::invalid_argument), any other
// swath::error RuntimeError.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "swath/core/error.hpp"
#include "swath/core/stream.hpp"
#include "swath/stencil.hpp"

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

// A stencil's shape and boundary by name; std::invalid_argument (ValueError) for any other name.
inline swath::stencil::shape shape_of(const std::string& name) {
  if (name == "star") return swath::stencil::shape::star;
  if (name == "box") return swath::stencil::shape::box;
  throw std::invalid_argument("shape: expected 'star' or 'box', got '" + name + "'");
}

inline swath::stencil::boundary boundary_of(const std::string& name) {
  if (name == "clamp") return swath::stencil::boundary::clamp;
  if (name == "copy") return swath::stencil::boundary::copy;
  if (name == "constant") return swath::stencil::boundary::constant;
  if (name == "periodic") return swath::stencil::boundary::periodic;
  throw std::invalid_argument("boundary: expected 'clamp', 'copy', 'constant' or 'periodic', got '" + name + "'");
}

}  // namespace swath::python
