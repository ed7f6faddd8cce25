// CUDA step 16: the last wave balanced. Step 15's kernel for the full waves of whole tiles, then the
// tiles left over cut along K and shared over the SMs (stream-K), on the same kernel and machine code.
// - What changed from 15: 4096³ has 3 full waves of 256 × 128 tiles and a fourth of 116 for 132 SMs.
//   The whole tiles stamp each SM's start (producer_warp.cuh, start_record) and let the tail launch as
//   its programmatic dependent; every tail block makes the same plan from the stamps
//   (plan_weighted_shares): SM i frees at f_i and runs a slice in sigma_i, so it takes (E − f_i) / sigma_i
//   slices. Shares that cross a tile are cut into pieces (tail_pieces, claim_piece); parts meet as in
//   step 11.
// - Settings: shares=weighted (fastest; where parts meet moves with the timing, and the last bits of C
//   with it) | even (the same bits every run: what swath::sgemm uses); blocks= the tail's grid; tma=.
// - Predictions and outcomes (H200): v1 even shares 1.035x / 1.067x cuBLAS at 4096³ / 8192³ (predicted
//   ~1.055x / ~1.09x: step 15's last wave was not a whole wave lost); v2 weighted shares 1.037x / 1.084x;
//   v3 one kernel for tiles and tail 1.050x / 1.092x. H100 gates: 1.041x / 1.082x.
// - Since (H200): tma=auto takes the copy engine at two waves or more whatever the last one's fill
//   (3071³, 3072³ 7-16% faster), and a lone wave at least 90% full runs whole (2048³ tma=on 339 µs,
//   402 cut into shares); docs/journal/gemm.md, "A fourth stage, and the copy engine at one and at
//   two to four waves".
// - The three versions, their stamps and the schedules tried: docs/journal/gemm.md, step 16.
#include <algorithm>

#include "producer_warp.cuh"
#include "stream_k.cuh"

