// The histogram problem's functions the library and the lab share: names, work, support, the host count.
#include <omp.h>
#include <algorithm>
#include <cmath>
#include <vector>
#include "steps.hpp"

namespace swath::histogram {

std::string_view to_string(sample_type type) {
  switch (type) {
    case sample_type::u8: return "u8";
    case sample_type::i32: return "i32";
    case sample_type::f32: return "f32";
  }
  return "?";
}

std::string_view to_string(distribution input) {
  switch (input) {
    case distribution::uniform: return "uniform";
    case distribution::constant: return "constant";
    case distribution::text: return "text";
    case distribution::skewed: return "skewed";
    case distribution::runs: return "runs";
  }
  return "?";
}

work_amount histogram_work(const problem& p) {
  const auto n = static_cast<double>(p.n);
  return {n * static_cast<double>(p.sample_bytes()) + 8.0 * (p.bins + 1), 0.0, n};
}

support any_histogram(const problem&) { return support::yes(); }

support byte_histogram(const problem& p) {
  if (!p.byte_fast_path()) return support::no("the 256-bin byte path only (type=u8 bins=256 lo=0 hi=256)");
  return support::yes();
}

support shared_counters(const problem& p) {
  if (p.bins + 1 > shared_counter_limit) return support::no("bins + 1 counters must fit in shared memory (at most 49151 bins)");
  return support::yes();
}

namespace {

template <class Binner>
void count_on_host(const problem& p, const Binner& bin_of_index, std::uint64_t* counts) {
  const int slots = p.bins + 1;
  std::fill(counts, counts + slots, 0);
#pragma omp parallel
  {
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(slots), 0);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < p.n; ++i) ++mine[static_cast<std::size_t>(bin_of_index(static_cast<std::uint64_t>(i)))];
#pragma omp critical(swath_histogram_reference)
    for (int b = 0; b < slots; ++b) counts[b] += mine[static_cast<std::size_t>(b)];
  }
}

}  // namespace

void reference_counts(const problem& p, std::uint64_t seed, std::uint64_t* counts) {
  const double lo = p.lo, hi = p.hi, scale = p.scale();
  const int bins = p.bins;
  switch (p.type) {
    case sample_type::u8:
      count_on_host(p, [&](std::uint64_t i) {
        return bin_of(inputs::byte_at(p.input, seed, i), lo, hi, scale, bins);
      }, counts);
      break;
    case sample_type::i32:
      count_on_host(p, [&](std::uint64_t i) {
        return bin_of(inputs::int_at(seed, i, lo, hi), lo, hi, scale, bins);
      }, counts);
      break;
    case sample_type::f32:
      count_on_host(p, [&](std::uint64_t i) {
        return bin_of(inputs::float_at(seed, i, lo, hi), lo, hi, scale, bins);
      }, counts);
      break;
  }
}

}  // namespace swath::histogram
