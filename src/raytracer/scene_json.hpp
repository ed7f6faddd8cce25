#pragma once
// The scene loader's JSON form, for the lab (which caches parsed documents) and scene.cpp.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "swath/raytracer.hpp"

namespace swath::raytracer {
// A bad scene is a usage_error naming the field ("spheres[3].radius") and what was expected.
scene parse_scene(const nlohmann::json& document, const std::string& source);
}  // namespace swath::raytracer
