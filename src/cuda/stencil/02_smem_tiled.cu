// Step 02: the stencil study's shared-memory tiling. A block of T³ = 8³ = 512 threads loads an input
// tile of T³ points (the output tile plus a one-point halo on every side) into shared memory, each
// thread one point; then the (T - 2)³ = 216 inner threads compute and store; the other 296 only load.
//
// The study's arithmetic (its 8 OPs per point; 13 flops as counted here): a block computes (T - 2)³
// points from T³ loads, 2·(1 - 2/T)³ OPs per byte = 0.84 at T = 8, against 0.29 for the naive kernel,
// a 2.9x cut in loads. It came out slower in the study, and the reasons hold on Hopper with more
// force: (1) DRAM never saw the naive kernel's 7 loads per point (the caches merged them), so the
// cut is in L1 traffic, which was not the limit; (2) 58% of the threads idle through the compute,
// and T³ / (T - 2)³ = 2.37 input loads are issued per output (halo points are loaded by up to 8
// blocks); (3) 512-thread blocks with a barrier between load and compute leave nothing to overlap
// the load latency within a block. docs/journal/stencil.md has the measured figures.
#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

constexpr int tile = 8;             // T: input tile edge = threads per block edge
constexpr int out_tile = tile - 2;  // T - 2 outputs per edge

template <class T>
__global__ void __launch_bounds__(tile* tile* tile)
    smem_tiled_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, seven_weights<T> c) {
  __shared__ T tile_in[tile][tile][tile];
  const int x = static_cast<int>(blockIdx.x) * out_tile + static_cast<int>(threadIdx.x) - 1;
  const int y = static_cast<int>(blockIdx.y) * out_tile + static_cast<int>(threadIdx.y) - 1;
  const int z = static_cast<int>(blockIdx.z) * out_tile + static_cast<int>(threadIdx.z) - 1;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y), tz = static_cast<int>(threadIdx.z);
  tile_in[tz][ty][tx] = fetch(in, f, x, y, z, edge_value);
  __syncthreads();
  const bool computes = tx >= 1 && tx < tile - 1 && ty >= 1 && ty < tile - 1 && tz >= 1 && tz < tile - 1;
  if (!computes || x >= f.nx || y >= f.ny || z >= f.nz) return;
  const std::int64_t index = z * f.sz + y * f.sy + x;
  if (copies_itself(f, x, y, z)) {
    out[index] = tile_in[tz][ty][tx];
    return;
  }
  out[index] = c.w[0] * tile_in[tz - 1][ty][tx] + c.w[1] * tile_in[tz][ty - 1][tx] + c.w[2] * tile_in[tz][ty][tx - 1] +
               c.w[3] * tile_in[tz][ty][tx] + c.w[4] * tile_in[tz][ty][tx + 1] + c.w[5] * tile_in[tz][ty + 1][tx] +
               c.w[6] * tile_in[tz + 1][ty][tx];
}

template <class T>
void run_typed(const problem& p, const operands& x, const launch_context& launch) {
  const frame f = frame_of(p);
  const dim3 grid(blocks_for(f.nx, out_tile), blocks_for(f.ny, out_tile), blocks_for(f.nz, out_tile));
  SWATH_EXPECTS(grid.y <= 65535 && grid.z <= 65535, "smem_tiled: height or depth / 6 exceeds 65535 blocks");
  smem_tiled_kernel<T><<<grid, dim3(tile, tile, tile), 0, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), seven_point_weights<T>(p));
  SWATH_CHECK_LAST();
}

}  // namespace

void smem_tiled(const problem& p, const operands& x, const launch_context& launch) {
  for_element_type(p, [&]<class T>() { run_typed<T>(p, x, launch); });
}

}  // namespace swath::stencil::cuda
