#pragma once
// The lab's stencil grids, shared by the stencil and iterate trials: every point holds a positive value
// of its dense index, |random| in [0.5, 2) (no cancellation, so a relative error means something), and a
// pitched grid's pads hold NaN, which a step that reads one carries into an output the check rejects.
// Also the sets of input and output grids a trial rotates through, their poison, and their reading back.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <vector>

#include "swath/bench/family.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/poison.hpp"
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

// The seed of input set `set`.
inline std::uint64_t input_seed(const bench::trial_options& options, int set) {
  return mix64(options.seed + static_cast<std::uint64_t>(set));
}

// A trial's input and output grids (as stored, pads included): enough sets that together they exceed
// the caches (bench::wanted_sets), in device memory for GPU rows, the inputs filled from input_seed.
template <class T>
struct grid_sets {
  std::vector<buffer<T>> inputs;
  std::vector<buffer<T>> outputs;

  grid_sets(const problem& p, const bench::trial_options& options, bool gpu) {
    const auto count = static_cast<std::size_t>(p.stored_elements());
    const auto set_bytes = static_cast<std::int64_t>(2 * count * sizeof(T));
    const int sets = bench::wanted_sets(options, set_bytes);
    const memory_kind kind = gpu ? memory_kind::device : memory_kind::host;
    buffer<T> staging;  // device inputs are drawn on the host (double too) and copied up
    if (gpu) staging = buffer<T>(memory_kind::host, count);
    for (int set = 0; set < sets; ++set) {
      // Extra sets only sharpen the measurement; stop adding them when device memory runs short.
      if (gpu && set > 0 && !bench::room_for_another_set(memory_kind::device, set, set_bytes)) break;
      inputs.emplace_back(kind, count);
      outputs.emplace_back(kind, count);
      if (gpu) {
        fill_grid(staging, p, input_seed(options, set));
        copy(inputs.back(), staging);
      } else {
        fill_grid(inputs.back(), p, input_seed(options, set));
      }
    }
  }
};

// Every element of `target` set to the poison, where it lives (asynchronous on the device).
template <class T>
void poison(buffer<T>& target) {
  if (target.kind() == memory_kind::device) {
    poison_device(target.data(), static_cast<std::int64_t>(target.size()));
  } else {
    poison_host(target.data(), static_cast<std::int64_t>(target.size()));
  }
}

// `source` readable on the host: itself, or (after waiting for the device) its copy in `host_copy`.
template <class T>
const T* on_host(const buffer<T>& source, buffer<T>& host_copy) {
  if (source.kind() != memory_kind::device) return source.data();
  device_synchronize();
  host_copy = buffer<T>(memory_kind::host, source.size());
  copy(host_copy, source);
  return host_copy.data();
}

}  // namespace swath::stencil
