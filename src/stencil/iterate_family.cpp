// The iterate family as the runner and the tests see it: T sweeps of one stencil, the library's
// iterated steps (src/stencil/iterate_registry.cpp) and swath::stencil::iterate as the "auto" rows,
// checked against T sweeps of the float64 reference.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "iterate.hpp"
#include "inputs.hpp"
#include "steps.hpp"
#include "swath/bench/check.hpp"
#include "swath/bench/lab_table.hpp"
#include "swath/bench/table_family.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/lab/stencil.hpp"

namespace swath::stencil {
namespace {

constexpr double tolerance = float_tolerance;
using enum backend;
using enum ceiling_kind;

// ---- The library call's rows ---------------------------------------------------------------------
// swath::stencil::iterate overwrites both its buffers and keeps the result in a (T even) or b (odd):
// the row first copies the input into the one that must end as out, so its time includes that copy
// (one read and write of the grid: 1/T of the work, 1.6% at T = 64).
void library_iterate(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  const grid_layout grid = layout_of(p);
  const operator_spec spec = operator_of(p);
  const auto stream = static_cast<stream_t>(launch.stream);
  void* a = ip.sweeps % 2 == 0 ? x.out : x.scratch;
  void* b = ip.sweeps % 2 == 0 ? x.scratch : x.out;
  const iterated_problem copy_only{p, 0};
  repeated_sweeps(copy_only, sweep_operands{x.in, a, b}, launch);  // T = 0: the copy, on the stream
  if (p.type == element_type::f32) {
    iterate(static_cast<float*>(a), static_cast<float*>(b), grid, spec, ip.sweeps, stream);
  } else {
    iterate(static_cast<double*>(a), static_cast<double*>(b), grid, spec, ip.sweeps, stream);
  }
}
support host_iterated(const iterated_problem& p) {
  if (p.sweep.pitch() != p.sweep.grid.width) return support::no("host grids have their rows back to back");
  return any_iterated(p);
}

// clang-format off
const iterated_variant lab_rows[] = {
  {{"iterate/cpu/auto",  cpu,  "swath::stencil::iterate on host memory",   "iterate", tolerance, false, host_memory},   host_iterated, library_iterate, iterated_work},
#if SWATH_WITH_CUDA
  {{"iterate/cuda/auto", cuda, "swath::stencil::iterate on device memory", "iterate", tolerance, false, device_memory}, any_iterated,  library_iterate, iterated_work},
#endif
};
// clang-format on

constexpr parameter sweeps_parameter{"sweeps", "0|N", "64", "T, the sweeps applied (the GPU suite runs 64, the CPU suite 16)", parameter::naming::always};

// The stencil's parameters (their help says what this family's suite runs), then sweeps.
constexpr parameter suite_help[] = {
    {"radius", "", "", "taps up to r points away along an axis (the GPU suite runs 1 and 2)"},
    {"type", "", "", "the element type (the GPU suite runs both at radius 1)"},
    {"pitch", "", "", "elements from a row to the next: back to back, padded to 128-byte lines, or N >= width (GPU steps)"},
};
std::span<const parameter> iterated_parameters() {
  static const std::vector<parameter> all = [] {
    const auto stencil = family().parameters();
    std::vector<parameter> list(stencil.begin(), stencil.end());
    for (parameter& record : list) {
      for (const parameter& help : suite_help) {
        if (record.key == help.key) record.help = help.help;
      }
    }
    list.push_back(sweeps_parameter);
    return list;
  }();
  return all;
}

template <class T>
class iterated_trial final : public bench::trial {
 public:
  iterated_trial(const iterated_variant& v, const iterated_problem& p, const bench::trial_options& options)
      : variant_(v),
        problem_(p),
        options_(options),
        launch_(bench::prepare_launch(v.info, v.supports(p), options.settings)),
        grids_(p.sweep, options, v.info.where == backend::cuda),
        scratch_(grids_.inputs.front().kind(), grids_.inputs.front().size()) {}

  [[nodiscard]] int sets() const override { return static_cast<int>(grids_.inputs.size()); }
  void poison_outputs() override {
    poison(scratch_);
    for (auto& out : grids_.outputs) poison(out);
    if (variant_.info.where == backend::cuda) device_synchronize();
  }
  void run(int set) override {
    const auto index = static_cast<std::size_t>(set) % grids_.inputs.size();
    variant_.run(problem_, sweep_operands{grids_.inputs[index].data(), grids_.outputs[index].data(), scratch_.data()}, launch_);
  }
  [[nodiscard]] bool timed_on_device() const override { return variant_.info.where == backend::cuda; }

