#pragma once
// Step 10's pipeline, which steps 11 and 13 reuse: the block-tile shape, the three ways one operand's
// slice reaches shared memory by cp.async, the main loop over a range of K slices of one tile, the
// tile's epilogue, and the kernel that runs one tile a block over all of K (steps 10 and 13, at two
// tile widths). Step 11 runs the same loop over parts of K (stream-K). Why each piece is as it is:
// 10_async_pipeline.cu.
#include "../core/async_copy.cuh"
#include "../core/bulk_copy.cuh"
#include "../core/kernel_setup.cuh"
#include "gemm_cuda.cuh"

namespace swath::gemm::cuda {

using swath::cuda::commit_copies;
using swath::cuda::copy_async_or_zeros;
using swath::cuda::prepare_kernel;
using swath::cuda::shared_address;
using swath::cuda::wait_copies;

template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages>
struct pipeline_shape {
  static constexpr int thread_m = 8, thread_n = ThreadN;
  // Lanes as 8 × 4: a lane's rows are lane / 4 · 4 + {0..3, 32..35}, its columns lane % 4 · 4 + 16·j.
  static constexpr int warp_m = 8 * thread_m, warp_n = 4 * thread_n;
  static constexpr int warps_m = BlockM / warp_m, warps_n = BlockN / warp_n;
  static constexpr int threads = 32 * warps_m * warps_n;
  // Panels depth-major, rows padded to ≡ 4 mod 32 floats: 16-byte aligned rows, and the transposing
  // copies' 8 depths × 4 indices land in 32 distinct banks.
  static constexpr int a_pitch = BlockM + 4, b_pitch = BlockN + 4;
  static constexpr int a_floats = BlockK * a_pitch, b_floats = BlockK * b_pitch;
  static constexpr int stage_floats = a_floats + b_floats;
  static constexpr int shared_bytes = Stages * stage_floats * 4;
  // ThreadN 4 and 8: ≤ 128 registers, two blocks of 256 threads an SM; ThreadN 12 and 16: ≤ 255 registers.
  static constexpr int blocks_per_sm = threads * (ThreadN <= 8 ? 128 : 256) * 2 <= 65536 ? 2 : 1;
  static_assert(ThreadN == 4 || ThreadN == 8 || ThreadN == 12 || ThreadN == 16, "micro-tiles of 8 x 4 (step 21), 8 x 8, 8 x 12 or 8 x 16");
  static_assert(BlockM % warp_m == 0 && BlockN % warp_n == 0, "whole warp tiles");
  static_assert(BlockK % 8 == 0, "the transposing copies take 8 depths a warp");
  static_assert(Stages >= 2, "at least one slice in flight");
};

// How one operand's slice reaches shared memory. `wide` is M for op(A), N for op(B).
enum class copy_mode : int {
  transposing,  // stored wide-major: 4-byte copies, transposed on the way
  vector,       // stored deep-major with 16-byte aligned rows: 16-byte copies
  scalar,       // stored deep-major, rows not 16-byte aligned: 4-byte copies
};

__host__ __device__ inline copy_mode mode_of(const operand_view& v) {
  return v.contiguous_in_depth ? copy_mode::transposing : (v.vector_ok ? copy_mode::vector : copy_mode::scalar);
}

// One operand's Deep × Wide slice, copied by Threads threads into panel[d][w] (pitch Wide + 4). With
// Groups > 1 the block is that many groups of Threads threads, each copying its own slices (step 19).
template <int Wide, int Deep, int Threads, int Groups = 1>
struct slice_copier {
  // The copying thread's index within its group (one group: threadIdx.x itself, the code unchanged).
  __device__ __forceinline__ static int thread_in_group() {
    return Groups == 1 ? static_cast<int>(threadIdx.x) : static_cast<int>(threadIdx.x) % Threads;
  }
  static constexpr int pitch = Wide + 4;
  // transposing: a round of Threads copies covers 8 depths × Threads / 8 wide indices
  static constexpr int wide_per_round = Threads / 8;
  static_assert(Wide % wide_per_round == 0, "whole rounds of transposing copies");
  // vector: Deep × Wide / 4 pieces; scalar: Deep × Wide elements, in rounds of Threads (the last one
  // partial where a round does not cover whole rows: copy_uneven_rounds)

