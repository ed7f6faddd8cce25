// The elementwise family as the benchmark runner and the tests see it: problems from sizes, input
// sets in the right memory, poisoned outputs, and the check against the float64 reference.
#include <algorithm>
#include <cmath>
#include <string>

#include "steps.hpp"
#include "swath/bench/table_family.hpp"
#include "swath/lab/elementwise.hpp"
#include "swath/bench/check.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"

namespace swath::elementwise {

namespace {

bool is_matrix(operation op) { return op == operation::matrix_add; }
bool is_transfer(operation op) { return op == operation::copy_to_device || op == operation::copy_to_host; }

// Leading dimension of the benchmark's matrices: the row length rounded up to 32 floats (128 bytes), as
// cudaMallocPitch would pad it, so that rows start on cache-line boundaries and the padding is real.
std::int64_t padded_leading_dimension(std::int64_t cols) { return (cols + 31) / 32 * 32; }

std::uint64_t input_seed(std::uint64_t seed, int set, int operand) {
  return mix64(seed + 2 * static_cast<std::uint64_t>(set) + static_cast<std::uint64_t>(operand));
}

// Where each operand lives for a variant.
struct placement {
  memory_kind a, b, c;
  bool has_b;
};

placement place(const variant& v) {
  if (v.info.where == backend::cpu) return {memory_kind::host, memory_kind::host, memory_kind::host, true};
  switch (v.op) {
    case operation::copy_to_device: return {v.host_memory, memory_kind::host, memory_kind::device, false};
    case operation::copy_to_host: return {memory_kind::device, memory_kind::host, v.host_memory, false};
    default: return {memory_kind::device, memory_kind::device, memory_kind::device, true};
  }
}

struct input_set {
  buffer<float> a, b, c;
};

class elementwise_trial final : public bench::trial {
 public:
  elementwise_trial(const variant& v, const problem& p, const bench::trial_options& options)
      : variant_(v), problem_(p), options_(options), where_(place(v)), launch_(bench::prepare_launch(v.info, v.supports(p), options.settings)) {
    const std::int64_t set_bytes = footprint();
    const int count = is_transfer(v.op) ? 1 : bench::wanted_sets(options, set_bytes);
    const memory_kind memory = v.info.where == backend::cuda ? memory_kind::device : memory_kind::host;
    for (int set = 0; set < count; ++set) {
      if (set > 0 && !bench::room_for_another_set(memory, set, set_bytes)) break;
      sets_.push_back(allocate_set(set));
    }
  }

  [[nodiscard]] int sets() const override { return static_cast<int>(sets_.size()); }

  void poison_outputs() override {
    for (auto& set : sets_) {
      if (set.c.kind() == memory_kind::device) {
        poison_device(set.c.data(), static_cast<std::int64_t>(set.c.size()));
      } else {
        poison_host(set.c.data(), static_cast<std::int64_t>(set.c.size()));
      }
    }
    if (variant_.info.where == backend::cuda) device_synchronize();
  }

  void run(int set) override {
    input_set& chosen = sets_[static_cast<std::size_t>(set) % sets_.size()];
    variant_.run(problem_, operands{chosen.a.data(), chosen.b.data(), chosen.c.data()}, launch_);
    // Transfers are timed with the host clock: run() must return with the copy done.
    if (!timed_on_device() && variant_.info.where == backend::cuda) device_synchronize();
  }

  bench::check_result check() override {
    if (variant_.info.where == backend::cuda) device_synchronize();
    const buffer<float>& c = sets_.front().c;
    buffer<float> host_copy;
    const float* out = c.data();
    if (!c.host_accessible()) {
      host_copy = buffer<float>(memory_kind::host, c.size());
      copy(host_copy, c);
      out = host_copy.data();
    }
    const std::uint64_t seed_a = input_seed(options_.seed, 0, 0);
    const std::uint64_t seed_b = input_seed(options_.seed, 0, 1);
    const double tolerance = variant_.info.tolerance;
    if (is_transfer(variant_.op)) {
      return bench::compare_region(out, problem_.rows, problem_.cols, problem_.ld,
                                   [=](std::int64_t i) { return static_cast<double>(random_float(seed_a, i)); },
                                   tolerance);
    }
    return bench::compare_region(
        out, problem_.rows, problem_.cols, problem_.ld,
        [=](std::int64_t i) { return add_reference(random_float(seed_a, i), random_float(seed_b, i)); }, tolerance);
  }

