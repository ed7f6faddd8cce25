#pragma once
// One pixel of the image, for any way of finding hits: the camera rays of its samples, the closest hit,
// the shading (the seed's flat shading, or Phong with hard shadows), the average. Every step, CPU and
// CUDA, calls render_pixel with its own scene access (brute force over an array, constant memory, a
// BVH); this file is the algorithm, the steps are where the spheres live and how they are searched.
//
// A scene access provides:
//   hit closest(const ray&) const           the nearest sphere along the ray, or {no_hit, -1}
//   bool occluded(const ray&, float t_max)   whether any sphere lies on the ray before t_max
//   sphere_geometry geometry(int) const, int material_of(int) const
#include <cstdint>

#include "swath/core/random.hpp"
#include "swath/raytracer/geometry.hpp"

namespace swath::raytracer {

struct hit {
  float t = no_hit;
  int sphere = -1;
};

// Phong: colour · (ambient + diffuse · n·l) · light + specular · (r·v)^shininess · light.
struct material {
  vec3 colour{1, 1, 1};
  float ambient = 0.1f, diffuse = 0.9f, specular = 0.0f, shininess = 32.0f;
};

enum class light_kind : int { point = 0, directional = 1 };
struct light {
  light_kind kind = light_kind::point;
  vec3 where;  // a point light's position, or the direction a directional light shines in (unit)
  vec3 colour{1, 1, 1};
};

enum class projection : int { orthographic = 0, perspective = 1 };
enum class shading : int { flat = 0, phong = 1 };

// The camera as the kernels use it: ray(u, v) for u, v in [0, 1) across the image (v down).
// Orthographic: parallel rays along `forward` from eye + a·right + b·up (a, b in [-1, 1]); the half
// extents are folded into right and up. Perspective: rays from the eye through forward + a·right + b·up,
// right and up scaled by tan(fov / 2) (and the aspect ratio for right).
struct camera_frame {
  projection kind = projection::perspective;
  vec3 eye, forward, right, up;
};

SWATH_HD_INLINE ray camera_ray(const camera_frame& camera, float u, float v) {
  const float a = 2.0f * u - 1.0f, b = 1.0f - 2.0f * v;
  if (camera.kind == projection::orthographic) {
    return {camera.eye + camera.right * a + camera.up * b, camera.forward};
  }
  return {camera.eye, normalize(camera.forward + camera.right * a + camera.up * b)};
}

// Everything a pixel needs besides the spheres (pointers in the memory the step runs in).
struct render_params {
  camera_frame camera;
  int width = 1, height = 1;
  int samples = 1;  // per pixel: 1 is the pixel centre; more are stratified and jittered
  shading mode = shading::phong;
  bool shadows = true;
  std::uint64_t seed = 7;  // the jitter's counter-based random numbers: renders are deterministic
  vec3 background{0, 0, 0};
  const material* materials = nullptr;
  const light* lights = nullptr;
  int light_count = 0;
};

// The position of sample k of a pixel: the centre for one sample, else stratum (k mod nx, k / nx) of an
// nx × ny grid (nx = ceil(sqrt(samples))) with a jitter from random_bits(seed, pixel · samples + k), the
// same bits on the CPU and the GPU. 24-bit fractions: exact in float.
SWATH_HD_INLINE void sample_position(const render_params& p, std::uint64_t pixel, int k, float& du, float& dv) {
  if (p.samples == 1) {
    du = dv = 0.5f;
    return;
  }
  int nx = 1;
  while (nx * nx < p.samples) ++nx;
  const int ny = (p.samples + nx - 1) / nx;
  const std::uint64_t bits = random_bits(p.seed, pixel * static_cast<std::uint64_t>(p.samples) + static_cast<std::uint64_t>(k));
  const float jitter_u = static_cast<float>(bits & 0xffffffu) * 0x1p-24f;
  const float jitter_v = static_cast<float>((bits >> 24) & 0xffffffu) * 0x1p-24f;
  du = (static_cast<float>(k % nx) + jitter_u) / static_cast<float>(nx);
  dv = (static_cast<float>(k / nx) + jitter_v) / static_cast<float>(ny);
}

struct pixel_result {
  vec3 colour;
  std::uint32_t rays = 0;  // camera and shadow rays cast
};

// The colour seen along one camera ray that hit sphere `h.sphere` at distance h.t.
template <class SceneAccess>
SWATH_HD_INLINE vec3 shade(const SceneAccess& scene, const render_params& p, const ray& r, hit h, std::uint32_t& rays) {
  const sphere_geometry s = scene.geometry(h.sphere);
  const material m = p.materials[scene.material_of(h.sphere)];
  const vec3 point = r.origin + r.direction * h.t;
  const vec3 normal = (point - s.center) * (1.0f / s.radius);
  const float facing = -dot(normal, r.direction);
  // The seed's shading: the colour scaled by how squarely the surface faces the ray (its dz / radius).
  if (p.mode == shading::flat) return m.colour * std::fmax(facing, 0.0f);
  vec3 colour = m.colour * m.ambient;
  // Shadow rays start a little off the surface along the normal, past the rounding error of the hit
  // point: that error is a few float ulps of the largest magnitude in its arithmetic (the point, the
  // centre, the radius, the distance), so the offset is 10^-5 of their sum (~170 ulps). Not a fraction
  // of the radius alone: a floor made of a sphere of radius 10^4 would then lift its shadow rays by metres.
  const float offset = 1e-5f * (std::fabs(point.x) + std::fabs(point.y) + std::fabs(point.z) + std::fabs(s.center.x) +
                                std::fabs(s.center.y) + std::fabs(s.center.z) + s.radius + h.t);
  const vec3 start = point + normal * offset;
  for (int i = 0; i < p.light_count; ++i) {
    const light l = p.lights[i];
    vec3 to_light;
    float distance = no_hit;
    if (l.kind == light_kind::point) {
      to_light = l.where - point;
      distance = length(to_light);
      to_light = to_light * (1.0f / distance);
    } else {
      to_light = -l.where;
    }
    const float lambert = dot(normal, to_light);
    if (lambert <= 0.0f) continue;  // the light is behind the surface: no ray needed
    if (p.shadows) {
      ++rays;
      if (scene.occluded(ray{start, to_light}, distance)) continue;
    }
    vec3 lit = m.colour * (m.diffuse * lambert);
    if (m.specular > 0.0f) {
      const vec3 reflected = normal * (2.0f * lambert) - to_light;
      const float highlight = std::fmax(dot(reflected, -r.direction), 0.0f);
      const float power = std::pow(highlight, m.shininess);
      lit = lit + vec3{m.specular, m.specular, m.specular} * power;
    }
    colour = colour + l.colour * lit;
  }
  return colour;
}

template <class SceneAccess>
SWATH_HD_INLINE pixel_result render_pixel(const SceneAccess& scene, const render_params& p, int x, int y) {
  pixel_result result;
  const std::uint64_t pixel = static_cast<std::uint64_t>(y) * static_cast<std::uint64_t>(p.width) + static_cast<std::uint64_t>(x);
  const float inverse_width = 1.0f / static_cast<float>(p.width), inverse_height = 1.0f / static_cast<float>(p.height);
  for (int k = 0; k < p.samples; ++k) {
    float du, dv;
    sample_position(p, pixel, k, du, dv);
    const ray r = camera_ray(p.camera, (static_cast<float>(x) + du) * inverse_width, (static_cast<float>(y) + dv) * inverse_height);
    ++result.rays;
    const hit h = scene.closest(r);
    result.colour = result.colour + (h.sphere < 0 ? p.background : shade(scene, p, r, h, result.rays));
  }
  result.colour = result.colour * (1.0f / static_cast<float>(p.samples));
  return result;
}

// Brute force: every ray tests every sphere (the seed's loop). `Spheres` says where they live and
// how they are read: count, geometry(i), material_of(i).
template <class Spheres>
struct brute_force_access {
  Spheres spheres;
  SWATH_HD_INLINE sphere_geometry geometry(int i) const { return spheres.geometry(i); }
  SWATH_HD_INLINE int material_of(int i) const { return spheres.material_of(i); }
  SWATH_HD_INLINE hit closest(const ray& r) const {
    hit best;
    for (int i = 0; i < spheres.count; ++i) {
      const float t = hit_sphere(r, spheres.geometry(i), 0.0f, best.t);
      if (t < best.t) best = {t, i};
    }
    return best;
  }
  SWATH_HD_INLINE bool occluded(const ray& r, float t_max) const {
    for (int i = 0; i < spheres.count; ++i) {
      if (hit_sphere(r, spheres.geometry(i), 0.0f, t_max) < t_max) return true;
    }
    return false;
  }
};

// The geometry (16 bytes a sphere, one 128-bit load on the GPU) apart from the material indices (read
// once per hit): the CPU's layout, and the GPU's from step 04 on.
struct split_spheres {
  const sphere_geometry* spheres = nullptr;
  const int* materials = nullptr;
  int count = 0;
  SWATH_HD_INLINE sphere_geometry geometry(int i) const { return load_sphere(spheres, i); }
  SWATH_HD_INLINE int material_of(int i) const { return materials[i]; }
};

}  // namespace swath::raytracer
