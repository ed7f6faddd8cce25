// The gemm family as the runner and the tests see it: sizes MxNxK, the cache model's band width,
// positive random inputs, and the check against a float64 reference (every element at small sizes,
// a sample of rows past 2^31 multiply-adds so that verification takes seconds).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "steps.hpp"
#include "swath/bench/check.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::gemm {

work_amount gemm_work(const problem& p) {
  const auto m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  return {4.0 * (m * k + k * n + m * n), 2.0 * m * n * k};
}

support any_gemm(const problem&) { return support::yes(); }

double tolerance(const problem& p) { return 2 * 0x1p-24 * static_cast<double>(p.k); }

namespace {

// Positive inputs in [0.5, 2): no cancellation, so every product adds to the sum's size and the
// relative error bound K · 2^-24 holds.
float input(std::uint64_t seed, std::int64_t index) {
  return std::fabs(random_float(seed, static_cast<std::uint64_t>(index)));
}

class gemm_trial final : public bench::trial {
 public:
  gemm_trial(const variant& v, const problem& p, const bench::trial_options& options)
      : variant_(v), problem_(p), seed_(options.seed) {
    launch_.cpu_threads = omp_get_max_threads();
    a_ = buffer<float>(memory_kind::host, static_cast<std::size_t>(p.m * p.k));
    b_ = buffer<float>(memory_kind::host, static_cast<std::size_t>(p.k * p.n));
    c_ = buffer<float>(memory_kind::host, static_cast<std::size_t>(p.m * p.n));
    fill(a_, seed_a());
    fill(b_, seed_b());
  }
  [[nodiscard]] int sets() const override { return 1; }
  void poison_outputs() override { poison_host(c_.data(), static_cast<std::int64_t>(c_.size())); }
  void run(int) override { variant_.run(problem_, operands{a_.data(), b_.data(), c_.data()}, launch_); }
  [[nodiscard]] bool timed_on_device() const override { return false; }

  bench::check_result check() override {
    const problem& p = problem_;
    const std::uint64_t sa = seed_a(), sb = seed_b();
    const auto reference = [&](std::int64_t index) {
      const std::int64_t i = index / p.n, j = index % p.n;
      double sum = 0;
      for (std::int64_t k = 0; k < p.k; ++k) sum += static_cast<double>(input(sa, i * p.k + k)) * input(sb, k * p.n + j);
      return sum;
    };
    const double tol = variant_.info.tolerance * static_cast<double>(p.k);
    // Past 2^31 multiply-adds, a sample of 64 evenly spaced rows (and the last); below, every element.
    const bool sample = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) > 0x1p31;
    if (!sample) return bench::compare_region(c_.data(), p.m, p.n, p.n, reference, tol);
    bench::check_result merged;
    merged.tolerance = tol;
    const std::int64_t step = std::max<std::int64_t>(1, p.m / 64);
    for (std::int64_t i = 0; i < p.m; i += (i + step < p.m || i == p.m - 1) ? step : p.m - 1 - i) {
      const auto row = bench::compare_region(c_.data() + i * p.n, 1, p.n, p.n,
                                             [&](std::int64_t j) { return reference(i * p.n + j); }, tol);
      merged.checked += row.checked;
      merged.unwritten += row.unwritten;
      merged.not_finite += row.not_finite;
      if (row.max_relative_error > merged.max_relative_error || merged.worst_index < 0) {
        merged.max_relative_error = row.max_relative_error;
        merged.worst_index = i * p.n + row.worst_index;
      }
      if (i == p.m - 1) break;
    }
    // Unwritten elements anywhere still count: the poison check is cheap, so it covers every element.
    std::int64_t unwritten = 0;
    const float* c = c_.data();
    const auto total = static_cast<std::int64_t>(c_.size());
#pragma omp parallel for reduction(+ : unwritten)
    for (std::int64_t e = 0; e < total; ++e) unwritten += is_poison(c[e]) ? 1 : 0;
    merged.unwritten = std::max(merged.unwritten, unwritten);
    return merged;
  }

 private:
  [[nodiscard]] std::uint64_t seed_a() const { return mix64(seed_ + 1); }
  [[nodiscard]] std::uint64_t seed_b() const { return mix64(seed_ + 2); }
  static void fill(buffer<float>& target, std::uint64_t seed) {
    float* data = target.data();
    const auto count = static_cast<std::int64_t>(target.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) data[i] = input(seed, i);
  }

  variant variant_;
  problem problem_;
  std::uint64_t seed_;
  launch_context launch_;
  buffer<float> a_, b_, c_;
};

