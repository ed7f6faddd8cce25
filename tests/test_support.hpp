#pragma once
// Helpers the tests share.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/core/device.hpp"
#include "swath/core/random.hpp"

namespace swath::testing {

// Every random input of the tests comes from fresh_seed(): new on every run, and replayable. A run draws
// one base seed (or takes SWATH_TEST_SEED) and prints it once; the k-th seed a test draws is a mix of
// the base, the test's name and k. So `SWATH_TEST_SEED=<base> swath_tests --gtest_filter=<test>`
// draws exactly the inputs that test drew in the run that printed <base>, whatever else ran.
inline std::uint64_t test_seed_base() {
  static const std::uint64_t base = [] {
    std::uint64_t chosen = 0;
    if (const char* given = std::getenv("SWATH_TEST_SEED"); given != nullptr && *given != '\0') {
      chosen = std::strtoull(given, nullptr, 0);
    } else {
      std::random_device entropy;
      chosen = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
    }
    std::printf("[ swath    ] random inputs from SWATH_TEST_SEED=%llu\n", static_cast<unsigned long long>(chosen));
    return chosen;
  }();
  return base;
}

inline std::uint64_t fresh_seed() {
  static std::mutex guard;
  static std::map<std::string, std::uint64_t> drawn;  // per test: how many seeds it has drawn
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = test == nullptr ? std::string() : std::string(test->test_suite_name()) + "." + test->name();
  const std::lock_guard lock(guard);
  const std::uint64_t k = drawn[name]++;
  return mix64(test_seed_base() ^ mix64(std::hash<std::string>{}(name) + k));
}

inline bool gpu_present() { return query_gpu().has_value(); }

inline bench::trial_options fresh_options() {
  bench::trial_options options;
  options.seed = fresh_seed();
  return options;
}

// Fresh options carrying the settings a configuration chose for the variant's step ("tma=on blocks=5"),
// as the runner's trials get them (bench::settings_chosen_in).
inline bench::trial_options fresh_options(const variant_info& variant, const std::string& config) {
  bench::trial_options options = fresh_options();
  options.settings = std::make_shared<const chosen_settings>(bench::settings_chosen_in(variant, config));
  return options;
}

// "key=value" for every literal value other than the default of every setting the row declares (N, X
// and the free forms are left to the tests that name them): a step's new setting is tested at each of
// its values without a test of its own.
inline std::vector<std::string> each_setting_value(const variant_info& variant) {
  std::vector<std::string> configs;
  for (const parameter& setting : variant.settings) {
    std::string_view values = setting.values;
    while (!values.empty()) {
      const std::size_t bar = std::min(values.find('|'), values.size());
      const std::string_view word = values.substr(0, bar);
      const bool literal = word != "N" && word != "X" && !(word.front() >= 'A' && word.front() <= 'Z');
      if (literal && word != setting.default_value) configs.push_back(std::string(setting.key) + "=" + std::string(word));
      values = values.substr(std::min(bar + 1, values.size()));
    }
  }
  return configs;
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
