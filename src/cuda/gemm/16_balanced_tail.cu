// CUDA step 16: the last wave balanced. Step 15's kernel for the full waves of whole tiles, then the
// tiles left over cut along K and shared evenly over the SMs (stream-K), on step 15's producer and
// compute warps.
//
// Step 15 runs one block a 256 × 128 tile, one block an SM. 4096³ has 512 tiles for 132 SMs: three
// full waves and a fourth of 116 tiles, in which 16 SMs idle; 8192³ has 2048, fifteen full waves and a
// sixteenth of 68. Both leave 3.0% of the SMs' time idle (512 / (4 · 132) = 2048 / (16 · 132) = 0.970).
// Here the full waves run as in step 15 (one launch, one block a tile), and the R tiles of the last
// wave go to a second launch of one block an SM: their slices form one sequence, split evenly, each
// block taking a run of R · S / 132 consecutive slices (4096³: 116 · 256 / 132 ≈ 225, a tile is 256),
// which may start inside one tile and go on into the next. The producer fills the stages along the
// run across the tile boundary, and the compute warps read on without draining: at the boundary they
// leave their sums for the first tile and go on with the next tile's slices. The parts are step 11's:
// each block stores a part in its slot, takes a ticket on the tile's counter, and the last block to
// arrive adds the parts in block order (the same bits on every run) and writes C.
//
// A stream-K tail tried on step 14's kernel ran its tail 1.4x slower a slice than whole tiles
// (docs/gemm.md, "What is next"). Two things differ here: the tail's loop is step 15's with no tile
// switch inside it (the switch is between two calls of the slice loop), and 8 stages of 16-deep
// slices ask for the next slices 128 depths ahead, ~20 µs of FMAs, where a block's runs start at
// unrelated depths and their boxes come from DRAM: at 132 · 24 KiB a slice every ~2.5 µs, ~1.3 TB/s,
// under half of an H100's.
//
// Prediction (before the first run; step 15's H200 gate at be771fd99b8a, 2.594 ms at 4096³ of which
// ~40 µs the rewrite of op(A), so ~638 µs a wave; 20.29 ms at 8192³, ~1.26 ms a wave): the tail takes
// 0.879 of a wave at 4096³ (225 slices of 256) and 0.515 at 8192³ (68 · 512 / 132 = 264 of 512), plus
// the parts (each block stores one or two of 128 KiB and the last block at a tile reloads one or two:
// ~5 µs) and a second launch (~5 µs). 4096³ 2.594 → ~2.53 ms (1.030x → ~1.055x cuBLAS), 8192³ 20.29 →
// ~19.69 (1.056x → ~1.09x), if the tail's slices run at the full waves' rate; 10% slower a slice gives
// back ~55 µs at 4096³ (~1.035x).
//
// Outcome (H200, step 15 and cuBLAS in the same call; docs/gemm.md, step 16): 8192³ 20.30 → 20.16 ms
// (1.060x → 1.067x cuBLAS), 4096³ 2.594 → 2.591 (1.035x), far short of the prediction. Nsight Compute
// has the tail at 95% of the whole tiles' issue rate (2.62 cycles per issued instruction against
// 2.49; at 8192³ 702 µs for 0.515 of a wave of 1.284 ms), so the tail is not what fell short. What
// the prediction missed: step 15's part-full last wave is not a whole wave lost. Its SMs finish their tiles
// at different times (active 97.2-100% of the whole tiles' kernel), the block scheduler hands the last
// tiles to the SMs that free first, and step 15's last 68 tiles at 8192³ took ~0.85 ms, not a wave's
// 1.28; at 4096³ its last 116 took ~0.94 of a wave. An even split of the tail wins only what is left.
//
// v2, the shares weighted (shares=weighted, the default; shares=even is v1). Each block's start time
// (globaltimer) stamped on the whole tiles of an H200 (docs/gemm.md, step 16) corrected v1's reading:
// step 15's last wave is a whole tile's time (~630 µs at 4096³) on 116 SMs while 16 idle, and a perfect
// split would end 3.8% sooner. v1's tail misses it twice. It starts once the slowest SM's last whole
// tile ends, and a few SMs take 2.3% longer a tile in every wave (6 on one H200, ids 42-47; 8 on
// another, 34-35, 38-39, 44-47): after three tiles they end ~44 µs after the median SM, after fifteen
// (8192³) ~430 µs. And its even shares end those same SMs last again. Now:
//  - the whole tiles' blocks stamp their SM and start (producer_warp.cuh, start_record) and let the
//    tail launch as soon as all have started (programmatic dependent launch), so a tail block starts
//    on each SM as it frees, 1-2 µs after its last whole tile;
//  - every tail block reads the stamps and makes the same plan (plan_weighted_shares): SM i frees at
//    f_i = its last start + its tile time (from its earlier starts), runs a slice in sigma_i = its tile
//    time / S, and takes (E - f_i) / sigma_i slices, E chosen so that they add up to the tail's. Shares
//    go to the SMs in the order of their ids; a block takes its own SM's. The parts of a tile now meet
//    at K points that depend on the timing: the last bits of C move from run to run (shares=even keeps
//    them).
// Prediction (before its first run, from the stamps at 4096³: fast SMs' tails end ~2503 µs into the
// product, the slow ones' ~2550): 4096³ ~45 µs sooner (2.59 → ~2.55 ms, ~1.05x cuBLAS), 8192³ ~0.4 ms
// sooner (20.17 → ~19.8 ms). Outcome (H200; docs/gemm.md): 8192³ 20.17 → 19.78 ms (1.084x cuBLAS), 4096³
// only 2.590 → 2.579 (1.037x). The tail's own slices run ~9% slower than the whole tiles' (2.69 µs a
// slice against 2.47): ~4.5% the tail kernel's machine code (the same kernel given whole tiles ran 4.5%
// slower than step 15's), the rest its split and parts. Its loop's schedule from ptxas moves by ±3% of
// the product at 4096³ with unrelated changes to this file: of six compilations, this one was fastest.
#include <algorithm>
#include <cstdlib>

