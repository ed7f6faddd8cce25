// The gemm family as the runner and the tests see it: sizes MxNxK, the cache model's band width,
// positive random inputs, and the check against a float64 reference (every element at small sizes,
// a sample of rows past 2^31 multiply-adds so that verification takes seconds).
#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "policies.hpp"
#include "steps.hpp"
#include "swath/lab/gemm.hpp"
#include "swath/bench/check.hpp"
#include "swath/bench/table_family.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/lab/gemm_tuning.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::gemm {

namespace {

// Positive inputs in [0.5, 2): no cancellation, so every product adds to the sum's size and the
// relative error bound K · 2^-24 holds.
float input(std::uint64_t seed, std::int64_t index) {
  return std::fabs(random_float(seed, static_cast<std::uint64_t>(index)));
}

class gemm_trial final : public bench::trial {
 public:
  gemm_trial(const variant& v, const problem& p, const bench::trial_options& options)
      : variant_(v),
        problem_(p),
        seed_(options.seed),
        on_device_(v.info.where == backend::cuda),
        launch_(bench::prepare_launch(v.info, v.supports(p), options.settings)) {
    const memory_kind where = on_device_ ? memory_kind::device : memory_kind::host;
    a_ = buffer<float>(where, static_cast<std::size_t>(stored(rows_of_a(p), cols_of_a(p), p.lda)));
    b_ = buffer<float>(where, static_cast<std::size_t>(stored(rows_of_b(p), cols_of_b(p), p.ldb)));
    c_ = buffer<float>(where, static_cast<std::size_t>(stored(p.m, p.n, p.ldc)));
    fill(a_, seed_a());
    fill(b_, seed_b());
  }
  [[nodiscard]] int sets() const override { return 1; }
  // beta = 0: C is only written, so all of it is poisoned. beta ≠ 0: C is read too; its M × N elements
  // get their input values (C_in) and only the padding between rows is poisoned.
  void poison_outputs() override {
    buffer<float> staging;
    float* c = c_.host_accessible() ? c_.data() : (staging = buffer<float>(memory_kind::host, c_.size())).data();
    poison_host(c, static_cast<std::int64_t>(c_.size()));
    if (problem_.beta != 0) {
      const std::uint64_t seed = seed_c();
      const problem& p = problem_;
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < p.m; ++i) {
        for (std::int64_t j = 0; j < p.n; ++j) c[i * p.ldc + j] = input(seed, i * p.n + j);
      }
    }
    if (!c_.host_accessible()) copy(c_, staging);
  }
  void run(int) override { variant_.run(problem_, operands{a_.data(), b_.data(), c_.data()}, launch_); }
  [[nodiscard]] bool timed_on_device() const override { return on_device_; }

