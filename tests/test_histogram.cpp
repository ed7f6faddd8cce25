// Every registered histogram variant against counts regenerated on the host, bit for bit: lengths
// 0, 1, 255, 2^20 + 3 (and past 2^32 on the GPU), every input distribution, samples that start off a
// 16-byte boundary, and the general path's float and int32 samples with out-of-range values and NaN.
// The generators are checked to make the distributions they promise; a step that drops a count or
// leaves a bin unwritten is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/lab/histogram.hpp"
#include "test_support.hpp"

namespace swath::histogram {
namespace {

bench::check_result check_once(const variant& v, const problem& p) {
  return testing::check_once(make_trial(v, p, testing::fresh_options()));
}

std::vector<std::string> names_on(backend where) { return testing::variant_names(variants(), where); }

problem with_length(const variant& v, std::int64_t n, const std::string& config) {
  problem p = make_problem(v, {{{1}}, config});
  p.n = n;  // the CLI takes sizes from 1; the steps take 0 as well
  return p;
}

constexpr const char* byte_inputs[] = {"uniform", "constant", "text", "skewed", "runs"};

// Every length and every byte distribution, aligned and 5 bytes off; the general path where supported.
void check_every_case(const variant& v, const std::vector<std::int64_t>& lengths) {
  for (const std::int64_t n : lengths) {
    for (const char* input : byte_inputs) {
      for (const char* misalign : {"0", "5"}) {
        const problem p = with_length(v, n, std::string("input=") + input + " misalign=" + misalign);
        if (!v.supports(p).ok()) continue;
        const auto result = check_once(v, p);
        ASSERT_TRUE(result.passed()) << v.info.name << " n=" << n << " " << input << " misalign " << misalign << ": "
                                     << result.describe();
        ASSERT_EQ(result.checked, 257);
      }
    }
    for (const char* general : {"type=f32 bins=7 lo=-3 hi=11.5", "type=i32 bins=1000 lo=-100 hi=900",
                                "type=u8 bins=10 lo=20 hi=220", "type=f32 bins=1 lo=0 hi=1 misalign=4"}) {
      const problem p = with_length(v, n, general);
      if (!v.supports(p).ok()) continue;
      const auto result = check_once(v, p);
      ASSERT_TRUE(result.passed()) << v.info.name << " n=" << n << " " << general << ": " << result.describe();
      ASSERT_EQ(result.checked, p.bins + 1);
    }
  }
}

class HistogramVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(HistogramVariant, CountsExactlyAtRaggedLengths) {
  check_every_case(find_variant(GetParam()), {0, 1, 255, (1 << 20) + 3});
}

INSTANTIATE_TEST_SUITE_P(Cpu, HistogramVariant, ::testing::ValuesIn(names_on(backend::cpu)), testing::variant_test_name);

class GpuHistogramVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuHistogramVariant, CountsExactlyAtRaggedLengths) {
  SWATH_SKIP_WITHOUT_GPU();
  check_every_case(find_variant(GetParam()), {0, 1, 15, 255, 4097, (1 << 20) + 3, 3000017});
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuHistogramVariant, ::testing::ValuesIn(names_on(backend::cuda)),
                         testing::variant_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuHistogramVariant);

// Past 2^32 samples: 32-bit indices or counters would wrap. Uniform bytes put ~2^24 in each bin; all
// bytes equal put 2^32 + 5 in one bin, which no 32-bit counter can hold. (Not under compute-sanitizer:
// gpu-check leaves GpuHistogramLarge out of memcheck.)
TEST(GpuHistogramLarge, CountsPastTwoToTheThirtyTwo) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::int64_t n = (std::int64_t{1} << 32) + 5;
  if (gpu_free_memory_bytes() < n + (std::int64_t{1} << 30)) GTEST_SKIP() << "needs ~5 GiB of free device memory";
  for (const std::string& name : names_on(backend::cuda)) {
    const variant& v = find_variant(name);
    for (const char* input : {"uniform", "constant"}) {
      // The seed's kernel on one address: 2^32 L2 atomics in a row, seconds; its uniform run suffices.
      if (name == "histogram/cuda/01_global_atomic" && std::string(input) == "constant") continue;
      const problem p = with_length(v, n, std::string("input=") + input);
      const auto result = check_once(v, p);
      EXPECT_TRUE(result.passed()) << name << " " << input << ": " << result.describe();
    }
  }
}

// The library call, from every kind of memory: pageable and pinned host memory (streamed through the
// GPU in 64 MiB chunks: three here, the last one ragged) and device memory, 5 bytes off alignment.
std::vector<std::uint64_t> expected_bytes(std::int64_t n, distribution input, std::uint64_t seed) {
  problem p;
  p.n = n;
  p.input = input;
  std::vector<std::uint64_t> counts(257);
  reference_counts(p, seed, counts.data());
  return counts;
}

template <class Bytes>
void fill_bytes(Bytes* bytes, std::int64_t n, distribution input, std::uint64_t seed) {
#pragma omp parallel for
  for (std::int64_t i = 0; i < n; ++i) bytes[i] = inputs::byte_at(input, seed, static_cast<std::uint64_t>(i));
}

