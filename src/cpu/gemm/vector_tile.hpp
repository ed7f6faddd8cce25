#pragma once
// What CPU gemm steps 04 and 05 share: a tile of C 32 columns wide whose sums live in 512-bit vector
// registers while the step walks K.
#include <cstdint>

namespace swath::gemm::cpu {

constexpr int tile_columns = 32;

// g++ vectorises with 256-bit registers on AVX-512 CPUs unless told otherwise (-mprefer-vector-width);
// the tile's 8 x 32 sums are then 32 vectors, more than the 32 registers beside B's row and A's
// broadcast. With 512-bit vectors they are 16 (alone, measured on the 2-vCPU Xeon: 1024^3 97.8 ->
// 70.1 ms, the sums still on the stack).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SWATH_WIDE_VECTORS __attribute__((target("prefer-vector-width=512")))
#else
#define SWATH_WIDE_VECTORS
#endif

// Sixteen floats as one value: g++ keeps an array of floats in memory across the k loop even when every
// index is a constant, but Rows x 2 of these (one AVX-512 register each; four SSE ones elsewhere), the
// row loop unrolled, stay in registers.
using vector16 = float __attribute__((vector_size(64)));
static_assert(tile_columns == 2 * 16, "a whole tile is two 16-float vectors a row");

}  // namespace swath::gemm::cpu
