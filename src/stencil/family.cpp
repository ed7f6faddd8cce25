// The stencil family as the runner and the tests see it: configurations, problems with their schedule
// parameters from the cache model, inputs, and the check against the float64 reference.
#include <omp.h>

#include <cmath>
#include <map>
#include <string>

#include "steps.hpp"
#include "swath/bench/check.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/random.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::stencil {

std::string_view to_string(shape form) { return form == shape::star ? "star" : "box"; }
std::string_view to_string(boundary edge) {
  switch (edge) {
    case boundary::clamp: return "clamp";
    case boundary::constant: return "constant";
    case boundary::periodic: return "periodic";
  }
  return "?";
}
std::string_view to_string(traversal order) {
  switch (order) {
    case traversal::row_major: return "row_major";
    case traversal::tiled: return "tiled";
    case traversal::column: return "column";
    case traversal::zigzag: return "zigzag";
  }
  return "?";
}

std::vector<tap> default_taps(shape form, int radius) {
  std::vector<tap> taps;
  for (int dy = -radius; dy <= radius; ++dy) {
    for (int dx = -radius; dx <= radius; ++dx) {
      if (form == shape::star && dx != 0 && dy != 0) continue;
      taps.push_back({dx, dy, 0});
    }
  }
  // A fixed pattern of weights in [0.5, 2), scaled by 1 / taps so outputs stay near the inputs' size.
  for (std::size_t k = 0; k < taps.size(); ++k) {
    taps[k].weight = std::fabs(random_double(0x57e9c11, k)) / static_cast<double>(taps.size());
  }
  return taps;
}

work_amount stencil_work(const problem& p) {
  const auto points = static_cast<double>(p.grid.count());
  return {2.0 * static_cast<double>(p.element_bytes()) * points, 2.0 * static_cast<double>(p.taps.size()) * points};
}

support any_stencil(const problem& p) {
  if (p.radius < 1 || p.radius > 4) return support::no("radius must be 1 to 4");
  return support::yes();
}

namespace {

// The parameters and their defaults (the first value of each list is what a plain run uses; the
// default suite runs every listed radius).
struct axis {
  const char* key;
  std::vector<std::string> allowed;  // empty: free-form (checked when the problem is made)
  std::vector<std::string> defaults;
};

const std::vector<axis>& axes() {
  static const std::vector<axis> all = {
      {"radius", {"1", "2", "3", "4"}, {"1", "4"}},
      {"shape", {"star", "box"}, {"star"}},
      {"boundary", {"clamp", "constant", "periodic"}, {"clamp"}},
      {"type", {"float", "double"}, {"float"}},
      {"column_width", {}, {"model"}},  // "model" or a number of elements
      {"tile", {}, {"model"}},          // "model", "N" (square) or "WxH"
      {"cache", {}, {"L2"}},            // L1, L2, L3, or bytes with an optional K/M/G (binary) suffix
      {"ways", {}, {"auto"}},           // associativity for the model: auto (from the system for L1-L3), 0 = ignore, N
  };
  return all;
}

std::map<std::string, std::string> parse_config(const std::string& config) {
  std::map<std::string, std::string> defaults;
  for (const axis& a : axes()) defaults[a.key] = a.defaults.front();
  return bench::parse_config(config, defaults);
}

template <class T>
class stencil_trial final : public bench::trial {
 public:
  stencil_trial(const variant& v, const problem& p, const bench::trial_options& options)
      : variant_(v), problem_(p), options_(options) {
    const support supported = v.supports(p);
    SWATH_EXPECTS(supported.ok(), std::string(v.info.name) + " cannot run this problem: " + std::string(supported.why));
    launch_.cpu_threads = omp_get_max_threads();
    const auto count = static_cast<std::size_t>(p.grid.count());
    const auto set_bytes = static_cast<std::int64_t>(2 * count * sizeof(T));
    int sets = 1;
    if (options.rotate_until_bytes > set_bytes) {
      sets = static_cast<int>(std::min<std::int64_t>((options.rotate_until_bytes + set_bytes - 1) / set_bytes,
                                                     options.max_sets));
    }
    for (int set = 0; set < sets; ++set) {
      inputs_.emplace_back(memory_kind::host, count);
      outputs_.emplace_back(memory_kind::host, count);
      fill(inputs_.back(), input_seed(set));
    }
  }