  bench::check_result check() override {
    if (on_device_) device_synchronize();
    const problem& p = problem_;
    buffer<float> a_copy, b_copy, c_copy;
    const float* a = host_view(a_, a_copy);
    const float* b = host_view(b_, b_copy);
    const float* c = host_view(c_, c_copy);
    const std::uint64_t sc = seed_c();
    // The float64 reference of C[i][j] at the flat index i·ldc + j.
    const auto reference = [&](std::int64_t index) {
      const std::int64_t i = index / p.ldc, j = index % p.ldc;
      double sum = 0;
      for (std::int64_t k = 0; k < p.k; ++k) sum += static_cast<double>(a[index_of_a(p, i, k)]) * b[index_of_b(p, k, j)];
      double result = static_cast<double>(p.alpha) * sum;
      if (p.beta != 0) result += static_cast<double>(p.beta) * input(sc, i * p.n + j);
      return result;
    };
    const double tol = variant_.info.tolerance * static_cast<double>(p.k + 2);
    // Past 2^31 multiply-adds, a sample of 64 evenly spaced rows (and the last); below, every element.
    const bool sample = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) > 0x1p31;
    if (!sample) return bench::compare_region(c, p.m, p.n, p.ldc, reference, tol);
    // The sampled rows' reference, computed once and in parallel: each (row, block of 256 columns) is a
    // task that streams the rows of op(B) (k outer, j inner), so 64 rows of an 8192³ product (4.3e9
    // multiply-adds) take a fraction of a second on 16 cores instead of a quarter of a minute.
    std::vector<std::int64_t> rows;
    const std::int64_t step = std::max<std::int64_t>(1, p.m / 64);
    for (std::int64_t i = 0; i < p.m - 1; i += step) rows.push_back(i);
    rows.push_back(p.m - 1);
    const auto count = static_cast<std::int64_t>(rows.size());
    constexpr std::int64_t block = 256;
    const std::int64_t blocks = (p.n + block - 1) / block;
    std::vector<double> expected(static_cast<std::size_t>(count * p.n));
    std::vector<float> written(static_cast<std::size_t>(count * p.n));
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (std::int64_t r = 0; r < count; ++r) {
      for (std::int64_t jb = 0; jb < blocks; ++jb) {
        const std::int64_t i = rows[static_cast<std::size_t>(r)], j0 = jb * block, j1 = std::min(p.n, j0 + block);
        double sums[block] = {};
        for (std::int64_t k = 0; k < p.k; ++k) {
          const double a_ik = a[index_of_a(p, i, k)];
          for (std::int64_t j = j0; j < j1; ++j) sums[j - j0] += a_ik * b[index_of_b(p, k, j)];
        }
        for (std::int64_t j = j0; j < j1; ++j) {
          double value = static_cast<double>(p.alpha) * sums[j - j0];
          if (p.beta != 0) value += static_cast<double>(p.beta) * input(sc, i * p.n + j);
          expected[static_cast<std::size_t>(r * p.n + j)] = value;
          written[static_cast<std::size_t>(r * p.n + j)] = c[i * p.ldc + j];
        }
      }
    }
    bench::check_result merged = bench::compare_region(
        written.data(), count, p.n, p.n, [&](std::int64_t index) { return expected[static_cast<std::size_t>(index)]; }, tol);
    if (merged.worst_index >= 0) {
      merged.worst_index = rows[static_cast<std::size_t>(merged.worst_index / p.n)] * p.ldc + merged.worst_index % p.n;
    }
    // Unwritten elements and writes into the padding, anywhere: cheap, so every element is looked at.
    std::int64_t unwritten = 0, outside = 0;
#pragma omp parallel for reduction(+ : unwritten, outside) schedule(static)
    for (std::int64_t i = 0; i < p.m; ++i) {
      for (std::int64_t j = 0; j < p.ldc; ++j) {
        const bool poisoned = is_poison(c[i * p.ldc + j]);
        if (j < p.n) {
          unwritten += poisoned ? 1 : 0;
        } else if (i + 1 < p.m) {
          outside += poisoned ? 0 : 1;
        }
      }
    }
    merged.unwritten = std::max(merged.unwritten, unwritten);
    merged.outside_writes = outside;
    return merged;
  }

 private:
  static std::int64_t stored(std::int64_t rows, std::int64_t cols, std::int64_t ld) { return (rows - 1) * ld + cols; }
  [[nodiscard]] std::uint64_t seed_a() const { return mix64(seed_ + 1); }
  [[nodiscard]] std::uint64_t seed_b() const { return mix64(seed_ + 2); }
  [[nodiscard]] std::uint64_t seed_c() const { return mix64(seed_ + 3); }
  // Every stored element, padding included, gets a value: a kernel that reads padding reads numbers.
  void fill(buffer<float>& target, std::uint64_t seed) const {
    buffer<float> host(memory_kind::host, target.size());
    float* data = host.data();
    const auto count = static_cast<std::int64_t>(host.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) data[i] = input(seed, i);
    if (target.kind() == memory_kind::host) {
      target = std::move(host);
    } else {
      copy(target, host);
    }
  }
  // The buffer's elements readable on the host: itself, or a copy in `copy_to` when on the device.
  static const float* host_view(const buffer<float>& source, buffer<float>& copy_to) {
    if (source.host_accessible()) return source.data();
    copy_to = buffer<float>(memory_kind::host, source.size());
    copy(copy_to, source);
    return copy_to.data();
  }

  variant variant_;
  problem problem_;
  std::uint64_t seed_;
  bool on_device_;
  launch_context launch_;
  buffer<float> a_, b_, c_;
};

// The product's parameters (its mathematics); the steps' own settings are on their rows
// (src/gemm/registry.cpp).
constexpr parameter gemm_parameters[] = {
    {"op", "nn|nt|tn|tt", "nn", "op(A), op(B): n as stored, t transposed"},
    {"alpha", "X", "1", "the product's scale"},
    {"beta", "X", "0", "C's scale; beta = 0 never reads C"},
    {"ld", "packed|padded", "packed", "rows back to back, or padded by 7 elements (off any 16-byte boundary)"},
};

