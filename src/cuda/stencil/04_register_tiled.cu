// Step 04: the stencil study's "tile slicing" (register tiling). Only the current plane's tile needs
// its x and y neighbours, so only it stays in shared memory; the points below and above a thread's
// own point are needed by that thread alone and live in two registers that shift as the block
// marches up z. Shared memory falls from 3 · T² to T² elements (4 KiB in float at T = 32), and the
// plane rotation is two register moves and one shared store instead of two shared copies.
//
// Loads per output are as in step 03 (1.21); the gain expected is in shared traffic and occupancy,
// not in DRAM bytes, so little time should move on a memory-bound grid: docs/journal/stencil.md compares.
#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

constexpr int tile = 32;
constexpr int out_tile = tile - 2;
constexpr int z_chunk = 32;

template <class T>
__global__ void __launch_bounds__(tile* tile)
    register_tiled_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, seven_weights<T> c) {
  __shared__ T current[tile][tile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int x = static_cast<int>(blockIdx.x) * out_tile + tx - 1;
  const int y = static_cast<int>(blockIdx.y) * out_tile + ty - 1;
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  T below = fetch(in, f, x, y, z_begin - 1, edge_value);
  T middle = fetch(in, f, x, y, z_begin, edge_value);
  const bool computes = tx >= 1 && tx < tile - 1 && ty >= 1 && ty < tile - 1 && x < f.nx && y < f.ny;
  for (int z = z_begin; z < z_end; ++z) {
    const T above = fetch(in, f, x, y, z + 1, edge_value);
    current[ty][tx] = middle;
    __syncthreads();
    if (computes) {
      const std::int64_t index = z * f.sz + y * f.sy + x;
      if (copies_itself(f, x, y, z)) {
        out[index] = middle;
      } else {
        out[index] = c.w[0] * below + c.w[1] * current[ty - 1][tx] + c.w[2] * current[ty][tx - 1] + c.w[3] * middle +
                     c.w[4] * current[ty][tx + 1] + c.w[5] * current[ty + 1][tx] + c.w[6] * above;
      }
    }
    __syncthreads();
    below = middle;
    middle = above;
  }
}

template <class T>
void run_typed(const problem& p, const operands& x, const launch_context& launch) {
  const frame f = frame_of(p);
  const dim3 grid(blocks_for(f.nx, out_tile), blocks_for(f.ny, out_tile), blocks_for(f.nz, z_chunk));
  SWATH_EXPECTS(grid.y <= 65535 && grid.z <= 65535, "register_tiled: height / 30 or depth / 32 exceeds 65535 blocks");
  register_tiled_kernel<T><<<grid, dim3(tile, tile), 0, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), seven_point_weights<T>(p));
  SWATH_CHECK_LAST();
}

}  // namespace

void register_tiled(const problem& p, const operands& x, const launch_context& launch) {
  for_element_type(p, [&]<class T>() { run_typed<T>(p, x, launch); });
}

}  // namespace swath::stencil::cuda
