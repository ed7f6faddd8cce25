// The lab's float64 reference for the iterate family on the GPU: one thread a point, every tap through
// the boundary rule the host uses (source_index), T launches. Independent of the steps it checks (no
// tiles, no shared memory, no fusion); on the GPU because T sweeps of a 512^3 grid in double on the
// host would take minutes a row.
#include <cuda_runtime.h>

#include <vector>

#include "swath/core/buffer.hpp"
#include "swath/core/error.hpp"
#include "swath/lab/stencil.hpp"

namespace swath::stencil {
namespace {

struct reference_grid {
  schedule::extent2d grid;
  std::int64_t depth;
  int radius, dims;
  boundary edge;
  double edge_value;
};

__global__ void reference_sweep(const double* in, double* out, reference_grid g, const tap* taps, int tap_count) {
  const std::int64_t points = g.grid.count() * g.depth;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= points) return;
  const std::int64_t x = i % g.grid.width, y = (i / g.grid.width) % g.grid.height, z = i / g.grid.count();
  if (g.edge == boundary::copy && near_face(x, y, z, g.grid.width, g.grid.height, g.depth, g.radius, g.dims)) {
    out[i] = in[i];
    return;
  }
  double sum = 0;
  for (int k = 0; k < tap_count; ++k) {
    const std::int64_t source = source_index(x + taps[k].dx, y + taps[k].dy, z + taps[k].dz, g.grid, g.depth, g.edge);
    sum += taps[k].weight * (source < 0 ? g.edge_value : in[source]);
  }
  out[i] = sum;
}

}  // namespace

std::vector<double> reference_sweeps_on_device(const problem& p, const std::vector<double>& input, int sweeps) {
  const auto count = input.size();
  buffer<double> a(memory_kind::device, count), b(memory_kind::device, count);
  buffer<tap> taps(memory_kind::device, p.taps.size());
  SWATH_CUDA_CHECK(cudaMemcpy(a.data(), input.data(), count * sizeof(double), cudaMemcpyHostToDevice));
  SWATH_CUDA_CHECK(cudaMemcpy(taps.data(), p.taps.data(), p.taps.size() * sizeof(tap), cudaMemcpyHostToDevice));
  const reference_grid g{p.grid, p.depth, p.radius, p.dims, p.edge, p.edge_value};
  const auto blocks = static_cast<unsigned>((static_cast<std::int64_t>(count) + 255) / 256);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    reference_sweep<<<blocks, 256>>>(a.data(), b.data(), g, taps.data(), static_cast<int>(p.taps.size()));
    SWATH_CHECK_LAST();
    std::swap(a, b);
  }
  std::vector<double> result(count);
  SWATH_CUDA_CHECK(cudaMemcpy(result.data(), a.data(), count * sizeof(double), cudaMemcpyDeviceToHost));
  return result;
}

}  // namespace swath::stencil
