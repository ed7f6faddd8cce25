// The ray tracer family as the runner and the tests see it: problems (an image size, a scene, its
// settings), scenes and SAH trees cached per scene, the trial (poisoned pixels with guard pixels on
// both sides, a frame, the check against the CPU renderer on sampled rows), and render() for the CLI.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "steps.hpp"
#include "swath/bench/table_family.hpp"
#include "swath/lab/raytracer.hpp"
#include "scene_json.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/poison.hpp"
#include "swath/core/timing.hpp"

namespace swath::raytracer {
namespace {

// Scenes by (file, sphere count): every call for a problem (support, work, footprint, trial) shares one
// copy; a 10^6-sphere scene takes ~0.1 s to generate and 24 MB to hold. The last few are kept.
std::shared_ptr<const scene> cached_scene(const std::string& name, std::int64_t spheres) {
  static std::mutex guard;
  static std::map<std::pair<std::string, std::int64_t>, std::shared_ptr<const scene>> cache;
  const std::lock_guard lock(guard);
  const auto key = std::make_pair(name, spheres);
  if (const auto found = cache.find(key); found != cache.end()) return found->second;
  std::string path;
  nlohmann::json document = read_scene_document(name, path);
  if (spheres >= 0) {
    if (!document.is_object() || !document.contains("random") || !document["random"].is_object()) {
      throw usage_error("spheres=" + std::to_string(spheres) + ": the scene " + path +
                        " has no \"random\" generator whose count it could set");
    }
    document["random"]["count"] = spheres;
  }
  if (cache.size() >= 4) cache.clear();
  auto made = std::make_shared<const scene>(parse_scene(document, path));
  return cache.emplace(key, std::move(made)).first->second;
}

}  // namespace


problem make_problem(const bench::problem_spec& spec) {
  if (spec.size.extents.size() != 2) throw usage_error("a ray tracer size is the image's WxH (got " + spec.size.text() + ")");
  const std::int64_t width = spec.size.extents[0], height = spec.size.extents[1];
  if (width > 65536 || height > 65536) throw usage_error("a ray tracer image is at most 65536 pixels on a side");
  return make_problem(spec.config, static_cast<int>(width), static_cast<int>(height));
}

problem make_problem(const std::string& config, int width, int height) {
  SWATH_EXPECTS(width >= 0 && height >= 0, "an image size ≥ 0 (0: the scene's own)");
  auto values = bench::parse_config(config, family().defaults());
  // "scene": the scene's own setting, as an empty value.
  for (auto& [key, value] : values) {
    if (key != "scene" && value == "scene") value.clear();
  }
  problem p;
  p.scene_name = values.at("scene");
  const std::int64_t spheres = values.at("spheres").empty() ? -1 : bench::parse_positive("spheres", values.at("spheres"));
  p.scene_data = cached_scene(p.scene_name, spheres);
  p.settings = p.scene_data->defaults;
  if (width > 0) p.settings.width = width;
  if (height > 0) p.settings.height = height;
  if (!values.at("samples").empty()) {
    const std::int64_t samples = bench::parse_positive("samples", values.at("samples"));
    if (samples > 1024) throw usage_error("samples=" + values.at("samples") + " is more than 1024");
    p.settings.samples = static_cast<int>(samples);
  }
  if (const std::string& mode = values.at("shading"); mode == "flat") {
    p.settings.mode = shading::flat;
  } else if (mode == "phong") {
    p.settings.mode = shading::phong;
  } else if (!mode.empty()) {
    throw usage_error("shading=" + mode + ": flat or phong");
  }
  if (const std::string& shadows = values.at("shadows"); shadows == "on") {
    p.settings.shadows = true;
  } else if (shadows == "off") {
    p.settings.shadows = false;
  } else if (!shadows.empty()) {
    throw usage_error("shadows=" + shadows + ": on or off");
  }
  return p;
}

namespace {

// Camera rays only: the shadow rays depend on what is hit and are counted by the run.
double camera_rays(const problem& p) {
  return static_cast<double>(p.settings.width) * p.settings.height * p.settings.samples;
}

// The rows the check renders on the CPU: all of them for small images, else evenly spread rows (the
// first and the last among them) worth about 2^18 pixels.
std::vector<int> checked_rows(const problem& p) {
  const std::int64_t budget = std::int64_t{1} << 18;
  const int height = p.settings.height;
  const std::int64_t wanted = std::max<std::int64_t>(2, budget / p.settings.width);
  std::vector<int> rows;
  if (wanted >= height) {
    for (int y = 0; y < height; ++y) rows.push_back(y);
    return rows;
  }
  const double step = static_cast<double>(height - 1) / static_cast<double>(wanted - 1);
  for (std::int64_t k = 0; k < wanted; ++k) {
    const int y = static_cast<int>(std::lround(static_cast<double>(k) * step));
    if (rows.empty() || rows.back() != y) rows.push_back(y);
  }
  return rows;
}

// The reference renderer: brute force (an algorithm independent of the trees) when the checked rows
// cost at most ~3 · 10^8 sphere tests, else the SAH tree (itself checked against brute force by the tests).
const variant& reference_step(const problem& p, std::size_t rows) {
  const double tests = static_cast<double>(rows) * p.settings.width * p.settings.samples * 2.0 *
                       static_cast<double>(p.scene_data->spheres.size());
  return find_variant(tests <= 3e8 ? "raytracer/cpu/01_brute_force" : "raytracer/cpu/02_bvh_sah");
}

// The reference pixels of the checked rows (row after row), cached: every step of a suite checks the same frame.
const std::vector<rgba>& cached_reference(const problem& p, const std::vector<int>& rows) {
  using key = std::tuple<const scene*, int, int, int, int, bool, std::uint64_t>;
  static std::mutex guard;
  static std::map<key, std::vector<rgba>> cache;
  const key wanted{p.scene_data.get(), p.settings.width, p.settings.height, p.settings.samples,
                   static_cast<int>(p.settings.mode), p.settings.shadows, p.settings.seed};
  const std::lock_guard lock(guard);
  if (const auto found = cache.find(wanted); found != cache.end()) return found->second;
  if (cache.size() >= 8) cache.clear();
  const variant& reference = reference_step(p, rows.size());
  const auto prepared = reference.prepare(p, bench::prepare_launch(reference.info, reference.supports(p)));
  std::vector<rgba> frame(static_cast<std::size_t>(p.settings.width) * static_cast<std::size_t>(p.settings.height));
  std::uint64_t rays = 0;
  for (const int y : rows) prepared->trace_rows({frame.data(), &rays}, y, y + 1);
  prepared->check_traversal();
  std::vector<rgba> picked;
  picked.reserve(rows.size() * static_cast<std::size_t>(p.settings.width));
  for (const int y : rows) {
    const auto first = frame.begin() + static_cast<std::ptrdiff_t>(y) * p.settings.width;
    picked.insert(picked.end(), first, first + p.settings.width);
  }
  return cache.emplace(wanted, std::move(picked)).first->second;
}

float clamp_unit(float value) { return std::clamp(value, 0.0f, 1.0f); }

// The squared difference of two pixels over R, G and B clamped to [0, 1]; a channel that is not finite
// on either side counts as the largest difference (1). The check's RMS and psnr() both sum it.
double squared_error(const rgba& a, const rgba& b) {
  double sum = 0;
  for (const auto& [x, y] : {std::pair{a.r, b.r}, std::pair{a.g, b.g}, std::pair{a.b, b.b}}) {
    const double d = std::isfinite(x) && std::isfinite(y) ? static_cast<double>(clamp_unit(x)) - clamp_unit(y) : 1.0;
    sum += d * d;
  }
  return sum;
}

// Pixels written beyond either end of the image land in these, and are caught by the check.
constexpr std::int64_t guard_pixels = 64;

class raytracer_trial final : public bench::trial {
 public:
  raytracer_trial(const variant& v, const problem& p)
      : variant_(v),
        problem_(p),
        on_device_(v.info.where == backend::cuda),
        launch_(bench::prepare_launch(v.info, v.supports(p))),
        pixel_count_(static_cast<std::int64_t>(p.settings.width) * p.settings.height),
        pixels_(on_device_ ? memory_kind::device : memory_kind::host, static_cast<std::size_t>(pixel_count_ + 2 * guard_pixels)),
        rays_(on_device_ ? memory_kind::device : memory_kind::host, 1),
        renderer_(v.prepare(p, launch_)) {
    if (on_device_) device_synchronize();
  }

