// The ray tracer: scenes parse or fail naming the field; the disc of an orthographic sphere is exact;
// brute force and both trees give the same image; shadows and lights where the answer is known; every
// step through the runner's check (poison, guards, the CPU reference); the LBVH at its edge cases.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "swath/core/error.hpp"
#include "swath/lab/raytracer.hpp"
#include "test_support.hpp"

namespace swath::raytracer {
namespace {

using swath::testing::fresh_seed;

std::vector<std::string> names_on(backend where) { return testing::variant_names(variants(), where); }

problem in_memory(const std::string& json_text, int width, int height) {
  problem p;
  p.scene_data = std::make_shared<const scene>(parse_scene_text(json_text, "test scene"));
  p.scene_name = "test scene";
  p.settings = p.scene_data->defaults;
  p.settings.width = width;
  p.settings.height = height;
  return p;
}

// Random spheres from a fresh seed (printed on failure), Phong with shadows, two lights.
std::string random_scene_text(std::uint64_t seed, int count, int samples, const char* projection = "perspective") {
  nlohmann::json scene = {
      {"camera", {{"projection", projection}, {"position", {3, 4, 30}}, {"look_at", {0, 0, 0}}, {"fov", 40}, {"height", 24}}},
      {"background", {0.1, 0.2, 0.3}},
      {"render", {{"samples", samples}, {"shading", "phong"}, {"shadows", true}, {"seed", seed % 1000}}},
      {"lights", {{{"type", "point"}, {"position", {20, 30, 20}}}, {{"type", "directional"}, {"direction", {-1, -2, -1}}, {"colour", {0.3, 0.3, 0.3}}}}},
      {"random", {{"count", count}, {"seed", seed % (1ULL << 62)}, {"box", {{-8, -8, -8}, {8, 8, 8}}}, {"radius", {0.1, 1.2}}}}};
  return scene.dump();
}

std::vector<rgba> render_with(const std::string& name, const problem& p, render_stats* stats = nullptr) {
  std::vector<rgba> pixels;
  const render_stats s = render(find_variant(name), p, pixels);
  if (stats != nullptr) *stats = s;
  return pixels;
}

// --- scenes ---------------------------------------------------------------------------------------------

std::string error_of(const std::string& text) {
  try {
    parse_scene_text(text, "s.json");
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RaytracerScene, ErrorsNameTheFieldAndWhatWasExpected) {
  const std::string camera = R"("camera": {"position": [0, 0, 5], "look_at": [0, 0, 0]})";
  EXPECT_NE(error_of("{" + camera + R"(, "materials": [{}], "spheres": [{"center": [0,0,0], "radius": -1}]})").find("spheres[0].radius: expected a number > 0"), std::string::npos);
  EXPECT_NE(error_of("{" + camera + R"(, "materials": [{}], "spheres": [{"center": [0,0], "radius": 1}]})").find("spheres[0].center: expected an array of three numbers"), std::string::npos);
  EXPECT_NE(error_of("{" + camera + R"(, "lights": [{"type": "spot"}]})").find("lights[0].type"), std::string::npos);
  EXPECT_NE(error_of("{" + camera + R"(, "materials": [{"name": "a", "raduis": 1}]})").find("materials[0].raduis: is not a known field"), std::string::npos);
  EXPECT_NE(error_of("{" + camera + R"(, "materials": [{"name": "a"}], "spheres": [{"center": [0,0,0], "radius": 1, "material": "b"}]})").find("spheres[0].material: expected the name of a material"), std::string::npos);
  EXPECT_NE(error_of(R"({"spheres": []})").find("camera: is missing"), std::string::npos);
  EXPECT_NE(error_of(R"({"camera": {"position": [0, 0, 0], "look_at": [0, 0, 0]}})").find("camera.look_at: must differ"), std::string::npos);
  EXPECT_NE(error_of("{" + camera + R"(, "render": {"samples": 0}})").find("render.samples: expected a whole number in 1..1024"), std::string::npos);
  EXPECT_NE(error_of("{" + camera + R"(, "random": {"count": 10, "box": [[1, 1, 1], [0, 0, 0]]}})").find("random.box"), std::string::npos);
  EXPECT_NE(error_of(R"({"camera": )").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("expected an object"), std::string::npos);
  EXPECT_THROW(load_scene("/nonexistent/scene.json"), usage_error);
}

TEST(RaytracerScene, ShippedScenesParse) {
  for (const char* name : {"seed", "spheres"}) {
    const scene s = load_scene(name);
    EXPECT_FALSE(s.spheres.empty()) << name;
    EXPECT_EQ(s.spheres.size(), s.sphere_materials.size()) << name;
  }
  const problem big = make_problem({bench::parse_size("64x32"), "scene=random spheres=1000"});
  EXPECT_EQ(big.scene_data->spheres.size(), 1000u);
  EXPECT_THROW(make_problem({bench::parse_size("64x32"), "scene=spheres spheres=10"}), usage_error);  // no generator
  EXPECT_THROW(make_problem({bench::parse_size("64"), "scene=seed"}), usage_error);
  EXPECT_THROW(make_problem({bench::parse_size("64x32"), "scene=seed shading=toon"}), usage_error);
}

// 1,300 mutants of the shipped scenes, each with one value (anywhere in the document) replaced by one of
// another type or range: every one parses or is refused with a usage_error (which names the field), never
// nlohmann's own exceptions or anything else. The seed is printed with any failure.
TEST(RaytracerScene, MutatedScenesParseOrNameTheField) {
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  std::vector<nlohmann::json> documents;
  for (const char* name : {"seed", "spheres", "random"}) {
    std::ifstream file(resolve_scene_path(name));
    documents.push_back(nlohmann::json::parse(file));
  }
  documents[2]["random"]["count"] = 50;  // the generator's work stays small
  const nlohmann::json replacements[] = {
      nlohmann::json(nullptr), true, 0, -1, 3.5, 1e300, "text", "perspective", nlohmann::json::array(),
      nlohmann::json::array({1, 2}), nlohmann::json::array({1, 2, 3}), nlohmann::json::object(),
      nlohmann::json::object({{"x", 1}}), 4294967296LL, -7.25e-9};
  int refused = 0, parsed = 0;
  for (int round = 0; round < 1300; ++round) {
    nlohmann::json mutant = documents[round % documents.size()];
    // Every value's JSON pointer, then one replaced.
    const nlohmann::json flat = mutant.flatten();
    std::vector<std::string> pointers;
    for (const auto& item : flat.items()) {
      pointers.push_back(item.key());
      for (std::string parent = item.key(); parent.rfind('/') != 0 && parent.rfind('/') != std::string::npos;) {
        parent = parent.substr(0, parent.rfind('/'));
        pointers.push_back(parent);
      }
    }
    const std::string& where = pointers[std::uniform_int_distribution<std::size_t>(0, pointers.size() - 1)(draw)];
    const auto& replacement = replacements[std::uniform_int_distribution<std::size_t>(0, std::size(replacements) - 1)(draw)];
    mutant[nlohmann::json::json_pointer(where)] = replacement;
    if (mutant.contains("random") && mutant["random"].is_object() && mutant["random"].contains("count") &&
        mutant["random"]["count"].is_number() && mutant["random"]["count"].get<double>() > 1000) {
      continue;  // a valid count of billions: a large scene, not a malformed one
    }
    try {
      (void)parse_scene_text(mutant.dump(), "mutant");
      ++parsed;
    } catch (const usage_error& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("mutant: "), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << where << " = " << replacement.dump() << ": " << e.what() << " is not a usage_error";
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(parsed, 0);
}

TEST(RaytracerScene, GeneratorIsDeterministicAndInsideItsBox) {
  const std::uint64_t seed = fresh_seed();
  const scene a = parse_scene_text(random_scene_text(seed, 5000, 1), "a"), b = parse_scene_text(random_scene_text(seed, 5000, 1), "b");
  ASSERT_EQ(a.spheres.size(), 5000u);
  for (std::size_t i = 0; i < a.spheres.size(); ++i) {
    ASSERT_EQ(a.spheres[i].center.x, b.spheres[i].center.x) << "seed " << seed;
    ASSERT_EQ(a.sphere_materials[i], b.sphere_materials[i]);
    EXPECT_TRUE(std::fabs(a.spheres[i].center.x) <= 8 && std::fabs(a.spheres[i].center.y) <= 8 && std::fabs(a.spheres[i].center.z) <= 8);
    EXPECT_TRUE(a.spheres[i].radius >= 0.1f && a.spheres[i].radius <= 1.2f);
  }
}

// --- the image ------------------------------------------------------------------------------------------

// One sphere seen orthographically, flat shading, one sample per pixel: a pixel is lit exactly when its
// centre lies inside the disc (pixels within a float rounding of the rim are not judged).
void expect_exact_disc(const std::string& name) {
  const std::uint64_t seed = fresh_seed();
  const double cx = static_cast<double>(seed % 1000) / 1000.0 - 0.5, cy = static_cast<double>((seed >> 10) % 1000) / 1000.0 - 0.5;
  const double radius = 1.0 + static_cast<double>((seed >> 20) % 1000) / 500.0;
  char text[512];
  std::snprintf(text, sizeof text,
                R"({"camera": {"projection": "orthographic", "position": [0, 0, 10], "look_at": [0, 0, 0], "height": 8},
                    "render": {"shading": "flat", "samples": 1, "shadows": false},
                    "materials": [{"colour": [1, 0.5, 0.25]}],
                    "spheres": [{"center": [%.6f, %.6f, 0], "radius": %.6f}]})",
                cx, cy, radius);
  const int width = 173, height = 131;  // aspect 1.32: the view is 8 high, 10.56 wide
  const problem p = in_memory(text, width, height);
  const std::vector<rgba> pixels = render_with(name, p);
  int judged = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double sx = (2.0 * (x + 0.5) / width - 1.0) * 4.0 * width / height, sy = (1.0 - 2.0 * (y + 0.5) / height) * 4.0;
      const double distance = std::hypot(sx - cx, sy - cy);
      if (std::fabs(distance - radius) < 1e-4) continue;
      ++judged;
      const rgba& px = pixels[static_cast<std::size_t>(y * width + x)];
      ASSERT_EQ(px.r > 0.0f, distance < radius) << name << " pixel " << x << "," << y << " seed " << seed;
      if (distance < radius) {
        // Flat shading: the colour times dz / r, the cosine between the normal and the view.
        const double facing = std::sqrt(1.0 - (distance / radius) * (distance / radius));
        ASSERT_NEAR(px.r, facing, 2e-3 + 1e-3 / std::max(facing, 1e-3)) << name << " pixel " << x << "," << y;
        ASSERT_NEAR(px.g, 0.5 * px.r, 1e-6);
      }
    }
  }
  EXPECT_GT(judged, width * height - 50);
}

// A floor (a huge sphere), a ball above it and a point light straight above the ball: below the ball
// the floor gets only its ambient term; far from the ball, ambient plus diffuse · cos(angle to light).
void expect_known_shadow(const std::string& name) {
  const char* text = R"({"camera": {"projection": "orthographic", "position": [0, 50, 0.001], "look_at": [0, 0, 0], "up": [0, 0, -1], "height": 20},
      "background": [0, 0, 1],
      "render": {"shading": "phong", "samples": 1, "shadows": true},
      "lights": [{"type": "point", "position": [0, 20, 0], "colour": [1, 1, 1]}],
      "materials": [{"name": "floor", "colour": [1, 1, 1], "ambient": 0.2, "diffuse": 0.8},
                    {"name": "ball", "colour": [1, 0, 0], "ambient": 0.1, "diffuse": 0.9}],
      "spheres": [{"center": [0, -10000, 0], "radius": 10000, "material": "floor"},
                  {"center": [0, 5, 0], "radius": 1, "material": "ball"}]})";
  const int size = 201;
  const problem p = in_memory(text, size, size);
  render_stats stats;
  const std::vector<rgba> pixels = render_with(name, p, &stats);
  // The view is 20 × 20 around the origin, seen from above: pixel (100, 100) is the origin, under the ball.
  const rgba centre = pixels[100 * size + 100];
  EXPECT_NEAR(centre.r, 1.0f * 0.1f + 0.9f * 1.0f, 1e-3) << name << ": the top of the ball faces the light";
  // 3 units beside the ball's rim, on the floor: shadowed? The ball (radius 1 at height 5, light at 20)
  // shadows a disc of radius ~1 · 20 / 15 = 1.33 around the origin. At x = 1.2: in shadow, ambient only.
  const int shadow_x = 100 + static_cast<int>(std::lround(1.2 * size / 20.0));
  const rgba shadowed = pixels[100 * size + shadow_x];
  const float floor_x = (2.0f * (shadow_x + 0.5f) / size - 1.0f) * 10.0f;
  if (floor_x > 1.0f) {  // past the ball's own disc as seen from above
    EXPECT_NEAR(shadowed.r, 0.2f, 1e-3) << name << ": the floor under the ball is in shadow";
    EXPECT_NEAR(shadowed.b, 0.2f, 1e-3);
  }
  // At x = 8: lit, cos = 20 / sqrt(20^2 + 8^2).
  const int lit_x = 100 + static_cast<int>(std::lround(8.0 * size / 20.0));
  const double lit_floor_x = (2.0 * (lit_x + 0.5) / size - 1.0) * 10.0;
  const double expected = 0.2 + 0.8 * 20.0 / std::hypot(20.0, lit_floor_x);
  EXPECT_NEAR(pixels[100 * size + lit_x].r, expected, 2e-3) << name;
  // Every camera ray hits (the floor fills the view) and casts a shadow ray, except on the ball's rim
  // where the visible surface faces away from the light (n · l < 0): a few dozen pixels at most.
  EXPECT_LE(stats.rays, 2u * size * size) << name;
  EXPECT_GE(stats.rays, 2u * size * size - 60u) << name;
}

