// Scenes from JSON: every field checked, every error names the field and what was expected, never a
// crash. Large scenes come from a "random" generator (counter-based, so every machine makes the same
// spheres from the same seed).
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>

#include <nlohmann/json.hpp>

#include "swath/build_info.hpp"
#include "swath/core/error.hpp"
#include "swath/core/random.hpp"
#include "swath/raytracer.hpp"
#include "scene_json.hpp"

namespace swath::raytracer {
namespace {

using json = nlohmann::json;

// Where a field is, for messages: "scene.json: lights[1].colour".
class field_path {
 public:
  field_path(std::string source, std::string path) : source_(std::move(source)), path_(std::move(path)) {}
  [[nodiscard]] field_path operator/(const std::string& key) const { return {source_, path_.empty() ? key : path_ + "." + key}; }
  [[nodiscard]] field_path operator[](std::size_t index) const { return {source_, path_ + "[" + std::to_string(index) + "]"}; }
  [[noreturn]] void fail(const std::string& expected, const json& got) const {
    std::string shown = got.dump();
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    throw usage_error(source_ + ": " + (path_.empty() ? "the document" : path_) + ": expected " + expected + ", got " + shown);
  }
  [[noreturn]] void fail(const std::string& message) const { throw usage_error(source_ + ": " + path_ + ": " + message); }

