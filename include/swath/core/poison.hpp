#pragma once
// Outputs are filled with a NaN of a recognisable payload before every verified run. An element that
// still holds exactly these bits afterwards was never written; any other NaN was computed.
#include <bit>
#include <cstdint>

namespace swath {

inline constexpr std::uint32_t poison_bits_f32 = 0x7fc0dead;
inline constexpr std::uint64_t poison_bits_f64 = 0x7ff8deaddeaddeadULL;

inline float poison_f32() { return std::bit_cast<float>(poison_bits_f32); }
inline double poison_f64() { return std::bit_cast<double>(poison_bits_f64); }
inline bool is_poison(float value) { return std::bit_cast<std::uint32_t>(value) == poison_bits_f32; }
inline bool is_poison(double value) { return std::bit_cast<std::uint64_t>(value) == poison_bits_f64; }

void poison_host(float* data, std::int64_t count);
void poison_host(double* data, std::int64_t count);
// Asynchronous on `stream` (a cudaStream_t; nullptr = default).
void poison_device(float* data, std::int64_t count, void* stream = nullptr);
void poison_device(double* data, std::int64_t count, void* stream = nullptr);

}  // namespace swath
