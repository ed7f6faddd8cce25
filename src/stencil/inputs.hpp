#pragma once
// The lab's stencil inputs, shared by the stencil and iterate trials: every point holds a positive value
// of its dense index, |random| in [0.5, 2) (no cancellation, so a relative error means something), and a
// pitched grid's pads hold NaN, which a step that reads one carries into an output the check rejects.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "swath/core/buffer.hpp"
#include "swath/core/random.hpp"
#include "swath/stencil.hpp"

namespace swath::stencil {

template <class T>
double input_value(std::uint64_t seed, std::int64_t index) {
  if constexpr (std::is_same_v<T, float>) {
    return std::fabs(static_cast<double>(random_float(seed, static_cast<std::uint64_t>(index))));
  } else {
    return std::fabs(random_double(seed, static_cast<std::uint64_t>(index)));
  }
}

// `target` (host memory, the grid as stored) filled: points with input_value of their dense index, pads NaN.
template <class T>
void fill_grid(buffer<T>& target, const problem& p, std::uint64_t seed) {
  const std::int64_t width = p.grid.width, pitch = p.pitch();
  const std::int64_t rows = static_cast<std::int64_t>(target.size()) / pitch;
  T* data = target.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t x = 0; x < pitch; ++x) {
      data[row * pitch + x] = x < width ? static_cast<T>(input_value<T>(seed, row * width + x)) : std::numeric_limits<T>::quiet_NaN();
    }
  }
}

}  // namespace swath::stencil
