// The gemm family as the runner and the tests see it: sizes MxNxK, the cache model's band width,
// positive random inputs, and the check against a float64 reference (every element at small sizes,
// a sample of rows past 2^31 multiply-adds so that verification takes seconds).
#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
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

// A product's float64 reference at the elements its check samples: where each is in C, and its value.
struct sampled_reference {
  std::vector<std::int64_t> where;
  std::vector<double> expected;
};

// The last single product's reference, for the next trial of the same problem and seed. One is kept:
// a sweep or the tuner checks its steps one problem after another.
class reference_keeper {
 public:
  std::shared_ptr<const sampled_reference> find(const problem& p, std::uint64_t seed) {
    const std::lock_guard<std::mutex> hold(mutex_);
    return kept_ && seed == seed_ && same_product(p, problem_) ? kept_ : nullptr;
  }
  void keep(const problem& p, std::uint64_t seed, std::shared_ptr<const sampled_reference> reference) {
    const std::lock_guard<std::mutex> hold(mutex_);
    problem_ = p, seed_ = seed, kept_ = std::move(reference);
  }

 private:
  // Every field the inputs and the reference depend on: the shape, the scalars, the storage (inputs are
  // drawn by stored index) and the batch.
  static bool same_product(const problem& x, const problem& y) {
    return x.m == y.m && x.n == y.n && x.k == y.k && x.alpha == y.alpha && x.beta == y.beta && x.trans_a == y.trans_a &&
           x.trans_b == y.trans_b && x.lda == y.lda && x.ldb == y.ldb && x.ldc == y.ldc && x.batch == y.batch &&
           x.stride_a == y.stride_a && x.stride_b == y.stride_b && x.stride_c == y.stride_c;
  }
  std::mutex mutex_;
  problem problem_;
  std::uint64_t seed_ = 0;
  std::shared_ptr<const sampled_reference> kept_;
};

