// Step 09 (GPU iterated stencil): 3D stars, step 08's tiles stacked in y as a thread-block cluster that
// shares their halo rows through distributed shared memory.
//
// What changed from step 08 (bound by issue: every instruction a computed point-sweep counts, and at
// L = 4 a 128 x 32 tile keeps only 120 x 24 of its points):
// - c blocks of a column of tiles form a cluster (1 x c x 1) and lie back to back in y, 32 rows apart;
// - after each sweep but the last, the first warp stores its top r rows into the block above's pad rows
//   below its tile (st.shared::cluster), the last warp its bottom r rows into the block below's pad rows;
//   the input's pad rows are copied from the grid with the tile's own rows; one cluster barrier a step
//   (barrier.cluster arrive.release / wait.acquire) replaces the block's, so the neighbour's rows are
//   there when the next sweep's y taps read them, and not overwritten before it has;
// - so only the cluster's ends lose L r rows: it keeps c x 32 - 2 L r rows of c x 32. The cluster size
//   is data (`cluster=`; the model: the fewest rows computed a resident block, stack_cluster_of).
// Grids whose tiles step 08 does not move into the grid, or shorter than a cluster, run step 08.
// Prediction (H200, 512^3 float and double, 7-point, T = 64, L = 4, written before the first run): a
// plane's rows cost 18 tiles in clusters of 3 (6 clusters of 96 rows) against step 08's 22, so 1.22x
// fewer computed points; a cluster of 3 leaves an SM of some GPCs idle (~4%) and the cluster barrier
// costs more than the block's; expect 1.10-1.18x step 08 (float 10.40 -> ~9.1 ms, double 19.21 ->
// ~16.8), or no gain if the cluster barrier's latency is exposed at every step.
// Outcome (NVIDIA H200, same runs as step 08: 10.47 ms float, 19.22 double): slower. First version
// (one barrier at the step's end) 14.20 / 28.80 ms at the model's cluster of 2; the release compiles to
// MEMBAR.ALL.GPU, which waits for the step's global stores and cp.async copies in flight. With the last
// sweep's arithmetic and stores after the arrival: 12.45 / 24.52 ms (0.84x, 0.78x step 08); clusters
// of 3 hold only 117 blocks (GPCs), 12.88 / 25.17. A relaxed arrival (no ordering: timed, not kept)
// ran 10.26 / 20.21: even without the fence the cluster barrier costs what the halo saves. Not taken
// by the library's dispatch. docs/journal/stencil.md, "Step 09: cluster halos".
#include <array>
#include <string>

#include "../core/kernel_setup.cuh"
#include "stacked_strips.cuh"

namespace swath::stencil::cuda {
namespace {

using stack::stack_config;
using stack::tile_kind;

template <class T, int R, int L>
__global__ void __launch_bounds__(stack_config<T, R, L>::threads, 1)
    cluster_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk, int cluster,
                   const __grid_constant__ weights<T, 6 * R + 1> c) {
  using C = stack_config<T, R, L>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);
  // The pad rows beside a y face hold the constant (face tiles read them); the others are written by the
  // neighbouring block or copied from the grid before they are read. No block may store into another's
  // pad rows before that one has filled them: a cluster barrier.
  stack::fill_rings<T, R, L>(shared, f, edge_value);
  stack::cluster_barrier();
  unsigned rank = 0;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const int k = static_cast<int>(blockIdx.y) / cluster, kept = cluster * C::TY - 2 * C::halo;
  // Tiles moved into the grid, as step 08 moves them; a cluster as a whole in y.
  const int x0 = min(max(static_cast<int>(blockIdx.x) * C::kept_x - C::lead, 0), f.nx - C::W);
  const int top = min(max(k * kept - C::halo, 0), f.ny - cluster * C::TY);
  const int y0 = top + static_cast<int>(rank) * C::TY;
  const int above = rank > 0 ? static_cast<int>(rank) - 1 : -1, below = static_cast<int>(rank) + 1 < cluster ? static_cast<int>(rank) + 1 : -1;
  if (x0 == 0 || x0 + C::W == f.nx || y0 == 0 || y0 + C::TY == f.ny) {
    stack::march_edge_stack<T, R, L, tile_kind::face, true>(in, out, f, edge_value, x0, y0, z_chunk, true, k * kept, kept, above, below,
                                                            shared, c);
    return;
  }
  stack::march_stack<T, R, L, tile_kind::inner, true>(
      in, out, f, edge_value, stack::stack_thread<T, R, L, tile_kind::inner, true>(f, x0, y0, z_chunk, true, k * kept, kept, above, below),
      shared, c);
}

