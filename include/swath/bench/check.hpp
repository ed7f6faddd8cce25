#pragma once
// Compares an output region with a float64 reference, element by element, and finds unwritten
// elements (still poison), computed NaNs and writes outside the region.
//
// Relative error of an element: |out - ref| / max(|ref|, 1e-6 · max|ref|). The floor keeps outputs
// that should be near zero (cancellation) from dividing by almost nothing: they are judged on the
// scale of the whole output instead.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "swath/bench/family.hpp"
#include "swath/core/poison.hpp"

namespace swath::bench {

// out: rows × cols elements, row-major with leading dimension ld (ld ≥ cols). The ld - cols padding
// elements after each row but the last must still be poison. reference(index) gives the float64 value
// for the flat index row·ld + col.
template <class T, class Reference>
check_result compare_region(const T* out, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                            const Reference& reference, double tolerance) {
  check_result result;
  result.tolerance = tolerance;
  double scale = 0;
#pragma omp parallel for reduction(max : scale) schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    for (std::int64_t col = 0; col < cols; ++col) scale = std::max(scale, std::fabs(reference(row * ld + col)));
  }
  const double floor = scale > 0 ? 1e-6 * scale : 1e-30;

  std::int64_t unwritten = 0;
  std::int64_t not_finite = 0;
  std::int64_t outside = 0;
#pragma omp parallel reduction(+ : unwritten, not_finite, outside)
  {
    double worst = -1;
    std::int64_t worst_index = -1;
#pragma omp for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      for (std::int64_t col = 0; col < cols; ++col) {
        const std::int64_t index = row * ld + col;
        const T value = out[index];
        if (is_poison(value)) {
          ++unwritten;
        } else if (!std::isfinite(value)) {
          ++not_finite;
        } else {
          const double expected = reference(index);
          const double error = std::fabs(static_cast<double>(value) - expected) / std::max(std::fabs(expected), floor);
          if (error > worst) {
            worst = error;
            worst_index = index;
          }
        }
      }
      if (row + 1 < rows) {
        for (std::int64_t col = cols; col < ld; ++col) outside += is_poison(out[row * ld + col]) ? 0 : 1;
      }
    }
#pragma omp critical(swath_compare_region)
    if (worst > result.max_relative_error || (worst >= 0 && result.worst_index < 0)) {
      result.max_relative_error = worst;
      result.worst_index = worst_index;
    }
  }
  result.checked = rows * cols;
  result.unwritten = unwritten;
  result.not_finite = not_finite;
  result.outside_writes = outside;
  return result;
}

}  // namespace swath::bench
