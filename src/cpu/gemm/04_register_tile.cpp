// Step 04 (CPU gemm): step 03's bands of B, with a tile of C held in registers across all of K. Each
// thread takes `rows` rows of C and 32 columns (two AVX-512 vectors) at a time and keeps their sums in
// registers while it walks K: per k it loads 32 floats of B and `rows` elements of A for 2·rows vector
// FMAs, where step 03 loaded and stored C's row for every one.
// - Setting: rows=1|2|4|8 (src/gemm/policies.hpp, register_rows_setting).
// - Prediction (before the run, 2-vCPU Xeon with AVX-512, 108 GFLOP/s FMA ceiling measured; step 03
//   7.2 GFLOP/s at 1024^3, OpenBLAS 67): FMA-bound rather than load-bound, 40-50 GFLOP/s at 1024^3,
//   5-7x step 03 and 0.6-0.75x OpenBLAS (no packing of B: its rows are n floats apart); rows=8 ahead
//   of 4 (0.625 loads an FMA instead of 0.75).
// - Outcome: missed. rows=8 (the default, fastest at all three sizes) ran 19.6 GFLOP/s at 1024^3,
//   1.30x / 0.97x / 1.37x step 03 at 384^3 / 1000^3 / 1024^3 and 0.07-0.30x OpenBLAS, in one run
//   (bench/results/cpu-intel-xeon-2vcpu/2026-11-27-gemm-04-register-tile.json). Why, and what is
//   next (packing B's 32-column panel): docs/journal/gemm.md, "CPU step 04".
// - Later (the object code read): g++ had kept the sum array on the stack, loaded and stored every k,
//   in 256-bit vectors. Whole tiles now hold their sums as 16-float vector values in 512-bit registers
//   (whole_tile, SWATH_WIDE_VECTORS). Same machine, one run each, median of 10: 1024^3 100.2 -> 44.7 ms
//   (21.4 -> 48.0 GFLOP/s, 0.20x OpenBLAS), 1000^3 76.7 -> 38.3 ms, 384^3 2.54 -> 0.78 ms (0.65x
//   OpenBLAS): the prediction's 40-50 GFLOP/s at 1024^3, met once the register tile was in registers
//   (bench/results/cpu-intel-xeon-2vcpu/2026-11-27-gemm-04-{before-,}vector-sums.json).
#include <algorithm>
#include <cstring>

#include "../../gemm/policies.hpp"
#include "../../gemm/steps.hpp"
#include "vector_tile.hpp"

namespace swath::gemm::cpu {
namespace {

// C[i0 .. i0 + Rows) × [j0 .. j0 + 32) = A's rows times B's columns, a whole tile, its sums as vector
// values (vector_tile.hpp).
template <int Rows>
SWATH_WIDE_VECTORS void whole_tile(const problem& p, const operands& x, std::int64_t i0, std::int64_t j0) {
  vector16 sum[Rows][2] = {};
  const float* a_rows = x.a + i0 * p.k;
  for (std::int64_t k = 0; k < p.k; ++k) {
    const float* b = x.b + k * p.n + j0;
    vector16 b_low, b_high;
    std::memcpy(&b_low, b, sizeof b_low);
    std::memcpy(&b_high, b + 16, sizeof b_high);
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r) {
      const float a = a_rows[r * p.k + k];
      sum[r][0] += a * b_low;
      sum[r][1] += a * b_high;
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r) {
    float* c = x.c + (i0 + r) * p.n + j0;
    std::memcpy(c, &sum[r][0], sizeof sum[r][0]);
    std::memcpy(c + 16, &sum[r][1], sizeof sum[r][1]);
  }
}

// The band's last tile, `width` < 32 columns: B's row padded with zeros to 32 (its loads clamped to
// the row), the sums written back for the columns there are.
template <int Rows>
SWATH_WIDE_VECTORS void narrow_tile(const problem& p, const operands& x, std::int64_t i0, std::int64_t j0, std::int64_t width) {
  float sum[Rows][tile_columns] = {};
  for (std::int64_t k = 0; k < p.k; ++k) {
    const float* __restrict b = x.b + k * p.n + j0;
    float b_row[tile_columns];
#pragma omp simd
    for (int j = 0; j < tile_columns; ++j) b_row[j] = j < width ? b[std::min<std::int64_t>(j, width - 1)] : 0.0f;
    for (int r = 0; r < Rows; ++r) {
      const float a = x.a[(i0 + r) * p.k + k];
#pragma omp simd
      for (int j = 0; j < tile_columns; ++j) sum[r][j] += a * b_row[j];
    }
  }
  for (int r = 0; r < Rows; ++r) {
    float* __restrict c = x.c + (i0 + r) * p.n + j0;
    for (std::int64_t j = 0; j < width; ++j) c[j] = sum[r][j];
  }
}

template <int Rows>
void tiles_of_rows(const problem& p, const operands& x, std::int64_t i0, std::int64_t j0, std::int64_t width) {
  if (width == tile_columns) {
    whole_tile<Rows>(p, x, i0, j0);
  } else {
    narrow_tile<Rows>(p, x, i0, j0, width);
  }
}

// Bands of B's columns as step 03 cuts them (its cache model); within a band, blocks of Rows rows of C
// among the threads, each walking the band's 32-column tiles. The last rows (M mod Rows) go one by one.
template <int Rows>
void by_bands(const problem& p, const operands& x, std::int64_t band) {
  const std::int64_t row_blocks = (p.m + Rows - 1) / Rows;
  for (std::int64_t band_start = 0; band_start < p.n; band_start += band) {
    const std::int64_t band_end = std::min(band_start + band, p.n);
#pragma omp parallel for schedule(static)
    for (std::int64_t block = 0; block < row_blocks; ++block) {
      const std::int64_t i0 = block * Rows;
      for (std::int64_t j0 = band_start; j0 < band_end; j0 += tile_columns) {
        const std::int64_t width = std::min<std::int64_t>(tile_columns, band_end - j0);
        if (i0 + Rows <= p.m) {
          tiles_of_rows<Rows>(p, x, i0, j0, width);
        } else {
          for (std::int64_t i = i0; i < p.m; ++i) tiles_of_rows<1>(p, x, i, j0, width);
        }
      }
    }
  }
}

}  // namespace

void register_tile(const problem& p, const operands& x, const launch_context& launch) {
  const std::int64_t band = host_column_width_of(p, launch);
  switch (register_rows_of(launch)) {
    case 1: return by_bands<1>(p, x, band);
    case 2: return by_bands<2>(p, x, band);
    case 4: return by_bands<4>(p, x, band);
    default: return by_bands<8>(p, x, band);
  }
}

}  // namespace swath::gemm::cpu
