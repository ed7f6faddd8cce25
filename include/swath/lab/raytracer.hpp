#pragma once
// The lab's view of the raytracer family: the registry the CLI, the tests and the benchmarks read (the
// library's steps, then the vendor baselines and the entry points' "auto" rows), and the trials that
// set up, run and check one row at one size. Not installed: the library (swath/raytracer.hpp) does not
// need it.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <functional>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/raytracer.hpp"

namespace swath::raytracer {

// Every row (src/raytracer/lab_registry.cpp): steps(), then the vendor rows and the auto rows of this build.
std::span<const variant> variants();
// The row with this name; throws usage_error naming the family when none has it.
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
