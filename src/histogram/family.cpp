// The histogram family as the runner and the tests see it: configurations (input distribution, sample
// type, bins and range), inputs generated where the step runs, poisoned counts, and the exact check
// against counts regenerated on the host.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "steps.hpp"
#include "swath/bench/table_family.hpp"
#include "swath/lab/histogram.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"

namespace swath::histogram {

namespace {

// The reference of the last few problems: every step of a suite checks the same inputs, and
// regenerating 1 GiB of text costs the host about a second.
const std::vector<std::uint64_t>& cached_reference(const problem& p, std::uint64_t seed) {
  using key = std::tuple<std::int64_t, int, int, double, double, int, std::uint64_t>;
  static std::mutex guard;
  static std::map<key, std::vector<std::uint64_t>> cache;
  const key wanted{p.n, static_cast<int>(p.type), p.bins, p.lo, p.hi, static_cast<int>(p.input), seed};
  const std::lock_guard lock(guard);
  if (auto found = cache.find(wanted); found != cache.end()) return found->second;
  if (cache.size() >= 16) cache.clear();
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(p.bins + 1));
  reference_counts(p, seed, counts.data());
  return cache.emplace(wanted, std::move(counts)).first->second;
}

void fill_on_host(const problem& p, std::uint64_t seed, void* samples) {
  const std::int64_t n = p.n;
  switch (p.type) {
    case sample_type::u8: {
      auto* out = static_cast<std::uint8_t*>(samples);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) out[i] = inputs::byte_at(p.input, seed, static_cast<std::uint64_t>(i));
      break;
    }
    case sample_type::i32: {
      auto* out = static_cast<std::int32_t*>(samples);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) out[i] = inputs::int_at(seed, static_cast<std::uint64_t>(i), p.lo, p.hi);
      break;
    }
    case sample_type::f32: {
      auto* out = static_cast<float*>(samples);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) out[i] = inputs::float_at(seed, static_cast<std::uint64_t>(i), p.lo, p.hi);
      break;
    }
  }
}

std::uint64_t set_seed(std::uint64_t seed, int set) { return mix64(seed + 0x4157 + static_cast<std::uint64_t>(set)); }

// One input set: the samples (misaligned by p.misalign bytes inside the allocation) and the counts.
struct input_set {
  buffer<std::uint8_t> storage;
  buffer<std::uint64_t> counts;
};

class histogram_trial final : public bench::trial {
 public:
  histogram_trial(const variant& v, const problem& p, const bench::trial_options& options)
      : variant_(v),
        problem_(p),
        options_(options),
        on_device_(v.info.where == backend::cuda),
        launch_(bench::prepare_launch(v.info, v.supports(p), options.settings)) {
    const std::int64_t set_bytes = p.n * p.sample_bytes() + p.misalign + 8 * (p.bins + 1);
    const int count = bench::wanted_sets(options, set_bytes);
    for (int set = 0; set < count; ++set) {
      if (set > 0 && !bench::room_for_another_set(samples_memory(), set, set_bytes)) break;
      sets_.push_back(allocate_set(set));
    }
  }

  [[nodiscard]] int sets() const override { return static_cast<int>(sets_.size()); }

  void poison_outputs() override {
    for (auto& set : sets_) {
      auto* counts = reinterpret_cast<double*>(set.counts.data());  // the same 8-byte poison pattern
      const auto slots = static_cast<std::int64_t>(set.counts.size());
      if (on_device_) {
        poison_device(counts, slots);
      } else {
        poison_host(counts, slots);
      }
    }
    if (on_device_) device_synchronize();
  }

  void run(int set) override {
    input_set& chosen = sets_[static_cast<std::size_t>(set) % sets_.size()];
    variant_.run(problem_, operands{samples_of(chosen), chosen.counts.data()}, launch_);
  }