#include "producer_warp.cuh"
#include "stream_k.cuh"

namespace swath::gemm::cuda {
namespace {

// The SMs a weighted plan covers: %smid < 256 on the GPUs this runs on; a record beyond falls back.
constexpr int max_sms = 256;

// The whole tiles' record: where and when each block started, for the tail's plan. A block writes its
// SM, its start (the global timer, ns) and last the tag, the epoch of its launch read at its start;
// the tail reads a record once its tag is the epoch it reads itself. The tail's last block to finish
// its plan moves the epoch on, so a launch never reads an older launch's records (launches on
// different streams at the same time would share them, as they share stream-K's slots).
struct start_record {
  unsigned smid, tag;
  unsigned long long start;
};
constexpr int recorded_blocks = 1 << 14;
static __device__ start_record whole_tile_starts[recorded_blocks];
static __device__ unsigned record_epoch = 1;

// Besides its tile (producer_warp_kernel's Besides): record the block's start, and once the block
// barrier is passed let the tail, launched as the whole tiles' programmatic dependent, start as soon as
// every block has started.
struct record_start {
  __device__ static void at_start() {
    if (blockIdx.x >= recorded_blocks) return;
    unsigned smid, tag;
    unsigned long long now;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(tag) : "l"(&record_epoch) : "memory");
    start_record& mine = whole_tile_starts[blockIdx.x];
    mine.smid = smid, mine.start = now;
    asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(&mine.tag), "r"(tag) : "memory");
  }
  __device__ static void after_barrier() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
};