reference_keeper& kept_reference() {
  static reference_keeper keeper;
  return keeper;
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
    a_ = buffer<float>(where, static_cast<std::size_t>(batched(stored(rows_of_a(p), cols_of_a(p), p.lda), p.stride_a)));
    b_ = buffer<float>(where, static_cast<std::size_t>(batched(stored(rows_of_b(p), cols_of_b(p), p.ldb), p.stride_b)));
    c_ = buffer<float>(where, static_cast<std::size_t>(batched(stored(p.m, p.n, p.ldc), p.stride_c)));
    fill(a_, a_host_, seed_a());
    fill(b_, b_host_, seed_b());
  }
  [[nodiscard]] int sets() const override { return 1; }
  // beta = 0: C is only written, so all of it is poisoned. beta ≠ 0: C is read too; its M × N elements
  // (of every product) get their input values (C_in) and only the padding between rows is poisoned.
  void poison_outputs() override {
    buffer<float> staging;
    float* c = c_.host_accessible() ? c_.data() : (staging = buffer<float>(memory_kind::host, c_.size())).data();
    poison_host(c, static_cast<std::int64_t>(c_.size()));
    if (problem_.beta != 0) {
      const std::uint64_t seed = seed_c();
      const problem& p = problem_;
#pragma omp parallel for collapse(2) schedule(static)
      for (std::int64_t b = 0; b < p.batch; ++b) {
        for (std::int64_t i = 0; i < p.m; ++i) {
          for (std::int64_t j = 0; j < p.n; ++j) c[b * p.stride_c + i * p.ldc + j] = input(seed, (b * p.m + i) * p.n + j);
        }
      }
    }
    if (!c_.host_accessible()) copy(c_, staging);
  }
  void run(int) override { variant_.run(problem_, operands{a_.data(), b_.data(), c_.data()}, launch_); }
  [[nodiscard]] bool timed_on_device() const override { return on_device_; }

  bench::check_result check() override {
    if (on_device_) device_synchronize();
    const problem& p = problem_;
    buffer<float> c_copy;
    const float* a = a_.host_accessible() ? a_.data() : a_host_.data();
    const float* b = b_.host_accessible() ? b_.data() : b_host_.data();
    const float* c = host_view(c_, c_copy);
    // Every product of a batch whose products together make at most 2^31 multiply-adds; past that the
    // first, the last and six spread between them.
    std::vector<std::int64_t> checked_batches;
    const double product_macs = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    if (product_macs * static_cast<double>(p.batch) <= 0x1p31 || p.batch <= 8) {
      for (std::int64_t batch = 0; batch < p.batch; ++batch) checked_batches.push_back(batch);
    } else {
      for (std::int64_t q = 0; q < 8; ++q) checked_batches.push_back(q * (p.batch - 1) / 7);
    }
    bench::check_result merged;
    for (const std::int64_t batch : checked_batches) {
      const bench::check_result one = check_product(batch, a + batch * p.stride_a, b + batch * p.stride_b,
                                                    c + batch * p.stride_c);
      if (merged.worst_index < 0 || one.max_relative_error > merged.max_relative_error ||
          std::isnan(one.max_relative_error)) {
        merged.max_relative_error = one.max_relative_error;
        merged.worst_index = one.worst_index >= 0 ? batch * p.stride_c + one.worst_index : -1;
      }
      merged.checked += one.checked;
      merged.not_finite += one.not_finite;
      merged.unwritten += one.unwritten;
      merged.outside_writes += one.outside_writes;
      merged.tolerance = one.tolerance;
    }
    // Unwritten elements and writes into the padding, in every product: cheap, so every element is
    // looked at.
    std::int64_t unwritten = 0, outside = 0;
#pragma omp parallel for collapse(2) reduction(+ : unwritten, outside) schedule(static)
    for (std::int64_t batch = 0; batch < p.batch; ++batch) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        for (std::int64_t j = 0; j < p.ldc; ++j) {
          const bool poisoned = is_poison(c[batch * p.stride_c + i * p.ldc + j]);
          if (j < p.n) {
            unwritten += poisoned ? 1 : 0;
          } else if (i + 1 < p.m) {
            outside += poisoned ? 0 : 1;
          }
        }
      }
    }
    merged.unwritten = std::max(merged.unwritten, unwritten);
    merged.outside_writes = std::max(merged.outside_writes, outside);
    return merged;
  }

 private:
  // One product of the batch against the float64 reference: every element up to 2^31 multiply-adds,
  // past that 64 evenly spaced rows (and the last) over column blocks spaced to keep the reference
  // within 2^30 multiply-adds.
  bench::check_result check_product(std::int64_t batch, const float* a, const float* b, const float* c) const {
    const problem& p = problem_;
    const double tol = variant_.info.tolerance * static_cast<double>(p.k + 2);
    const std::shared_ptr<const sampled_reference> reference = reference_of(batch, a, b);
    const auto entries = static_cast<std::int64_t>(reference->where.size());
    std::vector<float> written(reference->where.size());
    for (std::size_t e = 0; e < written.size(); ++e) written[e] = c[reference->where[e]];
    bench::check_result result = bench::compare_region(
        written.data(), 1, entries, entries, [&](std::int64_t index) { return reference->expected[static_cast<std::size_t>(index)]; },
        tol);
    if (result.worst_index >= 0) result.worst_index = reference->where[static_cast<std::size_t>(result.worst_index)];
    return result;
  }

  // The reference of one product at its sampled elements: a single product's is kept for the next
  // trial of the same problem and seed (the tuner and a sweep check many steps on one product, and the
  // reference depends on the inputs alone), which reads it instead of computing it again.
  std::shared_ptr<const sampled_reference> reference_of(std::int64_t batch, const float* a, const float* b) const {
    if (problem_.batch > 1) return std::make_shared<const sampled_reference>(compute_reference(batch, a, b));
    if (auto kept = kept_reference().find(problem_, seed_)) return kept;
    auto computed = std::make_shared<const sampled_reference>(compute_reference(batch, a, b));
    kept_reference().keep(problem_, seed_, computed);
    return computed;
  }

  sampled_reference compute_reference(std::int64_t batch, const float* a, const float* b) const {
    const problem& p = problem_;
    const std::uint64_t sc = seed_c();
    const std::int64_t c_inputs = batch * p.m * p.n;  // where this product's C_in values start
    const double macs = static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    std::vector<std::int64_t> rows;
    const std::int64_t row_step = macs > 0x1p31 ? std::max<std::int64_t>(1, p.m / 64) : 1;
    for (std::int64_t i = 0; i < p.m - 1; i += row_step) rows.push_back(i);
    rows.push_back(p.m - 1);
    constexpr std::int64_t block = 256;
    const std::int64_t blocks = (p.n + block - 1) / block;
    const double row_macs = static_cast<double>(rows.size()) * static_cast<double>(p.n) * static_cast<double>(p.k);
    const std::int64_t block_step = macs > 0x1p31 ? std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(row_macs / 0x1p30))) : 1;
    std::vector<std::int64_t> column_blocks;
    for (std::int64_t jb = 0; jb < blocks; jb += block_step) column_blocks.push_back(jb);
    if (column_blocks.back() != blocks - 1) column_blocks.push_back(blocks - 1);
    // Computed in parallel: each (row, block of 256 columns) is a task that streams the rows of op(B)
    // (k outer, j inner), so 64 rows of an 8192³ product take a fraction of a second.
    const auto row_count = static_cast<std::int64_t>(rows.size());
    const auto block_count = static_cast<std::int64_t>(column_blocks.size());
    sampled_reference out;
    out.expected.resize(static_cast<std::size_t>(row_count * block_count * block));
    out.where.assign(out.expected.size(), -1);  // the element's index in C; -1: past N