  // Copies the slice at (depth0, wide0), `depth_count` ≤ Deep deep, into the panel at shared address
  // `panel`. Checked: elements outside the matrix or past depth_count arrive as zeros; unchecked: the
  // caller knows the whole slice lies inside.
  // Longer than a screen, on purpose: the three copy modes are one switch over compile-time branches, so
  // that each instantiation is one straight path; the SGEMM loops' digests are of this code.
  template <bool Checked, copy_mode Mode>
  __device__ __forceinline__ static void copy(const operand_view& v, std::int64_t depth0,
                                              std::int64_t wide0, int depth_count, unsigned panel) {
    const int t = thread_in_group();
    if constexpr (Mode == copy_mode::transposing) {
      const int d = t % 8, w = t / 8;
      const float* source = v.data + (wide0 + w) * v.ld + depth0 + d;
      const std::int64_t round_step = static_cast<std::int64_t>(wide_per_round) * v.ld;
      const unsigned destination = panel + static_cast<unsigned>(d * pitch + w) * 4;
      SWATH_UNROLL
      for (int dr = 0; dr < Deep / 8; ++dr) {
        SWATH_UNROLL
        for (int wr = 0; wr < Wide / wide_per_round; ++wr) {
          const float* from = source + wr * round_step + dr * 8;
          const unsigned to = destination + static_cast<unsigned>(dr * 8 * pitch + wr * wide_per_round) * 4;
          if (Checked) {
            const bool inside = d + dr * 8 < depth_count && wide0 + w + wr * wide_per_round < v.wide;
            copy_async_or_zeros<4>(to, inside ? from : v.data, inside ? 4 : 0);
          } else {
            copy_async_or_zeros<4>(to, from, 4);
          }
        }
      }
    } else if constexpr (Threads % (Mode == copy_mode::vector ? Wide / 4 : Wide) != 0) {
      copy_uneven_rounds<Checked, Mode>(v, depth0, wide0, depth_count, panel);
    } else if constexpr (Mode == copy_mode::vector) {
      // Piece t + q · Threads lies rows_per_round · q rows below piece t, in the same column: the
      // sources are one pointer stepped by a row stride (a 64-bit add each), not a 64-bit multiply each.
      constexpr int pieces_per_row = Wide / 4, rows_per_round = Threads / pieces_per_row;
      static_assert(Threads % pieces_per_row == 0, "a round of pieces covers whole rows");
      static_assert(Deep * Wide / 4 % Threads == 0, "whole rounds of 16-byte copies");
      const int d = t / pieces_per_row, w = t % pieces_per_row * 4;
      const float* from = v.data + (depth0 + d) * v.ld + wide0 + w;
      const std::int64_t round_step = static_cast<std::int64_t>(rows_per_round) * v.ld;
      const unsigned to = panel + static_cast<unsigned>(d * pitch + w) * 4;
      // A piece that the matrix's edge cuts is copied float by float: a 16-byte copy that asks for
      // fewer source bytes would still name 16 bytes, past the end of the last row.
      const std::int64_t columns_left = v.wide - (wide0 + w);
      SWATH_UNROLL
      for (int q = 0; q < Deep * Wide / 4 / Threads; ++q, from += round_step) {
        const unsigned to_q = to + static_cast<unsigned>(q * rows_per_round * pitch) * 4;
        if (Checked) {
          const std::int64_t left = d + q * rows_per_round < depth_count ? columns_left : 0;
          if (left >= 4) {
            copy_async_or_zeros<16>(to_q, from, 16);
          } else {
            SWATH_UNROLL
            for (int e = 0; e < 4; ++e) copy_async_or_zeros<4>(to_q + 4 * e, e < left ? from + e : v.data, e < left ? 4 : 0);
          }
        } else {
          copy_async_or_zeros<16>(to_q, from, 16);
        }
      }
    } else {
      // As the vector copies: element t + q · Threads is rows_per_round · q rows below element t.
      constexpr int rows_per_round = Threads / Wide;
      static_assert(Threads % Wide == 0, "a round of elements covers whole rows");
      static_assert(Deep * Wide % Threads == 0, "whole rounds of 4-byte copies");
      const int d = t / Wide, w = t % Wide;
      const float* from = v.data + (depth0 + d) * v.ld + wide0 + w;
      const std::int64_t round_step = static_cast<std::int64_t>(rows_per_round) * v.ld;
      const unsigned to = panel + static_cast<unsigned>(d * pitch + w) * 4;
      const bool column_inside = wide0 + w < v.wide;
      SWATH_UNROLL
      for (int q = 0; q < Deep * Wide / Threads; ++q, from += round_step) {
        const unsigned to_q = to + static_cast<unsigned>(q * rows_per_round * pitch) * 4;
        if (Checked) {
          const bool inside = column_inside && d + q * rows_per_round < depth_count;
          copy_async_or_zeros<4>(to_q, inside ? from : v.data, inside ? 4 : 0);
        } else {
          copy_async_or_zeros<4>(to_q, from, 4);
        }
      }
    }
  }