 private:
  std::string source_, path_;
};

double number(const json& value, const field_path& where) {
  if (!value.is_number()) where.fail("a number", value);
  const double x = value.get<double>();
  if (!std::isfinite(x) || std::fabs(x) > 1e30) where.fail("a finite number", value);
  return x;
}

double number_in(const json& value, const field_path& where, double lo, double hi, const std::string& range) {
  const double x = number(value, where);
  if (x < lo || x > hi) where.fail("a number " + range, value);
  return x;
}

std::int64_t whole_number(const json& value, const field_path& where, std::int64_t lo, std::int64_t hi) {
  if (!value.is_number_integer() && !value.is_number_unsigned()) {
    where.fail("a whole number in " + std::to_string(lo) + ".." + std::to_string(hi), value);
  }
  const auto x = value.get<std::int64_t>();
  if (x < lo || x > hi) where.fail("a whole number in " + std::to_string(lo) + ".." + std::to_string(hi), value);
  return x;
}

vec3 triple(const json& value, const field_path& where) {
  if (!value.is_array() || value.size() != 3) where.fail("an array of three numbers", value);
  return {static_cast<float>(number(value[0], where[0])), static_cast<float>(number(value[1], where[1])),
          static_cast<float>(number(value[2], where[2]))};
}

vec3 colour_of(const json& value, const field_path& where) {
  const vec3 c = triple(value, where);
  if (c.x < 0 || c.y < 0 || c.z < 0) where.fail("three numbers ≥ 0 (linear RGB)", value);
  return c;
}

// Objects may only hold the keys we know: a typo ("raduis") is an error, not a silent default.
void only_keys(const json& object, const field_path& where, std::initializer_list<const char*> known) {
  if (!object.is_object()) where.fail("an object", object);
  for (const auto& [key, value] : object.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) {
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      (where / key).fail("is not a known field (known here: " + list + ")");
    }
  }
}

// A string field, or its default when absent: any other type names the field (nlohmann's value() would
// throw its own type_error, naming none).
std::string text_or(const json& object, const char* key, const std::string& fallback, const field_path& where) {
  if (!object.contains(key)) return fallback;
  const json& value = object[key];
  if (!value.is_string()) (where / key).fail("a string", value);
  return value.get<std::string>();
}

// "colour" or "color".
const json* colour_field(const json& object) {
  if (object.contains("colour")) return &object["colour"];
  if (object.contains("color")) return &object["color"];
  return nullptr;
}

camera_spec parse_camera(const json& value, const field_path& where) {
  only_keys(value, where, {"projection", "position", "look_at", "up", "fov", "height"});
  camera_spec camera;
  const std::string kind = text_or(value, "projection", "perspective", where);
  if (kind == "perspective") {
    camera.kind = projection::perspective;
  } else if (kind == "orthographic") {
    camera.kind = projection::orthographic;
  } else {
    (where / "projection").fail("\"perspective\" or \"orthographic\"", value["projection"]);
  }
  if (!value.contains("position")) (where / "position").fail("is missing (the camera's position, [x, y, z])");
  if (!value.contains("look_at")) (where / "look_at").fail("is missing (the point the camera looks at, [x, y, z])");
  camera.position = triple(value["position"], where / "position");
  camera.look_at = triple(value["look_at"], where / "look_at");
  if (value.contains("up")) camera.up = triple(value["up"], where / "up");
  if (value.contains("fov")) camera.fov_degrees = static_cast<float>(number_in(value["fov"], where / "fov", 1, 179, "in [1, 179] (degrees)"));
  if (value.contains("height")) camera.view_height = static_cast<float>(number_in(value["height"], where / "height", 1e-6, 1e30, "> 0"));
  const vec3 forward = camera.look_at - camera.position;
  if (length(forward) == 0.0f) (where / "look_at").fail("must differ from position");
  if (length(cross(forward, camera.up)) <= 1e-6f * length(forward) * length(camera.up)) {
    (where / "up").fail("must not be parallel to the view direction (look_at - position)");
  }
  return camera;
}

light parse_light(const json& value, const field_path& where) {
  only_keys(value, where, {"type", "position", "direction", "colour", "color"});
  light l;
  const std::string type = text_or(value, "type", "point", where);
  if (type == "point") {
    l.kind = light_kind::point;
    if (!value.contains("position")) (where / "position").fail("is missing (a point light's position)");
    l.where = triple(value["position"], where / "position");
  } else if (type == "directional") {
    l.kind = light_kind::directional;
    if (!value.contains("direction")) (where / "direction").fail("is missing (the direction the light shines in)");
    const vec3 d = triple(value["direction"], where / "direction");
    if (length(d) == 0.0f) (where / "direction").fail("must not be zero");
    l.where = normalize(d);
  } else {
    (where / "type").fail("\"point\" or \"directional\"", value["type"]);
  }
  if (const json* c = colour_field(value)) l.colour = colour_of(*c, where / "colour");
  return l;
}

material parse_material(const json& value, const field_path& where) {
  only_keys(value, where, {"name", "colour", "color", "ambient", "diffuse", "specular", "shininess"});
  material m;
  if (const json* c = colour_field(value)) m.colour = colour_of(*c, where / "colour");
  if (value.contains("ambient")) m.ambient = static_cast<float>(number_in(value["ambient"], where / "ambient", 0, 1e6, "≥ 0"));
  if (value.contains("diffuse")) m.diffuse = static_cast<float>(number_in(value["diffuse"], where / "diffuse", 0, 1e6, "≥ 0"));
  if (value.contains("specular")) m.specular = static_cast<float>(number_in(value["specular"], where / "specular", 0, 1e6, "≥ 0"));
  if (value.contains("shininess")) m.shininess = static_cast<float>(number_in(value["shininess"], where / "shininess", 1, 1e4, "in [1, 10000]"));
  return m;
}

// A material reference: a name from "materials" or an index into it.
int material_index(const json& value, const field_path& where, const std::map<std::string, int>& names, int count) {
  if (value.is_string()) {
    const auto found = names.find(value.get<std::string>());
    if (found == names.end()) where.fail("the name of a material in \"materials\"", value);
    return found->second;
  }
  return static_cast<int>(whole_number(value, where, 0, count - 1));
}

// A number in [0, 1) from 24 random bits: exact, the same on every machine.
float unit(std::uint64_t bits) { return static_cast<float>(bits & 0xffffffu) * 0x1p-24f; }

void generate_spheres(scene& s, const json& value, const field_path& where, const std::map<std::string, int>& names) {
  only_keys(value, where, {"count", "seed", "box", "radius", "palette", "materials"});
  if (!value.contains("count")) (where / "count").fail("is missing (how many spheres to generate)");
  const auto count = whole_number(value["count"], where / "count", 0, 100'000'000);
  const auto seed = static_cast<std::uint64_t>(whole_number(value.value("seed", json(7)), where / "seed", 0, INT64_MAX));
  vec3 lo{-1, -1, -1}, hi{1, 1, 1};
  if (value.contains("box")) {
    const json& box = value["box"];
    if (!box.is_array() || box.size() != 2) (where / "box").fail("[[x0, y0, z0], [x1, y1, z1]]", box);
    lo = triple(box[0], (where / "box")[0]);
    hi = triple(box[1], (where / "box")[1]);
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z)) (where / "box").fail("its first corner below its second on every axis");
  }
  float r_lo = 0.01f, r_hi = 0.05f;
  if (value.contains("radius")) {
    const json& radius = value["radius"];
    if (!radius.is_array() || radius.size() != 2) (where / "radius").fail("[smallest, largest]", radius);
    r_lo = static_cast<float>(number_in(radius[0], (where / "radius")[0], 1e-20, 1e30, "> 0"));
    r_hi = static_cast<float>(number_in(radius[1], (where / "radius")[1], r_lo, 1e30, "≥ the smallest radius"));
  }
  // The materials the spheres draw from: the listed ones, or a palette of random colours added here,
  // or every material of the scene.
  std::vector<int> choices;
  if (value.contains("materials")) {
    const json& list = value["materials"];
    if (!list.is_array() || list.empty()) (where / "materials").fail("a non-empty array of material names", list);
    for (std::size_t i = 0; i < list.size(); ++i) {
      choices.push_back(material_index(list[i], (where / "materials")[i], names, static_cast<int>(s.materials.size())));
    }
  } else if (value.contains("palette") || s.materials.empty()) {
    const auto palette = whole_number(value.value("palette", json(16)), where / "palette", 1, 4096);
    for (std::int64_t i = 0; i < palette; ++i) {
      const std::uint64_t bits = random_bits(seed ^ 0xc0105ULL, static_cast<std::uint64_t>(i));
      material m;
      m.colour = {0.15f + 0.85f * unit(bits), 0.15f + 0.85f * unit(bits >> 24), 0.15f + 0.85f * unit(bits >> 40)};
      m.specular = 0.4f;
      choices.push_back(static_cast<int>(s.materials.size()));
      s.materials.push_back(m);
    }
  } else {
    for (int i = 0; i < static_cast<int>(s.materials.size()); ++i) choices.push_back(i);
  }
  const auto first = s.spheres.size();
  s.spheres.resize(first + static_cast<std::size_t>(count));
  s.sphere_materials.resize(first + static_cast<std::size_t>(count));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint64_t a = random_bits(seed, 2 * static_cast<std::uint64_t>(i));
    const std::uint64_t b = random_bits(seed, 2 * static_cast<std::uint64_t>(i) + 1);
    sphere_geometry g;
    g.center = {lo.x + (hi.x - lo.x) * unit(a), lo.y + (hi.y - lo.y) * unit(a >> 24), lo.z + (hi.z - lo.z) * unit(b)};
    g.radius = r_lo + (r_hi - r_lo) * unit(b >> 24);
    const auto slot = first + static_cast<std::size_t>(i);
    s.spheres[slot] = g;
    s.sphere_materials[slot] = choices[(b >> 48) % choices.size()];
  }
}