TEST(HistogramCountBytes, CountsHostBytes) {
  const std::uint64_t seed = testing::fresh_seed();
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000003}}) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n) + 1);
    fill_bytes(bytes.data(), n, distribution::text, seed);
    std::vector<std::uint64_t> counts(257, 12345);
    count_bytes(bytes.data(), n, counts.data());
    EXPECT_EQ(counts, expected_bytes(n, distribution::text, seed)) << "n=" << n;
  }
  std::vector<std::uint64_t> counts(257);
  EXPECT_THROW(count_bytes(nullptr, 10, counts.data()), precondition_error);
  EXPECT_THROW(count_bytes(nullptr, -1, counts.data()), precondition_error);
}

TEST(GpuHistogramCountBytes, CountsFromEveryKindOfMemory) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = testing::fresh_seed();
  const std::int64_t n = (std::int64_t{128} << 20) + 12345;
  const auto expected = expected_bytes(n, distribution::skewed, seed);
  for (const memory_kind kind : {memory_kind::host, memory_kind::pinned_host, memory_kind::device}) {
    buffer<std::uint8_t> storage(kind, static_cast<std::size_t>(n) + 5);
    if (kind == memory_kind::device) {
      buffer<std::uint8_t> staged(memory_kind::host, storage.size());
      fill_bytes(staged.data() + 5, n, distribution::skewed, seed);
      copy(storage, staged);
    } else {
      fill_bytes(storage.data() + 5, n, distribution::skewed, seed);
    }
    std::vector<std::uint64_t> counts(257, 12345);
    count_bytes(storage.data() + 5, n, counts.data());
    EXPECT_EQ(counts, expected) << to_string(kind);
  }
}

// The bin rule at its edges.
TEST(HistogramBins, EdgesOutsideAndNan) {
  const double lo = -3, hi = 11.5;
  const int bins = 7;
  const double scale = bins / (hi - lo);
  EXPECT_EQ(bin_of(lo, lo, hi, scale, bins), 0);
  EXPECT_EQ(bin_of(std::nextafter(hi, lo), lo, hi, scale, bins), bins - 1);
  EXPECT_EQ(bin_of(hi, lo, hi, scale, bins), bins);  // [lo, hi): hi is outside
  EXPECT_EQ(bin_of(std::nextafter(lo, -100.0), lo, hi, scale, bins), bins);
  EXPECT_EQ(bin_of(NAN, lo, hi, scale, bins), bins);
  EXPECT_EQ(bin_of(INFINITY, lo, hi, scale, bins), bins);
  EXPECT_EQ(bin_of(-INFINITY, lo, hi, scale, bins), bins);
  // Bin k holds [lo + k w, lo + (k + 1) w) up to rounding.
  const double width = (hi - lo) / bins;
  for (int k = 0; k < bins; ++k) EXPECT_EQ(bin_of(lo + (k + 0.5) * width, lo, hi, scale, bins), k);
  // Bytes on the general path: bins of 20 values over [20, 220).
  EXPECT_EQ(bin_of(19, 20, 220, 10.0 / 200, 10), 10);
  EXPECT_EQ(bin_of(20, 20, 220, 10.0 / 200, 10), 0);
  EXPECT_EQ(bin_of(219, 20, 220, 10.0 / 200, 10), 9);
  EXPECT_EQ(bin_of(220, 20, 220, 10.0 / 200, 10), 10);
}

// The inputs are what the docs and the benchmark say they are.
std::vector<std::uint64_t> counts_of(const std::string& input, std::int64_t n, std::uint64_t seed) {
  const problem p = make_problem(find_variant("histogram/cpu/01_serial"), {{{n}}, "input=" + input});
  std::vector<std::uint64_t> counts(257);
  reference_counts(p, seed, counts.data());
  EXPECT_EQ(counts[256], 0u);
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), static_cast<std::uint64_t>(n));
  return counts;
}

std::vector<std::uint64_t> largest_first(std::vector<std::uint64_t> counts) {
  std::sort(counts.begin(), counts.end(), std::greater<>());
  return counts;
}