namespace swath::gemm::cuda {
namespace {

// The SMs a weighted plan covers, and the most shares a tail has: %smid < 256 on the GPUs this runs on
// (a record beyond falls back to even shares), and blocks=N at most 256 for this step.
constexpr int max_sms = 256;

// The whole tiles' record: where and when each block started, for the tail's plan. A block writes its
// SM, its start (the global timer, ns) and last the tag, the epoch of its launch read at its start;
// the tail reads a record once its tag is the epoch it reads itself. The tail's last block to finish
// its plan moves the epoch on, so a launch never reads an older launch's records, plan or claims
// (each stream has its own: tail_state, below).
struct start_record {
  unsigned smid, tag;
  unsigned long long start;
};
constexpr int recorded_blocks = 1 << 14;
struct tail_state;

// The tail's shares: even (stream-K's split) or weighted (plan_weighted_shares): share k is the slices
// [bounds[k], bounds[k + 1]) of the tail's sequence, in which slice g is slice g mod S of the tail's
// tile g / S. The settle finds the parts of a tile through share_start and owner.
struct tail_plan : stream_k_plan {
  tail_state* state = nullptr;           // the stream's records, plan and claims
  bool weighted = false;                 // the host asked the whole tiles to record their starts
  std::int64_t share_count = 0;          // one share an SM (or blocks=N)
  const std::int64_t* bounds = nullptr;  // set in the kernel once the plan is made (shared memory)
  std::int64_t share = 0;                // the share the piece in hand belongs to
  [[nodiscard]] __device__ std::int64_t share_start(std::int64_t block, std::int64_t) const { return bounds[block]; }
  [[nodiscard]] __device__ std::int64_t owner(std::int64_t g, std::int64_t grid) const {
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
  [[nodiscard]] __device__ std::int64_t sharers() const { return share_count; }
};

// Piece 2k + 0 of share k is its slices within the tile it starts in, piece 2k + 1 the rest (a share
// is at most a tile long, so it touches at most two). claims[i] holds the epoch of the launch whose
// block took piece i; share_of_sm[s] the epoch and the share whose first piece SM s took last. The
// first block to make the plan publishes it (the epoch in `tag`, written last), and the blocks after
// it read it instead of the records. planners counts the blocks that have their piece (the last moves
// the epoch on), finished those that are done (the last waits for the whole tiles' grid, so the
// tail's grid does not end before it).
struct published_plan {
  unsigned tag, publisher;
  int weighted;
  int rank_of[max_sms];
  std::int64_t bounds[max_sms + 1];
};
// All of it lives in device memory of the launch's stream (per_device.cuh's stream_workspace): zero when
// new, but for record_epoch, which starts at 1 (a record's tag of 0 is no launch's).
struct tail_state {
  start_record whole_tile_starts[recorded_blocks];
  unsigned record_epoch;
  unsigned piece_claims[2 * max_sms];
  unsigned long long share_of_sm[max_sms];  // the epoch, then the share of the SM's first piece
  published_plan published;
  unsigned planners, finished;
};

// The plan's bounds, in the block's shared memory, for the piece's parts and their settle.
__device__ __forceinline__ std::int64_t* tail_bounds() {
  __shared__ std::int64_t bounds[max_sms + 1];
  return bounds;
}

// What a tail block's part and settle need after the slice loop, kept in shared memory by claim_piece
// rather than in registers across the loop (producer_warp_kernel says why): the problem, C, the plan
// (with the piece's share and the bounds) and the piece.
struct tail_context {
  walked_problem p;
  float* c;
  bool c_vector_ok;
  tail_plan plan;
  tile_piece piece;
  float* part;  // the piece's slot (stream_k.cuh's slot_of)
};
__device__ __forceinline__ tail_context& held_context() {
  __shared__ tail_context context;
  return context;
}

// The weighted plan, by warp 0, from the whole tiles' start records gathered per SM: SM i started
// its last whole tile at last_i, and its tiles took tau_i = (last_i - first_i) / (n_i - 1) each, so it
// frees at f_i = last_i + tau_i and then runs a slice in sigma_i = tau_i / S. Every SM ends at E when
// SM i takes r_i = (E - f_i) / sigma_i slices and the r_i add up to the W slices of the tail:
// E = (W + sum f_i / sigma_i) / (sum 1 / sigma_i). Every block computes the same plan from the same
// records, in the same order of operations. It falls back to the even split (returns false) unless
// every one of the shares' SMs ran at least two whole tiles and every share keeps between
// smallest_share slices and a tile.
// Longer than a screen, on purpose: one warp's plan of every share from the SMs'
// measured starts is one computation (sort, prefix, cut); each part needs the previous one's registers.
__device__ bool plan_weighted_shares(const tail_plan& plan, std::int64_t grid, const unsigned long long (&first)[max_sms],
                                     const unsigned long long (&last)[max_sms], const unsigned (&count)[max_sms],
                                     int (&rank_of)[max_sms], std::int64_t* bounds) {
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
  bool out_of_range = false;
  for (int j = 0; j < per_lane; ++j) {
    const int sm = lane * per_lane + j;
    if (count[sm] == 0) continue;
    share[j] = static_cast<std::int64_t>((end - freed[j]) / per_slice[j]);
    out_of_range |= share[j] < smallest_share;
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
    out_of_range |= share[j] + extra < smallest_share || share[j] + extra > plan.slices;
    rank_of[sm] = rank;
    running += share[j];
    ++rank;
  }
  if (lane == 0) bounds[grid] = total;
  return !__any_sync(0xffffffffu, out_of_range);
}

// Piece `index` (2k + part) of the plan in `bounds`, if share k has it.
__device__ bool piece_of(const tail_plan& plan, const std::int64_t* bounds, int index, tile_piece& piece) {
  const int k = index / 2;
  const std::int64_t begin = bounds[k], end = bounds[k + 1];
  const std::int64_t boundary = (begin / plan.slices + 1) * plan.slices;  // the end of the tile it starts in
  const std::int64_t from = index % 2 == 0 ? begin : boundary, to = index % 2 == 0 ? min(end, boundary) : end;
  if (from >= to) return false;
  const std::int64_t shared = from / plan.slices;
  piece = {plan.whole_tiles + shared, static_cast<int>(from - shared * plan.slices), static_cast<int>(to - from), k};
  return true;
}

// The plan (every block makes the same one, or reads the one published) and the piece this block
// takes, left in the block's tail_context (every thread calls it, at the kernel's entry, thread 0
// having put the problem, C and the plan there): with weighted shares its SM's first piece nobody
// holds yet, else (even shares, or its SM's pieces taken) the first piece nobody holds; count 0 when
// none is left. Not inlined: its registers stay out of the slice loop's allocation.
// Longer than a screen, on purpose: it is kept out of line (noinline) so that
// the slice loop's schedule does not move with it (docs/journal/gemm.md, step 16 v3: ±1-3% of the product);
// what it does is one sequence, plan then piece, and splitting it further adds calls on every tail block.
__device__ __noinline__ void claim_piece() {
  tail_context& context = held_context();
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  std::int64_t* const bounds = tail_bounds();
  __shared__ unsigned long long first[max_sms], last[max_sms];
  __shared__ unsigned count[max_sms];
  __shared__ int rank_of[max_sms];
  __shared__ unsigned epoch;
  __shared__ int weighted;  // 1 weighted, 0 even, -1 to be planned here from the records
  __shared__ bool foreign_sm;
  __syncthreads();  // thread 0's context is there
  const tail_plan plan = context.plan;
  const std::int64_t shares = plan.share_count;
  tail_state& state = *plan.state;
  start_record* const whole_tile_starts = state.whole_tile_starts;
  unsigned* const piece_claims = state.piece_claims;
  unsigned long long* const share_of_sm = state.share_of_sm;
  published_plan& published = state.published;
  for (int i = t; i < max_sms; i += blockDim.x) first[i] = ~0ull, last[i] = 0, count[i] = 0, rank_of[i] = -1;
  if (t == 0) {
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(epoch) : "l"(&state.record_epoch) : "memory");
    unsigned tag;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(tag) : "l"(&published.tag) : "memory");
    weighted = !plan.weighted ? 0 : tag == epoch ? published.weighted : -1;
    foreign_sm = false;
  }
  __syncthreads();
  if (weighted == -1) {
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
  } else if (weighted == 1) {
    for (int i = t; i <= max_sms; i += blockDim.x) {
      if (i <= shares) bounds[i] = __ldcg(&published.bounds[i]);
      if (i < max_sms) rank_of[i] = __ldcg(&published.rank_of[i]);
    }
  }
  __syncthreads();
  if (warp == 0 && weighted == -1) {
    const bool made = !foreign_sm && plan_weighted_shares(plan, shares, first, last, count, rank_of, bounds);
    __syncwarp();
    // The first block to get here publishes the plan: the plan, then its tag.
    unsigned publisher = 0;
    if (lane == 0) publisher = atomicExch(&published.publisher, epoch);
    if (__shfl_sync(0xffffffffu, publisher, 0) != epoch) {
      for (int i = lane; i <= max_sms; i += 32) {
        if (made && i <= shares) published.bounds[i] = bounds[i];
        if (i < max_sms) published.rank_of[i] = rank_of[i];
      }
      __syncwarp();
      if (lane == 0) {
        published.weighted = made ? 1 : 0;
        __threadfence();
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(&published.tag), "r"(epoch) : "memory");
      }
    }
    if (lane == 0) weighted = made ? 1 : 0;
  }
  __syncthreads();
  if (weighted == 0) {
    for (std::int64_t k = t; k <= shares; k += blockDim.x) bounds[k] = plan.stream_k_plan::share_start(k, shares);
  }
  __syncthreads();
  if (warp == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    tile_piece piece{0, 0, 0, -1};
    int chosen = -1;
    if (lane == 0 && sm < max_sms) {
      // The SM's own share: the weighted plan's, or (even shares) the one whose first piece it took.
      const unsigned long long took = __ldcg(&share_of_sm[sm]);
      const int k = weighted == 1 ? rank_of[sm] : took >> 32 == epoch ? static_cast<int>(took & 0xffffffffu) : -1;
      tile_piece own;
      for (int part = 0; k >= 0 && part < 2 && chosen < 0; ++part) {
        if (piece_of(plan, bounds, 2 * k + part, own) && atomicExch(&piece_claims[2 * k + part], epoch) != epoch) {
          chosen = 2 * k + part;
        }
      }
    }
    chosen = __shfl_sync(0xffffffffu, chosen, 0);
    // Else the first piece nobody holds, 32 at a time: the shares' first pieces in order, then their
    // second ones (so that with even shares, all starting at once, each SM takes a first piece and
    // then that share's second, v1's run).
    for (int base = 0; chosen < 0 && base < 2 * shares; base += 32) {
      const int position = base + lane;
      const int index = position < shares ? 2 * position : 2 * (position - static_cast<int>(shares)) + 1;
      tile_piece candidate;
      const bool open = position < 2 * shares && piece_of(plan, bounds, index, candidate) &&
                        *static_cast<volatile unsigned*>(&piece_claims[index]) != epoch;
      unsigned open_lanes = __ballot_sync(0xffffffffu, open);
      while (open_lanes != 0 && chosen < 0) {
        const int l = __ffs(open_lanes) - 1;
        open_lanes &= open_lanes - 1;
        int taken = 0;
        if (lane == l) taken = atomicExch(&piece_claims[index], epoch) != epoch;
        if (__shfl_sync(0xffffffffu, taken, l)) chosen = __shfl_sync(0xffffffffu, index, l);
      }
    }
    if (lane == 0 && chosen >= 0 && chosen % 2 == 0 && sm < max_sms) {
      __stcg(&share_of_sm[sm], static_cast<unsigned long long>(epoch) << 32 | static_cast<unsigned>(chosen / 2));
    }
    if (lane == 0) {
      if (chosen >= 0) piece_of(plan, bounds, chosen, piece);
      context.piece = piece, context.plan.share = piece.share, context.plan.bounds = bounds;
      if (chosen >= 0) context.part = slot_of<compute_threads * 8 * 16>(context.plan, piece.share, piece.tile - plan.whole_tiles);
      if (atomicAdd(&state.planners, 1u) == gridDim.x - 1) {
        state.planners = 0;
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(&state.record_epoch), "r"(epoch + 1) : "memory");
      }
    }
  }
  __syncthreads();
}