class gemm_family final : public bench::family {
 public:
  [[nodiscard]] std::string_view name() const override { return "gemm"; }
  [[nodiscard]] std::string_view summary() const override {
    return "C = A B in float32, row-major, any M, N, K (CPU steps from the thesis's column model)";
  }
  [[nodiscard]] std::vector<variant_info> variants() const override { return bench::variant_infos(gemm::variants()); }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    // The naive step is ~1 GFLOP/s: it gets the small sizes only. 1024³ puts B (4 MiB) past a 2 MiB L2.
    if (info.name == "gemm/cpu/01_naive") return {{{384, 384, 384}}, {{257, 509, 131}}};
    return {{{384, 384, 384}}, {{257, 509, 131}}, {{1024, 1024, 1024}}};
  }
  [[nodiscard]] std::string_view size_help() const override { return "MxNxK (C is M x N, the inner dimension K), or N for N^3"; }
  [[nodiscard]] std::string_view parameter_help() const override {
    return "column_width=model|N, tile=model|N, cache=L1|L2|L3|<bytes>[K|M|G]";
  }
  [[nodiscard]] std::vector<std::string> configurations(const variant_info&,
                                                        const std::vector<bench::parameter_choice>& chosen) const override {
    std::vector<std::string> configs = {""};
    for (const auto& choice : chosen) {
      if (choice.key != "column_width" && choice.key != "tile" && choice.key != "cache") {
        throw usage_error("unknown gemm parameter '" + choice.key + "' (" + std::string(parameter_help()) + ")");
      }
      std::vector<std::string> product;
      for (const auto& config : configs) {
        for (const auto& value : choice.values) product.push_back(config + (config.empty() ? "" : " ") + choice.key + "=" + value);
      }
      configs = product;
    }
    return configs;
  }
  [[nodiscard]] std::string unsupported(const variant_info& info, const bench::problem_spec& spec) const override {
    if (spec.size.extents.size() != 3 && spec.size.extents.size() != 1) return "gemm takes a size MxNxK or N";
    const variant& v = find_variant(info.name);
    return std::string(v.supports(make_problem(v, spec)).why);
  }
  [[nodiscard]] work_amount work(const variant_info& info, const bench::problem_spec& spec) const override {
    const variant& v = find_variant(info.name);
    return v.work(make_problem(v, spec));
  }
  [[nodiscard]] std::int64_t footprint_bytes(const variant_info& info, const bench::problem_spec& spec) const override {
    const problem p = make_problem(find_variant(info.name), spec);
    return 4 * (p.m * p.k + p.k * p.n + p.m * p.n);
  }
  [[nodiscard]] std::unique_ptr<bench::trial> make_trial(const variant_info& info, const bench::problem_spec& spec,
                                                         const bench::trial_options& options) const override {
    const variant& v = find_variant(info.name);
    return gemm::make_trial(v, make_problem(v, spec), options);
  }
};

}  // namespace

problem make_problem(const variant&, const bench::problem_spec& spec) {
  const auto& e = spec.size.extents;
  SWATH_EXPECTS(e.size() == 3 || e.size() == 1, "gemm takes a size MxNxK or N");
  problem p;
  p.m = e[0];
  p.n = e.size() == 3 ? e[1] : e[0];
  p.k = e.size() == 3 ? e[2] : e[0];
  const auto values = bench::parse_config(spec.config, {{"column_width", "model"}, {"tile", "model"}, {"cache", "L2"}});
  const cache_size cache = parse_cache_size(values.at("cache"));
  p.cache_bytes = cache.bytes;
  // The thesis: M = u (h c + w ceil(t/c)) with h = K rows of B and w = K, the A row each thread holds.
  const schedule::matmul_footprint footprint{cache.bytes, 4, p.k, p.k, omp_get_max_threads()};
  p.column_width = values.at("column_width") == "model" ? schedule::matmul_column_width(footprint)
                                                        : bench::parse_positive("column_width", values.at("column_width"));
  p.column_width = std::clamp<std::int64_t>(p.column_width, 1, p.n);
  // Tiles: three t × t float tiles in the cache, 3 t² u ≤ M.
  p.tile = values.at("tile") == "model"
               ? std::max<std::int64_t>(8, static_cast<std::int64_t>(std::sqrt(cache.bytes / 12.0)))
               : bench::parse_positive("tile", values.at("tile"));
  return p;
}

std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options) {
  return std::make_unique<gemm_trial>(v, p, options);
}

const bench::family& family() {
  static const gemm_family instance;
  return instance;
}

}  // namespace swath::gemm