  // The deep-major modes when a round of Threads copies does not cover whole rows of the slice (step
  // 13's 96-wide panel: 24 pieces or 96 floats a row, 256 threads). Copy t + q · Threads finds its own
  // row and column, and a thread past the slice's last copy does none. Each costs a 64-bit multiply-add
  // for its source, two or six a thread a 16-deep slice: next to 1536 FMAs, nothing.
  template <bool Checked, copy_mode Mode>
  __device__ __forceinline__ static void copy_uneven_rounds(const operand_view& v, std::int64_t depth0,
                                                            std::int64_t wide0, int depth_count, unsigned panel) {
    constexpr int width = Mode == copy_mode::vector ? 4 : 1;  // floats a copy
    constexpr int per_row = Wide / width, copies = Deep * per_row;
    const int t = thread_in_group();
    SWATH_UNROLL
    for (int q = 0; q < (copies + Threads - 1) / Threads; ++q) {
      const int copy = t + q * Threads;
      if (copies % Threads != 0 && copy >= copies) break;
      const int d = copy / per_row, w = copy % per_row * width;
      const float* from = v.data + (depth0 + d) * v.ld + wide0 + w;
      const unsigned to = panel + static_cast<unsigned>(d * pitch + w) * 4;
      // As above: a piece the matrix's edge cuts goes float by float.
      const std::int64_t left = !Checked || d < depth_count ? v.wide - (wide0 + w) : 0;
      if constexpr (Mode == copy_mode::vector) {
        if (!Checked || left >= 4) {
          copy_async_or_zeros<16>(to, from, 16);
        } else {
          SWATH_UNROLL
          for (int e = 0; e < 4; ++e) copy_async_or_zeros<4>(to + 4 * e, e < left ? from + e : v.data, e < left ? 4 : 0);
        }
      } else {
        const bool inside = !Checked || left > 0;
        copy_async_or_zeros<4>(to, inside ? from : v.data, inside ? 4 : 0);
      }
    }
  }
};


// Where K slice `slice` starts, and how deep it is: K in slices of BlockK, and when BlockK does not
// divide K the *first* slice is the partial one, so every later slice is whole.
template <int BlockK>
struct slice_split {
  int partial;          // K % BlockK
  std::int64_t slices;  // ceil(K / BlockK)
  __device__ __forceinline__ explicit slice_split(std::int64_t k)
      : partial(static_cast<int>(k % BlockK)), slices(k / BlockK + (k % BlockK > 0 ? 1 : 0)) {}
  [[nodiscard]] __device__ __forceinline__ std::int64_t depth0(std::int64_t slice) const {
    return slice == 0 ? 0 : (partial > 0 ? partial + (slice - 1) * BlockK : slice * BlockK);
  }
  [[nodiscard]] __device__ __forceinline__ int depth_count(std::int64_t slice) const {
    return slice == 0 && partial > 0 ? partial : BlockK;
  }
};

// sum += op(A)[i0.., slices] · op(B)[slices, j0..] over K slices [slice_begin, slice_end) of the
// tile at (i0, j0): the copies run Stages - 1 slices ahead of the FMAs. The caller has passed a
// barrier since anyone last read `stages`; on return no copy is in flight, but other warps may still
// read `stages` until the next barrier.
// Longer than a screen, on purpose: the pipeline's prologue, steady state and drain share
// its stage indices and sums; the loop digests (make sass) of steps 10-13 are of this body.
template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, copy_mode AMode, copy_mode BMode,
          int Groups = 1>
__device__ __forceinline__ void accumulate_slices(const operand_view& a, const operand_view& b, float* stages,
                                                  std::int64_t k, std::int64_t i0, std::int64_t j0,
                                                  std::int64_t slice_begin, std::int64_t slice_end, int row0,
                                                  int column0, float (&sum)[8][ThreadN]) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  using a_copier = slice_copier<BlockM, BlockK, s::threads, Groups>;
  using b_copier = slice_copier<BlockN, BlockK, s::threads, Groups>;
  // The barrier of the threads that share `stages`: the block's, or with Groups > 1 the group's own
  // (named barrier 1 + group over its s::threads threads; groups may run different slice counts).
  const auto stages_barrier = [] {
    if constexpr (Groups == 1) {
      __syncthreads();
    } else {
      const int group = static_cast<int>(threadIdx.x) / s::threads;
      asm volatile("bar.sync %0, %1;" ::"r"(1 + group), "n"(s::threads) : "memory");
    }
  };
  const bool interior = i0 + BlockM <= a.wide && j0 + BlockN <= b.wide;
  const slice_split<BlockK> split(k);
  const unsigned stages_address = shared_address(stages);

