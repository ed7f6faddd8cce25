#pragma once
// Stream-K's bookkeeping (steps 11 and 16): how the last tiles' K slices are shared out over a grid,
// where a block leaves its part of a tile, and the settle in which the last block to arrive at a tile
// adds every part in block order and writes C. Why each piece is as it is: 11_stream_k.cu.
#include <cuda/atomic>

#include <algorithm>

#include "async_pipeline.cuh"
#include "../core/per_device.cuh"
#include "swath/core/buffer.hpp"

namespace swath::gemm::cuda {

// The shortest share of K slices worth cutting a tile for.
constexpr std::int64_t smallest_share = 16;

// How the tiles are shared out, decided on the host per launch.
struct stream_k_plan {
  std::int64_t slices = 0;        // K slices a tile
  std::int64_t whole_tiles = 0;   // the first tiles in block order, one block each, in rounds of the grid
  std::int64_t shared_tiles = 0;  // the rest, whose slices are split evenly over the grid
  float* partials = nullptr;      // two slots a block, one tile of sums each
  int* arrivals = nullptr;        // a counter per shared tile, 0 between launches

  // Block `block`'s share of the shared tiles' slices is [share_start(block), share_start(block + 1)).
  [[nodiscard]] SWATH_HD_INLINE std::int64_t share_start(std::int64_t block, std::int64_t grid) const {
    return block * (shared_tiles * slices) / grid;
  }
  // The block whose share holds slice `g`: the last block with share_start(block) ≤ g, i.e.
  // block · total < (g + 1) · grid.
  [[nodiscard]] SWATH_HD_INLINE std::int64_t owner(std::int64_t g, std::int64_t grid) const {
    const std::int64_t total = shared_tiles * slices;
    return ((g + 1) * grid + total - 1) / total - 1;
  }
#if defined(__CUDACC__)
  // The share this block takes: its own number; and how many shares there are: one a block.
  [[nodiscard]] __device__ __forceinline__ std::int64_t block() const { return blockIdx.x; }
  [[nodiscard]] __device__ __forceinline__ std::int64_t sharers() const { return gridDim.x; }
#endif
};

// A part of shared tile `tile` from block `block`: the block's first slot when its share starts inside
// the tile (or at its start), its second when the share ends there. A slot holds thread t's sum
// (r, q) at (r·ThreadN + q)·Threads + t.
template <int Floats, class Plan>
__device__ __forceinline__ float* slot_of(const Plan& plan, std::int64_t block, std::int64_t tile) {
  const bool starts_here = plan.share_start(block, plan.sharers()) >= tile * plan.slices;
  return plan.partials + (2 * block + (starts_here ? 0 : 1)) * Floats;
}

// The barrier among the threads that hold a tile's sums: the whole block (step 11), or the first
// Threads threads alone (step 16, whose producer warpgroup goes on filling stages meanwhile).
template <int Threads, bool AllThreads>
__device__ __forceinline__ void parts_barrier() {
  if constexpr (AllThreads) {
    __syncthreads();
  } else {
    asm volatile("bar.sync 1, %0;" ::"n"(Threads) : "memory");
  }
}

// Float by float: a 16-byte store needs the four sums in four consecutive registers, and that constraint
// alone changed ptxas's allocation of the main loop's accumulators and made every size 17% slower.
template <int Threads, int ThreadN, class Plan>
__device__ __forceinline__ void store_part(const Plan& plan, std::int64_t tile, const float (&sum)[8][ThreadN]) {
  float* mine = slot_of<Threads * 8 * ThreadN>(plan, plan.block(), tile);
  const int t = static_cast<int>(threadIdx.x);
  SWATH_UNROLL
  for (int r = 0; r < 8; ++r) {
    SWATH_UNROLL
    for (int q = 0; q < ThreadN; ++q) __stcg(mine + (r * ThreadN + q) * Threads + t, sum[r][q]);
  }
}

// After a block has stored its part of shared tile `tile`: a ticket on the tile's counter, and the
// last block to arrive adds every part in block order, ((part first + part first+1) + ...), the same
// order whoever adds, and writes C. Not inlined, which keeps the kernel at 236 registers (254 inlined).
// A function that is not inlined gets the kernel's parameters by reference, i.e. in the kernel's
// local memory: the problem and the plan are copied into registers first. Read through the references,
// every one of C's 32 four-wide stores reloaded m, n, ldc, alpha and beta from local memory, one
// dependent load after another, and the kernel ran 4-5 µs longer at 1000 × 3000 × 700 and
// 1024 × 3072 × 176 (H200, docs/journal/gemm.md).
// Parts are laid out as store_part leaves them (PartRow 0), or (step 16) as tiles of rows PartRow long
// in which each thread's sums sit where they sit in C's tile, left by C's own stores.
template <int Threads, int ThreadN, bool AllThreads = true, class Plan = stream_k_plan, int PartRow = 0>
__device__ __noinline__ void settle_shared_tile(const problem& problem_in_local_memory, float* c, bool c_vector_ok,
                                                const Plan& plan_in_local_memory, std::int64_t tile,
                                                std::int64_t i0, std::int64_t j0, int row0, int column0) {
  const problem p = problem_in_local_memory;
  const Plan plan = plan_in_local_memory;
  constexpr int floats = Threads * 8 * ThreadN, per_row = ThreadN / 4, per_round = 8;
  static_assert(8 * per_row % per_round == 0, "whole rounds");
  __shared__ int last_to_arrive;
  const int t = static_cast<int>(threadIdx.x);
  const std::int64_t grid = plan.sharers();
  const std::int64_t first = plan.owner(tile * plan.slices, grid);
  const std::int64_t last = plan.owner((tile + 1) * plan.slices - 1, grid);
  ::cuda::atomic_ref<int, ::cuda::thread_scope_device> arrivals(plan.arrivals[tile]);
  __threadfence();  // this thread's part is visible on the device...
  parts_barrier<Threads, AllThreads>();  // ...and everyone's, before the ticket
  if (t == 0) {
    last_to_arrive = arrivals.fetch_add(1, ::cuda::memory_order_acq_rel) == static_cast<int>(last - first);
    if (last_to_arrive) arrivals.store(0, ::cuda::memory_order_relaxed);  // ready for the next launch
  }
  parts_barrier<Threads, AllThreads>();
  if (!last_to_arrive) return;
  // Thread t adds up its own sums' places, 8 groups of four (32 loads in flight) at a time.
  // Thread t's four sums of group `group` in a part: at its place in the slot (store_part's layout),
  // or in C's tile (PartRow > 0).
  const auto four = [&](const float* part, int group) {
    if constexpr (PartRow > 0) {
      const int r = group / per_row, j = group % per_row;
      return __ldcg(reinterpret_cast<const float4*>(part + (row0 + r % 4 + r / 4 * 32) * PartRow + column0 + 16 * j));
    } else {
      const auto element = [&](int x) { return (group / per_row * ThreadN + group % per_row * 4 + x) * Threads + t; };
      return make_float4(__ldcg(part + element(0)), __ldcg(part + element(1)), __ldcg(part + element(2)),
                         __ldcg(part + element(3)));
    }
  };
  const float* first_part = slot_of<floats>(plan, first, tile);
  SWATH_UNROLL
  for (int round = 0; round < 8 * per_row / per_round; ++round) {
    float4 total[per_round];
    SWATH_UNROLL
    for (int e = 0; e < per_round; ++e) total[e] = four(first_part, round * per_round + e);
    // Every block after `first` starts its share inside the tile: its first slot.
    for (std::int64_t from = first + 1; from <= last; ++from) {
      const float* part = plan.partials + 2 * from * floats;
      SWATH_UNROLL
      for (int e = 0; e < per_round; ++e) {
        const float4 more = four(part, round * per_round + e);
        total[e].x += more.x, total[e].y += more.y, total[e].z += more.z, total[e].w += more.w;
      }
    }
    SWATH_UNROLL
    for (int e = 0; e < per_round; ++e) {
      const int group = round * per_round + e, r = group / per_row, j = group % per_row;
      store_four(p, c, c_vector_ok, i0 + row0 + r % 4 + r / 4 * 32, j0 + column0 + 16 * j, total[e]);
    }
  }
}

// The slots and counters of a stream, grown for the largest grid asked for on it and kept
// (per_device.cuh's stream_workspace). The counters start at 0 and every launch leaves them at 0; launches
// on other streams have their own.
struct workspace {
  float* partials;
  int* arrivals;
};
inline workspace workspace_for(std::int64_t grid, std::int64_t slot_floats, cudaStream_t stream) {
  using swath::cuda::stream_workspace;
  using swath::cuda::workspace_use;
  // 2 · grid counters (at most grid + grid - 1 tiles are shared), zero when new; then the slots.
  const auto counter_bytes = static_cast<std::size_t>(2 * grid * 4);
  const auto slot_bytes = static_cast<std::size_t>(2 * grid * slot_floats * 4);
  return {static_cast<float*>(stream_workspace(stream, workspace_use::stream_k_parts, slot_bytes, 0)),
          static_cast<int*>(stream_workspace(stream, workspace_use::stream_k_counters, counter_bytes, counter_bytes))};
}

// The shared tiles (step 11): one round plus the remainder (each block gets 1-2 tiles' worth of slices), all the
// tiles when there are fewer than the grid, none when the tiles divide into rounds or the shares would
// be shorter than smallest_share.
inline std::int64_t tiles_to_share(std::int64_t tiles, std::int64_t grid, std::int64_t slices) {
  const std::int64_t rounds = tiles / grid, rest = tiles % grid;
  const std::int64_t shared = rest == 0 ? 0 : (rounds == 0 ? tiles : grid + rest);
  return shared * slices / grid < smallest_share ? 0 : shared;
}

}  // namespace swath::gemm::cuda