class gemm_family final : public bench::table_family<variant, problem> {
 public:
  [[nodiscard]] std::string_view name() const override { return "gemm"; }
  [[nodiscard]] std::string_view summary() const override {
    return "C = alpha op(A) op(B) + beta C in float32, row-major with leading dimensions, any M, N, K";
  }
  [[nodiscard]] std::span<const parameter> parameters() const override { return gemm_parameters; }
  [[nodiscard]] std::span<const parameter> settings() const override { return step_settings(); }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    if (info.where == backend::cuda) {
      // The SGEMM targets' sizes: 4096³ and 8192³, and the ragged 4095³, 1000 × 3000 × 700 and
      // 8191 × 257 × 4099. Steps 01-02 (1-10% of the FP32 peak: seconds a run at 8192³) skip the two
      // largest.
      // The library's dispatch (the auto row) and cuBLAS also at 1024³ and 2048³, where one wave of
      // 256 × 128 tiles does not fill the SMs (docs/library.md), with step 16 beside them.
      if (info.vendor || info.name == "gemm/cuda/auto" || info.name == "gemm/cuda/16_balanced_tail") {
        return {{{4096, 4096, 4096}}, {{8192, 8192, 8192}}, {{4095, 4095, 4095}}, {{1000, 3000, 700}}, {{8191, 257, 4099}},
                {{1024, 1024, 1024}}, {{2048, 2048, 2048}}};
      }
      if (info.name != "gemm/cuda/01_naive" && info.name != "gemm/cuda/02_coalesced") {
        return {{{4096, 4096, 4096}}, {{8192, 8192, 8192}}, {{4095, 4095, 4095}}, {{1000, 3000, 700}}, {{8191, 257, 4099}}};
      }
      return {{{4096, 4096, 4096}}, {{4095, 4095, 4095}}, {{1000, 3000, 700}}};
    }
    // The naive step is ~1 GFLOP/s: it gets the small sizes only. 1024³ puts B (4 MiB) past a 2 MiB L2.
    if (info.name == "gemm/cpu/01_naive") return {{{384, 384, 384}}, {{257, 509, 131}}};
    return {{{384, 384, 384}}, {{257, 509, 131}}, {{1024, 1024, 1024}}};
  }
  [[nodiscard]] std::string_view size_help() const override { return "MxNxK (C is M x N, the inner dimension K), or N for N^3"; }

 protected:
  [[nodiscard]] std::span<const variant> table() const override { return gemm::variants(); }
  [[nodiscard]] std::string size_mismatch(const variant&, const bench::size_spec& size) const override {
    return size.extents.size() == 3 || size.extents.size() == 1 ? "" : "gemm takes a size MxNxK or N";
  }
  [[nodiscard]] problem problem_of(const variant& v, const bench::problem_spec& spec) const override {
    return make_problem(v, spec);
  }
  // policy=auto on a GPU: the tuner's choice for the nearest tuned size, when `swath tune gemm` has
  // written a tuning file for this GPU; otherwise the step's own default (policies.cpp).
  [[nodiscard]] chosen_settings settings_of(const variant& v, const bench::problem_spec& spec) const override {
    chosen_settings chosen = bench::settings_chosen_in(v.info, spec.config);
    const bool takes_policy = std::any_of(v.info.settings.begin(), v.info.settings.end(),
                                          [](const parameter& s) { return s.key == policy_setting.key; });
    const auto written = chosen.find(policy_setting.key);
    if (!takes_policy || v.info.where != backend::cuda || (written != chosen.end() && written->second != "auto")) {
      return chosen;
    }
    const std::optional<gpu_info> gpu = query_gpu();
    if (!gpu) return chosen;
    const std::string path = tuning_path(gpu->name);
    if (std::filesystem::exists(path)) {
      const problem p = make_problem(v, spec);
      chosen[std::string(policy_setting.key)] = policy_name(pick_policy(read_tuning(path), p.m, p.n, p.k));
    }
    return chosen;
  }
  [[nodiscard]] std::int64_t footprint(const variant&, const problem& p) const override {
    return 4 * ((rows_of_a(p) - 1) * p.lda + cols_of_a(p) + (rows_of_b(p) - 1) * p.ldb + cols_of_b(p) +
                (p.m - 1) * p.ldc + p.n);
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const variant& v, const problem& p,
                                                       const bench::trial_options& options) const override {
    return gemm::make_trial(v, p, options);
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
  const auto values = bench::parse_config(spec.config, family().defaults());
  const std::string& op = values.at("op");
  if (op.size() != 2 || (op[0] != 'n' && op[0] != 't') || (op[1] != 'n' && op[1] != 't')) {
    throw usage_error("gemm op='" + op + "' is not one of nn, nt, tn, tt");
  }
  p.trans_a = op[0] == 't';
  p.trans_b = op[1] == 't';
  p.alpha = static_cast<float>(bench::parse_finite("alpha", values.at("alpha")));
  p.beta = static_cast<float>(bench::parse_finite("beta", values.at("beta")));
  if (!std::isfinite(p.alpha) || !std::isfinite(p.beta)) throw usage_error("gemm alpha and beta must fit in a float");
  const std::string& ld = values.at("ld");
  if (ld != "packed" && ld != "padded") throw usage_error("gemm ld='" + ld + "' is not packed or padded");
  // Padding by 7 elements: rows start off any 16-byte boundary, so a kernel that ignores ld, or assumes
  // aligned rows, fails.
  const std::int64_t pad = ld == "padded" ? 7 : 0;
  p.lda = cols_of_a(p) + pad;
  p.ldb = cols_of_b(p) + pad;
  p.ldc = p.n + pad;
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
