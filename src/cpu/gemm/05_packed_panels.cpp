// Step 05 (CPU gemm): step 04's register tiles over packed panels of op(B), for every form (op, alpha,
// beta, leading dimensions).
//
// Step 04 reads its tile's 32 columns of B row by row in place: row k + 1 lies N floats after row k. At
// N = 1024 that is 4 KiB, one page a k: a tile's walk of K touches K pages (the L1 TLB holds 64) and,
// every row falling in the same L1 set, keeps at most 8 of them in the L1 (8 ways). And it takes only
// C = A B: transposes, alpha, beta and padded rows went to step 01's triple loop, 20-40x slower.
//
// Here each band of op(B) (step 03's width, rounded to whole tiles) is first copied into panels: a
// tile's 32 columns, K rows of 128 bytes back to back (zeros past the band's last column). The tiles
// then stream their panel at unit stride, and the copy is where op(B)'s form is absorbed: op(B) = B^T is
// read down B's rows while packing. op(A) = A is read in place (a tile's rows stream along k); op(A) =
// A^T is first copied once into M rows of K. The store applies alpha and beta (beta = 0 does not read C).
// - Settings: as step 04 (rows=1|2|4|8, column_width, cache).
// - Cost: the copies read op(B) once a call (K N floats) and A^T once (M K) against 2 M N K flops.
// - Prediction (2-vCPU Xeon, the same run as step 04: 44.7 ms at 1024^3, 38.3 ms at 1000^3, 0.78 ms at
//   384^3): 1.2-1.5x step 04 at 1024^3 (the page a k and the L1 set gone), 1.1-1.3x at 1000^3; the
//   transposed and scaled forms within 10% of C = A B, 10-40x step 01.
// - Outcome (one run each, --reps 10, OpenBLAS in the same run; the machine's ceilings move between
//   runs): about 150 GFLOP/s from 256^3 to 1024^3 (51% of that run's FMA ceiling), 1.6x step 04 at
//   256^3, 3.3-3.5x at 1000^3 and 1024^3, 5.2x at 2048^3, 0.58-0.92x OpenBLAS: the in-place rows of B had
//   cost far more than predicted. The forms: 110-210x step 01 at 512^3 with alpha and beta, op(B) = B^T
//   as fast as C = A B, op(A) = A^T within 1.0-1.4x of it (A^T read in place was 1.5x at 512^3;
//   packed a block of rows a band, 2.6x at 2048^3). The library's host sgemm takes it for every form.
//   docs/journal/gemm.md, "CPU step 05".
#include <algorithm>
#include <cstring>
#include <vector>

#include "../../gemm/policies.hpp"
#include "../../gemm/steps.hpp"
#include "vector_tile.hpp"