// The tail's shares: stream-K's even split (share b = block b), or weighted: one share an SM, in the
// order of the SMs' ids, bounds[k] to bounds[k + 1] for the SM of rank k, each sized so that every SM
// ends together (plan_weighted_shares). The settle finds the parts of a tile through share_start and
// owner, whichever the split.
struct tail_plan : stream_k_plan {
  bool weighted = false;                 // the host asked the whole tiles to record their starts
  const std::int64_t* bounds = nullptr;  // set in the kernel when the weighted plan was made (shared memory)
  std::int64_t share = 0;                // the share this block takes
  [[nodiscard]] __host__ __device__ std::int64_t share_start(std::int64_t block, std::int64_t grid) const {
    return bounds ? bounds[block] : stream_k_plan::share_start(block, grid);
  }
  [[nodiscard]] __host__ __device__ std::int64_t owner(std::int64_t g, std::int64_t grid) const {
    if (!bounds) return stream_k_plan::owner(g, grid);
    std::int64_t low = 0, high = grid - 1;  // the last share starting at or before g (none is empty)
    while (low < high) {
      const std::int64_t middle = (low + high + 1) / 2;
      if (bounds[middle] <= g) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return low;
  }
  [[nodiscard]] __device__ std::int64_t block() const { return share; }
};

// Which SM of the weighted plan holds which share, and how many blocks have made their plan (the last
// moves record_epoch on). Tagged with the epoch, so they need no reset.
static __device__ unsigned share_claims[max_sms];
static __device__ unsigned planners = 0;

// The weighted plan, by warp 0, from the whole tiles' start records gathered per SM: SM i started
// its last whole tile at last_i, and its tiles took tau_i = (last_i - first_i) / (n_i - 1) each, so it
// frees at f_i = last_i + tau_i and then runs a slice in sigma_i = tau_i / S. Every SM ends at E when
// SM i takes r_i = (E - f_i) / sigma_i slices and the r_i add up to the W slices of the tail:
// E = (W + sum f_i / sigma_i) / (sum 1 / sigma_i). Every block computes the same plan from the same
// records, in the same order of operations. It falls back to the even split (returns false) unless
// every one of the grid's SMs ran at least two whole tiles and every share keeps smallest_share slices.
__device__ bool plan_weighted_shares(const tail_plan& plan, std::int64_t grid, const unsigned long long (&first)[max_sms],
                                     const unsigned long long (&last)[max_sms], const unsigned (&count)[max_sms],
                                     int (&rank_of)[max_sms], std::int64_t (&bounds)[max_sms + 1]) {
  constexpr int per_lane = max_sms / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t total = plan.shared_tiles * plan.slices;
  int present = 0;
  bool short_history = false;
  unsigned long long base = ~0ull;
  for (int j = 0; j < per_lane; ++j) {
    const int sm = lane * per_lane + j;
    if (count[sm] > 0) ++present, short_history |= count[sm] < 2, base = min(base, first[sm]);
  }
  int below = present;  // SMs of lower id, after the scan: exclusive
  for (int step = 1; step < 32; step *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, below, step);
    if (lane >= step) below += other;
  }
  below -= present;
  const int sms = __shfl_sync(0xffffffffu, below + present, 31);
  for (int step = 16; step > 0; step /= 2) base = min(base, __shfl_xor_sync(0xffffffffu, base, step));
  if (__any_sync(0xffffffffu, short_history) || sms != grid) return false;
  // Times in ns from the earliest whole tile's start.
  double inverse_sum = 0, weighted_sum = 0;
  double freed[per_lane], per_slice[per_lane];
  for (int j = 0; j < per_lane; ++j) {
    const int sm = lane * per_lane + j;
    if (count[sm] == 0) continue;
    const double tau = static_cast<double>(last[sm] - first[sm]) / (count[sm] - 1);
    freed[j] = static_cast<double>(last[sm] - base) + tau;
    per_slice[j] = tau / static_cast<double>(plan.slices);
    inverse_sum += 1 / per_slice[j], weighted_sum += freed[j] / per_slice[j];
  }
  for (int step = 16; step > 0; step /= 2) {
    inverse_sum += __shfl_xor_sync(0xffffffffu, inverse_sum, step);
    weighted_sum += __shfl_xor_sync(0xffffffffu, weighted_sum, step);
  }
  const double end = (static_cast<double>(total) + weighted_sum) / inverse_sum;
  std::int64_t share[per_lane], mine = 0;
  bool too_short = false;
  for (int j = 0; j < per_lane; ++j) {
    const int sm = lane * per_lane + j;
    if (count[sm] == 0) continue;
    share[j] = static_cast<std::int64_t>((end - freed[j]) / per_slice[j]);
    too_short |= share[j] < smallest_share;
    mine += share[j];
  }
  // The rounding's remainder (|remainder| < the SM count) to the lowest ranks, one slice each.
  std::int64_t assigned = mine, before = mine;
  for (int step = 1; step < 32; step *= 2) {
    const std::int64_t other = __shfl_up_sync(0xffffffffu, before, step);
    if (lane >= step) before += other;
  }
  before -= mine;
  for (int step = 16; step > 0; step /= 2) assigned += __shfl_xor_sync(0xffffffffu, assigned, step);
  const std::int64_t remainder = total - assigned;
  const std::int64_t magnitude = remainder < 0 ? -remainder : remainder, sign = remainder < 0 ? -1 : 1;
  if (magnitude >= grid) return false;
  int rank = below;
  std::int64_t running = before;  // the rounded-down shares of the lower ranks
  for (int j = 0; j < per_lane; ++j) {
    const int sm = lane * per_lane + j;
    if (count[sm] == 0) continue;
    const std::int64_t extra = rank < magnitude ? sign : 0;
    bounds[rank] = running + sign * (rank < magnitude ? rank : magnitude);
    too_short |= share[j] + extra < smallest_share;
    rank_of[sm] = rank;
    running += share[j];
    ++rank;
  }
  if (lane == 0) bounds[grid] = total;
  return !__any_sync(0xffffffffu, too_short);
}