  bench::check_result check() override {
    if (on_device_) device_synchronize();
    const input_set& first = sets_.front();
    std::vector<std::uint64_t> counts(first.counts.size());
    copy_bytes(counts.data(), memory_kind::host, first.counts.data(), first.counts.kind(), first.counts.bytes());
    const std::vector<std::uint64_t>& expected = cached_reference(problem_, set_seed(options_.seed, 0));
    bench::check_result result;
    result.tolerance = variant_.info.tolerance;
    result.checked = static_cast<std::int64_t>(counts.size());
    std::uint64_t total = 0;
    for (std::size_t b = 0; b < counts.size(); ++b) {
      if (counts[b] == poison_bits_f64) {
        ++result.unwritten;
        continue;
      }
      total += counts[b];
      // Counts are exact: any difference fails (relative to the expected count, at least 1).
      const double difference = counts[b] > expected[b] ? static_cast<double>(counts[b] - expected[b])
                                                        : static_cast<double>(expected[b] - counts[b]);
      const double error = difference / std::max(1.0, static_cast<double>(expected[b]));
      if (error > result.max_relative_error || result.worst_index < 0) {
        result.max_relative_error = error;
        result.worst_index = static_cast<std::int64_t>(b);
      }
    }
    // Every sample is in exactly one slot: a lost or doubled count shows here even where bins agree.
    if (result.unwritten == 0 && total != static_cast<std::uint64_t>(problem_.n)) {
      result.max_relative_error = std::max(result.max_relative_error, 1.0);
    }
    return result;
  }

  [[nodiscard]] bool timed_on_device() const override { return on_device_; }

 private:
  [[nodiscard]] const void* samples_of(const input_set& set) const { return set.storage.data() + problem_.misalign; }

  // Where the samples live: the CPU steps' host memory, a CUDA step's device memory, or pinned host
  // memory for the steps that read them across the host link.
  [[nodiscard]] memory_kind samples_memory() const {
    if (!on_device_) return memory_kind::host;
    return variant_.samples_on_host ? memory_kind::pinned_host : memory_kind::device;
  }

  input_set allocate_set(int set) {
    const memory_kind counts_in = on_device_ ? memory_kind::device : memory_kind::host;
    const memory_kind samples_in = samples_memory();
    const auto bytes = static_cast<std::size_t>(problem_.n * problem_.sample_bytes() + problem_.misalign);
    input_set made{buffer<std::uint8_t>(samples_in, std::max<std::size_t>(bytes, 1)),
                   buffer<std::uint64_t>(counts_in, static_cast<std::size_t>(problem_.bins + 1))};
    void* samples = made.storage.data() + problem_.misalign;
    if (samples_in == memory_kind::device) {
#if SWATH_WITH_CUDA
      cuda::fill_samples(problem_, set_seed(options_.seed, set), samples, nullptr);
      device_synchronize();
#endif
    } else {
      fill_on_host(problem_, set_seed(options_.seed, set), samples);
    }
    return made;
  }

  variant variant_;
  problem problem_;
  bench::trial_options options_;
  bool on_device_;
  launch_context launch_;
  std::vector<input_set> sets_;
};

// The histogram's parameters: what is counted, and how.
constexpr parameter histogram_parameters[] = {
    {"input", "uniform|constant|text|skewed|runs", "uniform", "the byte distribution (the suite runs all five; byte samples only)", parameter::naming::always},
    {"type", "u8|i32|f32", "u8", "the sample type; i32 and f32 are uniform over [lo, hi)"},
    {"bins", "N", "256", "bins over [lo, hi), at most 2^24 (the byte fast path is u8, 256, 0, 256)"},
    {"lo", "X", "0", "the range's lower end"},
    {"hi", "X", "256", "the range's upper end, past lo"},
    {"misalign", "OFFSET", "0", "bytes the samples start past an aligned address: 0..15, a multiple of the sample size"},
};