render_settings parse_render(const json& value, const field_path& where) {
  only_keys(value, where, {"width", "height", "samples", "shading", "shadows", "seed"});
  render_settings r;
  if (value.contains("width")) r.width = static_cast<int>(whole_number(value["width"], where / "width", 1, 65536));
  if (value.contains("height")) r.height = static_cast<int>(whole_number(value["height"], where / "height", 1, 65536));
  if (value.contains("samples")) r.samples = static_cast<int>(whole_number(value["samples"], where / "samples", 1, 1024));
  if (value.contains("shading")) {
    const json& mode = value["shading"];
    if (mode == "flat") {
      r.mode = shading::flat;
    } else if (mode == "phong") {
      r.mode = shading::phong;
    } else {
      (where / "shading").fail("\"flat\" (the seed's) or \"phong\"", mode);
    }
  }
  if (value.contains("shadows")) {
    if (!value["shadows"].is_boolean()) (where / "shadows").fail("true or false", value["shadows"]);
    r.shadows = value["shadows"].get<bool>();
  }
  if (value.contains("seed")) r.seed = static_cast<std::uint64_t>(whole_number(value["seed"], where / "seed", 0, INT64_MAX));
  return r;
}

}  // namespace

scene parse_scene(const json& document, const std::string& source) {
  const field_path root(source, "");
  only_keys(document, root, {"name", "camera", "background", "render", "lights", "materials", "spheres", "random"});
  scene s;
  s.name = text_or(document, "name", source, root);
  if (!document.contains("camera")) (root / "camera").fail("is missing (projection, position, look_at, ...)");
  s.camera = parse_camera(document["camera"], root / "camera");
  if (document.contains("background")) s.background = colour_of(document["background"], root / "background");
  if (document.contains("render")) s.defaults = parse_render(document["render"], root / "render");
  if (document.contains("lights")) {
    const json& lights = document["lights"];
    if (!lights.is_array()) (root / "lights").fail("an array of lights", lights);
    for (std::size_t i = 0; i < lights.size(); ++i) s.lights.push_back(parse_light(lights[i], (root / "lights")[i]));
  }
  std::map<std::string, int> names;
  if (document.contains("materials")) {
    const json& list = document["materials"];
    if (!list.is_array()) (root / "materials").fail("an array of materials", list);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const field_path where = (root / "materials")[i];
      s.materials.push_back(parse_material(list[i], where));
      if (list[i].contains("name")) {
        if (!list[i]["name"].is_string()) (where / "name").fail("a string", list[i]["name"]);
        if (!names.emplace(list[i]["name"].get<std::string>(), static_cast<int>(i)).second) (where / "name").fail("is used twice");
      }
    }
  }
  if (document.contains("spheres")) {
    const json& list = document["spheres"];
    if (!list.is_array()) (root / "spheres").fail("an array of spheres", list);
    if (!list.empty() && s.materials.empty()) (root / "materials").fail("is needed: the spheres name their material");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const field_path where = (root / "spheres")[i];
      only_keys(list[i], where, {"center", "radius", "material"});
      if (!list[i].contains("center")) (where / "center").fail("is missing ([x, y, z])");
      if (!list[i].contains("radius")) (where / "radius").fail("is missing (a number > 0)");
      sphere_geometry g;
      g.center = triple(list[i]["center"], where / "center");
      g.radius = static_cast<float>(number_in(list[i]["radius"], where / "radius", 1e-20, 1e30, "> 0"));
      s.spheres.push_back(g);
      s.sphere_materials.push_back(
          material_index(list[i].value("material", json(0)), where / "material", names, static_cast<int>(s.materials.size())));
    }
  }
  if (document.contains("random")) generate_spheres(s, document["random"], root / "random", names);
  if (s.spheres.size() > static_cast<std::size_t>(1) << 28) (root / "random").fail("at most 2^28 spheres in all");
  if (s.materials.empty()) s.materials.push_back(material{});
  return s;
}

