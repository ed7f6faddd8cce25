// CUDA step 20: op(A) and op(B) rewritten deep-major with 16-byte rows first, then step 19 (or 17) on
// the rewritten pair, so every one of the kernel's copies is a 16-byte one.
// - What changed from 19: steps 17 and 19 copy an operand 16 bytes at a time only where it is stored
//   deep-major (op(A) as A^T, op(B) as B) with rows a whole number of 16 bytes apart: op = tn with
//   aligned rows. Every other layout is copied 4 bytes at a time: a transposing copy for A as stored
//   (nn, nt) and B^T (nt, tt), a float-by-float one for rows of odd length (767³, 1023³: every op).
//   At 1024³ the one 16-byte layout, tn, ran 52.3 µs, nn 57.3 and nt 65.2 (H100, the suite); 1023³ ran
//   60-71 µs in every op. Here each operand that is not already so is rewritten into the stream's
//   workspace (copy_engine.cuh's deep_major_of, step 14's rewrite: rows padded to 128 bytes, 8 bytes
//   moved an element), and the product runs as tn on the rewritten pair.
// - Settings: fit, groups, splits (step 19's, which it runs: groups=1 runs step 17). A batch is handed
//   to step 19 as it is: rewriting 1024 products of 64 × 64 × 64 would move as many bytes as the
//   products read, for 64 FMAs an element.
// - Prediction (H100, same-run cuBLAS): the rewrite moves 8 bytes an element of each rewritten operand
//   at ~2.5 TB/s (both of 1023³'s: 16 MiB, ~6 µs with its two launches), and the kernel then runs at
//   the tn speed of the even square: 1023³ 60-71 → ~59 µs in every op (~0.95x), 1024³ nt 65 → ~57 µs,
//   767³ 46-54 → ~44 µs; no gain at 511³ and below, where ~3 µs of rewrite is 15% of the product.
// - Outcome (H200, the tuner beside cuBLAS): the prediction held where the rewrite is small beside the
//   product, not at the odd squares. It won 8 cases: 1024³ nn 57.5 µs (1.01x; before 62.4), nt 62.0
//   (0.97x; 70.8), tt 57.2 (0.96x; 61.4), 768³ nt, and 3071³ nt / 3072³ nn, nt, tt (3072³ nt 1221 µs
//   against 1357, 1.20x). At 767³, 1023³ and 2047³ step 19 or 16 stayed faster in every op: a
//   transposing rewrite of a 4 MiB operand costs ~5 µs (twice the prediction), and the kernel on 1023³'s
//   padded pair did not reach 1024³'s speed. docs/journal/gemm.md, step 20.
// - v2: the rewrite writes its rows' pad as zeros, and the kernel reads the rows to there, so the edge
//   tiles' copies are 16 bytes wide too. Prediction: the kernel at the even square's speed. Outcome
//   (H200): its kernel at 1023³ 80.0 → 63.7 µs (64 × 64 tiles); the tuner takes it at 1023³ nt and tt
//   (nt 69.7 → 63.6 µs, 0.92x). docs/journal/gemm.md, "The parts' rows, and step 20 reading its pad".
// - v3: op(A) and op(B) rewritten in one launch (copy_engine.cuh's deep_major_pair_of). Prediction: one
//   launch's ~2-3 µs saved where both are rewritten. Outcome (H200, A/B): 1023³ nt/tt 64.0 → 61.8 µs,
//   1024³ nt 60.5 → 57.7, 2047³ 370 → 366. docs/journal/gemm.md, "The parts' pass: ... the rewrites in
//   one launch".
// - v4, tried and not kept: the tiles' kernel launched as the rewrite's programmatic dependent (placed
//   as the rewrite's blocks start, waiting at entry). Prediction: 1-2 µs off every product. Outcome
//   (H200, the tuner): the fastest settings moved within ±0.8 µs (1023³ 61.2-61.4 → 61.6-61.7 µs,
//   1024³ nn 56.4 → 55.6), and the settings that fit several blocks an SM ran 1.3-2.3x slower (1024³
//   nn, 64 × 64 tiles, one warp group: 59.2 → 139.3 µs). docs/journal/gemm.md, "The tiles as the
//   rewrite's dependent".
#include "copy_engine.cuh"
#include "gemm_cuda.cuh"
#include "split_k.cuh"

namespace swath::gemm::cuda {

void rewritten_operands(const problem& p, const operands& x, const launch_context& launch) {
  if (p.batch != 1 || p.k == 0 || p.m == 0 || p.n == 0) return sliced_k(p, x, launch);
  const cudaStream_t stream = stream_of(launch);
  // deep_major_of leaves an operand that is already deep-major with 16-byte rows where it is.
  const deep_major_pair rows = deep_major_pair_of(view_of_a(p, x.a), view_of_b(p, x.b), stream);
  const deep_major &a = rows.a, &b = rows.b;
  problem tn = p;  // op(A) = A^T: A stored K × M; op(B) = B: stored K × N
  tn.trans_a = true, tn.lda = a.ld;
  tn.trans_b = false, tn.ldb = b.ld;
  // The kernel reads the rewritten rows to their padded ends, so its edge tiles copy 16 bytes at a time.
  sliced_k_with_pad(tn, {a.data, b.data, x.c}, launch, {a.readable_wide, b.readable_wide});
}

}  // namespace swath::gemm::cuda
