#pragma once
// The histogram family (seed 001, item 6): counts of samples in equal-width bins, exact 64-bit counts.
//
// The fast path is the seed's problem: 256 bins of unsigned bytes, bin = the byte. The general path
// takes `bins` bins of float or int32 samples over [lo, hi):
//   bin(x) = floor((x - lo) · scale), scale = bins / (hi - lo), both in double, clamped to bins - 1
//   (rounding can carry the largest samples below hi to bins); samples below lo, at or above hi, and
//   NaN fall in no bin. They are counted in one extra slot after the bins, so that the counts always
//   add up to n and a user sees how much was out of range.
// Every step writes bins + 1 counts; the CPU and the GPU agree bit for bit (the bin rule is IEEE
// double subtraction and multiplication on both, with the same operands).
//
// Traffic: one read of each sample; the counts are noise (2 KiB). 1 GiB of bytes at the H200's
// ~4.5 TB/s read bandwidth is ~0.24 ms, i.e. ~15-16 bytes per clock per SM to be counted.
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "swath/core/hd.hpp"
#include "swath/core/random.hpp"
#include "swath/registry.hpp"
#include "swath/core/stream.hpp"

namespace swath::histogram {

enum class sample_type { u8, i32, f32 };
// The inputs the benchmark measures separately: a histogram that is fast only on uniform data is not
// fast. uniform: random bytes. constant: every byte equal (every increment hits one bin). text:
// English-like letters, spaces and punctuation drawn from their frequencies in English prose. skewed:
// 90% of the bytes among 4 values. runs: random bytes repeated in runs of 16 to ~2000.
enum class distribution { uniform, constant, text, skewed, runs };

std::string_view to_string(sample_type type);
std::string_view to_string(distribution input);

struct problem {
  std::int64_t n = 0;  // samples
  sample_type type = sample_type::u8;
  int bins = 256;
  double lo = 0, hi = 256;
  distribution input = distribution::uniform;
  // The samples start this many bytes past an aligned allocation (tests: kernels must not assume
  // 16-byte aligned input).
  int misalign = 0;
  [[nodiscard]] bool byte_fast_path() const { return type == sample_type::u8 && bins == 256 && lo == 0 && hi == 256; }
  [[nodiscard]] double scale() const { return static_cast<double>(bins) / (hi - lo); }
  [[nodiscard]] std::int64_t sample_bytes() const { return type == sample_type::u8 ? 1 : 4; }
};

// Pointers in the memory the step works on (device memory for CUDA steps).
struct operands {
  const void* samples = nullptr;
  std::uint64_t* counts = nullptr;  // bins + 1: the bins, then the samples outside [lo, hi)
};

struct variant {
  variant_info info;
  support (*supports)(const problem&) = nullptr;
  void (*run)(const problem&, const operands&, const launch_context&) = nullptr;
  work_amount (*work)(const problem&) = nullptr;
  bool samples_on_host = false;  // a CUDA step whose samples start in (pinned) host memory
};

// The bin of one sample, or `bins` (the outside slot) for samples outside [lo, hi) and NaN.
SWATH_HD_INLINE int bin_of(double x, double lo, double hi, double scale, int bins) {
  if (!(x >= lo && x < hi)) return bins;  // NaN fails both comparisons
  const double position = (x - lo) * scale;
  const int bin = static_cast<int>(position);  // x ≥ lo, so truncation is floor
  return bin < bins ? bin : bins - 1;
}

// The samples, as pure functions of (seed, index): the host regenerates any of them for the
// reference, the device fills its buffers with the same bits.
namespace inputs {

// English prose's characters with their frequencies (per ~10000 characters): space and newline, the
// letters by their frequency in English text (lower case; capitals start a few words), and the common
// punctuation. Only the shape matters: a few bins take most of the counts, 38 are used.
inline constexpr int text_symbols = 38;
SWATH_HD_INLINE std::uint8_t text_symbol(std::uint32_t uniform16) {
  // clang-format off
  constexpr int weight[text_symbols] = {
    1700, 60, 1000, 730, 640, 610, 570, 560, 520, 500, 490, 340, 330, 230, 220, 200, 190, 180, 160, 150,
    140, 120, 80, 60, 10, 15, 8, 7, 40, 25, 25, 30, 100, 90, 25, 5, 20, 5};
  // clang-format on
  constexpr int total = 10185;  // the sum of the weights
  const int draw = static_cast<int>((uniform16 * static_cast<std::uint32_t>(total)) >> 16);  // [0, total)
  // Branch-free: the symbol's index is how many cumulative weights lie at or below the draw. Unrolled,
  // every weight is a constant (no table in local memory on the device).
  int symbol = 0, cumulative = 0;
SWATH_UNROLL
  for (int k = 0; k < text_symbols - 1; ++k) {
    cumulative += weight[k];
    symbol += draw >= cumulative ? 1 : 0;
  }
  return static_cast<std::uint8_t>(" \netaoinshrdlcumwfgypbvkjxqzTSAI,.';-!"[symbol]);
}

// One byte of the chosen distribution at `index`.
SWATH_HD_INLINE std::uint8_t byte_at(distribution input, std::uint64_t seed, std::uint64_t index) {
  switch (input) {
    case distribution::uniform: return static_cast<std::uint8_t>(random_bits(seed, index >> 3) >> (8 * (index & 7)));
    case distribution::constant: return static_cast<std::uint8_t>(mix64(seed) | 1);
    case distribution::text: return text_symbol(static_cast<std::uint32_t>(random_bits(seed, index) & 0xffff));
    case distribution::skewed: {
      const std::uint64_t bits = random_bits(seed, index);
      const std::uint64_t hot = mix64(seed ^ 0x5ca1ab1e);  // the 4 frequent values
      if ((bits & 0xffff) < 58982) return static_cast<std::uint8_t>(hot >> (8 * ((bits >> 16) & 3)));  // 90%
      return static_cast<std::uint8_t>(bits >> 24);
    }
    case distribution::runs: {
      // 64 KiB segments, each with its own run length (16 to 2063) and phase, so runs do not line up
      // with any load width.
      const std::uint64_t segment = index >> 16;
      const std::uint64_t shape = random_bits(seed ^ 0x7275ULL, segment);
      const std::uint64_t length = 16 + (shape & 2047);
      const std::uint64_t phase = (shape >> 11) % length;
      const std::uint64_t run = ((index & 0xffff) + phase) / length;
      return static_cast<std::uint8_t>(random_bits(seed, (segment << 16) | run));
    }
  }
  return 0;
}

// General samples: spread over [lo - 10%, hi + 10%) of the range so some fall outside, with one NaN in
// about 1000 floats.
SWATH_HD_INLINE float float_at(std::uint64_t seed, std::uint64_t index, double lo, double hi) {
  const std::uint64_t bits = random_bits(seed, index);
  if ((bits & 1023) == 0) return NAN;
  const double unit = static_cast<double>(bits >> 40) * 0x1p-24;  // [0, 1) in 2^-24 steps
  return static_cast<float>(lo + (hi - lo) * (1.2 * unit - 0.1));
}
SWATH_HD_INLINE std::int32_t int_at(std::uint64_t seed, std::uint64_t index, double lo, double hi) {
  const std::uint64_t bits = random_bits(seed, index);
  const double unit = static_cast<double>(bits >> 40) * 0x1p-24;
  return static_cast<std::int32_t>(std::floor(lo + (hi - lo) * (1.2 * unit - 0.1)));
}

}  // namespace inputs

// Work: the samples read once, the counts written once; `items` are the samples.
work_amount histogram_work(const problem& p);
support any_histogram(const problem& p);
support byte_histogram(const problem& p);  // the 256-bin byte fast path only
// Steps that keep a block's bins + 1 counters (32-bit) in shared memory: up to 48K of them (192 KiB).
inline constexpr int shared_counter_limit = 48 * 1024;
support shared_counters(const problem& p);

// The library's steps of this family (src/histogram/registry.cpp), in reading order; CUDA rows only in
// CUDA builds. The lab adds the vendor baselines and the entry points' rows (swath/lab/histogram.hpp).
std::span<const variant> steps();

// The library call: counts bytes[0, n) into counts[0, 257) (host memory; counts[256], the outside slot,
// is 0 for bytes). `bytes` may be device memory or host memory, pinned or pageable: with a GPU, device
// input is counted in place (step 06) and host input is streamed through the GPU in chunks (step 07);
// without one, OpenMP threads count it (CPU step 02). Synchronous.
void count_bytes(const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts);

// Reference counts (bins + 1) of a problem's samples from `seed`, regenerated on the host, OpenMP.
void reference_counts(const problem& p, std::uint64_t seed, std::uint64_t* counts);

// ---- The library calls -----------------------------------------------------------------------------
// counts[0, 257) = the count of each byte value in bytes[0, n), then counts[256] = 0 (the outside slot,
// empty for bytes). The counts are written, not added to. Where it runs follows the memory:
//   - counts in host memory that is not pinned: the CPU's OpenMP threads count bytes in host memory
//     (pinned or not), done on return;
//   - counts in device memory or pinned host memory: on `stream`'s device, asynchronously, bytes in
//     device memory counted in place, bytes in pinned host memory streamed across the host link (the
//     fastest way to count them: ~55 GB/s against ~20 GB/s for the CPU on an H100 host); counts in
//     pinned host memory are written by a copy on the stream.
// Throws swath::usage_error naming the argument, before anything runs, for n < 0, a null pointer,
// device bytes with pageable host counts (that would make the call wait), pageable host bytes with
// device counts, or memory on another device than the stream's.
void count(const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts, stream_t stream = nullptr);
// `bins` equal bins over [lo, hi) of int32 or float samples (bin_of above): counts[0, bins) and the
// samples outside [lo, hi) and NaN in counts[bins]. bins ≥ 1, lo < hi, both finite. Samples and counts
// both in device memory (on the stream's device, asynchronous) or both in host memory (the CPU, done on
// return).
void count(const std::int32_t* samples, std::int64_t n, int bins, double lo, double hi, std::uint64_t* counts,
           stream_t stream = nullptr);
void count(const float* samples, std::int64_t n, int bins, double lo, double hi, std::uint64_t* counts,
           stream_t stream = nullptr);

}  // namespace swath::histogram