  bench::check_result check() override {
    const problem& p = problem_.sweep;
    buffer<T> host_copy;
    const T* out = on_host(grids_.outputs.front(), host_copy);
    const std::uint64_t seed = input_seed(options_, 0);
    std::vector<double> input(static_cast<std::size_t>(p.points()));
    const auto count = static_cast<std::int64_t>(input.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) input[static_cast<std::size_t>(i)] = static_cast<double>(static_cast<T>(input_value<T>(seed, i)));
#if SWATH_WITH_CUDA
    const bool on_device = variant_.info.where == backend::cuda;
#else
    const bool on_device = false;
#endif
    const std::vector<double> expected = on_device ? reference_sweeps_on_device(p, input, problem_.sweeps)
                                                   : reference_sweeps(p, std::move(input), problem_.sweeps);
    const std::int64_t pitch = p.pitch();
    const auto reference = [&](std::int64_t stored) { return expected[static_cast<std::size_t>(stored / pitch * p.grid.width + stored % pitch)]; };
    // One sweep in float is within 2n ε_f32 of exact (n taps, positive weights and inputs); the error
    // of earlier sweeps passes through with a gain of at most Σ w = 1 (averaging weights), so T sweeps
    // are within T · 2n ε. Double: 2^29 times less. T = 0 copies: exact.
    const double one_sweep = 2.0 * static_cast<double>(p.taps.size()) * 0x1p-24;
    const double for_float = std::max(one_sweep, one_sweep * problem_.sweeps);
    const double bound = std::is_same_v<T, float> ? for_float : for_float * 0x1p-29;
    return bench::compare_region(out, p.grid.height * p.depth, p.grid.width, pitch, reference, bound);
  }