  // Slice `slice` into stage `stage`.
  const auto copy_slice = [&](std::int64_t slice, int stage) {
    const std::int64_t depth0 = split.depth0(slice);
    const int depth_count = split.depth_count(slice);
    const unsigned a_panel = stages_address + static_cast<unsigned>(stage * s::stage_floats) * 4;
    const unsigned b_panel = a_panel + s::a_floats * 4;
    if (interior && depth_count == BlockK) {
      a_copier::template copy<false, AMode>(a, depth0, i0, BlockK, a_panel);
      b_copier::template copy<false, BMode>(b, depth0, j0, BlockK, b_panel);
    } else {
      a_copier::template copy<true, AMode>(a, depth0, i0, depth_count, a_panel);
      b_copier::template copy<true, BMode>(b, depth0, j0, depth_count, b_panel);
    }
  };

  SWATH_UNROLL
  for (int stage = 0; stage < Stages - 1; ++stage) {
    if (slice_begin + stage < slice_end) copy_slice(slice_begin + stage, stage);
    commit_copies();  // empty groups too: group g always holds slice slice_begin + g
  }
  wait_copies<Stages - 2>();  // the first slice has landed (this thread's copies)...
  stages_barrier();           // ...and everyone's

  // The fragments of depth kk + 1 are read from shared memory while the FMAs of depth kk run, across
  // slice boundaries too: the block waits for slice s + 1 at the last depth of slice s, so the first
  // reads of a slice overlap the last 64-128 FMAs of the one before.
  float a_values[2][8], b_values[2][ThreadN];
  const auto read_fragments = [&](const float* stage, int kk, float(&a_out)[8], float(&b_out)[ThreadN]) {
    read_eight(stage + kk * s::a_pitch + row0, 32, a_out);
    SWATH_UNROLL
    for (int j = 0; j < ThreadN / 4; ++j) {
      const float4 four = *reinterpret_cast<const float4*>(stage + s::a_floats + kk * s::b_pitch + column0 + 16 * j);
      b_out[4 * j] = four.x, b_out[4 * j + 1] = four.y, b_out[4 * j + 2] = four.z, b_out[4 * j + 3] = four.w;
    }
  };
  int read_stage = 0, write_stage = Stages - 1;
  const float* reading = stages;
  read_fragments(reading, 0, a_values[0], b_values[0]);
  for (std::int64_t slice = slice_begin; slice < slice_end; ++slice) {
    // The stage refilled here was last read in slice - 1, before the barrier that ended it.
    if (slice + Stages - 1 < slice_end) copy_slice(slice + Stages - 1, write_stage);
    commit_copies();
    SWATH_UNROLL
    for (int kk = 0; kk < BlockK; ++kk) {
      if (kk == BlockK - 1) {
        wait_copies<Stages - 2>();  // slice + 1 has landed (this thread's copies)...
        stages_barrier();           // ...everyone's, and nobody reads this slice's stage any more
        read_stage = read_stage + 1 == Stages ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == Stages ? 0 : write_stage + 1;
        reading = stages + read_stage * s::stage_floats;
      }
      read_fragments(reading, (kk + 1) % BlockK, a_values[(kk + 1) % 2], b_values[(kk + 1) % 2]);
      // Rows inner: one B value feeds 8 FMAs in a row. The other order (B inner) was 1.7% slower at
      // 4096³ and 8192³, and five blocked and serpentine orders 0.6-4% slower (docs/journal/gemm.md, step
      // 10's FMA orders): the order steers ptxas's scheduling and register allocation.
      SWATH_UNROLL
      for (int q = 0; q < ThreadN; ++q) {
        SWATH_UNROLL
        for (int r = 0; r < 8; ++r) sum[r][q] += a_values[kk % 2][r] * b_values[kk % 2][q];
      }
    }
  }
  wait_copies<0>();  // no copy may still be writing when the block exits or starts another tile
}