// Blocks the GPU holds at once in clusters of 1-4 (clusters of 1: step 08's kernel).
template <class T, int R, int L>
std::array<int, 4> resident_blocks(const launch_context& launch) {
  using C = stack_config<T, R, L>;
  std::array<int, 4> resident{};
  const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
  resident[0] = sms * prepare_kernel(stack::stack_kernel<T, R, L>, C::threads, C::shared_bytes);
  for (int cluster = 2; cluster <= 4; ++cluster) {
    resident[static_cast<std::size_t>(cluster - 1)] =
        cluster * swath::cuda::prepared_active_clusters(reinterpret_cast<const void*>(cluster_kernel<T, R, L>), C::threads, C::shared_bytes, cluster);
  }
  return resident;
}

template <class T, int R, int L>
void run_cluster_pass(const problem& p, const void* source, void* target, const launch_context& launch) {
  using C = stack_config<T, R, L>;
  const frame f = frame_of(p);
  const bool aligned = rows_aligned16(f, source, target, sizeof(T));
  const bool moved = aligned && f.nx % C::V == 0 && f.nx >= C::W && f.ny >= C::TY;
  const std::array<int, 4> resident = resident_blocks<T, R, L>(launch);
  const int cluster = stack_cluster_of(launch, f.ny, L, R, resident);
  if (!moved || cluster < 2 || cluster * C::TY > f.ny) {
    stack::run_stack_pass<T, R, L>(p, source, target, launch);  // step 08's tiles
    return;
  }
  const auto kernel = cluster_kernel<T, R, L>;
  prepare_kernel(kernel, C::threads, C::shared_bytes);
  const int active = cluster * swath::cuda::prepared_active_clusters(reinterpret_cast<const void*>(kernel), C::threads, C::shared_bytes, cluster);
  SWATH_EXPECTS(active > 0, "iterate step 09: a cluster of " + std::to_string(cluster) + " blocks does not fit this GPU");
  const int kept = stack_cluster_kept_y(L, R, cluster);
  const unsigned gx = blocks_for(f.nx, C::kept_x), gy = blocks_for(f.ny, kept) * static_cast<unsigned>(cluster);
  SWATH_EXPECTS(gy <= 65535, "iterate step 09: more than 65535 tiles in y");
  const int chunks = choose_chunks(static_cast<std::int64_t>(gx) * gy, active, f.nz, C::halo);
  const int z_chunk = std::max((f.nz + chunks - 1) / chunks, (f.nz + 65534) / 65535);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(gx, gy, static_cast<unsigned>((f.nz + z_chunk - 1) / z_chunk));
  config.blockDim = dim3(C::threads);
  config.dynamicSmemBytes = C::shared_bytes;
  config.stream = stream_of(launch);
  cudaLaunchAttribute attribute = swath::cuda::y_cluster_attribute(cluster);
  config.attrs = &attribute;
  config.numAttrs = 1;
  SWATH_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<const T*>(source), static_cast<T*>(target), f,
                                      static_cast<T>(p.edge_value), z_chunk, cluster, pack_weights<T, C::taps>(p, R, R, shape::star)));
}

}  // namespace

void cluster_halos(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  run_passes(ip, x, launch, stack_depth_of(ip, launch), [&](const void* source, void* target, int depth) {
    SWATH_EXPECTS(p.dims == 3 && p.form == shape::star && (p.radius == 1 || p.radius == 2) && p.edge != boundary::periodic,
                  "iterate step 09: 3D stars of radius 1 and 2, boundary other than periodic");
    march::with_star_pass<stack_depth_limit>(p, depth, "iterate step 09", [&]<class T, int R, int L>() {
      run_cluster_pass<T, R, L>(p, source, target, launch);
    });
  });
}

}  // namespace swath::stencil::cuda
