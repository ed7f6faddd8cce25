// Step 05, acceleration (the seed's plan 5.3): a BVH built on the GPU as an LBVH (Karras 2012), and a
// stack-based traversal (bvh.hpp, shared with the CPU). Build, all on the device:
//   1. the bounds of the sphere centres (two reduction passes),
//   2. a 63-bit Morton code per sphere (21 bits per axis of its centre in those bounds),
//   3. CUB's radix sort of (code, index) pairs,
//   4. the spheres gathered into code order (a leaf's sphere is then next to its neighbours in memory),
//   5. the hierarchy: internal node i finds its range of codes and its split from the codes' common
//      prefixes alone (equal codes are told apart by their index), all nodes at once,
//   6. the boxes, bottom-up: each leaf walks towards the root; at each node the first of the two
//      children to arrive stops, the second merges both boxes and goes on (an atomic counter per node).
// Work: linear in n: ~6 passes over the spheres plus the sort (8 passes over 12-byte pairs). Prediction
// for 10^6 spheres: sort ~0.3 ms, the rest ~0.2 ms; the target is < 10 ms.
//
// Traversal cost: a ray visits ~2 log2(n) nodes for a hit in a uniform scene (~40 at 10^6), each one
// 64-byte node fetch and two slab tests, against n sphere tests for brute force: at 100,000 spheres
// the BVH should win by ~1000x in tests, less in time (divergence, memory latency).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "raytracer_cuda.cuh"

namespace swath::raytracer::cuda {
namespace {

constexpr int build_threads = 256;

// --- 1. bounds of the centres ---------------------------------------------------------------------------
__device__ aabb block_merge(aabb box) {
  __shared__ aabb warp_boxes[build_threads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    aabb other;
    other.lo = {__shfl_xor_sync(0xffffffffu, box.lo.x, offset), __shfl_xor_sync(0xffffffffu, box.lo.y, offset),
                __shfl_xor_sync(0xffffffffu, box.lo.z, offset)};
    other.hi = {__shfl_xor_sync(0xffffffffu, box.hi.x, offset), __shfl_xor_sync(0xffffffffu, box.hi.y, offset),
                __shfl_xor_sync(0xffffffffu, box.hi.z, offset)};
    box = merge(box, other);
  }
  if (threadIdx.x % 32 == 0) warp_boxes[threadIdx.x / 32] = box;
  __syncthreads();
  aabb all;
  for (int w = 0; w < build_threads / 32; ++w) all = merge(all, warp_boxes[w]);
  return all;
}

__global__ void centre_bounds_kernel(const sphere_geometry* spheres, int n, aabb* partial) {
  aabb box;
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += static_cast<int>(gridDim.x * blockDim.x)) {
    const vec3 c = load_sphere(spheres, i).center;
    box = merge(box, aabb{c, c});
  }
  box = block_merge(box);
  if (threadIdx.x == 0) partial[blockIdx.x] = box;
}

__global__ void merge_bounds_kernel(const aabb* partial, int count, aabb* total) {
  aabb box;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x)) box = merge(box, partial[i]);
  box = block_merge(box);
  if (threadIdx.x == 0) *total = box;
}

// --- 2. Morton codes -------------------------------------------------------------------------------------
// 21 bits spread to every third bit of 63.
__device__ std::uint64_t spread_bits(std::uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

__device__ std::uint64_t quantize(float value, float lo, float extent) {
  const float unit = extent > 0.0f ? (value - lo) / extent : 0.0f;
  return static_cast<std::uint64_t>(fminf(fmaxf(unit * 2097152.0f, 0.0f), 2097151.0f));
}

__global__ void morton_kernel(const sphere_geometry* spheres, int n, const aabb* bounds, std::uint64_t* codes, int* indices) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const aabb box = *bounds;
  const vec3 c = load_sphere(spheres, i).center;
  codes[i] = spread_bits(quantize(c.x, box.lo.x, box.hi.x - box.lo.x)) << 2 |
             spread_bits(quantize(c.y, box.lo.y, box.hi.y - box.lo.y)) << 1 |
             spread_bits(quantize(c.z, box.lo.z, box.hi.z - box.lo.z));
  indices[i] = i;
}

// --- 4. the spheres in code order -------------------------------------------------------------------------
__global__ void gather_kernel(const sphere_geometry* spheres, const int* materials, const int* order, int n,
                              sphere_geometry* tree_spheres, int* tree_materials) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const int source = order[i];
  tree_spheres[i] = load_sphere(spheres, source);
  tree_materials[i] = materials[source];
}