class RaytracerCpuStep : public ::testing::TestWithParam<std::string> {};
TEST_P(RaytracerCpuStep, DiscIsExact) { expect_exact_disc(GetParam()); }
TEST_P(RaytracerCpuStep, ShadowsWhereTheyMustBe) { expect_known_shadow(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Cpu, RaytracerCpuStep, ::testing::ValuesIn(names_on(backend::cpu)), testing::variant_test_name);

TEST(RaytracerCpu, BruteForceAndTreeGiveTheSameImage) {
  const std::uint64_t seed = fresh_seed();
  for (const int count : {0, 1, 2, 3, 5, 2000}) {
    const problem p = in_memory(random_scene_text(seed, count, 2), 97, 61);
    render_stats brute_stats, tree_stats;
    const auto brute = render_with("raytracer/cpu/01_brute_force", p, &brute_stats);
    const auto tree = render_with("raytracer/cpu/02_bvh_sah", p, &tree_stats);
    EXPECT_GE(psnr(brute, tree), 60.0) << count << " spheres, seed " << seed;
    EXPECT_EQ(brute_stats.rays, tree_stats.rays) << count << " spheres, seed " << seed;
  }
}

TEST(RaytracerCpu, CountsEveryRay) {
  problem p = in_memory(random_scene_text(fresh_seed(), 300, 3), 40, 30);
  p.settings.shadows = false;
  render_stats stats;
  render_with("raytracer/cpu/02_bvh_sah", p, &stats);
  EXPECT_EQ(stats.rays, 40u * 30u * 3u);  // camera rays only
  p.settings.shadows = true;
  render_with("raytracer/cpu/02_bvh_sah", p, &stats);
  EXPECT_GT(stats.rays, 40u * 30u * 3u);
  EXPECT_LE(stats.rays, 40u * 30u * 3u * 3u);  // at most one shadow ray per light per hit
}

TEST(RaytracerCpu, SahTreeHoldsEverySphereOnceInsideItsBoxes) {
  const scene s = parse_scene_text(random_scene_text(fresh_seed(), 10007, 1), "tree");
  const built_tree tree = build_sah_tree(s.spheres.data(), static_cast<int>(s.spheres.size()));
  std::vector<int> seen(s.spheres.size(), 0);
  const auto contains = [](const aabb& box, const sphere_geometry& g) {
    const aabb b = bounds_of(g);
    return box.lo.x <= b.lo.x && box.lo.y <= b.lo.y && box.lo.z <= b.lo.z && box.hi.x >= b.hi.x && box.hi.y >= b.hi.y && box.hi.z >= b.hi.z;
  };
  // Walk the tree; every sphere under a child must lie in the child's box.
  std::vector<std::pair<int, aabb>> pending = {{0, aabb{{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}}}};
  while (!pending.empty()) {
    const auto [link, box] = pending.back();
    pending.pop_back();
    if (is_leaf(link)) {
      for (int i = leaf_first(link); i < leaf_first(link) + leaf_count(link); ++i) {
        const int original = tree.order[static_cast<std::size_t>(i)];
        ++seen[static_cast<std::size_t>(original)];
        EXPECT_TRUE(contains(box, s.spheres[static_cast<std::size_t>(original)]));
      }
      continue;
    }
    const bvh_node& node = tree.nodes[static_cast<std::size_t>(link)];
    pending.push_back({node.left, node.left_box});
    pending.push_back({node.right, node.right_box});
  }
  for (const int times : seen) ASSERT_EQ(times, 1);
  EXPECT_LE(tree.depth, traversal_stack_depth);
}

TEST(RaytracerImage, PsnrAndPng) {
  std::vector<rgba> a(64, rgba{0.5f, 0.25f, 1.5f, 1}), b = a;
  EXPECT_TRUE(std::isinf(psnr(a, b)));
  b[3].r += 0.01f;
  EXPECT_NEAR(psnr(a, b), -10 * std::log10(1e-4 / (3 * 64)), 0.01);
  b[5].g = NAN;
  EXPECT_NEAR(psnr(a, b), -10 * std::log10((1e-4 + 1.0) / (3 * 64)), 0.01);  // a NaN counts as the largest error
  const std::string path = ::testing::TempDir() + "/swath-test.png";
  write_png(path, a, 16, 4);
  std::ifstream in(path, std::ios::binary);
  char signature[8] = {};
  in.read(signature, 8);
  EXPECT_EQ(std::string(signature + 1, 3), "PNG");
  EXPECT_THROW(write_png("/nonexistent/dir/x.png", a, 16, 4), usage_error);
}

// Every step through the runner's own check: poisoned pixels and guards, then the CPU reference.
void expect_runner_check_passes(const std::string& name, const std::vector<std::pair<const char*, const char*>>& cases) {
  const variant& v = find_variant(name);
  for (const auto& [size, config] : cases) {
    const bench::problem_spec spec{bench::parse_size(size), config};
    if (!family().unsupported(v.info, spec).empty()) continue;
    const auto trial = family().make_trial(v.info, spec, testing::fresh_options());
    const auto result = testing::check_once(trial);
    EXPECT_TRUE(result.passed()) << name << " " << size << " " << config << ": " << result.describe();
    EXPECT_GE(trial->counted_items().value_or(0), bench::parse_size(size).count()) << name;
  }
}

const std::vector<std::pair<const char*, const char*>> checked_cases = {
    {"333x257", "scene=seed"}, {"101x37", "scene=random spheres=3000 samples=3"}, {"1x1", "scene=spheres"}, {"17x300", "scene=spheres samples=2"}};

TEST_P(RaytracerCpuStep, PassesTheRunnersCheck) { expect_runner_check_passes(GetParam(), checked_cases); }

// --- the GPU --------------------------------------------------------------------------------------------

class GpuRaytracerStep : public ::testing::TestWithParam<std::string> {};
TEST_P(GpuRaytracerStep, PassesTheRunnersCheck) {
  SWATH_SKIP_WITHOUT_GPU();
  expect_runner_check_passes(GetParam(), checked_cases);
}
TEST_P(GpuRaytracerStep, DiscIsExact) {
  SWATH_SKIP_WITHOUT_GPU();
  expect_exact_disc(GetParam());
}
TEST_P(GpuRaytracerStep, ShadowsWhereTheyMustBe) {
  SWATH_SKIP_WITHOUT_GPU();
  if (!find_variant(GetParam()).supports(in_memory(R"({"camera": {"position": [0, 0, 5], "look_at": [0, 0, 0]}})", 8, 8)).ok()) {
    GTEST_SKIP() << "the seed's steps render flat shading only";
  }
  expect_known_shadow(GetParam());
}
// The same image and the same ray count as the CPU, at sphere counts where the LBVH has edge cases:
// none, one (no internal node), two, and many spheres at one centre (equal Morton codes).
TEST_P(GpuRaytracerStep, MatchesTheCpuAtEdgeCases) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = fresh_seed();
  std::vector<std::string> scenes;
  for (const int count : {0, 1, 2, 7, 4000}) scenes.push_back(random_scene_text(seed, count, 2));
  scenes.push_back(R"({"camera": {"position": [0, 0, 9], "look_at": [0, 0, 0]}, "lights": [{"position": [5, 5, 5]}],
                       "random": {"count": 500, "box": [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], "radius": [0.5, 2]}})");
  for (const std::string& text : scenes) {
    const problem p = in_memory(text, 79, 53);
    if (!find_variant(GetParam()).supports(p).ok()) continue;
    render_stats gpu_stats, cpu_stats;
    const auto gpu = render_with(GetParam(), p, &gpu_stats);
    const auto cpu = render_with("raytracer/cpu/01_brute_force", p, &cpu_stats);
    EXPECT_GE(psnr(cpu, gpu), 40.0) << GetParam() << " " << p.scene_data->spheres.size() << " spheres, seed " << seed;
    const double ray_difference = std::fabs(static_cast<double>(gpu_stats.rays) - static_cast<double>(cpu_stats.rays));
    EXPECT_LE(ray_difference, 1e-3 * static_cast<double>(cpu_stats.rays)) << GetParam();  // silhouettes may flip
  }
}
INSTANTIATE_TEST_SUITE_P(Gpu, GpuRaytracerStep, ::testing::ValuesIn(names_on(backend::cuda)), testing::variant_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GpuRaytracerStep);

}  // namespace
}  // namespace swath::raytracer