  [[nodiscard]] int sets() const override { return 1; }

  void poison_outputs() override {
    auto* floats = reinterpret_cast<float*>(pixels_.data());
    const auto count = static_cast<std::int64_t>(pixels_.size()) * 4;
    if (on_device_) {
      poison_device(floats, count, launch_.stream);
      device_synchronize();
    } else {
      poison_host(floats, count);
    }
  }

  void run(int) override {
    if (on_device_) {
      zero_device(rays_.data(), sizeof(std::uint64_t), launch_.stream);
    } else {
      *rays_.data() = 0;
    }
    renderer_->trace_rows({pixels_.data() + guard_pixels, rays_.data()}, 0, problem_.settings.height);
  }

  bench::check_result check() override {
    if (on_device_) device_synchronize();
    renderer_->check_traversal();
    std::vector<rgba> frame(pixels_.size());
    copy_bytes(frame.data(), memory_kind::host, pixels_.data(), pixels_.kind(), pixels_.bytes());
    copy_bytes(&rays_cast_, memory_kind::host, rays_.data(), rays_.kind(), sizeof rays_cast_);
    bench::check_result result;
    result.tolerance = variant_.info.tolerance;
    const int width = problem_.settings.width;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(frame.size()); ++i) {
      const rgba& px = frame[static_cast<std::size_t>(i)];
      const bool poisoned = is_poison(px.r) && is_poison(px.g) && is_poison(px.b) && is_poison(px.a);
      if (i < guard_pixels || i >= guard_pixels + pixel_count_) {
        if (!poisoned) ++result.outside_writes;
      } else if (is_poison(px.r) || is_poison(px.g) || is_poison(px.b) || is_poison(px.a)) {
        ++result.unwritten;
      } else if (!std::isfinite(px.r) || !std::isfinite(px.g) || !std::isfinite(px.b) || !std::isfinite(px.a)) {
        ++result.not_finite;
      }
    }
    const std::vector<int> rows = checked_rows(problem_);
    const std::vector<rgba>& expected = cached_reference(problem_, rows);
    double squared = 0, worst = -1;
    std::size_t k = 0;
    for (const int y : rows) {
      for (int x = 0; x < width; ++x, ++k) {
        const std::int64_t index = static_cast<std::int64_t>(y) * width + x;
        const double pixel = squared_error(frame[static_cast<std::size_t>(guard_pixels + index)], expected[k]);
        squared += pixel;
        if (pixel > worst) {
          worst = pixel;
          result.worst_index = index;
        }
      }
    }
    result.checked = static_cast<std::int64_t>(k);
    // RMS over the channels: 0.01 is a PSNR of 40 dB.
    result.max_relative_error = k == 0 ? 0.0 : std::sqrt(squared / (3.0 * static_cast<double>(k)));
    return result;
  }