// The weighted plan's share of this block (every thread of the block calls it), or -1 for the even
// split: the whole tiles' start records gathered per SM, the plan (plan_weighted_shares), this SM's
// share claimed. Not inlined: its registers stay out of the slice loop's allocation.
__device__ __noinline__ int weighted_share(const tail_plan& plan_in_local_memory, std::int64_t (&bounds)[max_sms + 1]) {
  const tail_plan plan = plan_in_local_memory;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const std::int64_t grid = gridDim.x;
  __shared__ unsigned long long first[max_sms], last[max_sms];
  __shared__ unsigned count[max_sms];
  __shared__ int rank_of[max_sms];
  __shared__ unsigned epoch;
  __shared__ bool weighted, foreign_sm;
  __shared__ int claimed;
  if (t < max_sms) first[t] = ~0ull, last[t] = 0, count[t] = 0;
  if (t == 0) {
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(epoch) : "l"(&record_epoch) : "memory");
    foreign_sm = false;
  }
  __syncthreads();
  // Every whole tile's block has started before this grid launched, so every record comes.
  for (std::int64_t r = t; r < plan.whole_tiles; r += blockDim.x) {
    const start_record& record = whole_tile_starts[r];
    unsigned tag;
    do {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(tag) : "l"(&record.tag) : "memory");
    } while (tag != epoch);
    const unsigned sm = __ldcg(&record.smid);
    const unsigned long long start = __ldcg(&record.start);
    if (sm < max_sms) {
      atomicMin(&first[sm], start), atomicMax(&last[sm], start), atomicAdd(&count[sm], 1u);
    } else {
      foreign_sm = true;
    }
  }
  __syncthreads();
  if (warp == 0) {
    const bool made = !foreign_sm && plan_weighted_shares(plan, grid, first, last, count, rank_of, bounds);
    if (lane == 0) {
      weighted = made;
      if (made) {
        // This SM's share, or (should two blocks meet on one SM) the first share nobody holds yet.
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        int share = sm < max_sms && count[sm] > 0 ? rank_of[sm] : 0;
        while (atomicExch(&share_claims[share], epoch) == epoch) share = (share + 1) % static_cast<int>(grid);
        claimed = share;
      }
      if (atomicAdd(&planners, 1u) == static_cast<unsigned>(grid) - 1) {
        planners = 0;
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(&record_epoch), "r"(epoch + 1) : "memory");
      }
    }
  }
  __syncthreads();
  return weighted ? claimed : -1;
}

