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

#include "swath/raytracer/bvh.hpp"
#include "swath/raytracer/geometry.hpp"
#include "swath/raytracer/shading.hpp"
#include "swath/registry.hpp"
#include "swath/core/stream.hpp"

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

// The library's steps of this family (src/raytracer/registry.cpp), in reading order; CUDA rows only in
// CUDA builds. The lab adds the vendor baselines and the entry points' rows (swath/lab/raytracer.hpp).
std::span<const variant> steps();

// ---- The library call ------------------------------------------------------------------------------
// Renders `s` with `settings` (size, samples, shading, shadows, seed) into pixels[0, width · height):
// row-major, top row first, linear RGB with a = 1. With pixels in device memory, on `stream`'s device,
// asynchronously: the BVH is built on the host (binned SAH) and traced on the GPU; the call returns
// once the frame is queued, and the scene's device copy is released once the stream has passed it.
// With pixels in host memory, on the CPU's OpenMP threads, done on return. Returns nothing; the rays
// cast are counted only by the lab. Throws swath::usage_error for a null pointer, a size below 1, a
// sample count below 1, a scene without spheres whose material index is out of range, or pixels on
// another device than the stream's.
void render(const scene& s, const render_settings& settings, rgba* pixels, stream_t stream = nullptr);
// A scene from arrays: spheres and their material indices (one each), the materials, the lights and the
// camera. Throws swath::usage_error for a material index out of range or a negative radius.
scene make_scene(std::span<const sphere_geometry> spheres, std::span<const int> sphere_materials,
                 std::span<const material> materials, std::span<const light> lights, const camera_spec& camera,
                 vec3 background = {0, 0, 0});
}  // namespace swath::raytracer
