#pragma once
// Helpers the tests share.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "swath/core/device.hpp"

namespace swath::testing {

// A fresh seed per call, so every run draws new inputs; tests print it on failure to reproduce.
inline std::uint64_t fresh_seed() {
  static std::random_device entropy;
  return (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
}

inline bool gpu_present() { return query_gpu().has_value(); }

}  // namespace swath::testing

#define SWATH_SKIP_WITHOUT_GPU()                                              \
  do {                                                                        \
    std::string swath_why_;                                                   \
    if (!::swath::query_gpu(&swath_why_)) GTEST_SKIP() << swath_why_;         \
  } while (0)