TEST(HistogramInputs, DistributionsHaveTheirShapes) {
  const std::int64_t n = 1 << 22;
  const std::uint64_t seed = testing::fresh_seed();
  const double total = static_cast<double>(n);
  const auto uniform = counts_of("uniform", n, seed);
  const auto [low, high] = std::minmax_element(uniform.begin(), uniform.begin() + 256);
  EXPECT_GT(static_cast<double>(*low), 0.95 * total / 256);  // ±5% is > 15 standard deviations
  EXPECT_LT(static_cast<double>(*high), 1.05 * total / 256);

  const auto constant = largest_first(counts_of("constant", n, seed));
  EXPECT_EQ(constant[0], static_cast<std::uint64_t>(n));

  const auto skewed = largest_first(counts_of("skewed", n, seed));
  const double hot = static_cast<double>(skewed[0] + skewed[1] + skewed[2] + skewed[3]);
  EXPECT_NEAR(hot / total, 0.90 + 0.10 * 4 / 256, 0.01);  // 90% hot, plus the uniform 10%'s share of them

  const auto text = counts_of("text", n, seed);
  EXPECT_EQ(std::max_element(text.begin(), text.end()) - text.begin(), ' ');
  EXPECT_NEAR(static_cast<double>(text[' ']) / total, 1700.0 / 10185, 0.01);
  EXPECT_EQ(std::count_if(text.begin(), text.end(), [](std::uint64_t c) { return c > 0; }), inputs::text_symbols);

  // Runs: within a 64 KiB segment, every whole run is at least 16 long (runs are 16 to 2063, a fresh
  // length per segment); over 64 segments the average run is in the hundreds.
  std::int64_t changes = 0, shortest = n, previous = -1;
  for (std::int64_t i = 1; i < n; ++i) {
    if (inputs::byte_at(distribution::runs, seed, i) == inputs::byte_at(distribution::runs, seed, i - 1)) continue;
    ++changes;
    // (A segment's first run is cut by the phase: start counting at its first change inside.)
    if (previous >= 0 && previous >> 16 == i >> 16 && (previous & 0xffff) != 0) shortest = std::min(shortest, i - previous);
    previous = i;
  }
  EXPECT_GE(shortest, 16);
  EXPECT_GT(total / static_cast<double>(changes + 1), 100);
}

// A step that drops the last sample, or leaves the outside slot unwritten, fails the check.
void drops_last_sample(const problem& p, const operands& io, const launch_context& launch) {
  problem shorter = p;
  shorter.n = p.n - 1;
  find_variant("histogram/cpu/02_openmp").run(shorter, io, launch);
}
void skips_outside_slot(const problem& p, const operands& io, const launch_context& launch) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(p.bins + 1));
  find_variant("histogram/cpu/02_openmp").run(p, {io.samples, counts.data()}, launch);
  std::copy(counts.begin(), counts.end() - 1, io.counts);
}

TEST(HistogramCheck, CatchesALostCountAndAnUnwrittenSlot) {
  variant broken = find_variant("histogram/cpu/02_openmp");
  broken.run = drops_last_sample;
  const auto lost = check_once(broken, make_problem(broken, {{{1000}}, "input=uniform"}));
  EXPECT_FALSE(lost.passed());
  EXPECT_GT(lost.max_relative_error, 0);

  broken.run = skips_outside_slot;
  const auto unwritten = check_once(broken, make_problem(broken, {{{1000}}, "type=f32 bins=5 lo=0 hi=1"}));
  EXPECT_FALSE(unwritten.passed());
  EXPECT_EQ(unwritten.unwritten, 1);
}

TEST(HistogramProblem, ParsesAndRejects) {
  const variant& v = find_variant("histogram/cpu/02_openmp");
  const problem p = make_problem(v, {{{1000}}, "type=f32 bins=7 lo=-3 hi=11.5 misalign=4"});
  EXPECT_EQ(p.type, sample_type::f32);
  EXPECT_EQ(p.bins, 7);
  EXPECT_DOUBLE_EQ(p.lo, -3);
  EXPECT_DOUBLE_EQ(p.hi, 11.5);
  EXPECT_FALSE(p.byte_fast_path());
  EXPECT_TRUE(make_problem(v, {{{1000}}, ""}).byte_fast_path());
  EXPECT_FALSE(byte_histogram(p).ok());
  EXPECT_FALSE(shared_counters(make_problem(v, {{{10}}, "type=f32 bins=100000"})).ok());
  for (const char* bad : {"input=zipf", "type=f16", "bins=0", "lo=5 hi=5", "lo=x", "misalign=16", "misalign=1.5",
                          "type=f32 misalign=2", "type=i32 input=text"}) {
    EXPECT_THROW(make_problem(v, {{{1000}}, bad}), usage_error) << bad;
  }
  const auto work = histogram_work(make_problem(v, {{{1000}}, "type=i32"}));
  EXPECT_DOUBLE_EQ(work.items, 1000);
  EXPECT_DOUBLE_EQ(work.bytes, 4000 + 8 * 257);
}

TEST(HistogramFamily, SuiteRunsEveryInputAndNamesWhatDiffers) {
  const bench::family& f = family();
  const variant_info info = find_variant("histogram/cpu/02_openmp").info;
  const auto defaults = f.configurations(info, {});
  ASSERT_EQ(defaults.size(), 5u);
  EXPECT_EQ(defaults[0], "input=uniform");
  const auto general = f.configurations(info, {{"type", {"f32"}}, {"bins", {"10", "20"}}});
  ASSERT_EQ(general.size(), 2u);
  EXPECT_EQ(general[1], "input=uniform type=f32 bins=20");
  EXPECT_THROW(f.configurations(info, {{"colour", {"red"}}}), usage_error);
}

}  // namespace
}  // namespace swath::histogram
