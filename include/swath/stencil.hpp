#pragma once
// The stencil family, 2D and 3D: out(x, y, z) = Σ_k w_k · in(x + dx_k, y + dy_k, z + dz_k) over a star
// (the axes' crosses of radius r: 4r + 1 taps in 2D, 6r + 1 in 3D; the 3D 7-point stencil is the
// star of radius 1) or a box ((2r + 1)^2 or (2r + 1)^3 taps), radius 1 to 4, float or double, with
// copy-edges, clamp, constant or periodic boundaries, and weights the user may set.
//
// The 2D CPU steps differ only in the schedule that orders the output points (row-major, tiled,
// column, zigzag: include/swath/schedule/), which is the point: the same arithmetic, four traversals,
// and the cache model choosing the column width. The CUDA steps are the stencil study's 3D progression
// (naive, shared-memory tiles, thread coarsening, register tiling) and a generic streaming kernel.
//
// Traffic: one read and one write per point at best, 8 bytes in float (16 in double); 2 flops per tap.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/core/hd.hpp"
#include "swath/registry.hpp"
#include "swath/schedule/extent.hpp"

namespace swath::stencil {

enum class shape { star, box };
// copy: points within r of a face are not computed but copied from the input (the stencil study skips
// them; copying keeps every output defined). clamp: reads outside repeat the nearest edge value.
// constant: reads outside see edge_value. periodic: the grid wraps around.
enum class boundary { copy, clamp, constant, periodic };
enum class element_type { f32, f64 };
enum class traversal { row_major, tiled, column, zigzag };

// Taps are listed z-major, then y, then x, each from -r to r (the order `weights=` takes them in).
struct tap {
  int dx;
  int dy;
  int dz;
  double weight;
};

struct problem {
  schedule::extent2d grid;  // width × height of each z-plane
  std::int64_t depth = 1;   // planes; 2D problems have depth 1 and dims 2
  // Elements from one row's start to the next in memory (0: the width, rows back to back). A pitched
  // grid is what cudaMalloc3D hands out: each row padded, planes pitch × height apart. The pads are
  // neither read nor written; the input's hold NaN in the trials, so a step that reads one fails.
  std::int64_t row_pitch = 0;
  int dims = 2;
  int radius = 1;
  shape form = shape::star;
  boundary edge = boundary::clamp;
  double edge_value = 1.0;  // the value outside the grid for boundary::constant
  element_type type = element_type::f32;
  std::vector<tap> taps;    // the weights; make_problem fills the default ones
  // Schedule parameters, resolved by make_problem from the cache model unless given.
  std::int64_t column_width = 0;
  std::int64_t tile_width = 0;
  std::int64_t tile_height = 0;
  double cache_bytes = 0;   // the cache the model sized them for
  [[nodiscard]] int extent() const { return 2 * radius + 1; }  // s_w = s_h
  [[nodiscard]] std::int64_t points() const { return grid.count() * depth; }
  [[nodiscard]] std::int64_t pitch() const { return row_pitch > 0 ? row_pitch : grid.width; }
  [[nodiscard]] std::int64_t stored_elements() const { return pitch() * grid.height * depth; }  // pads included
  [[nodiscard]] std::int64_t element_bytes() const { return type == element_type::f32 ? 4 : 8; }
};

// Default taps: the shape's offsets with positive weights in [0.5, 2) / taps, a fixed pattern, so
// results stay O(1) and free of cancellation (the check's relative error is then meaningful).
std::vector<tap> default_taps(shape form, int radius, int dims = 2);
// True for a point within r of any face (boundary::copy leaves these as the input).
SWATH_HD_INLINE bool near_face(std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t width, std::int64_t height,
                               std::int64_t depth, int radius, int dims) {
  if (x < radius || x >= width - radius || y < radius || y >= height - radius) return true;
  return dims == 3 && (z < radius || z >= depth - radius);
}

// Where a read at (x, y) lands, or -1 for "outside, use edge_value" (constant boundary).
SWATH_HD_INLINE std::int64_t source_index(std::int64_t x, std::int64_t y, schedule::extent2d g, boundary edge) {
  if (x >= 0 && x < g.width && y >= 0 && y < g.height) return y * g.width + x;
  switch (edge) {
    case boundary::copy:  // never read outside for copy (edge points copy themselves); clamp if asked
    case boundary::clamp:
      x = x < 0 ? 0 : (x >= g.width ? g.width - 1 : x);
      y = y < 0 ? 0 : (y >= g.height ? g.height - 1 : y);
      return y * g.width + x;
    case boundary::periodic:
      x = ((x % g.width) + g.width) % g.width;
      y = ((y % g.height) + g.height) % g.height;
      return y * g.width + x;
    case boundary::constant:
    default:
      return -1;
  }
}

// The 3D form: (x, y, z) in a width × height × depth grid, the flat index z·W·H + y·W + x, or -1.
SWATH_HD_INLINE std::int64_t source_index(std::int64_t x, std::int64_t y, std::int64_t z, schedule::extent2d g,
                                          std::int64_t depth, boundary edge) {
  if (z < 0 || z >= depth) {
    if (edge == boundary::constant) return -1;
    z = edge == boundary::periodic ? ((z % depth) + depth) % depth : (z < 0 ? 0 : depth - 1);
  }
  const std::int64_t in_plane = source_index(x, y, g, edge);
  return in_plane < 0 ? -1 : z * g.count() + in_plane;
}

// Operands: pointers of the problem's element type.
struct operands {
  const void* in = nullptr;
  void* out = nullptr;
};

struct variant {
  variant_info info;
  traversal order = traversal::row_major;
  bool parallel = false;  // OpenMP
  support (*supports)(const problem&) = nullptr;
  void (*run)(const problem&, const operands&, const launch_context&) = nullptr;
  work_amount (*work)(const problem&) = nullptr;
};

work_amount stencil_work(const problem& p);
support any_stencil(const problem& p);     // 2D or 3D, any shape, radius, boundary and row pitch
support any_dense_stencil(const problem& p);  // the same, rows back to back (no pitch)
support any_2d_stencil(const problem& p);  // the same, 2D grids only (the schedule steps)
support any_star(const problem& p);        // 2D or 3D star stencils, any radius, boundary and row pitch
support aligned_star_3d(const problem& p);  // 3D stars, boundary other than periodic, row pitch of whole 16 bytes
support aligned_wide_star_3d(const problem& p);  // the same at radius 3 or 4
support seven_point_3d(const problem& p);  // the 3D 7-point stencil (star, radius 1), any boundary
// "default" keeps the taps' weights; otherwise one number per tap, colon-separated, in tap order.
// Throws usage_error on a count mismatch or a non-number.
void set_weights(std::vector<tap>& taps, const std::string& text);

std::span<const variant> variants();
const variant& find_variant(std::string_view name);

// The problem at a size and configuration ("radius=2 shape=box boundary=periodic type=double
// column_width=model cache=L2 pitch=lines"); schedule parameters from the cache model unless given.
// pitch=dense (rows back to back), lines (each row padded to whole 128-byte lines) or a number of
// elements no smaller than the width.
problem make_problem(const variant& v, const bench::problem_spec& spec);
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);

const bench::family& family();

std::string_view to_string(shape form);
std::string_view to_string(boundary edge);
std::string_view to_string(traversal order);

}  // namespace swath::stencil
