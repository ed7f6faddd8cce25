#pragma once
// The bounding volume hierarchy both trees use (the CPU's binned-SAH build and the GPU's LBVH), and its
// traversal, shared by the CPU renderer and the CUDA steps.
//
// A node holds the boxes of its two children, so one 64-byte fetch (four 16-byte loads on the GPU)
// tests both: the ray's next step depends only on data already in registers. A child link is a node
// index (≥ 0) or a leaf, ~(first << 3 | count): `count` (0..7) spheres from `first` in the tree's
// sphere order (the build reorders the spheres so that a leaf's are contiguous). Node 0 is the root;
// a scene of one sphere gets a root with one leaf and one empty leaf.
#include <cstdint>
#include <vector>

#include "swath/raytracer/geometry.hpp"
#include "swath/raytracer/shading.hpp"

namespace swath::raytracer {

struct alignas(16) bvh_node {
  aabb left_box;   // 24 bytes
  aabb right_box;  // 24 bytes
  int left = 0, right = 0;
  int padding[2] = {0, 0};
};
static_assert(sizeof(bvh_node) == 64, "a node is four 16-byte loads");

inline constexpr int max_leaf_spheres = 7;
SWATH_HD_INLINE constexpr int leaf_link(int first, int count) { return ~(first << 3 | count); }
SWATH_HD_INLINE constexpr bool is_leaf(int link) { return link < 0; }
SWATH_HD_INLINE constexpr int leaf_first(int link) { return (~link) >> 3; }
SWATH_HD_INLINE constexpr int leaf_count(int link) { return (~link) & 7; }

// Deferred subtrees on a ray's way down. A leaf per sphere (LBVH) with 63-bit Morton codes and index
// tie-breaks gives depth ≤ 63 + 32; the SAH build caps its depth at 64. Overflow cannot happen with
// either tree; the traversal still refuses to write past the stack and reports it.
inline constexpr int traversal_stack_depth = 96;

// How a node is read: plain loads on the host, read-only 128-bit loads on the device.
SWATH_HD_INLINE bvh_node load_node(const bvh_node* nodes, int index) {
#if defined(__CUDA_ARCH__)
  const float4* raw = reinterpret_cast<const float4*>(nodes + index);
  const float4 a = __ldg(raw), b = __ldg(raw + 1), c = __ldg(raw + 2), d = __ldg(raw + 3);
  bvh_node node;
  node.left_box = {{a.x, a.y, a.z}, {a.w, b.x, b.y}};
  node.right_box = {{b.z, b.w, c.x}, {c.y, c.z, c.w}};
  node.left = __float_as_int(d.x);
  node.right = __float_as_int(d.y);
  return node;
#else
  return nodes[index];
#endif
}

// The tree and the spheres in the tree's order.
struct bvh_access {
  const bvh_node* nodes = nullptr;
  const sphere_geometry* spheres = nullptr;
  const int* materials = nullptr;
  int sphere_count = 0;
  int* overflow = nullptr;  // set to 1 if a traversal ever ran out of stack (never expected)

  SWATH_HD_INLINE sphere_geometry geometry(int i) const { return load_sphere(spheres, i); }
  SWATH_HD_INLINE int material_of(int i) const { return materials[i]; }

  // Closest hit: children nearer first, the farther one deferred; a deferred subtree is skipped when
  // the ray has since found a hit nearer than its box. AnyHit: stop at the first hit before t_max.
  template <bool AnyHit>
  SWATH_HD_INLINE hit traverse(const ray& r, float t_max) const {
    hit best{t_max, -1};
    if (sphere_count == 0) return best;
    const vec3 inverse{1.0f / r.direction.x, 1.0f / r.direction.y, 1.0f / r.direction.z};
    int stack[traversal_stack_depth];
    float stack_entry[traversal_stack_depth];
    int depth = 0;
    int link = 0;  // the root
    float entry = 0.0f;
    for (;;) {
      if (entry < best.t) {
        if (is_leaf(link)) {
          const int first = leaf_first(link), count = leaf_count(link);
          for (int i = first; i < first + count; ++i) {
            const float t = hit_sphere(r, load_sphere(spheres, i), 0.0f, best.t);
            if (t < best.t) {
              best = {t, i};
              if (AnyHit) return best;
            }
          }
        } else {
          const bvh_node node = load_node(nodes, link);
          const float enter_left = enter_box(node.left_box, r.origin, inverse, best.t);
          const float enter_right = enter_box(node.right_box, r.origin, inverse, best.t);
          const bool hit_left = enter_left != no_hit, hit_right = enter_right != no_hit;
          if (hit_left && hit_right) {
            const bool left_first = enter_left <= enter_right;
            if (depth == traversal_stack_depth) {
              if (overflow != nullptr) *overflow = 1;
              return best;
            }
            stack[depth] = left_first ? node.right : node.left;
            stack_entry[depth] = left_first ? enter_right : enter_left;
            ++depth;
            link = left_first ? node.left : node.right;
            entry = left_first ? enter_left : enter_right;
            continue;
          }
          if (hit_left || hit_right) {
            link = hit_left ? node.left : node.right;
            entry = hit_left ? enter_left : enter_right;
            continue;
          }
        }
      }
      if (depth == 0) return best;
      --depth;
      link = stack[depth];
      entry = stack_entry[depth];
    }
  }

  SWATH_HD_INLINE hit closest(const ray& r) const {
    hit h = traverse<false>(r, no_hit);
    if (h.sphere < 0) h.t = no_hit;
    return h;
  }
  SWATH_HD_INLINE bool occluded(const ray& r, float t_max) const { return traverse<true>(r, t_max).sphere >= 0; }
};

// The CPU's binned-SAH build (src/raytracer/sah_build.cpp): the nodes, and the order of the spheres
// (tree position → original index).
struct built_tree {
  std::vector<bvh_node> nodes;
  std::vector<int> order;
  int depth = 0;  // the deepest leaf, root = 1
};
built_tree build_sah_tree(const sphere_geometry* spheres, int count);

}  // namespace swath::raytracer