// --- 5. the hierarchy (Karras 2012) ---------------------------------------------------------------------
// The length of the common prefix of codes i and j, or -1 outside [0, n); equal codes continue with
// their indices' common prefix, so every pair differs.
__device__ int common_prefix(const std::uint64_t* codes, int n, int i, int j) {
  if (j < 0 || j >= n) return -1;
  const std::uint64_t a = codes[i], b = codes[j];
  if (a == b) return 64 + __clz(i ^ j);
  return __clzll(a ^ b);
}

__global__ void hierarchy_kernel(const std::uint64_t* codes, int n, bvh_node* nodes, int* node_parent, int* leaf_parent) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n - 1) return;
  // The direction of node i's range: towards the neighbour it shares more prefix with.
  const int d = common_prefix(codes, n, i, i + 1) - common_prefix(codes, n, i, i - 1) >= 0 ? 1 : -1;
  const int shortest = common_prefix(codes, n, i, i - d);
  // The range's other end: grow a bound exponentially, then binary search.
  int bound = 2;
  while (common_prefix(codes, n, i, i + bound * d) > shortest) bound *= 2;
  int length = 0;
  for (int step = bound / 2; step >= 1; step /= 2) {
    if (common_prefix(codes, n, i, i + (length + step) * d) > shortest) length += step;
  }
  const int j = i + length * d;
  // The split: the last position that still shares more than the range's common prefix with i.
  const int node_prefix = common_prefix(codes, n, i, j);
  int split = 0, step = length;
  do {
    step = (step + 1) / 2;
    if (common_prefix(codes, n, i, i + (split + step) * d) > node_prefix) split += step;
  } while (step > 1);
  const int gamma = i + split * d + std::min(d, 0);
  const bool left_leaf = std::min(i, j) == gamma, right_leaf = std::max(i, j) == gamma + 1;
  nodes[i].left = left_leaf ? leaf_link(gamma, 1) : gamma;
  nodes[i].right = right_leaf ? leaf_link(gamma + 1, 1) : gamma + 1;
  if (left_leaf) {
    leaf_parent[gamma] = i;
  } else {
    node_parent[gamma] = i;
  }
  if (right_leaf) {
    leaf_parent[gamma + 1] = i;
  } else {
    node_parent[gamma + 1] = i;
  }
  if (i == 0) node_parent[0] = -1;
}

// --- 6. the boxes, bottom-up ----------------------------------------------------------------------------
__device__ void store_box(aabb* slot, const aabb& box) {
  float* f = reinterpret_cast<float*>(slot);
  f[0] = box.lo.x, f[1] = box.lo.y, f[2] = box.lo.z, f[3] = box.hi.x, f[4] = box.hi.y, f[5] = box.hi.z;
}
// Read past L1 (another SM wrote it).
__device__ aabb load_box_from_l2(const aabb* slot) {
  const float* f = reinterpret_cast<const float*>(slot);
  return {{__ldcg(f), __ldcg(f + 1), __ldcg(f + 2)}, {__ldcg(f + 3), __ldcg(f + 4), __ldcg(f + 5)}};
}

__global__ void boxes_kernel(const sphere_geometry* tree_spheres, int n, bvh_node* nodes, const int* node_parent,
                             const int* leaf_parent, int* arrivals) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  aabb box = bounds_of(load_sphere(tree_spheres, i));
  int child = leaf_link(i, 1);
  int node = leaf_parent[i];
  while (node >= 0) {
    const bool is_left = nodes[node].left == child;
    store_box(is_left ? &nodes[node].left_box : &nodes[node].right_box, box);
    __threadfence();  // the box is visible before the arrival is
    if (atomicAdd(arrivals + node, 1) == 0) return;  // the sibling's walk finishes this node
    box = merge(box, load_box_from_l2(is_left ? &nodes[node].right_box : &nodes[node].left_box));
    child = node;
    node = node_parent[node];
  }
}