// The tail: block b's even share of the slices of the last tiles (numbered after plan.whole_tiles in
// block order), [share_start(b), share_start(b + 1)), or its SM's weighted one.
template <int BlockK, int Stages>
__global__ void __launch_bounds__(producer_warp_threads, 1)
    balanced_tail_kernel(problem p, const __grid_constant__ CUtensorMap a_map,
                         const __grid_constant__ CUtensorMap b_map, float* c, bool c_vector_ok, tail_plan plan) {
  using s = engine_shape<BlockK, Stages>;
  extern __shared__ __align__(1024) float tail_ring[];  // the stages (extern arrays share one symbol)
  float* const stages = tail_ring;
  const unsigned stages_address = shared_address(stages);
  const unsigned full = stages_address + s::barriers_at, empty = full + Stages * 8;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const std::int64_t grid = gridDim.x;
  std::int64_t begin = plan.stream_k_plan::share_start(blockIdx.x, grid),
               end = plan.stream_k_plan::share_start(blockIdx.x + 1, grid);
  __shared__ std::int64_t bounds[max_sms + 1];  // the weighted plan's
  __shared__ int taken;                         // this block's weighted share, -1 for the even one
  if (plan.weighted) {
    const int share = weighted_share(plan, bounds);
    if (share >= 0) begin = bounds[share], end = bounds[share + 1];
    if (t == 0) taken = share;
  } else if (t == 0) {
    taken = -1;
  }

  if (t == 0) {
    for (int stage = 0; stage < Stages; ++stage) {
      swath::cuda::init_barrier(full + 8 * stage, 1);
      swath::cuda::init_barrier(empty + 8 * stage, compute_threads);
    }
    swath::cuda::fence_barrier_init();
  }
  __syncthreads();  // the only block-wide barrier: the mbarriers exist before anyone waits on them

  if (warp >= compute_threads / 32) {
    // The producer, along the run: slice g is slice g mod S of the run's tile g / S.
    give_back_registers<producer_registers>();
    if (t != compute_threads) return;
    int stage = 0, round = 0, i0 = 0, j0 = 0;
    std::int64_t tile = -1;
    for (std::int64_t g = begin; g < end; ++g) {
      const std::int64_t shared = g / plan.slices;
      const int slice = static_cast<int>(g - shared * plan.slices);
      if (shared != tile) {
        tile = shared;
        const schedule::tile_coordinate at = tile_for_block(p, plan.whole_tiles + shared, tile_m, tile_n);
        i0 = static_cast<int>(at.y) * tile_m, j0 = static_cast<int>(at.x) * tile_n;
      }
      fill_next_stage<BlockK, Stages>(stages_address, full, empty, &a_map, &b_map, i0, j0, slice, stage, round);
    }
    return;
  }

  // The compute warps: step 15's loop (multiply_slices in copy_engine.cuh), with the reading position
  // kept from one part of the run to the next. The loop is written out here (its fragment reads are
  // shared): holding that position in a struct or in the caller's variables changed ptxas's register
  // allocation of steps 14 and 15's FMAs, whose timings stand as measured.
  take_registers<compute_registers>();
  const int row0 = warp / 2 * 64 + lane / 4 * 4, column0 = warp % 2 * 64 + lane % 4 * 4;
  float a_values[2][8], b_values[2][16];
  const auto read = [&](const float* at, int kk, float(&a_out)[8], float(&b_out)[16]) {
    read_fragments<BlockK, Stages>(at, kk, row0, column0, a_out, b_out);
  };
  int stage = 0;
  unsigned parity = 0;
  const float* reading = stages;
  if (begin < end) {
    swath::cuda::wait_phase(full, 0);
    read(reading, 0, a_values[0], b_values[0]);
  }
  for (std::int64_t g = begin; g < end;) {
    // The run's part of tile `shared`: its slices [slice_begin, slice_end).
    const std::int64_t shared = g / plan.slices;
    const std::int64_t slice_begin = g - shared * plan.slices;
    const std::int64_t slice_end = std::min(plan.slices, slice_begin + (end - g));
    const int count = static_cast<int>(slice_end - slice_begin);
    const bool more_after = g + count < end;  // the run goes on into the next tile
    float sum[8][16] = {};
    for (int slice = 0; slice < count; ++slice) {
      bool next_landed = false;
      SWATH_UNROLL
      for (int kk = 0; kk < BlockK; ++kk) {
        if (kk == 1) {
          const int next = stage + 1 == Stages ? 0 : stage + 1;
          next_landed = (slice + 1 < count || more_after) &&
                        swath::cuda::phase_complete(full + 8 * next, next == 0 ? parity ^ 1 : parity);
        }
        if (kk == BlockK - 1) {
          swath::cuda::arrive(empty + 8 * stage);
          if (++stage == Stages) stage = 0, parity ^= 1;
          if ((slice + 1 < count || more_after) && !next_landed) swath::cuda::wait_phase(full + 8 * stage, parity);
          reading = stages + stage * s::stage_floats;
        }
        // After the run's last slice this reads a stage nobody fills any more: harmless.
        read(reading, (kk + 1) % BlockK, a_values[(kk + 1) % 2], b_values[(kk + 1) % 2]);
        SWATH_UNROLL
        for (int q = 0; q < 16; ++q) {
          SWATH_UNROLL
          for (int r = 0; r < 8; ++r) sum[r][q] += a_values[kk % 2][r] * b_values[kk % 2][q];
        }
      }
    }
    const schedule::tile_coordinate at = tile_for_block(p, plan.whole_tiles + shared, tile_m, tile_n);
    const std::int64_t i0 = at.y * tile_m, j0 = at.x * tile_n;
    if (slice_begin == 0 && slice_end == plan.slices) {
      store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
    } else {
      tail_plan here = plan;
      const int share = taken;
      here.share = share >= 0 ? share : blockIdx.x;
      if (share >= 0) here.bounds = bounds;
      store_part<compute_threads>(here, shared, sum);
      settle_shared_tile<compute_threads, 16, false>(p, c, c_vector_ok, here, shared, i0, j0, row0, column0);
    }
    g += count;
  }
  if (plan.weighted) asm volatile("griddepcontrol.wait;" ::: "memory");
}

