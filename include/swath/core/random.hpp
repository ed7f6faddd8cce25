#pragma once
// Deterministic, counter-based random inputs: value(seed, index) is a pure function, so the CPU and the
// GPU fill the same buffer with the same bits, in parallel, and a reference can regenerate any input
// element without keeping a copy.
//
// Floats are never zero: magnitudes lie in [0.5, 2), either sign. They are built without rounding
// (a 23-bit mantissa pattern, an exact exponent pick and a sign), so host and device agree bit for bit
// whatever the compiler does with FMA contraction.
#include <cstdint>

#include "swath/core/hd.hpp"

namespace swath {

// SplitMix64's finaliser: a bijective 64-bit mix with good avalanche.
SWATH_HD_INLINE constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

SWATH_HD_INLINE constexpr std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index) {
  return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ (index * 0xd1b54a32d192ed03ULL + 0x2545f4914f6cdd1dULL));
}

// In ±[0.5, 2), never zero, exactly representable.
SWATH_HD_INLINE float random_float(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = random_bits(seed, index);
  const float mantissa = 1.0f + static_cast<float>(static_cast<std::uint32_t>(bits & 0x7fffffu)) * 0x1p-23f;
  const float scaled = (bits & (1ULL << 23)) ? mantissa * 0.5f : mantissa;
  return (bits & (1ULL << 24)) ? -scaled : scaled;
}

SWATH_HD_INLINE double random_double(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t bits = random_bits(seed, index);
  const double mantissa = 1.0 + static_cast<double>(bits & 0xfffffffffffffULL) * 0x1p-52;
  const double scaled = (bits & (1ULL << 52)) ? mantissa * 0.5 : mantissa;
  return (bits & (1ULL << 53)) ? -scaled : scaled;
}

// Host fill (OpenMP-parallel).
void fill_random(float* data, std::int64_t count, std::uint64_t seed);
void fill_random(double* data, std::int64_t count, std::uint64_t seed);

// Device fill: same values as fill_random. Asynchronous on `stream` (a cudaStream_t; nullptr = default).
void fill_random_device(float* data, std::int64_t count, std::uint64_t seed, void* stream = nullptr);

}  // namespace swath