  [[nodiscard]] bool timed_on_device() const override { return on_device_; }
  [[nodiscard]] void* stream() const override { return launch_.stream; }
  [[nodiscard]] std::optional<double> counted_items() const override { return static_cast<double>(rays_cast_); }

 private:
  variant variant_;
  problem problem_;
  bool on_device_;
  launch_context launch_;
  std::int64_t pixel_count_;
  buffer<rgba> pixels_;
  buffer<std::uint64_t> rays_;
  std::unique_ptr<renderer> renderer_;
  std::uint64_t rays_cast_ = 0;
};

bench::problem_spec spec_of(const char* size, const char* config) { return {bench::parse_size(size), config}; }

// The scene and how it is rendered; spheres, samples, shading and shadows default to the scene's own.
constexpr parameter raytracer_parameters[] = {
    {"scene", "NAME|FILE.json", "random", "a name is scenes/NAME.json (seed, random, ...)"},
    {"spheres", "scene|N", "scene", "the sphere count of the scene's random generator"},
    {"samples", "scene|N", "scene", "samples a pixel, at most 1024"},
    {"shading", "scene|flat|phong", "scene", "flat colours, or Phong with a light"},
    {"shadows", "scene|on|off", "scene", "a shadow ray a hit"},
};

class raytracer_family final : public bench::table_family<variant, problem> {
 public:
  [[nodiscard]] std::string_view name() const override { return "raytracer"; }
  [[nodiscard]] std::string_view summary() const override {
    return "spheres rendered with camera and shadow rays: the seed's kernel, Phong, anti-aliasing, LBVH and SAH trees";
  }
  [[nodiscard]] std::span<const parameter> parameters() const override { return raytracer_parameters; }
  [[nodiscard]] std::vector<bench::size_spec> default_sizes(const variant_info& info) const override {
    return {bench::parse_size(info.where == backend::cuda ? "1920x1080" : "320x180")};
  }
  [[nodiscard]] std::string_view size_help() const override { return "WxH, the image in pixels"; }
  // The suite: the seed's scene on every CUDA step (the whole progression on one image), brute force at
  // 480x270 with 10^3 and 10^5 spheres, the trees there too (the BVH against brute force, same frame)
  // and at 1920x1080 up to 10^6 spheres (the target). The CPU runs small frames: a newcomer's laptop.
  [[nodiscard]] std::vector<bench::problem_spec> default_cases(const variant_info& info) const override {
    const std::string_view name = info.name;
    const bool tree = name.find("bvh") != std::string_view::npos;
    if (info.where == backend::cpu) {
      std::vector<bench::problem_spec> cases = {spec_of("256x256", "scene=seed"), spec_of("160x90", "scene=random spheres=1000")};
      if (tree) cases.push_back(spec_of("320x180", "scene=random spheres=100000"));
      return cases;
    }
    std::vector<bench::problem_spec> cases = {spec_of("1024x1024", "scene=seed")};
    if (name.ends_with("01_ortho_global") || name.ends_with("02_ortho_constant")) return cases;
    cases.push_back(spec_of("480x270", "scene=random spheres=1000"));
    cases.push_back(spec_of("480x270", "scene=random spheres=100000"));
    if (tree) {
      cases.push_back(spec_of("1920x1080", "scene=random spheres=100000"));
      cases.push_back(spec_of("1920x1080", "scene=random spheres=1000000"));
    }
    return cases;
  }
  [[nodiscard]] work_amount work_of(const variant&, const problem& p) const override {
    const double pixels = static_cast<double>(p.settings.width) * p.settings.height;
    return {pixels * sizeof(rgba) + static_cast<double>(p.scene_data->spheres.size()) * 20.0, 0.0, camera_rays(p)};
  }