// C's tile at (i0, j0) = alpha · sum + beta · C, a thread's rows row0 + {0..3, 32..35}, its columns
// column0 + {0..3} + 16·j.
template <int ThreadN>
__device__ __forceinline__ void store_tile(const problem& p, float* c, bool c_vector_ok, std::int64_t i0,
                                           std::int64_t j0, int row0, int column0, const float (&sum)[8][ThreadN]) {
  SWATH_UNROLL
  for (int r = 0; r < 8; ++r) {
    const std::int64_t i = i0 + row0 + r % 4 + r / 4 * 32;
    SWATH_UNROLL
    for (int j = 0; j < ThreadN / 4; ++j) {
      store_four(p, c, c_vector_ok, i, j0 + column0 + 16 * j,
                 make_float4(sum[r][4 * j], sum[r][4 * j + 1], sum[r][4 * j + 2], sum[r][4 * j + 3]));
    }
  }
}

// With blocks=auto, waves of whole 256 × 128 tiles at least this full are run as they are: step 11
// sends them to step 10's kernel (its own main loop ran 3-5% slower than step 10's at the same work on
// an H200: 4096³ on 128 blocks, 4 rounds of whole tiles, 2.97 ms against 2.82, more than a 90%-full
// last wave loses), and step 13 keeps them rather than take its narrower tile.
constexpr double full_enough = 0.9;

// The share of all the waves' places that `tiles` fill, `places` at a time: tiles / (waves · places).
inline double wave_fill(std::int64_t tiles, std::int64_t places) {
  const std::int64_t waves = (tiles + places - 1) / places;
  return static_cast<double>(tiles) / static_cast<double>(waves * places);
}

// Calls launch(a_mode, b_mode) with the copy modes of these operand views as compile-time values
// (std::integral_constant): one kernel per pair of modes, nine pairs.
template <class Launch>
void with_copy_modes(const operand_view& a, const operand_view& b, Launch&& launch) {
  const auto with_b = [&](auto a_mode) {
    switch (mode_of(b)) {
      case copy_mode::transposing: return launch(a_mode, std::integral_constant<copy_mode, copy_mode::transposing>{});
      case copy_mode::vector: return launch(a_mode, std::integral_constant<copy_mode, copy_mode::vector>{});
      case copy_mode::scalar: return launch(a_mode, std::integral_constant<copy_mode, copy_mode::scalar>{});
    }
  };
  switch (mode_of(a)) {
    case copy_mode::transposing: return with_b(std::integral_constant<copy_mode, copy_mode::transposing>{});
    case copy_mode::vector: return with_b(std::integral_constant<copy_mode, copy_mode::vector>{});
    case copy_mode::scalar: return with_b(std::integral_constant<copy_mode, copy_mode::scalar>{});
  }
}
// The problem's operands as stored.
template <class Launch>
void with_copy_modes(const problem& p, const operands& x, Launch&& launch) {
  with_copy_modes(view_of_a(p, x.a), view_of_b(p, x.b), std::forward<Launch>(launch));
}

// Step 13 moves a tile at the bottom or right edge back inside the matrix, so that every copy of its
// slices is unchecked; it then stores only the rows and columns it owns. With one tile a block the
// slowest tile ends the kernel, and tiles with checked copies were the slowest. Rows move when M
// holds a whole tile (and, for 16-byte copies of A, keeps the rows' alignment: M a multiple of 4);
// columns when N holds a whole tile and is a multiple of 4 (B's 16-byte copies and C's 16-byte
// stores stay aligned).
struct edge_shift {
  bool rows = false, columns = false;
};

template <int BlockM, int BlockN>
edge_shift edge_shift_for(const problem& p, copy_mode a_mode) {
  return {p.m >= BlockM && (a_mode != copy_mode::vector || p.m % 4 == 0), p.n >= BlockN && p.n % 4 == 0};
}

