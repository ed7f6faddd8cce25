#pragma once
// The thesis's cache model: how wide a column the cache can hold, and how many cache lines each
// traversal fetches. Symbols follow the thesis:
//   M    cache size in bytes           u    bytes per element
//   s_w  stencil width (2r + 1)        s_h  stencil height (2r + 1)
//   S_w  halo width (s_w − 1)          S_h  halo height (s_h − 1)
//   t    active threads (elements in flight) sharing the cache
//   L    elements per cache line       I_w × I_h   the grid
#include <cstdint>

#include "swath/schedule/extent.hpp"

namespace swath::schedule {

struct stencil_footprint {
  double cache_bytes = 0;        // M
  std::int64_t element_bytes = 4;  // u
  std::int64_t width = 3;        // s_w
  std::int64_t height = 3;       // s_h
  std::int64_t threads = 1;      // t
  // Two corrections to the thesis's model, both measured with cachegrind (docs/schedules.md):
  // output_rows: rows of output the cache also holds. The thesis leaves the output out ("writing does
  // not block"), but a write-allocate cache keeps the lines being written: 1 for CPUs. 0 = the thesis.
  std::int64_t output_rows = 0;
  // ways: the cache's associativity A, 0 = ignore. When the grid's rows alias (a row stride near a
  // multiple of the way size, M / A), the same x of every row lands in the same set; a column wider
  // than one way then needs 2 (s_h + 2) lines per set and thrashes. With A given, c ≤ M / (A u).
  std::int64_t ways = 0;
};

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Bytes a column of width c needs in cache: M(c) = u (c + s_w) (s_h + ceil(t / c)) (+ u c per output row).
constexpr double stencil_column_bytes(const stencil_footprint& s, std::int64_t c) {
  return static_cast<double>(s.element_bytes) *
         (static_cast<double>(c + s.width) * static_cast<double>(s.height + ceil_div(s.threads, c)) +
          static_cast<double>(c * s.output_rows));
}

// The widest column that keeps within one way of the cache (no limit when ways = 0).
constexpr std::int64_t way_limited_width(const stencil_footprint& s, std::int64_t c) {
  if (s.ways <= 0) return c;
  const auto one_way = static_cast<std::int64_t>(s.cache_bytes / static_cast<double>(s.ways * s.element_bytes));
  return c < one_way ? c : (one_way < 1 ? 1 : one_way);
}

// The exact model solved for the widest c with M(c) ≤ M; 0 when not even c = 1 fits. M(c) grows with c
// once c ≥ t (the ceiling is 1 from there), so that range is searched by bisection; below t the ceiling
// falls as c grows and M(c) need not be monotonic, so it is scanned.
constexpr std::int64_t stencil_column_width(const stencil_footprint& s) {
  const std::int64_t t = s.threads < 1 ? 1 : s.threads;
  std::int64_t high = static_cast<std::int64_t>(s.cache_bytes / static_cast<double>(s.element_bytes)) + 1;
  if (stencil_column_bytes(s, t) <= s.cache_bytes) {
    std::int64_t low = t;  // fits; find the last c that fits in [t, high)
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      (stencil_column_bytes(s, mid) <= s.cache_bytes ? low : high) = mid;
    }
    return way_limited_width(s, low);
  }
  for (std::int64_t c = (t < high ? t : high) - 1; c >= 1; --c) {
    if (stencil_column_bytes(s, c) <= s.cache_bytes) return way_limited_width(s, c);
  }
  return 0;
}

// The same model when each of T threads works on a whole row of the column (the CPU steps that share
// a column band): t = T·c elements in flight, so ceil(t/c) = T rows and M = u (c + s_w)(s_h + T):
// c = M / (u (s_h + T)) − s_w, at least 1.
constexpr std::int64_t stencil_column_width_rows(const stencil_footprint& s, std::int64_t rows_in_flight) {
  const auto rows = s.height + rows_in_flight + s.output_rows * rows_in_flight;
  const auto c = static_cast<std::int64_t>(s.cache_bytes / static_cast<double>(s.element_bytes * rows)) - s.width;
  return way_limited_width(s, c < 1 ? 1 : c);
}

// Time-skewed columns (the CPU's iterated step): d sweeps fused per pass, sweep τ's band shifted τ r
// left of the first's, each sweep r rows behind the one before. In flight: the d + 1 sweeps' s_h rows
// each, across the band and its shifts, c + S_w + d r wide (S_w = 2r, r = S_w / 2):
// M_d(c) = u (c + S_w + d S_w / 2)(d + 1) s_h. The widest c within M, at least 1.
constexpr double skewed_column_bytes(const stencil_footprint& s, std::int64_t c, std::int64_t depth) {
  const std::int64_t span = c + (s.width - 1) + depth * ((s.width - 1) / 2);
  return static_cast<double>(s.element_bytes) * static_cast<double>(span) * static_cast<double>((depth + 1) * s.height);
}
constexpr std::int64_t skewed_column_width(const stencil_footprint& s, std::int64_t depth) {
  const double per_column = static_cast<double>(s.element_bytes) * static_cast<double>((depth + 1) * s.height);
  const auto c = static_cast<std::int64_t>(s.cache_bytes / per_column) - (s.width - 1) - depth * ((s.width - 1) / 2);
  return c < 1 ? 1 : c;
}
// Input lines a pass of time-skewed columns fetches, both buffers counted: each band reads its span in
// X and in Y once per row, Σ_bands 2 ceil((c_k + S_w + d r) / L) · I_h, over ceil((I_w + d r) / c) bands.
constexpr std::int64_t skewed_column_fetches(extent2d grid, std::int64_t c, std::int64_t halo_w, std::int64_t depth,
                                             std::int64_t line_elements) {
  const std::int64_t shift = depth * (halo_w / 2);
  const std::int64_t bands = ceil_div(grid.width + shift, c);
  return bands * 2 * ceil_div(c + halo_w + shift, line_elements) * grid.height;
}