#pragma omp parallel for collapse(2) schedule(dynamic)
    for (std::int64_t r = 0; r < row_count; ++r) {
      for (std::int64_t q = 0; q < block_count; ++q) {
        const std::int64_t i = rows[static_cast<std::size_t>(r)], j0 = column_blocks[static_cast<std::size_t>(q)] * block;
        const std::int64_t j1 = std::min(p.n, j0 + block);
        double sums[block] = {};
        for (std::int64_t k = 0; k < p.k; ++k) {
          const double a_ik = a[index_of_a(p, i, k)];
          for (std::int64_t j = j0; j < j1; ++j) sums[j - j0] += a_ik * b[index_of_b(p, k, j)];
        }
        for (std::int64_t j = j0; j < j1; ++j) {
          double value = static_cast<double>(p.alpha) * sums[j - j0];
          if (p.beta != 0) value += static_cast<double>(p.beta) * input(sc, c_inputs + i * p.n + j);
          const auto e = static_cast<std::size_t>((r * block_count + q) * block + (j - j0));
          out.expected[e] = value;
          out.where[e] = i * p.ldc + j;
        }
      }
    }
    // Only the entries inside C, packed.
    std::size_t kept = 0;
    for (std::size_t e = 0; e < out.where.size(); ++e) {
      if (out.where[e] < 0) continue;
      out.expected[kept] = out.expected[e], out.where[kept] = out.where[e];
      ++kept;
    }
    out.expected.resize(kept);
    out.where.resize(kept);
    out.expected.shrink_to_fit();
    out.where.shrink_to_fit();
    return out;
  }

  static std::int64_t stored(std::int64_t rows, std::int64_t cols, std::int64_t ld) { return (rows - 1) * ld + cols; }
  // A batch's elements: the last product's start plus one product.
  [[nodiscard]] std::int64_t batched(std::int64_t one, std::int64_t stride) const {
    return (problem_.batch - 1) * stride + one;
  }
  [[nodiscard]] std::uint64_t seed_a() const { return mix64(seed_ + 1); }
  [[nodiscard]] std::uint64_t seed_b() const { return mix64(seed_ + 2); }
  [[nodiscard]] std::uint64_t seed_c() const { return mix64(seed_ + 3); }
  // Every stored element, padding included, gets a value: a kernel that reads padding reads numbers.
  // On the device the host's copy is kept in `kept`: the check reads the inputs as drawn, with no copy
  // of A and B back from the device.
  void fill(buffer<float>& target, buffer<float>& kept, std::uint64_t seed) const {
    buffer<float> host(memory_kind::host, target.size());
    float* data = host.data();
    const auto count = static_cast<std::int64_t>(host.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) data[i] = input(seed, i);
    if (target.kind() == memory_kind::host) {
      target = std::move(host);
    } else {
      copy(target, host);
      kept = std::move(host);
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
  buffer<float> a_host_, b_host_;  // A and B as drawn, where a_ and b_ are on the device
};

// The product's parameters (its mathematics); the steps' own settings are on their rows
// (src/gemm/registry.cpp).
constexpr parameter gemm_parameters[] = {
    {"op", "nn|nt|tn|tt", "nn", "op(A), op(B): n as stored, t transposed"},
    {"alpha", "X", "1", "the product's scale"},
    {"beta", "X", "0", "C's scale; beta = 0 never reads C"},
    {"ld", "packed|padded", "packed", "rows back to back, or padded by 7 elements (off any 16-byte boundary)"},
    {"batch", "N", "1", "products of a strided batch, each operand's products back to back (sgemm_strided_batched)"},
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
  // The library's dispatch (the auto row) and cuBLAS run the shape suite (shape_suite below); steps 17
  // to 20 the shapes they were made for, beside them in the same run.
  [[nodiscard]] std::vector<bench::problem_spec> default_cases(const variant_info& info) const override {
    if (info.where != backend::cuda) return {};
    if (info.vendor || info.name == "gemm/cuda/auto") return shape_suite();
    if (info.name == "gemm/cuda/17_split_k") {
      return {{bench::parse_size("1024x1024x1024"), ""}, {bench::parse_size("2048x2048x2048"), ""},
              {bench::parse_size("256x256x65536"), ""},  {bench::parse_size("64x16384x16384"), ""},
              {bench::parse_size("16384x64x16384"), ""}, {bench::parse_size("64x64x64"), "batch=1024"},
              {bench::parse_size("256x256x256"), "batch=256"}, {bench::parse_size("512x512x128"), "batch=64"}};
    }
    if (info.name == "gemm/cuda/19_sliced_k") {
      return {{bench::parse_size("1024x1024x1024"), ""}, {bench::parse_size("1023x1023x1023"), ""},
              {bench::parse_size("768x768x768"), ""},    {bench::parse_size("767x767x767"), ""},
              {bench::parse_size("256x256x65536"), ""},  {bench::parse_size("64x64x64"), "batch=1024"}};
    }
    if (info.name == "gemm/cuda/20_rewritten_operands") {
      return {{bench::parse_size("1023x1023x1023"), ""},        {bench::parse_size("1024x1024x1024"), "op=nt"},
              {bench::parse_size("767x767x767"), ""},          {bench::parse_size("2047x2047x2047"), "op=nt"}};
    }
    if (info.name == "gemm/cuda/21_streamed_tiles") {
      return {{bench::parse_size("64x64x64"), "batch=1024"}, {bench::parse_size("256x256x256"), "batch=256"},
              {bench::parse_size("512x512x128"), "batch=64"}, {bench::parse_size("8192x8192x64"), ""}};
    }
    if (info.name == "gemm/cuda/18_skinny") {
      return {{bench::parse_size("1x8192x8192"), ""}, {bench::parse_size("4x8192x8192"), ""},
              {bench::parse_size("16x8192x8192"), ""}};
    }
    return {};
  }

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
    return 4 * p.batch *
           ((rows_of_a(p) - 1) * p.lda + cols_of_a(p) + (rows_of_b(p) - 1) * p.ldb + cols_of_b(p) + (p.m - 1) * p.ldc + p.n);
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const variant& v, const problem& p,
                                                       const bench::trial_options& options) const override {
    return gemm::make_trial(v, p, options);
  }
};

}  // namespace