// The settle of a tail piece's tile (every compute thread, after its part is stored): everything
// from the block's tail_context. Not inlined, like the settle it calls.
__device__ __noinline__ void settle_held_piece() {
  const tail_context& context = held_context();
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / 2 * 64 + lane / 4 * 4, column0 = warp % 2 * 64 + lane % 4 * 4;
  const schedule::tile_coordinate at = tile_for_block(context.p, context.piece.tile, tile_m, tile_n);
  settle_shared_tile<compute_threads, 16, false, tail_plan, tile_n>(
      context.p, context.c, context.c_vector_ok, context.plan, context.piece.tile - context.plan.whole_tiles,
      at.y * tile_m, at.x * tile_n, row0, column0);
}

// Besides the walk (producer_warp_kernel's policy), for the whole tiles (tail false): with weighted
// shares, record where and when the block started, and once past the block barrier let the tail,
// launched as their programmatic dependent, start as soon as every block has started. For the tail
// (tail true): take a piece (claim_piece); a piece short of its tile leaves its sums as a part, laid
// out as C's tile in the share's slot (stream_k.cuh's slot_of), and settles the tile; then the block
// counts itself done.
struct tail_pieces {
  struct argument {
    tail_plan plan;
    bool tail;
  };
  static constexpr bool whole_tiles_only = false;
  __device__ static void at_start(const argument& a) {
    if (a.tail || !a.plan.weighted || blockIdx.x >= recorded_blocks) return;
    unsigned smid, tag;
    unsigned long long now;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(tag) : "l"(&a.plan.state->record_epoch) : "memory");
    start_record& mine = a.plan.state->whole_tile_starts[blockIdx.x];
    mine.smid = smid, mine.start = now;
    asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(&mine.tag), "r"(tag) : "memory");
  }
  __device__ static void at_entry(const argument& a, const walked_problem& p, float* c, bool c_vector_ok) {
    if (!a.tail) {
      asm volatile("griddepcontrol.wait;" ::: "memory");  // the rewrite of op(A) or op(B), if any, is done
      return;
    }
    tail_context& context = held_context();
    if (threadIdx.x == 0) context.p = p, context.c = c, context.c_vector_ok = c_vector_ok, context.plan = a.plan;
    claim_piece();
  }
  __device__ static tile_piece after_barrier(const argument& a, int slices) {
    if (a.tail) return held_context().piece;
    if (a.plan.weighted) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    return {static_cast<std::int64_t>(blockIdx.x), 0, slices, -1};
  }
  __device__ static void part_target(problem& target, float*& out, bool& out_vector_ok, int& out_i0, int& out_j0) {
    const tail_context& context = held_context();
    target.m = tile_m, target.n = tile_n, target.ldc = tile_n, target.alpha = 1, target.beta = 0;
    out = context.part;
    out_vector_ok = true, out_i0 = 0, out_j0 = 0;
  }
  __device__ static void settle() { settle_held_piece(); }
  __device__ static void at_end(const argument& a) {
    if (!a.tail || threadIdx.x != 0) return;
    if (atomicAdd(&a.plan.state->finished, 1u) == gridDim.x - 1) {
      a.plan.state->finished = 0;
      asm volatile("griddepcontrol.wait;" ::: "memory");
    }
  }
};

