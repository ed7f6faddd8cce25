#pragma once
// What the copy-engine steps (14, 15) share: step 10's 256 × 128 tile as the copy engine's boxes fill
// it, the rewrite of an operand the copy engine cannot read as stored, the tensor maps, and the rule
// for where the copy engine pays. Why each is as it is: 14_copy_engine.cu.
#include <cuda.h>

#include <cstdint>

#include "../core/bulk_copy.cuh"
#include "async_pipeline.cuh"

namespace swath::gemm::cuda {

// Step 10's block tile: 256 × 128, 8 warps of 64 × 64, 8 × 16 results a lane.
constexpr int tile_m = 256, tile_n = 128;

template <int BlockK, int Stages>
struct engine_shape {
  // Panels depth-major and dense, as the boxes land: a lane's reads are 8 (A) and 4 (B) distinct
  // 16-byte pieces side by side, so no padding is needed against bank conflicts.
  static constexpr int a_floats = BlockK * tile_m, b_floats = BlockK * tile_n;
  static constexpr int stage_floats = a_floats + b_floats;
  static constexpr unsigned stage_bytes = stage_floats * 4;
  static constexpr unsigned barriers_at = Stages * stage_bytes;  // full[Stages], then empty[Stages]
  static constexpr int shared_bytes = static_cast<int>(barriers_at) + 2 * Stages * 8;
  static_assert(stage_bytes % 1024 == 0, "every panel starts 128-byte aligned, as the copy engine needs");
  static_assert(BlockK <= 256, "a box is at most 256 elements along either dimension");
};

// The compute warps' walk over a tile's slices (steps 14 and 15): step 10's lanes (rows row0 + {0..3,
// 32..35}, columns column0 + {0..3} + 16·j), 8 × 16 results a lane, the FMA order with rows inner, and
// the next depth's fragments read during the FMAs of this one, across slice boundaries too. Whether
// the next stage has landed is asked without waiting at the slice's second depth, so the check's
// latency hides behind the FMAs; a thread waits at the slice's last depth only if the answer was no.
// Step 14's thread 0 also feeds the stages from inside this loop: `ask(slice)` runs at depths 1 and
// BlockK / 2 + 1, `before_waiting(slice)` at the last depth when a next slice comes (step 15: no-ops).
// A lane's fragments of depth kk in a stage: 8 of op(A) (rows row0 + {0..3, 32..35}) and 16 of op(B)
// (columns column0 + {0..3} + 16·j).
template <int BlockK, int Stages>
__device__ __forceinline__ void read_fragments(const float* stage, int kk, int row0, int column0, float (&a_out)[8],
                                               float (&b_out)[16]) {
  using s = engine_shape<BlockK, Stages>;
  read_eight(stage + kk * tile_m + row0, 32, a_out);
  SWATH_UNROLL
  for (int j = 0; j < 4; ++j) {
    const float4 four = *reinterpret_cast<const float4*>(stage + s::a_floats + kk * tile_n + column0 + 16 * j);
    b_out[4 * j] = four.x, b_out[4 * j + 1] = four.y, b_out[4 * j + 2] = four.z, b_out[4 * j + 3] = four.w;
  }
}

template <int BlockK, int Stages, class Ask, class BeforeWaiting>
__device__ __forceinline__ void multiply_slices(const float* stages, unsigned full, unsigned empty, int slices, int row0,
                                                int column0, float (&sum)[8][16], Ask&& ask,
                                                BeforeWaiting&& before_waiting) {
  using s = engine_shape<BlockK, Stages>;
  float a_values[2][8], b_values[2][16];
  const auto read = [&](const float* stage, int kk, float(&a_out)[8], float(&b_out)[16]) {
    read_fragments<BlockK, Stages>(stage, kk, row0, column0, a_out, b_out);
  };
  // The stage being read and its "full" phase's parity.
  int stage = 0;
  unsigned parity = 0;
  const float* reading = stages;
  swath::cuda::wait_phase(full, 0);
  read(reading, 0, a_values[0], b_values[0]);
  for (int slice = 0; slice < slices; ++slice) {
    bool next_landed = false;
    SWATH_UNROLL
    for (int kk = 0; kk < BlockK; ++kk) {
      if (kk == 1) {
        const int next = stage + 1 == Stages ? 0 : stage + 1;
        next_landed = slice + 1 < slices && swath::cuda::phase_complete(full + 8 * next, next == 0 ? parity ^ 1 : parity);
      }
      if (kk == 1 || kk == BlockK / 2 + 1) ask(slice);
      if (kk == BlockK - 1) {
        // This thread's reads of the stage were issued at kk - 1; the release of the arrival orders
        // them before the copy engine's refill.
        swath::cuda::arrive(empty + 8 * stage);
        if (++stage == Stages) stage = 0, parity ^= 1;
        if (slice + 1 < slices) {
          before_waiting(slice);
          if (!next_landed) swath::cuda::wait_phase(full + 8 * stage, parity);
        }
        reading = stages + stage * s::stage_floats;
      }
      // On the last slice this reads a stage nobody refills any more: harmless, and no branch.
      read(reading, (kk + 1) % BlockK, a_values[(kk + 1) % 2], b_values[(kk + 1) % 2]);
      SWATH_UNROLL
      for (int q = 0; q < 16; ++q) {
        SWATH_UNROLL
        for (int r = 0; r < 8; ++r) sum[r][q] += a_values[kk % 2][r] * b_values[kk % 2][q];
      }
    }
  }
}

// The operand as the copy engine reads it: as stored where its rows run along the wide dimension and
// lie a whole number of 16 bytes apart, else rewritten that way (rows padded to whole 128-byte lines)
// into the stream's workspace, kept from call to call (`which`: 0 for op(A), 1 for op(B)), on `stream`.
struct deep_major {
  const float* data;
  std::int64_t ld;
  // How far along a row may be read: the rewrite writes its rows to ld, the pad as zeros (so a copy of
  // the edge tile's last columns may be 16 bytes wide: step 20); an operand left where it is, its own
  // width.
  std::int64_t readable_wide;
};
deep_major deep_major_of(const operand_view& v, int which, cudaStream_t stream);
// op(A) and op(B) as deep_major_of leaves them, both rewritten in one launch where both must be: at
// 1023³ the two launches took ~4.5-5.5 µs each (ncu, H200) for 8 MB moved apiece; in one, 1023³ nt and
// tt ran 64.0 → 61.8 µs, 1024³ nt 60.5 → 57.7, 2047³ 370 → 366 (H200; docs/journal/gemm.md, "The
// parts' pass ... and the rewrites in one launch").
struct deep_major_pair {
  deep_major a, b;
};
deep_major_pair deep_major_pair_of(const operand_view& a, const operand_view& b, cudaStream_t stream);

// op(X)'s K × wide rows as a 2D tensor (wide along x), whose box is one stage's slice: Wide × BlockK.
CUtensorMap slices_of(const deep_major& x, std::int64_t wide, std::int64_t deep, int box_wide, int box_deep);

// The copy engine's view of op(A) and op(B) as slices BlockK deep, each rewritten first where it must
// be (deep_major_of).
struct slice_maps {
  CUtensorMap a, b;
};
template <int BlockK>
slice_maps slice_maps_of(const problem& p, const operands& x, cudaStream_t stream) {
  SWATH_EXPECTS(p.m <= 0x7fffffff && p.n <= 0x7fffffff && p.k <= 0x7fffffff - BlockK,
                "gemm steps 14-16: the copy engine's coordinates are 32-bit");
  const deep_major_pair rows = deep_major_pair_of(view_of_a(p, x.a), view_of_b(p, x.b), stream);
  return {slices_of(rows.a, p.m, p.k, tile_m, BlockK), slices_of(rows.b, p.n, p.k, tile_n, BlockK)};
}

// Whether a copy-engine kernel runs (steps 14-16; else step 13): always with tma=on, never with
// tma=off, and with tma=auto where its 256 × 128 tiles pay: two or more waves, at least 90% full
// unless the caller balances the last one (step 16: tail_balanced), and the rewrite of the operands at
// most ~4% of the product.
bool copy_engine_chosen(const problem& p, const operands& x, const launch_context& launch_on, bool tail_balanced = false);

}  // namespace swath::gemm::cuda