class lbvh_renderer final : public renderer {
 public:
  lbvh_renderer(const problem& p, const launch_context& launch)
      : tables_(p),
        stream_(stream_of(launch)),
        n_(static_cast<int>(p.scene_data->spheres.size())),
        spheres_(upload(p.scene_data->spheres)),
        materials_(upload(p.scene_data->sphere_materials)),
        tree_spheres_(memory_kind::device, spheres_.size()),
        tree_materials_(memory_kind::device, spheres_.size()),
        nodes_(memory_kind::device, static_cast<std::size_t>(std::max(1, n_ - 1))),
        overflow_(stream_) {
    if (n_ > 0) first_sphere_ = p.scene_data->spheres.front();
    if (n_ >= 2) {
      const auto count = static_cast<std::size_t>(n_);
      codes_ = buffer<std::uint64_t>(memory_kind::device, 2 * count);
      indices_ = buffer<int>(memory_kind::device, 2 * count);
      partial_ = buffer<aabb>(memory_kind::device, bounds_blocks + 1);
      node_parent_ = buffer<int>(memory_kind::device, count - 1);
      leaf_parent_ = buffer<int>(memory_kind::device, count);
      arrivals_ = buffer<int>(memory_kind::device, count - 1);
      std::size_t bytes = 0;
      SWATH_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, codes_.data(), codes_.data() + count, indices_.data(),
                                                       indices_.data() + count, n_, 0, 63, stream_));
      sort_storage_ = buffer<std::uint8_t>(memory_kind::device, bytes);
    }
    build();
  }

  void build() override {
    if (n_ == 0) return;
    if (n_ == 1) {
      // One sphere: the root holds it and an empty leaf (no internal node to build).
      bvh_node root;
      root.left_box = bounds_of(first_sphere_);
      root.left = leaf_link(0, 1);
      root.right = leaf_link(0, 0);
      SWATH_CUDA_CHECK(cudaMemcpyAsync(nodes_.data(), &root, sizeof root, cudaMemcpyHostToDevice, stream_));
      SWATH_CUDA_CHECK(cudaMemcpyAsync(tree_spheres_.data(), spheres_.data(), sizeof(sphere_geometry), cudaMemcpyDeviceToDevice, stream_));
      SWATH_CUDA_CHECK(cudaMemcpyAsync(tree_materials_.data(), materials_.data(), sizeof(int), cudaMemcpyDeviceToDevice, stream_));
      SWATH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `root` lives on this stack
      return;
    }
    const auto count = static_cast<std::size_t>(n_);
    const unsigned blocks = static_cast<unsigned>((n_ + build_threads - 1) / build_threads);
    aabb* bounds = partial_.data() + bounds_blocks;
    centre_bounds_kernel<<<bounds_blocks, build_threads, 0, stream_>>>(spheres_.data(), n_, partial_.data());
    SWATH_CHECK_LAST();
    merge_bounds_kernel<<<1, build_threads, 0, stream_>>>(partial_.data(), bounds_blocks, bounds);
    SWATH_CHECK_LAST();
    morton_kernel<<<blocks, build_threads, 0, stream_>>>(spheres_.data(), n_, bounds, codes_.data(), indices_.data());
    SWATH_CHECK_LAST();
    std::size_t bytes = sort_storage_.size();
    SWATH_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_storage_.data(), bytes, codes_.data(), codes_.data() + count,
                                                     indices_.data(), indices_.data() + count, n_, 0, 63, stream_));
    const std::uint64_t* sorted_codes = codes_.data() + count;
    const int* order = indices_.data() + count;
    gather_kernel<<<blocks, build_threads, 0, stream_>>>(spheres_.data(), materials_.data(), order, n_, tree_spheres_.data(),
                                                         tree_materials_.data());
    SWATH_CHECK_LAST();
    hierarchy_kernel<<<blocks, build_threads, 0, stream_>>>(sorted_codes, n_, nodes_.data(), node_parent_.data(),
                                                            leaf_parent_.data());
    SWATH_CHECK_LAST();
    SWATH_CUDA_CHECK(cudaMemsetAsync(arrivals_.data(), 0, arrivals_.bytes(), stream_));
    boxes_kernel<<<blocks, build_threads, 0, stream_>>>(tree_spheres_.data(), n_, nodes_.data(), node_parent_.data(),
                                                        leaf_parent_.data(), arrivals_.data());
    SWATH_CHECK_LAST();
  }

  void trace_rows(const frame_target& target, int first_row, int last_row) override {
    launch_trace(bvh_access{nodes_.data(), tree_spheres_.data(), tree_materials_.data(), n_, overflow_.data()},
                 tables_.params(), target, first_row, last_row, stream_);
  }

  void check_traversal() override { overflow_.check(); }

 private:
  static constexpr unsigned bounds_blocks = 264;  // 2 per SM of an H100/H200: the centres' bounds in two passes

  device_tables tables_;
  cudaStream_t stream_;
  int n_;
  buffer<sphere_geometry> spheres_;
  buffer<int> materials_;
  buffer<sphere_geometry> tree_spheres_;
  buffer<int> tree_materials_;
  buffer<bvh_node> nodes_;
  overflow_flag overflow_;
  buffer<std::uint64_t> codes_;  // the codes, then the sorted codes
  buffer<int> indices_;          // 0..n-1, then the sorted order
  buffer<aabb> partial_;         // per-block bounds, then the total
  buffer<int> node_parent_, leaf_parent_, arrivals_;
  buffer<std::uint8_t> sort_storage_;
  sphere_geometry first_sphere_;
};

}  // namespace

std::unique_ptr<renderer> prepare_lbvh(const problem& p, const launch_context& launch) {
  return std::make_unique<lbvh_renderer>(p, launch);
}

}  // namespace swath::raytracer::cuda