  [[nodiscard]] int sets() const override { return static_cast<int>(inputs_.size()); }
  void poison_outputs() override {
    for (auto& out : outputs_) poison_host(out.data(), static_cast<std::int64_t>(out.size()));
  }
  void run(int set) override {
    const auto index = static_cast<std::size_t>(set) % inputs_.size();
    variant_.run(problem_, operands{inputs_[index].data(), outputs_[index].data()}, launch_);
  }
  [[nodiscard]] bool timed_on_device() const override { return false; }

  bench::check_result check() override {
    const std::uint64_t seed = input_seed(0);
    const problem& p = problem_;
    const auto value = [&](std::int64_t source) { return source < 0 ? p.edge_value : input_value(seed, source); };
    const auto reference = [&](std::int64_t index) {
      const std::int64_t y = index / p.grid.width;
      const std::int64_t x = index % p.grid.width;
      double sum = 0;
      for (const tap& t : p.taps) sum += t.weight * value(source_index(x + t.dx, y + t.dy, p.grid, p.edge));
      return sum;
    };
    // Tolerances are written for float; double has 2^29 times less rounding error.
    const double tolerance = std::is_same_v<T, float> ? variant_.info.tolerance : variant_.info.tolerance * 0x1p-29;
    return bench::compare_region(outputs_.front().data(), p.grid.height, p.grid.width, p.grid.width, reference,
                                 tolerance);
  }

 private:
  [[nodiscard]] std::uint64_t input_seed(int set) const { return mix64(options_.seed + static_cast<std::uint64_t>(set)); }

  // Inputs are positive, |random| in [0.5, 2): no cancellation, so relative error means something.
  static double input_value(std::uint64_t seed, std::int64_t index) {
    if constexpr (std::is_same_v<T, float>) {
      return std::fabs(static_cast<double>(random_float(seed, static_cast<std::uint64_t>(index))));
    } else {
      return std::fabs(random_double(seed, static_cast<std::uint64_t>(index)));
    }
  }

  void fill(buffer<T>& target, std::uint64_t seed) {
    const auto count = static_cast<std::int64_t>(target.size());
    T* data = target.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) data[i] = static_cast<T>(input_value(seed, i));
  }

  variant variant_;
  problem problem_;
  bench::trial_options options_;
  launch_context launch_;
  std::vector<buffer<T>> inputs_;
  std::vector<buffer<T>> outputs_;
};

class stencil_family final : public bench::family {
 public:
  [[nodiscard]] std::string_view name() const override { return "stencil"; }
  [[nodiscard]] std::string_view summary() const override {
    return "2D stencils, star or box, radius 1-4, four traversals (row-major, tiled, column, zigzag)";
  }
  [[nodiscard]] std::vector<variant_info> variants() const override { return bench::variant_infos(stencil::variants()); }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info&) const override {
    // A square grid whose rows fit any L2, and a wide one (64K floats a row) whose 2r + 1 rows do not
    // fit a 2 MiB L2 for r = 4 (4 B × 65546 × 10 rows = 2.5 MiB): where columns should win.
    return {{{2049, 2047}}, {{65537, 257}}};
  }
  [[nodiscard]] std::string_view size_help() const override { return "WxH (width x height)"; }
  [[nodiscard]] std::string_view parameter_help() const override {
    return "radius=1..4 (default suite 1,4), shape=star|box, boundary=clamp|constant|periodic, type=float|double, "
           "column_width=model|N, tile=model|N|WxH, cache=L1|L2|L3|<bytes>[K|M|G], ways=auto|0|N";
  }
  [[nodiscard]] std::vector<std::string> configurations(const variant_info&,
                                                        const std::vector<bench::parameter_choice>& chosen) const override {
    std::vector<std::string> configs = {""};
    for (const axis& a : axes()) {
      std::vector<std::string> values = a.defaults;
      for (const auto& choice : chosen) {
        if (choice.key == a.key) values = choice.values;
      }
      for (const std::string& value : values) {
        if (!a.allowed.empty() && std::find(a.allowed.begin(), a.allowed.end(), value) == a.allowed.end()) {
          throw usage_error(std::string(a.key) + "=" + value + " is not one of the allowed values (" +
                            std::string(parameter_help()) + ")");
        }
      }
      std::vector<std::string> product;
      for (const std::string& config : configs) {
        for (const std::string& value : values) product.push_back(config + (config.empty() ? "" : " ") + a.key + "=" + value);
      }
      configs = product;
    }
    for (const auto& choice : chosen) {
      const bool known = std::any_of(axes().begin(), axes().end(), [&](const axis& a) { return choice.key == a.key; });
      if (!known) throw usage_error("unknown stencil parameter '" + choice.key + "' (" + std::string(parameter_help()) + ")");
    }
    return configs;
  }
  [[nodiscard]] std::string unsupported(const variant_info& info, const bench::problem_spec& spec) const override {
    if (spec.size.extents.size() != 2) return "2D stencils take a size WxH";
    const variant& v = find_variant(info.name);
    return std::string(v.supports(make_problem(v, spec)).why);
  }
  [[nodiscard]] work_amount work(const variant_info& info, const bench::problem_spec& spec) const override {
    const variant& v = find_variant(info.name);
    return v.work(make_problem(v, spec));
  }
  [[nodiscard]] std::int64_t footprint_bytes(const variant_info& info, const bench::problem_spec& spec) const override {
    const problem p = make_problem(find_variant(info.name), spec);
    return 2 * p.grid.count() * p.element_bytes();
  }
  [[nodiscard]] std::unique_ptr<bench::trial> make_trial(const variant_info& info, const bench::problem_spec& spec,
                                                         const bench::trial_options& options) const override {
    const variant& v = find_variant(info.name);
    return stencil::make_trial(v, make_problem(v, spec), options);
  }
};

}  // namespace

