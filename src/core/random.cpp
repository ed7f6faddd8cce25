#include "swath/core/random.hpp"

#include "swath/core/poison.hpp"

namespace swath {

void fill_random(float* data, std::int64_t count, std::uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) data[i] = random_float(seed, static_cast<std::uint64_t>(i));
}

void fill_random(double* data, std::int64_t count, std::uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) data[i] = random_double(seed, static_cast<std::uint64_t>(i));
}

void poison_host(float* data, std::int64_t count) {
  const float poison = poison_f32();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) data[i] = poison;
}

void poison_host(double* data, std::int64_t count) {
  const double poison = poison_f64();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) data[i] = poison;
}

}  // namespace swath