 protected:
  [[nodiscard]] std::span<const variant> table() const override { return raytracer::variants(); }
  [[nodiscard]] std::string size_mismatch(const variant&, const bench::size_spec& size) const override {
    return size.extents.size() == 2 ? "" : "a ray tracer size is the image's WxH";
  }
  [[nodiscard]] problem problem_of(const variant&, const bench::problem_spec& spec) const override {
    return make_problem(spec);
  }
  // The image, the spheres twice (as given and in tree order), nodes, and the LBVH's sort buffers.
  [[nodiscard]] std::int64_t footprint(const variant&, const problem& p) const override {
    const auto spheres = static_cast<std::int64_t>(p.scene_data->spheres.size());
    return static_cast<std::int64_t>(p.settings.width) * p.settings.height * 16 + spheres * (2 * 20 + 64 + 32);
  }
  [[nodiscard]] std::unique_ptr<bench::trial> trial_of(const variant& v, const problem& p,
                                                       const bench::trial_options&) const override {
    return std::make_unique<raytracer_trial>(v, p);
  }
};

}  // namespace

const bench::family& family() {
  static const raytracer_family instance;
  return instance;
}

render_stats render(const variant& v, const problem& p, std::vector<rgba>& pixels,
                    const std::function<void(int rows_done)>& progress, int repetitions) {
  SWATH_EXPECTS(repetitions >= 1, "render: at least one repetition");
  const bool on_device = v.info.where == backend::cuda;
  const launch_context launch = bench::prepare_launch(v.info, v.supports(p));
  const int width = p.settings.width, height = p.settings.height;
  pixels.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), rgba{});
  buffer<rgba> frame(on_device ? memory_kind::device : memory_kind::host, pixels.size());
  buffer<std::uint64_t> rays(on_device ? memory_kind::device : memory_kind::host, 1);
  if (on_device) {
    zero_device(rays.data(), sizeof(std::uint64_t), launch.stream);
  } else {
    *rays.data() = 0;
  }
  render_stats stats;
  const auto prepared = v.prepare(p, launch);  // uploads, and builds what the step builds (the LBVH)
  // Bands of rows, so that progress can be shown; ~16 bands, each of whole 16-row tiles.
  const int band = std::max(16, (height / 16 + 15) / 16 * 16);
  const stopwatch clock;
  for (int first = 0; first < height; first += band) {
    const int last = std::min(height, first + band);
    prepared->trace_rows({frame.data(), rays.data()}, first, last);
    if (on_device) device_synchronize();
    if (progress) progress(last);
  }
  stats.trace_s = clock.seconds();
  prepared->check_traversal();
  copy_bytes(pixels.data(), memory_kind::host, frame.data(), frame.kind(), frame.bytes());
  copy_bytes(&stats.rays, memory_kind::host, rays.data(), rays.kind(), sizeof stats.rays);
  // The first frame ran in bands with a synchronisation each, and on the GPU it also paid for loading
  // the kernel: its time is not the renderer's. On the GPU frames take milliseconds, so a few more are
  // always timed (CUDA events, median); on the CPU only when asked.
  const int timed = on_device ? std::max(repetitions, 5) : repetitions;
  if (timed > 1) {
    const auto time = [&](const std::function<void(int)>& body) {
      return summarize(on_device ? time_on_device(body, 1, timed, launch.stream) : time_on_host(body, 1, timed)).median_s;
    };
    stats.build_s = time([&](int) { prepared->build(); });
    stats.trace_s = time([&](int) { prepared->trace_rows({frame.data(), rays.data()}, 0, height); });
    prepared->check_traversal();
  }
  stats.frames_timed = timed;
  return stats;
}

double psnr(std::span<const rgba> a, std::span<const rgba> b) {
  SWATH_EXPECTS(a.size() == b.size() && !a.empty(), "psnr of two images of the same, non-zero size");
  double squared = 0;
  for (std::size_t i = 0; i < a.size(); ++i) squared += squared_error(a[i], b[i]);
  const double mse = squared / (3.0 * static_cast<double>(a.size()));
  return mse == 0 ? std::numeric_limits<double>::infinity() : -10.0 * std::log10(mse);
}

}  // namespace swath::raytracer
