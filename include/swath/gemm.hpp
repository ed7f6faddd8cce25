#pragma once
// The matrix-multiplication family: C = alpha · op(A) · op(B) + beta · C in float32, row-major with
// leading dimensions, op(A) M × K, op(B) K × N, C M × N, any M, N, K ≥ 1; op = none or transpose.
// 2·M·N·K flops; the fewest bytes are one read of A and B, one write of C (and one read of C when
// beta ≠ 0). The CPU steps 02-03 follow the thesis's matrix-multiplication section for C = A · B: B is
// read down its columns, so the order in which C's columns are visited decides how often B leaves the
// cache; they take the plain problem only (supports() says so).
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "swath/core/hd.hpp"

#include "swath/registry.hpp"
#include "swath/core/stream.hpp"

namespace swath::gemm {

// A block-tile shape of the tunable CUDA step (08): block_m × block_n tiles of C, K walked in slices of
// block_k. Warps own 64 × 32 tiles, so block_m is a multiple of 64 and block_n of 32; the kernel is
// compiled for each entry of tile_policies, and only those can be asked for.
struct tile_policy {
  int block_m = 0, block_n = 0, block_k = 0;
  constexpr bool operator==(const tile_policy&) const = default;
  [[nodiscard]] constexpr int threads() const { return block_m / 64 * (block_n / 32) * 32; }
};
// The first is the default ("auto"): on an H200 it was the fastest at all five target sizes
// (bench/results/nvidia-h200/2026-11-21-gemm-policies-96f0ee0c12cf.json).
// The kernel's static rules: warp tiles of 64 × 32, chunks of four along either panel dimension, at
// most 1024 threads, and the two double-buffered panels of each operand within 48 KiB of static
// shared memory.
constexpr bool compilable(const tile_policy& policy) {
  const int panels_bytes = 2 * policy.block_k * ((policy.block_m + 4) + (policy.block_n + 4)) * 4;
  return policy.block_m > 0 && policy.block_n > 0 && policy.block_k > 0 && policy.block_m % 64 == 0 &&
         policy.block_n % 32 == 0 && policy.block_k % 4 == 0 && policy.threads() <= 1024 && panels_bytes <= 48 * 1024;
}
inline constexpr tile_policy tile_policies[] = {{128, 128, 16}, {128, 128, 8}, {128, 256, 8}, {256, 128, 8}, {64, 128, 16}};
static_assert([] {
  for (const tile_policy& policy : tile_policies) {
    if (!compilable(policy)) return false;
  }
  return true;
}(), "every compiled tile policy follows the kernel's rules");
std::string policy_name(const tile_policy& policy);   // "128x128x8"
std::string policy_names(std::string_view separator);  // every compiled policy's name
std::optional<tile_policy> find_policy(std::string_view name);  // the compiled one named "MxNxK"

struct problem {
  std::int64_t m = 1, n = 1, k = 1;
  float alpha = 1, beta = 0;
  bool trans_a = false;  // op(A) = A^T: A is stored K × M
  bool trans_b = false;  // op(B) = B^T: B is stored N × K
  // Elements between the starts of consecutive rows of A, B and C as stored; at least their row
  // lengths (make_problem packs them unless told to pad).
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  // A batch of equal products (sgemm_strided_batched): product b reads A + b·stride_a and B + b·stride_b
  // and writes C + b·stride_c. batch = 1 is one product; its strides are not read.
  std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  // The steps' own settings (tiles, bands, grids, paths) are not here: each step reads its policy from
  // the launch (src/gemm/policies.hpp).
};

// The stored shapes, and the elements of op(A) and op(B) wherever they are stored.
SWATH_HD_INLINE std::int64_t rows_of_a(const problem& p) { return p.trans_a ? p.k : p.m; }
SWATH_HD_INLINE std::int64_t cols_of_a(const problem& p) { return p.trans_a ? p.m : p.k; }
SWATH_HD_INLINE std::int64_t rows_of_b(const problem& p) { return p.trans_b ? p.n : p.k; }
SWATH_HD_INLINE std::int64_t cols_of_b(const problem& p) { return p.trans_b ? p.k : p.n; }
SWATH_HD_INLINE std::int64_t index_of_a(const problem& p, std::int64_t i, std::int64_t kk) {
  return p.trans_a ? kk * p.lda + i : i * p.lda + kk;
}
SWATH_HD_INLINE std::int64_t index_of_b(const problem& p, std::int64_t kk, std::int64_t j) {
  return p.trans_b ? j * p.ldb + kk : kk * p.ldb + j;
}
// C = A · B exactly as the thesis's steps compute it: no transposes, alpha 1, beta 0, packed rows.
SWATH_HD_INLINE bool plain(const problem& p) {
  return p.batch == 1 && !p.trans_a && !p.trans_b && p.alpha == 1 && p.beta == 0 && p.lda == p.k && p.ldb == p.n && p.ldc == p.n;
}

struct operands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;  // read too when beta ≠ 0
};

