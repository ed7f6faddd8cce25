// The CPU's BVH: top-down binned SAH. At each node the spheres' centres are put in 16 bins along each
// axis and the split between bins that minimises the surface area heuristic
//   cost = area(left) · count(left) + area(right) · count(right)
// is taken, unless a leaf of up to 4 spheres is cheaper (leaf cost: area · count, the split's cost
// plus one node visit: area · 1). This is the tree-quality reference for the GPU's LBVH, which
// splits at Morton-code bits regardless of where the spheres are.
//
// Cost: each level bins every sphere once per axis (3n bin updates) and partitions them once; about
// log2(n) levels: ~0.5 s for 10^6 spheres on one core.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <array>

#include "steps.hpp"
#include "swath/core/error.hpp"
#include "swath/raytracer/bvh.hpp"

namespace swath::raytracer {
namespace {

constexpr int bin_count = 16;
constexpr int leaf_limit = 4;
constexpr int depth_cap = 64;  // beyond it: median splits (bounded depth for the traversal stack)

float area(const aabb& box) {
  const vec3 d = box.hi - box.lo;
  if (d.x < 0 || d.y < 0 || d.z < 0) return 0.0f;
  return 2.0f * (d.x * d.y + d.y * d.z + d.z * d.x);
}

float axis_of(vec3 v, int axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

class sah_builder {
 public:
  sah_builder(const sphere_geometry* spheres, int count) : spheres_(spheres) {
    tree_.order.resize(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) tree_.order[static_cast<std::size_t>(i)] = i;
    tree_.nodes.reserve(static_cast<std::size_t>(std::max(1, count)));
  }

  built_tree take(int count) {
    if (count == 0) return std::move(tree_);
    // The root is always a node: a small scene gets one leaf and one empty leaf.
    if (count <= leaf_limit) {
      bvh_node root;
      root.left_box = bounds(0, count);
      root.left = leaf_link(0, count);
      root.right = leaf_link(0, 0);
      tree_.nodes.push_back(root);
      tree_.depth = 2;
      return std::move(tree_);
    }
    const int root = link_for(0, count, 1);
    SWATH_EXPECTS(root == 0, "the SAH root is node 0");
    return std::move(tree_);
  }

 private:
  [[nodiscard]] vec3 centre(int position) const { return spheres_[tree_.order[static_cast<std::size_t>(position)]].center; }
  [[nodiscard]] aabb bounds(int begin, int end) const {
    aabb box;
    for (int i = begin; i < end; ++i) box = merge(box, bounds_of(spheres_[tree_.order[static_cast<std::size_t>(i)]]));
    return box;
  }

  struct choice {
    int axis = -1;
    int bin = 0;  // spheres in bins [0, bin] go left
    float cost = 0;
  };

  choice best_split(int begin, int end, const aabb& centres) const {
    choice best;
    best.cost = INFINITY;
    for (int axis = 0; axis < 3; ++axis) {
      const float lo = axis_of(centres.lo, axis), extent = axis_of(centres.hi, axis) - lo;
      if (!(extent > 0.0f)) continue;
      const float scale = bin_count / extent;
      std::array<aabb, bin_count> box{};
      std::array<int, bin_count> count{};
      for (int i = begin; i < end; ++i) {
        const sphere_geometry s = spheres_[tree_.order[static_cast<std::size_t>(i)]];
        const int b = std::min(bin_count - 1, static_cast<int>((axis_of(s.center, axis) - lo) * scale));
        box[static_cast<std::size_t>(b)] = merge(box[static_cast<std::size_t>(b)], bounds_of(s));
        ++count[static_cast<std::size_t>(b)];
      }
      // Sweep: right side areas and counts from the top, then the left side from the bottom.
      std::array<float, bin_count> right_cost{};
      aabb right;
      int right_count = 0;
      for (int b = bin_count - 1; b > 0; --b) {
        right = merge(right, box[static_cast<std::size_t>(b)]);
        right_count += count[static_cast<std::size_t>(b)];
        right_cost[static_cast<std::size_t>(b)] = area(right) * static_cast<float>(right_count);
      }
      aabb left;
      int left_count = 0;
      for (int b = 0; b < bin_count - 1; ++b) {
        left = merge(left, box[static_cast<std::size_t>(b)]);
        left_count += count[static_cast<std::size_t>(b)];
        if (left_count == 0 || left_count == end - begin) continue;
        const float cost = area(left) * static_cast<float>(left_count) + right_cost[static_cast<std::size_t>(b + 1)];
        if (cost < best.cost) best = {axis, b, cost};
      }
    }
    return best;
  }

  // The link for the spheres at positions [begin, end): a leaf, or a new node (numbered before its
  // children, so the root is node 0).
  int link_for(int begin, int end, int depth) {
    const int count = end - begin;
    if (count <= 1) {
      tree_.depth = std::max(tree_.depth, depth);
      return leaf_link(begin, count);
    }
    aabb centres;
    for (int i = begin; i < end; ++i) {
      const vec3 c = centre(i);
      centres = merge(centres, aabb{c, c});
    }
    const choice best = depth < depth_cap ? best_split(begin, end, centres) : choice{};
    int middle = begin + count / 2;
    if (best.axis >= 0) {
      const float lo = axis_of(centres.lo, best.axis);
      const float scale = bin_count / (axis_of(centres.hi, best.axis) - lo);
      const auto first = tree_.order.begin() + begin, last = tree_.order.begin() + end;
      middle = begin + static_cast<int>(std::partition(first, last, [&](int sphere) {
                                          const float c = axis_of(spheres_[sphere].center, best.axis);
                                          return std::min(bin_count - 1, static_cast<int>((c - lo) * scale)) <= best.bin;
                                        }) - first);
    } else {
      // All centres equal, or past the depth cap: split at the median of the longest axis.
      const vec3 extent = centres.hi - centres.lo;
      const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : extent.y >= extent.z ? 1 : 2;
      std::nth_element(tree_.order.begin() + begin, tree_.order.begin() + middle, tree_.order.begin() + end,
                       [&](int a, int b) { return axis_of(spheres_[a].center, axis) < axis_of(spheres_[b].center, axis); });
    }
    bvh_node node;
    node.left_box = bounds(begin, middle);
    node.right_box = bounds(middle, end);
    if (count <= leaf_limit && depth > 1) {
      // A leaf when testing every sphere is cheaper than one more node visit plus the split's cost.
      const float whole = area(merge(node.left_box, node.right_box));
      const float split_cost = area(node.left_box) * static_cast<float>(middle - begin) +
                               area(node.right_box) * static_cast<float>(end - middle) + whole;
      if (whole * static_cast<float>(count) <= split_cost) {
        tree_.depth = std::max(tree_.depth, depth);
        return leaf_link(begin, count);
      }
    }
    const int index = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    node.left = link_for(begin, middle, depth + 1);
    node.right = link_for(middle, end, depth + 1);
    tree_.nodes[static_cast<std::size_t>(index)] = node;
    return index;
  }

  const sphere_geometry* spheres_;
  built_tree tree_;
};

}  // namespace

built_tree build_sah_tree(const sphere_geometry* spheres, int count) {
  SWATH_EXPECTS(count >= 0, "a sphere count ≥ 0");
  sah_builder builder(spheres, count);
  return builder.take(count);
}

// The ordered tree of a scene, built once and shared by every step and call that renders the same
// scene object (the last four are kept; holding the scene keeps its address from being reused).
std::shared_ptr<const ordered_tree> sah_tree_of(const std::shared_ptr<const scene>& s) {
  static std::mutex guard;
  // Holding the scene keeps its address from being reused by another scene while the tree is cached.
  static std::map<const scene*, std::pair<std::shared_ptr<const scene>, std::shared_ptr<const ordered_tree>>> cache;
  const std::lock_guard lock(guard);
  if (const auto found = cache.find(s.get()); found != cache.end()) return found->second.second;
  auto made = std::make_shared<ordered_tree>();
  made->tree = build_sah_tree(s->spheres.data(), static_cast<int>(s->spheres.size()));
  made->spheres.reserve(s->spheres.size());
  made->materials.reserve(s->spheres.size());
  for (const int index : made->tree.order) {
    made->spheres.push_back(s->spheres[static_cast<std::size_t>(index)]);
    made->materials.push_back(s->sphere_materials[static_cast<std::size_t>(index)]);
  }
  if (cache.size() >= 4) cache.clear();
  std::shared_ptr<const ordered_tree> tree = std::move(made);
  cache.emplace(s.get(), std::make_pair(s, tree));
  return tree;
}

}  // namespace swath::raytracer
