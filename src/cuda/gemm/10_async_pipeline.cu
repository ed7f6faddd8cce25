// CUDA step 10: a three-stage pipeline of asynchronous copies (Ampere's cp.async, LDGSTS) straight
// from global into shared memory, 256 × 128 block tiles of 8 warps, an 8 × 16 micro-tile a thread.
//
// Step 09 stages every slice through registers (16 floats a thread, held from the load to the store),
// has one slice of loads in flight, and leaves the unaligned leading dimensions (4095³, 8191 × 257 ×
// 4099) to step 08's predicated scalar loads. Here:
//  - each operand's slice is copied by cp.async into one of three shared-memory stages, two slices
//    ahead; no staging registers, so a thread can hold 128 accumulators (8 × 16) in its 255;
//  - an operand stored deep-major (rows along K: B as stored, A transposed) is copied in 16-byte
//    pieces when its rows are 16-byte aligned, else in 4-byte ones. One stored wide-major (rows along
//    M or N: A as stored, B transposed) is copied float by float, which transposes it on the way: a
//    warp takes 8 depths × 4 wide indices, 32-byte pieces of 4 rows in global memory and 32 distinct
//    banks in shared memory (pitch ≡ 4 mod 32 floats). Every alignment takes the same pipeline;
//  - edges cost nothing in the loop: a copy whose element lies outside the matrix asks for 0 source
//    bytes and cp.async fills its destination with zeros. Interior blocks copy without any test; a K
//    that is not a multiple of 8 makes the *first* slice the partial one;
//  - the fragments of the next depth are read while the FMAs of this one run, across slice
//    boundaries too (the block waits for slice s + 1 at the last depth of slice s);
//  - warps own 64 × 64 tiles, a lane 2 × 4 blocks of 4 × 4: per depth 2 LDS.128 of A and 4 of B for
//    128 FMAs (step 09: 4 for 64).
// The shape is the fastest of twelve measured (docs/gemm.md: 128 × 128, 128 × 256 and 256 × 128
// tiles, 8 × 8 and 8 × 16 micro-tiles, 3 or 4 stages, slices of 8 or 16).
//
// Prediction (written before the first run, for 128 × 128 × 16 at 8 × 8): per slice ~1024 FMAs, 64
// LDS.128 and 10 copies (4 issue slots each: ptxas pads every LDGSTS with three predicated-off shared
// loads), about step 09's issue count; the loads get 2-3 slices to land instead of one, and no thread
// waits on a register store before the barrier: ≈ +5% at 4096³ and 8192³ (≈ 0.97x cuBLAS), and 4095³
// from 0.81x to ≈ 0.95x as every operand takes the same copy path. Outcome (H200): that first version
// was 5-8% *slower* than 09 and the 8 × 16 shapes no better; reading the next depth's fragments
// across slice boundaries gave +6-9% to the 8 × 16 shapes, the row-inner order of the FMAs +1.7%,
// and this shape reaches 0.95x cuBLAS at 4096³, 0.96x at 8192³, 0.90x at 4095³. 4095³ lost its
// extra 12% to B's 4-byte copies, whose addresses were one 64-bit multiply each; as one pointer stepped
// by a row stride they run at 0.96x cuBLAS (docs/gemm.md has every version).
#include "async_pipeline.cuh"

namespace swath::gemm::cuda {

void async_pipeline(const problem& p, const operands& x, const launch_context& launch_on) {
  launch_one_tile_per_block<256, 128, 8, 16, 3>(p, x, stream_of(launch_on));
}

}  // namespace swath::gemm::cuda