// The stream's tail_state: zero when new, then record_epoch set to 1 (its lowest byte; the rest are 0).
tail_state* state_of(cudaStream_t stream) {
  bool fresh = false;
  auto* state = static_cast<tail_state*>(swath::cuda::stream_workspace(
      stream, swath::cuda::workspace_use::tail_records, sizeof(tail_state), sizeof(tail_state), &fresh));
  if (fresh) SWATH_CUDA_CHECK(cudaMemsetAsync(&state->record_epoch, 1, 1, stream));
  return state;
}

// The tiles of the last, part-full wave (all of them when there are fewer than the grid); none when
// the tiles fill whole waves, when they are one wave at least 90% full (2048³'s 128 tiles for 132 SMs
// ran 14-17% slower cut into 132 shares than whole, tma=on on an H200: each share crosses a tile and
// every tile's parts meet), or when a block's share would be shorter than smallest_share slices.
std::int64_t last_wave_tiles(std::int64_t tiles, std::int64_t grid, std::int64_t slices) {
  if (tiles <= grid && wave_fill(tiles, grid) >= full_enough) return 0;
  const std::int64_t shared = tiles < grid ? tiles : tiles % grid;
  return shared * slices / grid < smallest_share ? 0 : shared;
}

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  using s = engine_shape<BlockK, Stages>;
  const cudaStream_t stream = stream_of(launch_on);
  const slice_maps maps = slice_maps_of<BlockK>(p, x, stream);
  const walked_problem walk = walked(p, launch_on);
  const std::int64_t tiles = blocks_for_tiles(p, tile_m, tile_n);
  // One share an SM (one block fits), or blocks=N (the tests cut tiles on small grids).
  const std::int64_t chosen_blocks = persistent_blocks_of(launch_on);
  const std::int64_t grid = chosen_blocks > 0 ? chosen_blocks : std::max(launch_on.sm_count, 1);
  SWATH_EXPECTS(grid <= max_sms, "gemm step 16: its tail has at most 256 shares (blocks=N)");
  tail_plan plan;
  plan.slices = (p.k + BlockK - 1) / BlockK;
  plan.shared_tiles = last_wave_tiles(tiles, grid, plan.slices);
  plan.whole_tiles = tiles - plan.shared_tiles;
  plan.share_count = grid;
  // Weighted shares where the whole tiles can record their starts; the tail falls back to even ones
  // unless each of the shares' SMs ran two whole tiles or more.
  plan.weighted = plan.shared_tiles > 0 && plan.whole_tiles > 0 && plan.whole_tiles <= recorded_blocks &&
                  weighted_shares_of(launch_on);
  if (plan.shared_tiles > 0) plan.state = state_of(stream);
  // The whole tiles wait for the rewrite of op(A) or op(B) where there is one (copy_engine.cuh's
  // deep_major_of), as its programmatic dependent: they are launched while it ends.
  if (plan.whole_tiles > 0) {
    launch_producer_warp<BlockK, Stages, tail_pieces>(walk, maps, x.c, stream, static_cast<unsigned>(plan.whole_tiles),
                                                      {plan, false}, true);
  }
  if (plan.shared_tiles == 0) return;
  const workspace held = workspace_for(grid, compute_threads * 8 * 16, stream);
  plan.partials = held.partials, plan.arrivals = held.arrivals;
  // A block for every piece there can be: each share is one piece, plus one where a tile boundary
  // falls inside it (shared_tiles - 1 boundaries at most). Weighted, the tail is the whole tiles'
  // programmatic dependent: its blocks start on an SM as soon as that SM's last whole tile ends (the
  // whole tiles' blocks let it launch once all have started and recorded their start; it reads nothing
  // else of theirs), not once the slowest SM's has.
  launch_producer_warp<BlockK, Stages, tail_pieces>(walk, maps, x.c, stream,
                                                    static_cast<unsigned>(grid + plan.shared_tiles - 1), {plan, true},
                                                    plan.weighted);
}

}  // namespace

// Where step 14's rule sends a problem to the copy engine (tma=auto|on|off), these kernels; else step
// 13. blocks=N sets the tail's shares.
void balanced_tail(const problem& p, const operands& x, const launch_context& launch_on) {
  if (copy_engine_chosen(p, x, launch_on, true)) {
    launch<16, 8>(p, x, launch_on);
  } else {
    wave_fitted_tiles(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
