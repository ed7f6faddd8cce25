#pragma once
// The ray tracer family (seed 001, item 5 and its plan 5.1-5.3): spheres rendered with a camera ray per
// sample, the seed's flat shading or Phong with hard shadows, brute force or through a BVH.
//
// A scene (JSON, src/raytracer/scene.cpp) gives the camera, lights, materials and spheres, or a
// generator of random spheres for large scenes, and its default render settings. A step is a way of
// finding hits: every step calls the same render_pixel (raytracer/shading.hpp), so the same scene gives
// the same image on every step, CPU or CUDA.
//
// Work counted: every ray cast (camera rays, and one shadow ray per light a hit point faces). The count
// is measured by the run itself (it depends on what the rays hit); rays/s is the family's figure.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "swath/bench/family.hpp"
#include "swath/raytracer/bvh.hpp"
#include "swath/raytracer/geometry.hpp"
#include "swath/raytracer/shading.hpp"
#include "swath/registry.hpp"

namespace swath::raytracer {

struct camera_spec {
  projection kind = projection::perspective;
  vec3 position{0, 0, 10}, look_at{0, 0, 0}, up{0, 1, 0};
  float fov_degrees = 45;  // perspective: the vertical field of view
  float view_height = 2;   // orthographic: the height of the view in scene units
};

struct render_settings {
  int width = 640, height = 360;
  int samples = 1;
  shading mode = shading::phong;
  bool shadows = true;
  std::uint64_t seed = 7;
};

struct scene {
  std::string name;
  camera_spec camera;
  std::vector<light> lights;
  std::vector<material> materials;
  std::vector<sphere_geometry> spheres;
  std::vector<int> sphere_materials;  // one per sphere, an index into materials
  vec3 background{0, 0, 0};
  render_settings defaults;  // the file's "render" block
};

// Parsing: a bad scene is a usage_error naming the field ("spheres[3].radius") and what was expected.
scene parse_scene(const nlohmann::json& document, const std::string& source);
scene parse_scene_text(std::string_view text, const std::string& source);
scene load_scene(const std::string& path);
// A name without a path or extension ("seed", "random") is a shipped scene: scenes/NAME.json in the
// source tree; anything else is a path.
std::string resolve_scene_path(const std::string& name_or_path);

camera_frame frame_of(const camera_spec& camera, int width, int height);
// The parameters a step's kernels take; materials and lights point at the given copies (host or device).
render_params params_of(const scene& s, const render_settings& settings, const material* materials, const light* lights);

// A pixel of the output: linear RGB (a = 1), not clamped.
struct alignas(16) rgba {
  float r = 0, g = 0, b = 0, a = 0;
};

// Where a frame goes: the pixels (device memory for CUDA steps) and a 64-bit counter the rays cast are
// added to (same memory).
struct frame_target {
  rgba* pixels = nullptr;
  std::uint64_t* rays = nullptr;
};

// One step, set up for one scene: the spheres uploaded in the layout the step wants.
class renderer {
 public:
  virtual ~renderer() = default;
  // The acceleration structure, rebuilt from the spheres (the GPU LBVH); nothing for brute force and for
  // trees built once on the CPU at setup. Asynchronous on the step's stream.
  virtual void build() {}
  // Rows [first_row, last_row) of the image into target, asynchronous on the step's stream.
  virtual void trace_rows(const frame_target& target, int first_row, int last_row) = 0;
  // 0 if no traversal ran out of stack, else throws (checked after a frame; never expected).
  virtual void check_traversal() {}
};

struct problem {
  std::shared_ptr<const scene> scene_data;
  std::string scene_name;
  render_settings settings;
};

struct variant {
  variant_info info;
  support (*supports)(const problem&) = nullptr;
  std::unique_ptr<renderer> (*prepare)(const problem&, const launch_context&) = nullptr;
};

support any_scene(const problem& p);
support seed_model(const problem& p);  // orthographic, flat shading, one sample: the seed's kernel

// The registry table (src/raytracer/registry.cpp). CUDA rows are present only in CUDA builds.
std::span<const variant> variants();
const variant& find_variant(std::string_view name);
const bench::family& family();
// The benchmark's problem: size "WxH", config "scene=NAME spheres=N samples=N shading=flat|phong
// shadows=on|off" (scene defaults to the family's; the rest to the scene's own settings).
problem make_problem(const bench::problem_spec& spec);
// The same from a config alone; width or height 0 takes the scene's own (swath render).
problem make_problem(const std::string& config, int width, int height);

// Renders a whole frame with a step into host pixels (width · height, row-major, top row first) and
// returns what it took. `progress` (may be empty) hears the rows done so far. build_s is the
// acceleration structure's build, timed with the repeated frames (0 without them; ~0 where the step
// builds nothing per frame). With repetitions > 1
// (on the GPU always at least 5), the build and the frame are then timed that many times more (CUDA
// events on the GPU) and the medians reported: the first frame, drawn in bands for the progress bar,
// also pays for loading the kernels.
struct render_stats {
  std::uint64_t rays = 0;
  double build_s = 0, trace_s = 0;
  int frames_timed = 1;
};
render_stats render(const variant& v, const problem& p, std::vector<rgba>& pixels,
                    const std::function<void(int rows_done)>& progress = {}, int repetitions = 1);

// PSNR in dB of b against a over the RGB channels clamped to [0, 1] (peak 1); infinity when equal.
double psnr(std::span<const rgba> a, std::span<const rgba> b);
// An 8-bit RGB PNG (values clamped to [0, 1], then the sRGB transfer curve). Throws on I/O errors.
void write_png(const std::string& path, std::span<const rgba> pixels, int width, int height);

}  // namespace swath::raytracer
