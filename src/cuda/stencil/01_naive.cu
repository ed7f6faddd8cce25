// Step 01: one thread per output point, every tap read from global memory (the stencil study's first
// kernel, for any radius, shape and dimension: the taps are a list in the kernel's parameters).
//
// The study's arithmetic for the 7-point stencil: 8 OPs (2 multiplies, 6 adds with two weights) for
// 7 loads of 4 B = 28 B, 0.29 OPs/B; with seven weights, as here, 7 multiply-adds (14 flops as the
// runner counts them) for the same 28 B, 0.5 flop/B. Those ratios hold only if no load hits in cache. On Hopper the x and y neighbours are in L1 (the block's own
// rows) and the z neighbours in L2 (the plane above was read by the blocks launched just before), so
// DRAM sees close to one read and one write per point: the kernel is limited by the load
// instructions and the L1/L2 traffic (7 loads per point), not by DRAM.
#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

constexpr int max_taps = 729;  // a 3D box of radius 4

template <class T>
struct tap_list {
  int count;
  signed char dx[max_taps], dy[max_taps], dz[max_taps];
  T w[max_taps];
};

template <class T>
__global__ void __launch_bounds__(256) naive_kernel(const T* __restrict__ in, T* __restrict__ out, frame f,
                                                    T edge_value, const __grid_constant__ tap_list<T> taps) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= f.nx || y >= f.ny) return;
  for (int z = static_cast<int>(blockIdx.z); z < f.nz; z += static_cast<int>(gridDim.z)) {
    const std::int64_t index = z * f.sz + y * f.sy + x;
    if (copies_itself(f, x, y, z)) {
      out[index] = in[index];
      continue;
    }
    const bool inside = x >= f.r && x < f.nx - f.r && y >= f.ry && y < f.ny - f.ry && z >= f.r && z < f.nz - f.r;
    T sum = 0;
    for (int k = 0; k < taps.count; ++k) {
      const T value = inside ? in[index + taps.dz[k] * f.sz + taps.dy[k] * f.sy + taps.dx[k]]
                             : fetch(in, f, x + taps.dx[k], y + taps.dy[k], z + taps.dz[k], edge_value);
      sum += taps.w[k] * value;
    }
    out[index] = sum;
  }
}

template <class T>
void run_typed(const problem& p, const operands& x, const launch_context& launch) {
  const frame f = frame_of(p);
  tap_list<T> taps{};
  SWATH_EXPECTS(p.taps.size() <= max_taps, "more taps than a radius-4 box");
  taps.count = static_cast<int>(p.taps.size());
  for (std::size_t k = 0; k < p.taps.size(); ++k) {
    const tap t = logical_tap(p.taps[k], p.dims);
    taps.dx[k] = static_cast<signed char>(t.dx);
    taps.dy[k] = static_cast<signed char>(t.dy);
    taps.dz[k] = static_cast<signed char>(t.dz);
    taps.w[k] = static_cast<T>(t.weight);
  }
  const dim3 block(32, 8);
  const dim3 grid(blocks_for(f.nx, 32), blocks_for(f.ny, 8), static_cast<unsigned>(std::min(f.nz, 65535)));
  SWATH_EXPECTS(grid.y <= 65535, "naive: height / 8 exceeds CUDA's 65535 blocks in y");
  naive_kernel<T><<<grid, block, 0, stream_of(launch)>>>(static_cast<const T*>(x.in), static_cast<T*>(x.out), f,
                                                         static_cast<T>(p.edge_value), taps);
  SWATH_CHECK_LAST();
}

}  // namespace

void naive(const problem& p, const operands& x, const launch_context& launch) {
  for_element_type(p, [&]<class T>() { run_typed<T>(p, x, launch); });
}

}  // namespace swath::stencil::cuda