std::vector<bench::problem_spec> shape_suite() {
  std::vector<bench::problem_spec> suite;
  for (const std::int64_t n : {256, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192, 16384}) {
    for (const std::int64_t side : {n, n - 1}) {
      for (const char* op : {"op=nn", "op=tn", "op=nt", "op=tt"}) suite.push_back({bench::size_spec{{side, side, side}}, op});
    }
  }
  for (const char* size : {"8192x8192x64", "8192x8192x256", "256x256x65536", "16384x64x16384", "64x16384x16384",
                           "1x8192x8192", "4x8192x8192", "16x8192x8192", "1000x3000x700", "8191x257x4099"}) {
    suite.push_back({bench::parse_size(size), "op=nn"});
  }
  suite.push_back({bench::parse_size("64x64x64"), "batch=1024"});
  suite.push_back({bench::parse_size("256x256x256"), "batch=256"});
  suite.push_back({bench::parse_size("512x512x128"), "batch=64"});
  return suite;
}

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
  p.batch = whole_setting("batch", values.at("batch"));
  if (p.batch < 1) throw usage_error("gemm batch=" + values.at("batch") + ": expected a count of at least 1");
  if (p.batch > 1) {  // each product right after the one before it
    p.stride_a = (rows_of_a(p) - 1) * p.lda + cols_of_a(p);
    p.stride_b = (rows_of_b(p) - 1) * p.ldb + cols_of_b(p);
    p.stride_c = (p.m - 1) * p.ldc + p.n;
  }
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
