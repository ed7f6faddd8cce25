// CPU step 2: every OpenMP thread counts its share of the samples into private histograms, merged at
// the end (256 × threads additions: nothing beside the samples). Bytes go into four interleaved copies
// by position, so that equal neighbours increment different counters and do not wait on each other's
// store: the serial step's chain on constant input becomes four independent ones.
#include "../../histogram/steps.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

namespace swath::histogram::cpu {
namespace {

constexpr int copies = 4;

void count_bytes(const std::uint8_t* bytes, std::int64_t begin, std::int64_t end, std::uint64_t* mine) {
  std::uint64_t* copy[copies];
  for (int c = 0; c < copies; ++c) copy[c] = mine + c * 256;
  std::int64_t i = begin;
  for (; i + copies <= end; i += copies) {
    for (int c = 0; c < copies; ++c) ++copy[c][bytes[i + c]];
  }
  for (; i < end; ++i) ++copy[0][bytes[i]];
  for (int c = 1; c < copies; ++c) {
    for (int b = 0; b < 256; ++b) mine[b] += copy[c][b];
  }
  std::fill(mine + 256, mine + copies * 256, 0);  // slot 256 is the outside count: none for bytes
}

template <class Sample>
void count_general(const problem& p, const Sample* samples, std::int64_t begin, std::int64_t end, std::uint64_t* mine) {
  const double lo = p.lo, hi = p.hi, scale = p.scale();
  for (std::int64_t i = begin; i < end; ++i) ++mine[bin_of(static_cast<double>(samples[i]), lo, hi, scale, p.bins)];
}

}  // namespace

void openmp(const problem& p, const operands& io, const launch_context&) {
  const int slots = p.bins + 1;
  std::fill(io.counts, io.counts + slots, 0);
#pragma omp parallel
  {
    const std::int64_t threads = omp_get_num_threads(), me = omp_get_thread_num();
    const std::int64_t begin = p.n * me / threads, end = p.n * (me + 1) / threads;
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(p.byte_fast_path() ? copies * 256 : slots), 0);
    if (p.byte_fast_path()) {
      count_bytes(static_cast<const std::uint8_t*>(io.samples), begin, end, mine.data());
    } else {
      switch (p.type) {
        case sample_type::u8: count_general(p, static_cast<const std::uint8_t*>(io.samples), begin, end, mine.data()); break;
        case sample_type::i32: count_general(p, static_cast<const std::int32_t*>(io.samples), begin, end, mine.data()); break;
        case sample_type::f32: count_general(p, static_cast<const float*>(io.samples), begin, end, mine.data()); break;
      }
    }
#pragma omp critical(swath_histogram_merge)
    for (int b = 0; b < slots; ++b) io.counts[b] += mine[static_cast<std::size_t>(b)];
  }
}

}  // namespace swath::histogram::cpu