  [[nodiscard]] bool timed_on_device() const override {
    return variant_.info.where == backend::cuda && !is_transfer(variant_.op);
  }

 private:
  [[nodiscard]] std::int64_t footprint() const {
    const auto elements = static_cast<std::int64_t>(sizeof(float)) * problem_.allocated();
    return (where_.has_b ? 3 : 2) * elements;
  }

  void fill(buffer<float>& target, std::uint64_t seed) {
    const auto count = static_cast<std::int64_t>(target.size());
    if (target.kind() == memory_kind::device) {
      fill_random_device(target.data(), count, seed);
    } else {
      fill_random(target.data(), count, seed);
    }
  }

  input_set allocate_set(int set) {
    const auto n = static_cast<std::size_t>(problem_.allocated());
    input_set made{buffer<float>(where_.a, n), where_.has_b ? buffer<float>(where_.b, n) : buffer<float>(),
                   buffer<float>(where_.c, n)};
    fill(made.a, input_seed(options_.seed, set, 0));
    if (where_.has_b) fill(made.b, input_seed(options_.seed, set, 1));
    return made;
  }

  variant variant_;
  problem problem_;
  bench::trial_options options_;
  placement where_;
  launch_context launch_;
  std::vector<input_set> sets_;
};

class elementwise_family final : public bench::table_family<variant, problem> {
 public:
  [[nodiscard]] std::string_view name() const override { return "elementwise"; }
  [[nodiscard]] std::string_view summary() const override {
    return "vector add, matrix add, host<->device transfers (memory-bound, 12 B per add)";
  }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    const variant& v = row(info);
    const bool gpu = info.where == backend::cuda;
    if (is_transfer(v.op)) return {{{1 << 26}}};  // 256 MiB
    if (is_matrix(v.op)) {
      // One square, one ragged shape whose row length is not a multiple of any tile or vector width.
      if (gpu) return {{{8192, 8192}}, {{12289, 8191}}};
      return {{{4096, 4096}}, {{4099, 4093}}};
    }
    // 2^28 floats: 1 GiB per operand (the target size); a ragged large size; a small one (launch-bound).
    if (gpu) return {{{1LL << 28}}, {{100000007}}, {{(1 << 20) + 3}}};
    return {{{1LL << 25}}, {{(1 << 20) + 3}}};
  }
  [[nodiscard]] std::string_view size_help() const override {
    return "vector steps and transfers: N elements; matrix steps: WxH (width x height)";
  }

 protected:
  [[nodiscard]] std::span<const variant> table() const override { return elementwise::variants(); }
  [[nodiscard]] std::string size_mismatch(const variant& v, const bench::size_spec& size) const override {
    if (is_matrix(v.op) && size.extents.size() != 2) return "matrix steps take a size WxH";
    if (!is_matrix(v.op) && size.extents.size() != 1) return "vector steps and transfers take a size N";
    return "";
  }
  [[nodiscard]] problem problem_of(const variant& v, const bench::problem_spec& spec) const override {
    return make_problem(v, spec.size);
  }
  // The CPU steps hold three operands in host memory; a transfer one on each side.
  [[nodiscard]] std::int64_t footprint(const variant& v, const problem& p) const override {
    const std::int64_t operands = v.info.where == backend::cpu ? 3 : (is_transfer(v.op) ? 1 : 3);
    return operands * p.allocated() * static_cast<std::int64_t>(sizeof(float));
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const variant& v, const problem& p,
                                                       const bench::trial_options& options) const override {
    return elementwise::make_trial(v, p, options);
  }
};

}  // namespace

problem make_problem(const variant& v, const bench::size_spec& size) {
  problem p;
  p.op = v.op;
  if (is_matrix(v.op)) {
    SWATH_EXPECTS(size.extents.size() == 2, "matrix steps take a size WxH");
    p.cols = size.extents[0];
    p.rows = size.extents[1];
    p.ld = padded_leading_dimension(p.cols);
  } else {
    SWATH_EXPECTS(size.extents.size() == 1, "vector steps and transfers take a size N");
    p.rows = 1;
    p.cols = size.extents[0];
    p.ld = p.cols;
  }
  return p;
}

std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options) {
  return std::make_unique<elementwise_trial>(v, p, options);
}

const bench::family& family() {
  static const elementwise_family instance;
  return instance;
}

}  // namespace swath::elementwise