namespace swath::gemm::cpu {
namespace {

// The panels of op(B)'s columns [first, first + width): panel t holds columns first + 32 t .. + 31, K
// rows of 32 floats, at panels + t K 32.
void pack_band(const problem& p, const float* b, std::int64_t first, std::int64_t width, float* panels) {
  const std::int64_t tiles = (width + tile_columns - 1) / tile_columns;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < tiles; ++t) {
    float* panel = panels + t * p.k * tile_columns;
    const std::int64_t j0 = first + t * tile_columns;
    const std::int64_t columns = std::min<std::int64_t>(tile_columns, first + width - j0);
    if (columns < tile_columns) std::fill(panel, panel + p.k * tile_columns, 0.0f);
    if (!p.trans_b) {
      for (std::int64_t k = 0; k < p.k; ++k) std::copy_n(b + k * p.ldb + j0, columns, panel + k * tile_columns);
    } else {
      // B is stored N x K: column j of op(B) is B's row j, contiguous along K.
      for (std::int64_t j = 0; j < columns; ++j) {
        const float* row = b + (j0 + j) * p.ldb;
        for (std::int64_t k = 0; k < p.k; ++k) panel[k * tile_columns + j] = row[k];
      }
    }
  }
}

// op(A) = A^T (A stored K x M) copied once into M rows of K, in 32 x 32 blocks among the threads: the
// tiles then read it as C = A B reads A. Read in place, a tile's 8 values of a k are one 32-byte run
// but consecutive k lie lda floats apart, a page a k at lda = 1024 (measured 1.5x slower than C = A B at
// 512^3 and 1024^3); packed a block of rows a band, the copy repeated over the bands (16 or more at
// 2048^3) and cost 2.6x.
std::vector<float> transposed_a(const problem& p, const float* a) {
  std::vector<float> rows(static_cast<std::size_t>(p.m * p.k));
  constexpr std::int64_t side = 32;
  const std::int64_t blocks_m = (p.m + side - 1) / side, blocks_k = (p.k + side - 1) / side;
#pragma omp parallel for schedule(static)
  for (std::int64_t block = 0; block < blocks_m * blocks_k; ++block) {
    const std::int64_t i0 = block % blocks_m * side, k0 = block / blocks_m * side;
    const std::int64_t i1 = std::min(i0 + side, p.m), k1 = std::min(k0 + side, p.k);
    for (std::int64_t k = k0; k < k1; ++k) {
      for (std::int64_t i = i0; i < i1; ++i) rows[static_cast<std::size_t>(i * p.k + k)] = a[k * p.lda + i];
    }
  }
  return rows;
}

// C[i0 .. i0 + Rows) × [j0 .. j0 + width) = alpha A's rows times the panel (+ beta C): A's rows in
// place, rows[r lda + k] (rows = A's row i0).
template <int Rows>
SWATH_WIDE_VECTORS void panel_tile(const problem& p, const operands& x, const float* rows, const float* panel, std::int64_t i0,
                                   std::int64_t j0, std::int64_t width) {
  vector16 sum[Rows][2] = {};
  for (std::int64_t k = 0; k < p.k; ++k) {
    vector16 b_low, b_high;
    std::memcpy(&b_low, panel + k * tile_columns, sizeof b_low);
    std::memcpy(&b_high, panel + k * tile_columns + 16, sizeof b_high);
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r) {
      const float a = rows[r * p.lda + k];
      sum[r][0] += a * b_low;
      sum[r][1] += a * b_high;
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r) {
    float* c = x.c + (i0 + r) * p.ldc + j0;
    vector16 result[2] = {p.alpha * sum[r][0], p.alpha * sum[r][1]};
    if (width == tile_columns) {
      if (p.beta != 0) {
        vector16 old[2];
        std::memcpy(old, c, sizeof old);
        result[0] += p.beta * old[0];
        result[1] += p.beta * old[1];
      }
      std::memcpy(c, result, sizeof result);
    } else {
      float values[tile_columns];
      std::memcpy(values, result, sizeof values);
      for (std::int64_t j = 0; j < width; ++j) c[j] = p.beta == 0 ? values[j] : values[j] + p.beta * c[j];
    }
  }
}

// Bands of op(B)'s columns, whole tiles of them; each band packed, then blocks of Rows rows of C among
// the threads, each walking the band's panels; the last rows (M mod Rows) one by one, as A has no rows
// past M to read. The panels are allocated before the threads start (an allocation failing inside an
// OpenMP region would end the process instead of throwing).
template <int Rows>
void by_bands(const problem& p, const operands& x, std::int64_t band) {
  std::vector<float> panels(static_cast<std::size_t>(band * std::max<std::int64_t>(p.k, 1)));
  const std::int64_t row_blocks = (p.m + Rows - 1) / Rows;
  for (std::int64_t first = 0; first < p.n; first += band) {
    const std::int64_t width = std::min(band, p.n - first);
    pack_band(p, x.b, first, width, panels.data());
#pragma omp parallel for schedule(static)
    for (std::int64_t block = 0; block < row_blocks; ++block) {
      const std::int64_t i0 = block * Rows;
      for (std::int64_t t = 0; t * tile_columns < width; ++t) {
        const float* panel = panels.data() + t * p.k * tile_columns;
        const std::int64_t j0 = first + t * tile_columns, columns = std::min<std::int64_t>(tile_columns, width - t * tile_columns);
        if (i0 + Rows <= p.m) {
          panel_tile<Rows>(p, x, x.a + i0 * p.lda, panel, i0, j0, columns);
        } else {
          for (std::int64_t i = i0; i < p.m; ++i) panel_tile<1>(p, x, x.a + i * p.lda, panel, i, j0, columns);
        }
      }
    }
  }
}

void with_rows(const problem& p, const operands& x, std::int64_t band, int rows) {
  switch (rows) {
    case 1: return by_bands<1>(p, x, band);
    case 2: return by_bands<2>(p, x, band);
    case 4: return by_bands<4>(p, x, band);
    default: return by_bands<8>(p, x, band);
  }
}

}  // namespace

void packed_panels(const problem& p, const operands& x, const launch_context& launch) {
  if (p.m == 0 || p.n == 0) return;
  // Whole tiles a band (the model's width rounded down, at least one tile).
  const std::int64_t band = std::max<std::int64_t>(tile_columns, host_column_width_of(p, launch) / tile_columns * tile_columns);
  if (p.trans_a) {  // the tiles read op(A) as M rows of K
    const std::vector<float> rows = transposed_a(p, x.a);
    problem q = p;
    q.trans_a = false;
    q.lda = p.k;
    return with_rows(q, {rows.data(), x.b, x.c}, band, register_rows_of(launch));
  }
  with_rows(p, x, band, register_rows_of(launch));
}

}  // namespace swath::gemm::cpu