// The tiles of the last, part-full wave (all of them when there are fewer than the grid); none when
// the tiles fill whole waves or a block's share would be shorter than smallest_share slices.
std::int64_t last_wave_tiles(std::int64_t tiles, std::int64_t grid, std::int64_t slices) {
  const std::int64_t shared = tiles < grid ? tiles : tiles % grid;
  return shared * slices / grid < smallest_share ? 0 : shared;
}

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  using s = engine_shape<BlockK, Stages>;
  const cudaStream_t stream = stream_of(launch_on);
  const slice_maps maps = slice_maps_of<BlockK>(p, x, stream);
  const std::int64_t tiles = blocks_for_tiles(p, tile_m, tile_n);
  // One block an SM (one fits), or blocks=N (the tests cut tiles on small grids).
  const std::int64_t grid = p.persistent_blocks > 0 ? p.persistent_blocks : std::max(launch_on.sm_count, 1);
  SWATH_EXPECTS(grid <= 0x7fffffff, "gemm: more blocks than a grid holds");
  tail_plan plan;
  plan.slices = (p.k + BlockK - 1) / BlockK;
  plan.shared_tiles = last_wave_tiles(tiles, grid, plan.slices);
  plan.whole_tiles = tiles - plan.shared_tiles;
  // Weighted shares where the whole tiles can record their starts; the tail's kernel falls back to
  // even ones unless each of its grid's SMs ran two whole tiles or more.
  plan.weighted = plan.shared_tiles > 0 && plan.whole_tiles > 0 && plan.whole_tiles <= recorded_blocks &&
                  grid <= max_sms && p.weighted_shares;
  if (plan.weighted) {
    launch_whole_tiles<BlockK, Stages, record_start>(p, maps, x.c, stream, static_cast<unsigned>(plan.whole_tiles));
  } else if (plan.whole_tiles > 0) {
    launch_whole_tiles<BlockK, Stages>(p, maps, x.c, stream, static_cast<unsigned>(plan.whole_tiles));
  }
  if (plan.shared_tiles == 0) return;
  const workspace held = workspace_for(grid, compute_threads * 8 * 16);
  plan.partials = held.partials, plan.arrivals = held.arrivals;
  constexpr auto kernel = balanced_tail_kernel<BlockK, Stages>;
  static const int blocks_per_sm = prepare_kernel(kernel, producer_warp_threads, s::shared_bytes);
  (void)blocks_per_sm;
  // Weighted, the tail is the whole tiles' programmatic dependent: its block starts on an SM as soon as
  // that SM's last whole tile ends (the whole tiles' blocks let it launch once all have started and
  // recorded their start; it reads nothing else of theirs), not once the slowest SM's has.
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(producer_warp_threads);
  config.dynamicSmemBytes = s::shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute dependent{};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &dependent;
  config.numAttrs = plan.weighted ? 1 : 0;
  SWATH_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, p, maps.a, maps.b, x.c, aligned16(x.c, p.ldc), plan));
}

}  // namespace

// Where step 14's rule sends a problem to the copy engine (tma=auto|on|off), these kernels; else step
// 13. blocks=N sets the tail's grid.
void balanced_tail(const problem& p, const operands& x, const launch_context& launch_on) {
  if (copy_engine_chosen(p, x, launch_on)) {
    launch<16, 8>(p, x, launch_on);
  } else {
    wave_fitted_tiles(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
