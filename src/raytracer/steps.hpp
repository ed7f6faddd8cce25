#pragma once
// The ray tracer's steps, one per file under src/cpu/raytracer and src/cuda/raytracer; each returns its
// renderer, set up for one problem's scene. The table is in registry.cpp.
#include <memory>

#include <nlohmann/json.hpp>

#include "swath/raytracer.hpp"

namespace swath::raytracer {

namespace cpu {
std::unique_ptr<renderer> prepare_brute_force(const problem& p, const launch_context& launch);  // 01
std::unique_ptr<renderer> prepare_bvh_sah(const problem& p, const launch_context& launch);      // 02
}  // namespace cpu

#if SWATH_WITH_CUDA
namespace cuda {
std::unique_ptr<renderer> prepare_ortho_global(const problem& p, const launch_context& launch);    // 01
std::unique_ptr<renderer> prepare_ortho_constant(const problem& p, const launch_context& launch);  // 02
std::unique_ptr<renderer> prepare_shaded(const problem& p, const launch_context& launch);          // 03
std::unique_ptr<renderer> prepare_split_spheres(const problem& p, const launch_context& launch);   // 04
std::unique_ptr<renderer> prepare_lbvh(const problem& p, const launch_context& launch);            // 05
std::unique_ptr<renderer> prepare_bvh_sah(const problem& p, const launch_context& launch);         // 06
// Spheres that fit step 02's constant memory (64 KiB, with room for the kernel's other constants).
inline constexpr int constant_sphere_limit = 2048;
support fits_constant_memory(const problem& p);
}  // namespace cuda
#endif

// A scene file's JSON (a bare name is a shipped scene); `path` receives the file it came from.
nlohmann::json read_scene_document(const std::string& name_or_path, std::string& path);

// The SAH tree of a scene, built once per scene and kept (the CPU step, the CUDA step 06 and the
// benchmark's reference all use it): the spheres and their materials in the tree's order.
struct ordered_tree {
  built_tree tree;
  std::vector<sphere_geometry> spheres;
  std::vector<int> materials;
};
std::shared_ptr<const ordered_tree> sah_tree_of(const std::shared_ptr<const scene>& s);

}  // namespace swath::raytracer