problem make_problem(const variant& v, const bench::problem_spec& spec) {
  SWATH_EXPECTS(spec.size.extents.size() == 2, "2D stencils take a size WxH");
  const auto values = parse_config(spec.config);
  problem p;
  p.grid = {spec.size.extents[0], spec.size.extents[1]};
  p.radius = static_cast<int>(bench::parse_positive("radius", values.at("radius")));
  p.form = values.at("shape") == "box" ? shape::box : shape::star;
  const std::string& edge = values.at("boundary");
  p.edge = edge == "periodic" ? boundary::periodic : (edge == "constant" ? boundary::constant : boundary::clamp);
  p.type = values.at("type") == "double" ? element_type::f64 : element_type::f32;
  p.taps = default_taps(p.form, p.radius);
  const cache_size cache = parse_cache_size(values.at("cache"));
  p.cache_bytes = cache.bytes;

  // Column width: the model's, for this cache, stencil and thread count, unless given. The CPU's caches
  // are write-allocate, so the output row counts (output_rows = 1), and the width stays within one way.
  const std::string& ways = values.at("ways");
  const std::int64_t associativity =
      ways == "auto" ? cache.ways : (ways == "0" ? 0 : bench::parse_positive("ways", ways));
  const schedule::stencil_footprint footprint{p.cache_bytes, p.element_bytes(), p.extent(), p.extent(), 1, 1,
                                              associativity};
  if (values.at("column_width") == "model") {
    const bool shared_column = v.parallel && (v.order == traversal::column || v.order == traversal::zigzag);
    p.column_width = shared_column ? schedule::stencil_column_width_rows(footprint, omp_get_max_threads())
                                   : schedule::stencil_column_width(footprint);
  } else {
    p.column_width = bench::parse_positive("column_width", values.at("column_width"));
  }
  p.column_width = std::clamp<std::int64_t>(p.column_width, 1, p.grid.width);

  // Tiles: square, the largest whose halo-extended block fits: (t + 2r)² u ≤ M.
  const std::string& tile = values.at("tile");
  if (tile == "model") {
    const auto side = static_cast<std::int64_t>(std::sqrt(p.cache_bytes / static_cast<double>(p.element_bytes()))) -
                      2 * p.radius;
    p.tile_width = p.tile_height = std::max<std::int64_t>(side, 1);
  } else if (const auto cross = tile.find('x'); cross != std::string::npos) {
    p.tile_width = bench::parse_positive("tile", tile.substr(0, cross));
    p.tile_height = bench::parse_positive("tile", tile.substr(cross + 1));
  } else {
    p.tile_width = p.tile_height = bench::parse_positive("tile", tile);
  }
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
