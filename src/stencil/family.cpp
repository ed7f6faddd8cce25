// The stencil family as the runner and the tests see it: configurations, problems with their schedule
// parameters from the cache model, inputs, and the check against the float64 reference.
#include <omp.h>

#include <cmath>
#include <map>
#include <string>

#include "inputs.hpp"
#include "steps.hpp"
#include "swath/lab/stencil.hpp"
#include "swath/bench/check.hpp"
#include "swath/bench/table_family.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::stencil {

namespace {

// The stencil's parameters (its mathematics and layout); the traversal steps' schedule settings are on
// their rows (src/stencil/registry.cpp).
constexpr auto always = parameter::naming::always;
constexpr parameter stencil_parameters[] = {
    {"radius", "1|2|3|4", "1", "taps up to r points away along an axis (the CPU suite runs 1,4, the GPU suite 1,2,4)", always},
    {"shape", "star|box", "star", "the axes only, or the whole (2r+1)^d cube", always},
    {"boundary", "clamp|copy|constant|periodic", "clamp", "what a tap past the edge reads, or copy: points within r of a face keep their input", always},
    {"type", "float|double", "float", "the element type (the GPU suite runs both)", always},
    {"weights", "default|W0:W1:...", "default", "every tap's weight, colon-separated, z-major then y then x"},
    {"pitch", "dense|lines|N", "dense", "elements from a row to the next: back to back, padded to 128-byte lines, or N >= width (GPU steps; 08 and 09's suite runs dense and lines)", parameter::naming::unless_default},
};

// Each row padded to whole 128-byte lines.
std::int64_t line_pitch(std::int64_t width, std::int64_t element_bytes) {
  const std::int64_t per_line = 128 / element_bytes;
  return (width + per_line - 1) / per_line * per_line;
}

template <class T>
class stencil_trial final : public bench::trial {
 public:
  stencil_trial(const variant& v, const problem& p, const bench::trial_options& options)
      : variant_(v),
        problem_(p),
        options_(options),
        launch_(bench::prepare_launch(v.info, v.supports(p), options.settings)),
        grids_(p, options, v.info.where == backend::cuda) {}

  [[nodiscard]] int sets() const override { return static_cast<int>(grids_.inputs.size()); }
  void poison_outputs() override {
    for (auto& out : grids_.outputs) poison(out);
    if (variant_.info.where == backend::cuda) device_synchronize();
  }
  void run(int set) override {
    const auto index = static_cast<std::size_t>(set) % grids_.inputs.size();
    variant_.run(problem_, operands{grids_.inputs[index].data(), grids_.outputs[index].data()}, launch_);
  }
  [[nodiscard]] bool timed_on_device() const override { return variant_.info.where == backend::cuda; }

  bench::check_result check() override {
    const std::uint64_t seed = input_seed(options_, 0);
    const problem& p = problem_;
    buffer<T> host_copy;
    const T* out = on_host(grids_.outputs.front(), host_copy);
    // The inputs drawn once, densely, rather than hashed afresh at every tap: compare_region evaluates
    // the reference twice (its scale, then each error), so a point cost 2 · taps hashes. Measured on 2
    // cores, 256^3 at radius 4 in float (stencil/cpu/09_openmp_3d, one verified and one timed run): the
    // whole bench command 6.9-7.5 s before, 2.7 s after.
    buffer<T> input(memory_kind::host, static_cast<std::size_t>(p.points()));
    T* drawn = input.data();
    const std::int64_t count = p.points();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) drawn[i] = static_cast<T>(input_value<T>(seed, i));
    const auto value = [&](std::int64_t source) { return source < 0 ? p.edge_value : static_cast<double>(drawn[source]); };
    const std::int64_t plane = p.grid.count();
    const std::int64_t pitch = p.pitch();
    // index: where the output sits in memory, row · pitch + x; the reference works in dense indices.
    const auto reference = [&](std::int64_t stored) {
      const std::int64_t index = stored / pitch * p.grid.width + stored % pitch;
      const std::int64_t z = index / plane;
      const std::int64_t y = (index % plane) / p.grid.width;
      const std::int64_t x = index % p.grid.width;
      if (p.edge == boundary::copy && near_face(x, y, z, p.grid.width, p.grid.height, p.depth, p.radius, p.dims)) {
        return value(index);
      }
      double sum = 0;
      for (const tap& t : p.taps) sum += t.weight * value(source_index(x + t.dx, y + t.dy, z + t.dz, p.grid, p.depth, p.edge));
      return sum;
    };
    // Tolerances are written for float and up to 81 taps; a sum of n positive products is within
    // n ε of exact, so 3D boxes (up to 729 taps) widen it. Double has 2^29 times less rounding error.
    const double for_float = std::max(variant_.info.tolerance, 2.0 * static_cast<double>(p.taps.size()) * 0x1p-24);
    const double tolerance = std::is_same_v<T, float> ? for_float : for_float * 0x1p-29;
    // Every pad after a row but the last must still hold the poison: a step that writes one fails.
    return bench::compare_region(out, p.grid.height * p.depth, p.grid.width, pitch, reference, tolerance);
  }

 private:
  variant variant_;
  problem problem_;
  bench::trial_options options_;
  launch_context launch_;
  grid_sets<T> grids_;
};