// C's tile at (i0, j0) = alpha · sum + beta · C, only rows from own_i0 and columns from own_j0: the
// part of a shifted tile that it owns (a thread's four columns are owned or not together: j0 and
// own_j0 are multiples of 4). Not store_tile's body: with own_i0 = i0 and own_j0 = j0, ptxas keeps the
// two tests and steps 10-11's machine code changes.
template <int ThreadN>
__device__ __forceinline__ void store_owned(const problem& p, float* c, bool c_vector_ok, std::int64_t i0,
                                            std::int64_t j0, std::int64_t own_i0, std::int64_t own_j0, int row0,
                                            int column0, const float (&sum)[8][ThreadN]) {
  SWATH_UNROLL
  for (int r = 0; r < 8; ++r) {
    const std::int64_t i = i0 + row0 + r % 4 + r / 4 * 32;
    if (i < own_i0) continue;
    SWATH_UNROLL
    for (int j = 0; j < ThreadN / 4; ++j) {
      const std::int64_t column = j0 + column0 + 16 * j;
      if (column < own_j0) continue;
      store_four(p, c, c_vector_ok, i, column,
                 make_float4(sum[r][4 * j], sum[r][4 * j + 1], sum[r][4 * j + 2], sum[r][4 * j + 3]));
    }
  }
}

// One block a tile over all of K: step 10 at 256 × 128 × 8 (8 × 16 a thread), step 13 at 256 × 96 × 16
// (8 × 12) with its edge tiles shifted.
template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, copy_mode AMode, copy_mode BMode, bool ShiftEdges>
__global__ void __launch_bounds__(pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::threads,
                                  pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>::blocks_per_sm)
    one_tile_per_block_kernel(walked_problem p, operand_view a, operand_view b, float* c, bool c_vector_ok, edge_shift shift) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  extern __shared__ __align__(16) float stages[];
  const schedule::tile_coordinate tile = tile_for_block(p, blockIdx.x, BlockM, BlockN);
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int row0 = warp / s::warps_n * s::warp_m + lane / 4 * 4;
  const int column0 = warp % s::warps_n * s::warp_n + lane % 4 * 4;
  const std::int64_t own_i0 = tile.y * BlockM, own_j0 = tile.x * BlockN;
  std::int64_t i0 = own_i0, j0 = own_j0;
  if constexpr (ShiftEdges) {
    if (shift.rows) i0 = min(i0, p.m - BlockM);
    if (shift.columns) j0 = min(j0, p.n - BlockN);
  }
  float sum[8][ThreadN] = {};
  accumulate_slices<BlockM, BlockN, BlockK, ThreadN, Stages, AMode, BMode>(
      a, b, stages, p.k, i0, j0, 0, slice_split<BlockK>(p.k).slices, row0, column0, sum);
  if constexpr (ShiftEdges) {
    store_owned(p, c, c_vector_ok, i0, j0, own_i0, own_j0, row0, column0, sum);
  } else {
    store_tile(p, c, c_vector_ok, i0, j0, row0, column0, sum);
  }
}

template <int BlockM, int BlockN, int BlockK, int ThreadN, int Stages, bool ShiftEdges = false>
void launch_one_tile_per_block(const problem& p, const operands& x, const launch_context& launch_on) {
  using s = pipeline_shape<BlockM, BlockN, BlockK, ThreadN, Stages>;
  const cudaStream_t stream = stream_of(launch_on);
  with_copy_modes(p, x, [&](auto a_mode, auto b_mode) {
    constexpr auto kernel =
        one_tile_per_block_kernel<BlockM, BlockN, BlockK, ThreadN, Stages, a_mode.value, b_mode.value, ShiftEdges>;
    // Sets the shared-memory limit; the resident count is not needed with one block a tile.
    const int blocks_per_sm = prepare_kernel(kernel, s::threads, s::shared_bytes);
    (void)blocks_per_sm;
    const edge_shift shift = ShiftEdges ? edge_shift_for<BlockM, BlockN>(p, a_mode.value) : edge_shift{};
    kernel<<<blocks_for_tiles(p, BlockM, BlockN), s::threads, s::shared_bytes, stream>>>(
        walked(p, launch_on), view_of_a(p, x.a), view_of_b(p, x.b), x.c, aligned16(x.c, p.ldc), shift);
    SWATH_CHECK_LAST();
  });
}

}  // namespace swath::gemm::cuda
