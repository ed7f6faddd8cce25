#pragma once
// Helpers the tests share.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/core/device.hpp"

namespace swath::testing {

// A fresh seed per call, so every run draws new inputs; tests print it on failure to reproduce.
inline std::uint64_t fresh_seed() {
  static std::random_device entropy;
  return (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
}

inline bool gpu_present() { return query_gpu().has_value(); }

inline bench::trial_options fresh_options() {
  bench::trial_options options;
  options.seed = fresh_seed();
  return options;
}

// One verified run, exactly as the runner does it: poison, run set 0, check.
inline bench::check_result check_once(const std::unique_ptr<bench::trial>& trial) {
  trial->poison_outputs();
  trial->run(0);
  return trial->check();
}

// The names of a family's table, or of one backend's rows.
template <class Record>
std::vector<std::string> variant_names(std::span<const Record> table) {
  std::vector<std::string> names;
  for (const Record& v : table) names.emplace_back(v.info.name);
  return names;
}

template <class Record>
std::vector<std::string> variant_names(std::span<const Record> table, backend where) {
  std::vector<std::string> names;
  for (const Record& v : table) {
    if (v.info.where == where) names.emplace_back(v.info.name);
  }
  return names;
}

// A gtest-safe name for a parameterised test over variant names.
inline std::string variant_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace swath::testing

#define SWATH_SKIP_WITHOUT_GPU()                                              \
  do {                                                                        \
    std::string swath_why_;                                                   \
    if (!::swath::query_gpu(&swath_why_)) GTEST_SKIP() << swath_why_;         \
  } while (0)