 private:
  iterated_variant variant_;
  iterated_problem problem_;
  bench::trial_options options_;
  launch_context launch_;
  grid_sets<T> grids_;
  buffer<T> scratch_;  // one for every set: it holds only the passes between
};

bench::problem_spec spec_of(const char* size, const std::string& config) { return {bench::parse_size(size), config}; }

class iterated_family_adapter final : public bench::table_family<iterated_variant, iterated_problem> {
 public:
  [[nodiscard]] std::string_view name() const override { return "iterate"; }
  [[nodiscard]] std::string_view summary() const override {
    return "T sweeps of a 2D or 3D stencil: repeated single sweeps, time-skewed CPU columns, GPU temporal blocking";
  }
  [[nodiscard]] std::span<const parameter> parameters() const override { return iterated_parameters(); }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    if (info.where == backend::cuda) return {{{512, 512, 512}}, {{508, 509, 511}}, {{16384, 16384}}};
    return {{{4099, 4097}}, {{250, 251, 253}}};
  }
  [[nodiscard]] std::string_view size_help() const override { return "WxH (2D) or WxHxD (3D)"; }
  // The suite: the targets at T = 64 on the GPU (512^3 and a ragged grid, float and double at
  // radius 1; radius 2 and the 27-point box in float; the 2D 5-point at 16384^2), step 02 also at each
  // pass depth its model chose among; on the CPU a 2D and a 3D grid larger than its caches at T = 16.
  [[nodiscard]] std::vector<bench::problem_spec> default_cases(const variant_info& info) const override {
    if (info.where == backend::cpu) {
      std::vector<bench::problem_spec> cases = {spec_of("4099x4097", "radius=1 shape=star type=float sweeps=16"),
                                                spec_of("250x251x253", "radius=1 shape=star type=float sweeps=16")};
      if (info.name.ends_with("02_skewed_columns")) {
        for (const char* d : {"2", "8"}) cases.push_back(spec_of("4099x4097", std::string("radius=1 shape=star type=float sweeps=16 fused=") + d));
      }
      return cases;
    }
    std::vector<bench::problem_spec> cases = {
        spec_of("512x512x512", "radius=1 shape=star type=float sweeps=64"),
        spec_of("508x509x511", "radius=1 shape=star type=float sweeps=64"),
        spec_of("512x512x512", "radius=1 shape=star type=double sweeps=64"),
        spec_of("512x512x512", "radius=2 shape=star type=float sweeps=64"),
        spec_of("512x512x512", "radius=1 shape=box type=float sweeps=64"),
        spec_of("16384x16384", "radius=1 shape=star type=float sweeps=64"),
        spec_of("16384x16384", "radius=2 shape=star type=float sweeps=64"),
        spec_of("16384x16384", "radius=1 shape=star type=double sweeps=64"),
    };
    if (info.name.ends_with("03_register_rows")) {
      for (const char* d : {"2", "3", "4"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=float sweeps=64 fused=") + d));
      cases.push_back(spec_of("512x512x512", "radius=1 shape=star type=double sweeps=64 fused=3"));
    }
    if (info.name.ends_with("04_unrolled_march") || info.name.ends_with("05_one_barrier_a_step") || info.name.ends_with("06_four_row_march")) {
      for (const char* d : {"2", "3", "4", "5"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=float sweeps=64 fused=") + d));
      for (const char* d : {"2", "3", "4"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=double sweeps=64 fused=") + d));
      for (const char* d : {"2", "3"}) cases.push_back(spec_of("512x512x512", std::string("radius=2 shape=star type=float sweeps=64 fused=") + d));
    }
    if (info.name.ends_with("08_stacked_strips")) {
      for (const char* d : {"2", "3", "5"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=float sweeps=64 fused=") + d));
      for (const char* d : {"2", "3", "5"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=double sweeps=64 fused=") + d));
      cases.push_back(spec_of("512x512x512", "radius=2 shape=star type=float sweeps=64 fused=2"));
    }
    if (info.name.ends_with("09_cluster_halos")) {  // beside the model's cluster: none (step 08's tiles) and 3
      for (const char* c : {"1", "3"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=float sweeps=64 cluster=") + c));
      cases.push_back(spec_of("512x512x512", "radius=1 shape=star type=double sweeps=64 cluster=3"));
    }
    if (info.name.ends_with("02_fused_planes")) {
      for (const char* d : {"2", "3", "4"}) cases.push_back(spec_of("512x512x512", std::string("radius=1 shape=star type=float sweeps=64 fused=") + d));
      for (const char* d : {"2", "4", "8"}) cases.push_back(spec_of("16384x16384", std::string("radius=1 shape=star type=float sweeps=64 fused=") + d));
    }
    return cases;
  }

 protected:
  [[nodiscard]] std::span<const iterated_variant> table() const override { return iterated_variants(); }
  [[nodiscard]] std::string size_mismatch(const iterated_variant&, const bench::size_spec& size) const override {
    return size.extents.size() == 2 || size.extents.size() == 3 ? "" : "stencils take a size WxH or WxHxD";
  }
  [[nodiscard]] iterated_problem problem_of(const iterated_variant&, const bench::problem_spec& spec) const override {
    return make_iterated_problem(spec);
  }
  [[nodiscard]] std::int64_t footprint(const iterated_variant&, const iterated_problem& p) const override {
    return 3 * p.sweep.stored_elements() * p.sweep.element_bytes();  // in, out and the scratch
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const iterated_variant& v, const iterated_problem& p,
                                                       const bench::trial_options& options) const override {
    return make_iterated_trial(v, p, options);
  }
};

}  // namespace

std::vector<double> reference_sweeps(const problem& p, std::vector<double> input, int sweeps) {
  std::vector<double> next(input.size());
  const std::int64_t plane = p.grid.count(), count = p.points();
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    const double* in = input.data();
    double* out = next.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t z = i / plane, y = (i % plane) / p.grid.width, x = i % p.grid.width;
      if (p.edge == boundary::copy && near_face(x, y, z, p.grid.width, p.grid.height, p.depth, p.radius, p.dims)) {
        out[i] = in[i];
        continue;
      }
      double sum = 0;
      for (const tap& t : p.taps) {
        const std::int64_t source = source_index(x + t.dx, y + t.dy, z + t.dz, p.grid, p.depth, p.edge);
        sum += t.weight * (source < 0 ? p.edge_value : in[source]);
      }
      out[i] = sum;
    }
    input.swap(next);
  }
  return input;
}

iterated_problem make_iterated_problem(const bench::problem_spec& spec) {
  const auto values = bench::parse_config(spec.config, iterated_family().defaults());
  iterated_problem p{make_problem(spec), 0};
  const std::string& sweeps = values.at("sweeps");
  p.sweeps = sweeps == "0" ? 0 : static_cast<int>(std::min<std::int64_t>(bench::parse_positive("sweeps", sweeps), 1 << 20));
  if (values.at("weights") == "default") {  // averaging: the default pattern scaled to sum 1
    const double total = std::accumulate(p.sweep.taps.begin(), p.sweep.taps.end(), 0.0,
                                         [](double sum, const tap& t) { return sum + t.weight; });
    for (tap& t : p.sweep.taps) t.weight /= total;
  }
  return p;
}

std::unique_ptr<bench::trial> make_iterated_trial(const iterated_variant& v, const iterated_problem& p,
                                                  const bench::trial_options& options) {
  if (p.sweep.type == element_type::f32) return std::make_unique<iterated_trial<float>>(v, p, options);
  return std::make_unique<iterated_trial<double>>(v, p, options);
}

std::span<const iterated_variant> iterated_variants() {
  static const std::vector<iterated_variant> all = bench::join_rows(iterated_steps(), lab_rows);
  return all;
}
const iterated_variant& find_iterated_variant(std::string_view name) {
  return find_in_table(iterated_variants(), "iterate", name);
}

const bench::family& iterated_family() {
  static const iterated_family_adapter instance;
  return instance;
}

}  // namespace swath::stencil
