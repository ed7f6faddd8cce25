// The lab's ray tracer rows: the library's steps (registry.cpp); there is no vendor ray tracer to
// compare with, and swath::raytracer::render is checked by its own tests against step 02's image.
#include "steps.hpp"
#include "swath/lab/raytracer.hpp"

namespace swath::raytracer {

std::span<const variant> variants() { return steps(); }
const variant& find_variant(std::string_view name) { return find_in_table(variants(), "raytracer", name); }

}  // namespace swath::raytracer