class stencil_family final : public bench::table_family<variant, problem> {
 public:
  [[nodiscard]] std::string_view name() const override { return "stencil"; }
  [[nodiscard]] std::string_view summary() const override {
    return "2D and 3D stencils, star or box, radius 1-4: CPU traversals (row-major, tiled, column, zigzag), "
           "the GPU 3D progression";
  }
  [[nodiscard]] std::span<const parameter> parameters() const override { return stencil_parameters; }
  // The GPU suite adds radius 2 and double: its targets are stated for them (docs/journal/stencil.md). Steps
  // 08 and 09 also run their ragged grids pitched to whole lines, the layout their copy engine wants.
  [[nodiscard]] std::vector<std::string> suite_values(const variant_info& info, const parameter& key,
                                                      const std::vector<bench::parameter_choice>& chosen) const override {
    const bool gpu = info.where == backend::cuda;
    if (key.key == "radius") return gpu ? std::vector<std::string>{"1", "2", "4"} : std::vector<std::string>{"1", "4"};
    if (key.key == "type" && gpu) return {"float", "double"};
    if (key.key == "pitch") {
      const auto supports = row(info).supports;
      if (supports == aligned_star_3d || supports == aligned_wide_star_3d) return {"dense", "lines"};
    }
    return family::suite_values(info, key, chosen);
  }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    if (info.where == backend::cuda) {
      // The targets' sizes: 512^3 (1 GiB of float in and out, 20x the H100/H200 L2) and a ragged
      // grid near it that no tile divides; then a 2D grid of the same volume.
      // Steps 08 and 09 take rows 16 bytes apart only: their dense ragged grid is 508 wide, and the
      // others' 510 runs pitched (pitch=lines, a suite default of theirs).
      const auto supports = row(info).supports;
      if (supports == aligned_star_3d || supports == aligned_wide_star_3d) {
        return {{{512, 512, 512}}, {{508, 509, 511}}, {{510, 509, 511}}};
      }
      return {{{512, 512, 512}}, {{510, 509, 511}}, {{16383, 8193}}};
    }
    // A square grid whose rows fit any L2, and a wide one (64K floats a row) whose 2r + 1 rows do not
    // fit a 2 MiB L2 for r = 4 (4 B × 65546 × 10 rows = 2.5 MiB): where columns should win.
    std::vector<bench::size_spec> sizes = {{{2049, 2047}}, {{65537, 257}}};
    if (row(info).supports == any_dense_stencil) sizes.push_back({{255, 254, 253}});  // 3D-capable steps
    return sizes;
  }
  [[nodiscard]] std::string_view size_help() const override { return "WxH (2D) or WxHxD (3D)"; }
  [[nodiscard]] std::string unsupported(const variant_info& info, const bench::problem_spec& spec) const override {
    std::string why = table_family::unsupported(info, spec);
    if (!why.empty()) return why;
    const problem p = make_problem(row(info), spec);
    if (p.pitch() == p.grid.width && bench::parse_config(spec.config, defaults()).at("pitch") == "lines") {
      return "pitch=lines is the dense layout at this width (its rows are whole lines): the row without pitch= runs it";
    }
    return "";
  }

 protected:
  [[nodiscard]] std::span<const variant> table() const override { return stencil::variants(); }
  [[nodiscard]] std::string size_mismatch(const variant&, const bench::size_spec& size) const override {
    return size.extents.size() == 2 || size.extents.size() == 3 ? "" : "stencils take a size WxH or WxHxD";
  }
  [[nodiscard]] problem problem_of(const variant& v, const bench::problem_spec& spec) const override {
    return make_problem(v, spec);
  }
  [[nodiscard]] std::int64_t footprint(const variant&, const problem& p) const override {
    return 2 * p.stored_elements() * p.element_bytes();
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const variant& v, const problem& p,
                                                       const bench::trial_options& options) const override {
    return stencil::make_trial(v, p, options);
  }
};

}  // namespace

problem make_problem(const variant&, const bench::problem_spec& spec) { return make_problem(spec); }

problem make_problem(const bench::problem_spec& spec) {
  const auto& extents = spec.size.extents;
  if (extents.size() != 2 && extents.size() != 3) {
    throw usage_error("stencils take a size WxH or WxHxD, not " + spec.size.text());
  }
  const auto values = bench::parse_config(spec.config, family().defaults());
  problem p;
  p.grid = {extents[0], extents[1]};
  p.dims = static_cast<int>(extents.size());
  p.depth = p.dims == 3 ? extents[2] : 1;
  p.radius = static_cast<int>(bench::parse_positive("radius", values.at("radius")));
  p.form = values.at("shape") == "box" ? shape::box : shape::star;
  const std::string& edge = values.at("boundary");
  p.edge = edge == "periodic" ? boundary::periodic
           : edge == "constant" ? boundary::constant
           : edge == "copy"     ? boundary::copy
                                : boundary::clamp;
  p.type = values.at("type") == "double" ? element_type::f64 : element_type::f32;
  const std::string& pitch = values.at("pitch");
  if (pitch == "lines") {
    p.row_pitch = line_pitch(p.grid.width, p.element_bytes());
  } else if (pitch != "dense") {
    p.row_pitch = bench::parse_positive("pitch", pitch);
    if (p.row_pitch < p.grid.width) {
      throw usage_error("pitch=" + pitch + " is shorter than a row (" + std::to_string(p.grid.width) +
                        " elements): pitch=dense, lines or a number of elements no smaller than the width");
    }
  }
  p.taps = default_taps(p.form, p.radius, p.dims);
  set_weights(p.taps, values.at("weights"));
  return p;
}

std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options) {
  if (p.type == element_type::f32) return std::make_unique<stencil_trial<float>>(v, p, options);
  return std::make_unique<stencil_trial<double>>(v, p, options);
}

const bench::family& family() {
  static const stencil_family instance;
  return instance;
}

}  // namespace swath::stencil