// The tight count behind the bound: each column's own width, and no halo rows beyond the grid (clamp
// and periodic boundaries read the grid's own edge rows): Σ_columns ceil((w_k + S_w) / L) · I_h.
constexpr std::int64_t column_fetches_tight(extent2d grid, std::int64_t c, std::int64_t halo_w,
                                            std::int64_t line_elements) {
  std::int64_t total = 0;
  for (std::int64_t o = 0; o < grid.width; o += c) total += ceil_div(min64(c, grid.width - o) + halo_w, line_elements);
  return total * grid.height;
}

// The thesis's asymptote, M ≈ u (t + s_h (c + s_w)), solved for c: (M − u (s_h s_w + t)) / (s_h u).
constexpr double stencil_column_width_asymptote(const stencil_footprint& s) {
  const auto u = static_cast<double>(s.element_bytes);
  return (s.cache_bytes - u * static_cast<double>(s.height * s.width + s.threads)) / (static_cast<double>(s.height) * u);
}

// Cache-line fetches of the input, bound for a column traversal of width c (thesis, eq. stencil column
// fetches): F ≤ ceil(I_w / c) · ceil((c + S_w) / L) · (I_h + S_h).
constexpr std::int64_t column_fetches(extent2d grid, std::int64_t c, std::int64_t halo_w, std::int64_t halo_h,
                                      std::int64_t line_elements) {
  return ceil_div(grid.width, c) * ceil_div(c + halo_w, line_elements) * (grid.height + halo_h);
}

// Row-major is the column traversal with c = I_w. When the stencil's rows fit (the layer condition,
// M(I_w) ≤ M), each input line is fetched once; when they do not, every output row fetches the s_h
// input rows it reads again.
constexpr std::int64_t row_major_fetches(extent2d grid, const stencil_footprint& s, std::int64_t line_elements) {
  const std::int64_t once = column_fetches(grid, grid.width, s.width - 1, s.height - 1, line_elements);
  if (stencil_column_bytes(s, grid.width) <= s.cache_bytes) return once;
  return ceil_div(grid.width + s.width - 1, line_elements) * grid.height * s.height;
}

// Tiled t_w × t_h: each tile fetches its (t_w + S_w) × (t_h + S_h) halo-extended block once and shares
// nothing with the next tile (the halo rows and columns are fetched again by the neighbours).
constexpr std::int64_t tiled_fetches(extent2d grid, std::int64_t tile_w, std::int64_t tile_h, std::int64_t halo_w,
                                     std::int64_t halo_h, std::int64_t line_elements) {
  std::int64_t total = 0;
  for (std::int64_t y = 0; y < grid.height; y += tile_h) {
    const std::int64_t h = min64(tile_h, grid.height - y);
    for (std::int64_t x = 0; x < grid.width; x += tile_w) {
      total += ceil_div(min64(tile_w, grid.width - x) + halo_w, line_elements) * (h + halo_h);
    }
  }
  return total;
}

// Matrix multiplication, A·B = C, B read down columns: M = u (h c + w ceil(t / c)) for a column of
// width c over h rows of B and w columns of A's rows in flight (thesis). Asymptote c = M / (u h).
struct matmul_footprint {
  double cache_bytes = 0;          // M
  std::int64_t element_bytes = 4;  // u
  std::int64_t rows = 1;           // h: rows of B (the inner dimension)
  std::int64_t row_length = 1;     // w
  std::int64_t threads = 1;        // t
};

constexpr double matmul_column_width_asymptote(const matmul_footprint& m) {
  return m.cache_bytes / (static_cast<double>(m.element_bytes) * static_cast<double>(m.rows));
}

constexpr std::int64_t matmul_column_width(const matmul_footprint& m) {
  const auto bytes = [&](std::int64_t c) {
    return static_cast<double>(m.element_bytes) *
           static_cast<double>(m.rows * c + m.row_length * ceil_div(m.threads < 1 ? 1 : m.threads, c));
  };
  // The widest c in [1, asymptote + 1] that fits, searched from the top: M(c) exceeds u h c, so nothing
  // wider fits, and the first fit down from there is a few steps away (the steps read the width on
  // every launch).
  const auto limit = static_cast<std::int64_t>(matmul_column_width_asymptote(m)) + 1;
  for (std::int64_t c = limit; c >= 1; --c) {
    if (bytes(c) <= m.cache_bytes) return c;
  }
  return 0;
}

}  // namespace swath::schedule