class histogram_family final : public bench::table_family<variant, problem> {
 public:
  [[nodiscard]] std::string_view name() const override { return "histogram"; }
  [[nodiscard]] std::string_view summary() const override {
    return "256-bin byte histograms (and bins over [lo, hi) of int32/float), exact 64-bit counts, five inputs";
  }
  [[nodiscard]] std::span<const parameter> parameters() const override { return histogram_parameters; }
  // The suite runs the five byte distributions; general samples (type chosen) have one.
  [[nodiscard]] std::vector<std::string> suite_values(const variant_info& info, const parameter& key,
                                                      const std::vector<bench::parameter_choice>& chosen) const override {
    if (key.key != "input") return family::suite_values(info, key, chosen);
    const bool typed = std::any_of(chosen.begin(), chosen.end(), [](const auto& c) { return c.key == "type"; });
    if (typed) return {"uniform"};
    return {"uniform", "constant", "text", "skewed", "runs"};
  }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    if (info.where == backend::cuda) {
      // The target: 1 GiB on the device (~20x the L2). The seed's 100M bytes, where launch and the final
      // merge show. The seed's global-atomic kernel gets only the smaller size: on constant input its
      // 2^30 atomics on one address take most of a second a run.
      if (info.name == "histogram/cuda/01_global_atomic") return {{{100000000}}};
      if (row(info).samples_on_host) return {{{1LL << 30}}};  // bound by the host link
      return {{{1LL << 30}}, {{100000000}}};
    }
    // 64 MiB and 3 bytes: past any L2 (the runner rotates sets past the L3), ~15 s a step on two cores.
    return {{{(1 << 26) + 3}}};
  }
  [[nodiscard]] std::string_view size_help() const override { return "N samples (the steps also take 0; the tests check it)"; }

 protected:
  [[nodiscard]] std::span<const variant> table() const override { return histogram::variants(); }
  [[nodiscard]] std::string size_mismatch(const variant&, const bench::size_spec& size) const override {
    return size.extents.size() == 1 ? "" : "histograms take a size N";
  }
  [[nodiscard]] problem problem_of(const variant& v, const bench::problem_spec& spec) const override {
    return make_problem(v, spec);
  }
  [[nodiscard]] std::int64_t footprint(const variant&, const problem& p) const override {
    return p.n * p.sample_bytes() + p.misalign + 8 * (p.bins + 1);
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const variant& v, const problem& p,
                                                       const bench::trial_options& options) const override {
    return histogram::make_trial(v, p, options);
  }
};

}  // namespace

problem make_problem(const variant&, const bench::problem_spec& spec) {
  SWATH_EXPECTS(spec.size.extents.size() == 1, "histograms take a size N");
  const auto values = bench::parse_config(spec.config, family().defaults());
  problem p;
  p.n = spec.size.extents[0];
  const std::string& input = values.at("input");
  if (input == "uniform") {
    p.input = distribution::uniform;
  } else if (input == "constant") {
    p.input = distribution::constant;
  } else if (input == "text") {
    p.input = distribution::text;
  } else if (input == "skewed") {
    p.input = distribution::skewed;
  } else if (input == "runs") {
    p.input = distribution::runs;
  } else {
    throw usage_error("unknown histogram input '" + input + "' (uniform, constant, text, skewed, runs)");
  }
  const std::string& type = values.at("type");
  if (type == "u8") {
    p.type = sample_type::u8;
  } else if (type == "i32") {
    p.type = sample_type::i32;
  } else if (type == "f32") {
    p.type = sample_type::f32;
  } else {
    throw usage_error("unknown histogram sample type '" + type + "' (u8, i32, f32)");
  }
  if (p.type != sample_type::u8 && p.input != distribution::uniform) {
    throw usage_error("the input distributions are for byte samples; i32 and f32 samples are uniform over the range");
  }
  const std::int64_t bins = bench::parse_positive("bins", values.at("bins"));
  if (bins > (1 << 24)) throw usage_error("histogram bins=" + values.at("bins") + " is more than 2^24");
  p.bins = static_cast<int>(bins);
  p.lo = bench::parse_finite("lo", values.at("lo"));
  p.hi = bench::parse_finite("hi", values.at("hi"));
  if (!(p.hi > p.lo)) throw usage_error("histogram range needs lo < hi (lo=" + values.at("lo") + ", hi=" + values.at("hi") + ")");
  const double misalign = bench::parse_finite("misalign", values.at("misalign"));
  if (misalign < 0 || misalign > 15 || misalign != std::floor(misalign)) {
    throw usage_error("histogram misalign=" + values.at("misalign") + " is not a whole number in 0..15");
  }
  p.misalign = static_cast<int>(misalign);
  if (p.misalign % p.sample_bytes() != 0) {
    throw usage_error("histogram misalign=" + values.at("misalign") + " must be a multiple of the sample size (" +
                      std::to_string(p.sample_bytes()) + " bytes)");
  }
  return p;
}

std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options) {
  return std::make_unique<histogram_trial>(v, p, options);
}

const bench::family& family() {
  static const histogram_family instance;
  return instance;
}

}  // namespace swath::histogram