struct variant {
  variant_info info;
  support (*supports)(const problem&) = nullptr;
  void (*run)(const problem&, const operands&, const launch_context&) = nullptr;
  work_amount (*work)(const problem&) = nullptr;
};

work_amount gemm_work(const problem& p);
support any_gemm(const problem& p);      // any one product (batch = 1)
support any_batched_gemm(const problem& p);  // any product, batched or not
support plain_gemm(const problem& p);    // C = A · B only (see plain())

// Relative tolerance for float accumulation over K positive products (and the alpha and beta terms):
// each result is within (K + 2) · 2^-24 of the exact value; twice that passes.
double tolerance(const problem& p);

// The library's steps of this family (src/gemm/registry.cpp), in reading order; CUDA rows only in
// CUDA builds. The lab adds the vendor baselines and the entry points' rows (swath/lab/gemm.hpp).
std::span<const variant> steps();

// ---- The library call ----------------------------------------------------------------------------
// C = alpha · op(A) · op(B) + beta · C in float32, row-major: op(A) is M × K, op(B) K × N, C M × N, and
// lda, ldb, ldc are the elements between the starts of consecutive rows of A, B and C as stored (A is
// K × M when op_a is transpose, B is N × K when op_b is). M, N or K = 0 is allowed: M or N = 0 does
// nothing, K = 0 scales C by beta (as BLAS does). beta = 0 never reads C.
//
// With A, B and C in device memory (cudaMalloc, or managed), the product runs on `stream`'s device,
// asynchronously on the stream, with the fastest step the dispatch knows for that GPU and shape
// (docs/library.md). With all three in host memory, it runs on the CPU's OpenMP threads and returns
// when done. Throws swath::usage_error naming the argument, before anything runs and without touching
// C, for a negative size, a null pointer that is needed, a leading dimension shorter than its row,
// operands split between host and device, operands on another device than the stream's, or a GPU this
// build has no code for.
enum class op { none, transpose };
void sgemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
           std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc,
           stream_t stream = nullptr);

// `batch` products of the same shape and ops, as cublasSgemmStridedBatched: product b computes
// C_b = alpha · op(A_b) · op(B_b) + beta · C_b with A_b = a + b·stride_a, B_b = b + b·stride_b and
// C_b = c + b·stride_c (elements). Strides of A and B may be 0 (one operand shared by every product);
// C's products may not overlap: stride_c is at least C's stored extent, (M − 1)·ldc + N, when batch > 1.
// batch = 0 does nothing. Runs as sgemm does: on the stream's device, asynchronously, or on the CPU for
// host memory; throws swath::usage_error naming the argument before anything runs.
void sgemm_strided_batched(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                           const float* a, std::int64_t lda, std::int64_t stride_a, const float* b, std::int64_t ldb,
                           std::int64_t stride_b, float beta, float* c, std::int64_t ldc, std::int64_t stride_c,
                           std::int64_t batch, stream_t stream = nullptr);

}  // namespace swath::gemm

namespace swath {
using gemm::op;
using gemm::sgemm;
using gemm::sgemm_strided_batched;
}  // namespace swath
