// The parameter descriptors: every family's configurations, help and defaults come from them, so each
// declared value must be accepted, each undeclared key and value refused, and a step's setting must name
// only the rows of the steps that declare it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {
namespace {

// Every key a family knows: its parameters, its declared settings and its rows' settings.
std::vector<const parameter*> every_key(const family& f) {
  std::vector<const parameter*> keys;
  for (const parameter& p : f.parameters()) keys.push_back(&p);
  for (const parameter& p : f.settings()) keys.push_back(&p);
  for (const variant_info& v : f.variants()) {
    for (const parameter& p : v.settings) keys.push_back(&p);
  }
  return keys;
}

TEST(Parameters, EveryDefaultIsAnAllowedValueAndInTheHelp) {
  for (const family* f : families()) {
    const auto defaults = f->defaults();
    const std::string help = f->parameter_help();
    const variant_info first = f->variants().front();
    for (const parameter* p : every_key(*f)) {
      SCOPED_TRACE(std::string(f->name()) + " " + std::string(p->key));
      EXPECT_EQ(defaults.at(std::string(p->key)), p->default_value);
      EXPECT_NE(help.find(std::string(p->key) + "="), std::string::npos);
      EXPECT_FALSE(p->help.empty());
      EXPECT_NO_THROW(f->configurations(first, {{std::string(p->key), {std::string(p->default_value)}}}));
      // A setting several steps share is one declaration copied into their rows: the same record.
      const parameter* found = f->find_parameter(p->key);
      ASSERT_NE(found, nullptr);
      EXPECT_TRUE(found->values == p->values && found->default_value == p->default_value && found->help == p->help &&
                  found->named == p->named)
          << "two different declarations of one key";
    }
  }
}

TEST(Parameters, UnknownKeysAndUndeclaredValuesAreRefused) {
  for (const family* f : families()) {
    const variant_info first = f->variants().front();
    EXPECT_THROW(f->configurations(first, {{"colour", {"red"}}}), usage_error) << f->name();
  }
  const family& gemm = find_family("gemm");
  const variant_info naive = gemm.variants().front();
  EXPECT_THROW(gemm.configurations(naive, {{"op", {"nx"}}}), usage_error);
  EXPECT_THROW(gemm.configurations(naive, {{"alpha", {"one"}}}), usage_error);
  EXPECT_THROW(gemm.configurations(naive, {{"tile", {"0"}}}), usage_error);
  EXPECT_EQ(gemm.configurations(naive, {{"alpha", {"2", "-0.5"}}}).size(), 2u);
  const family& histogram = find_family("histogram");
  EXPECT_THROW(histogram.configurations(histogram.variants().front(), {{"input", {"gaussian"}}}), usage_error);
}

// gemm/cpu/02_tiled declares tile; gemm/cpu/01_naive does not: tile=64 names 02's rows only, and the
// family's own parameters (op) name every row they were chosen for.
TEST(Parameters, AStepsSettingNamesOnlyItsRows) {
  const family& gemm = find_family("gemm");
  const auto info_of = [&](std::string_view name) {
    const auto all = gemm.variants();
    return *std::find_if(all.begin(), all.end(), [&](const variant_info& v) { return v.name == name; });
  };
  const variant_info naive = info_of("gemm/cpu/01_naive"), tiled = info_of("gemm/cpu/02_tiled");
  const std::vector<parameter_choice> chosen = {{"op", {"tn"}}, {"tile", {"64", "96"}}};
  EXPECT_EQ(gemm.configurations(naive, chosen), (std::vector<std::string>{"op=tn"}));
  EXPECT_EQ(gemm.configurations(tiled, chosen), (std::vector<std::string>{"op=tn tile=64", "op=tn tile=96"}));
  // Nothing chosen: one configuration, unnamed (the suite's rows are named by size alone).
  EXPECT_EQ(gemm.configurations(tiled, {}), (std::vector<std::string>{""}));
}

}  // namespace
}  // namespace swath::bench
