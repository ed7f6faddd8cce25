// Step 03: thread coarsening along z (the stencil study's fix for step 02's 8-thread edge). A block
// of T × T = 32 × 32 threads covers a T × T input tile of one plane and marches through z_chunk = 32
// planes, keeping three planes (below, current, above) in shared memory: 3 · 32² · 4 B = 12 KiB in
// float. Each plane is loaded once per block and reused by three output planes.
//
// The study's ratio with T = 32: 2·(1 - 2/T)³ = 1.65 OPs per byte in its units, against 0.84 at T = 8.
// Counted as this code does it: (T - 2)² outputs per T² loads per plane, and each 32-plane chunk
// loads 2 planes more, so loads per output fall from T³ / (T - 2)³ = 2.37 (T = 8) to
// T² / (T - 2)² · (z_chunk + 2) / z_chunk = 1.138 · 1.0625 = 1.21. What is still lost: 124 of the
// 1024 threads (12%) only load, and every plane step costs two barriers with one load in flight
// per thread between them (the plane above is loaded in the step that uses it).
#include "stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

constexpr int tile = 32;
constexpr int out_tile = tile - 2;
constexpr int z_chunk = 32;

template <class T>
__global__ void __launch_bounds__(tile* tile)
    coarsened_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, seven_weights<T> c) {
  __shared__ T below[tile][tile];
  __shared__ T current[tile][tile];
  __shared__ T above[tile][tile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int x = static_cast<int>(blockIdx.x) * out_tile + tx - 1;
  const int y = static_cast<int>(blockIdx.y) * out_tile + ty - 1;
  const int z_begin = static_cast<int>(blockIdx.z) * z_chunk;
  const int z_end = min(z_begin + z_chunk, f.nz);
  below[ty][tx] = fetch(in, f, x, y, z_begin - 1, edge_value);
  current[ty][tx] = fetch(in, f, x, y, z_begin, edge_value);
  const bool computes = tx >= 1 && tx < tile - 1 && ty >= 1 && ty < tile - 1 && x < f.nx && y < f.ny;
  for (int z = z_begin; z < z_end; ++z) {
    above[ty][tx] = fetch(in, f, x, y, z + 1, edge_value);
    __syncthreads();
    if (computes) {
      const std::int64_t index = z * f.sz + y * f.sy + x;
      if (copies_itself(f, x, y, z)) {
        out[index] = current[ty][tx];
      } else {
        out[index] = c.w[0] * below[ty][tx] + c.w[1] * current[ty - 1][tx] + c.w[2] * current[ty][tx - 1] +
                     c.w[3] * current[ty][tx] + c.w[4] * current[ty][tx + 1] + c.w[5] * current[ty + 1][tx] +
                     c.w[6] * above[ty][tx];
      }
    }
    __syncthreads();
    below[ty][tx] = current[ty][tx];
    current[ty][tx] = above[ty][tx];
  }
}

template <class T>
void run_typed(const problem& p, const operands& x, const launch_context& launch) {
  const frame f = frame_of(p);
  const dim3 grid(blocks_for(f.nx, out_tile), blocks_for(f.ny, out_tile), blocks_for(f.nz, z_chunk));
  SWATH_EXPECTS(grid.y <= 65535 && grid.z <= 65535, "coarsened: height / 30 or depth / 32 exceeds 65535 blocks");
  coarsened_kernel<T><<<grid, dim3(tile, tile), 0, stream_of(launch)>>>(
      static_cast<const T*>(x.in), static_cast<T*>(x.out), f, static_cast<T>(p.edge_value), seven_point_weights<T>(p));
  SWATH_CHECK_LAST();
}

}  // namespace

void coarsened(const problem& p, const operands& x, const launch_context& launch) {
  for_element_type(p, [&]<class T>() { run_typed<T>(p, x, launch); });
}

}  // namespace swath::stencil::cuda
