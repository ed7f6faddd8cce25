#pragma once
// The ray tracer's arithmetic, shared by the CPU renderer (the reference) and every CUDA step: vectors,
// rays, the ray-sphere and ray-box tests. Plain float throughout, so the CPU and the GPU do the same
// operations; they differ only where the device compiler contracts a*b+c into an FMA (a last-bit
// difference that flips at most a few silhouette samples, see docs/raytracer.md).
#include <cmath>
#include <cstdint>

#include "swath/core/hd.hpp"

namespace swath::raytracer {

struct vec3 {
  float x = 0, y = 0, z = 0;
};
SWATH_HD_INLINE vec3 operator+(vec3 a, vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
SWATH_HD_INLINE vec3 operator-(vec3 a, vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
SWATH_HD_INLINE vec3 operator-(vec3 a) { return {-a.x, -a.y, -a.z}; }
SWATH_HD_INLINE vec3 operator*(vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
SWATH_HD_INLINE vec3 operator*(float s, vec3 a) { return a * s; }
SWATH_HD_INLINE vec3 operator*(vec3 a, vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }  // colours
SWATH_HD_INLINE float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SWATH_HD_INLINE vec3 cross(vec3 a, vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
SWATH_HD_INLINE float length(vec3 a) { return std::sqrt(dot(a, a)); }
SWATH_HD_INLINE vec3 normalize(vec3 a) { return a * (1.0f / length(a)); }
SWATH_HD_INLINE vec3 min(vec3 a, vec3 b) { return {std::fmin(a.x, b.x), std::fmin(a.y, b.y), std::fmin(a.z, b.z)}; }
SWATH_HD_INLINE vec3 max(vec3 a, vec3 b) { return {std::fmax(a.x, b.x), std::fmax(a.y, b.y), std::fmax(a.z, b.z)}; }

struct ray {
  vec3 origin;
  vec3 direction;  // unit length
};

// A sphere's geometry as one 16-byte value: the centre and the radius. The CUDA steps load it with one
// 128-bit load; the material index lives in a separate array (only the closest hit needs it).
struct alignas(16) sphere_geometry {
  vec3 center;
  float radius = 1;
};

// Sphere i: a plain load on the host, a read-only 128-bit load on the device.
SWATH_HD_INLINE sphere_geometry load_sphere(const sphere_geometry* spheres, int index) {
#if defined(__CUDA_ARCH__)
  const float4 s = __ldg(reinterpret_cast<const float4*>(spheres + index));
  return {{s.x, s.y, s.z}, s.w};
#else
  return spheres[index];
#endif
}

inline constexpr float no_hit = INFINITY;

// The nearest t in (t_min, t_max) where the ray meets the sphere, or no_hit. With a unit direction,
// |o + t d - c|^2 = r^2 is t^2 + 2 b t + c = 0, b = (o - c)·d. The discriminant is taken as r^2 - |f|^2
// with f = (o - c) - b d, the vector from the centre to the ray's closest point: the textbook b^2 - c
// loses every digit when the sphere is small and far (c and b^2 are both ~distance^2).
// Arithmetic: ~20 flops and one square root per test.
SWATH_HD_INLINE float hit_sphere(const ray& r, sphere_geometry s, float t_min, float t_max) {
  const vec3 oc = r.origin - s.center;
  const float b = dot(oc, r.direction);
  const vec3 f = oc - r.direction * b;
  const float discriminant = s.radius * s.radius - dot(f, f);
  if (discriminant < 0.0f) return no_hit;
  const float root = std::sqrt(discriminant);
  const float near = -b - root;
  if (near > t_min && near < t_max) return near;
  const float far = -b + root;
  if (far > t_min && far < t_max) return far;
  return no_hit;
}

struct aabb {
  vec3 lo{INFINITY, INFINITY, INFINITY};
  vec3 hi{-INFINITY, -INFINITY, -INFINITY};
};
SWATH_HD_INLINE aabb merge(const aabb& a, const aabb& b) { return {min(a.lo, b.lo), max(a.hi, b.hi)}; }
SWATH_HD_INLINE aabb bounds_of(sphere_geometry s) {
  const vec3 r{s.radius, s.radius, s.radius};
  return {s.center - r, s.center + r};
}

// Slab test: the entry distance of the ray into the box if it enters within (0, t_max), else no_hit.
// `inverse` is 1 / direction per axis (±inf for a zero component: the min/max below then keep the
// other axes' answer, since fmin/fmax drop the NaN of 0 · inf).
SWATH_HD_INLINE float enter_box(const aabb& box, vec3 origin, vec3 inverse, float t_max) {
  const float tx0 = (box.lo.x - origin.x) * inverse.x, tx1 = (box.hi.x - origin.x) * inverse.x;
  const float ty0 = (box.lo.y - origin.y) * inverse.y, ty1 = (box.hi.y - origin.y) * inverse.y;
  const float tz0 = (box.lo.z - origin.z) * inverse.z, tz1 = (box.hi.z - origin.z) * inverse.z;
  const float enter = std::fmax(std::fmax(std::fmin(tx0, tx1), std::fmin(ty0, ty1)), std::fmax(std::fmin(tz0, tz1), 0.0f));
  const float leave = std::fmin(std::fmin(std::fmax(tx0, tx1), std::fmax(ty0, ty1)), std::fmin(std::fmax(tz0, tz1), t_max));
  return enter <= leave ? enter : no_hit;
}

}  // namespace swath::raytracer