namespace {
json parse_json(std::string_view text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw usage_error(source + ": not valid JSON: " + e.what());
  }
}
}  // namespace

scene parse_scene_text(std::string_view text, const std::string& source) { return parse_scene(parse_json(text, source), source); }

std::string resolve_scene_path(const std::string& name_or_path) {
  const bool bare = name_or_path.find('/') == std::string::npos && name_or_path.find('.') == std::string::npos;
  if (!bare) return name_or_path;
  return std::string(build_info::source_dir) + "/scenes/" + name_or_path + ".json";
}

json read_scene_document(const std::string& name_or_path, std::string& path) {
  path = resolve_scene_path(name_or_path);
  std::ifstream in(path);
  if (!in) throw usage_error("cannot read the scene file " + path + (path != name_or_path ? " (scene '" + name_or_path + "')" : ""));
  std::stringstream text;
  text << in.rdbuf();
  return parse_json(text.str(), path);
}

scene load_scene(const std::string& name_or_path) {
  std::string path;
  const json document = read_scene_document(name_or_path, path);
  return parse_scene(document, path);
}

camera_frame frame_of(const camera_spec& camera, int width, int height) {
  camera_frame frame;
  frame.kind = camera.kind;
  frame.eye = camera.position;
  frame.forward = normalize(camera.look_at - camera.position);
  const vec3 right = normalize(cross(frame.forward, camera.up));
  const vec3 up = cross(right, frame.forward);
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const float half_height = camera.kind == projection::orthographic
                                ? 0.5f * camera.view_height
                                : std::tan(0.5f * camera.fov_degrees * std::numbers::pi_v<float> / 180.0f);
  frame.right = right * (half_height * aspect);
  frame.up = up * half_height;
  return frame;
}

render_params params_of(const scene& s, const render_settings& settings, const material* materials, const light* lights) {
  render_params p;
  p.camera = frame_of(s.camera, settings.width, settings.height);
  p.width = settings.width;
  p.height = settings.height;
  p.samples = settings.samples;
  p.mode = settings.mode;
  p.shadows = settings.shadows;
  p.seed = settings.seed;
  p.background = s.background;
  p.materials = materials;
  p.lights = lights;
  p.light_count = static_cast<int>(s.lights.size());
  return p;
}

support any_scene(const problem&) { return support::yes(); }

support seed_model(const problem& p) {
  if (p.scene_data->camera.kind != projection::orthographic || p.settings.mode != shading::flat || p.settings.samples != 1) {
    return support::no("the seed's model only: an orthographic camera, flat shading, one sample per pixel");
  }
  return support::yes();
}

}  // namespace swath::raytracer
