#pragma once
// The stencil family, 2D and 3D: out(x, y, z) = Σ_k w_k · in(x + dx_k, y + dy_k, z + dz_k) over a star
// (the axes' crosses of radius r: 4r + 1 taps in 2D, 6r + 1 in 3D; the 3D 7-point stencil is the
// star of radius 1) or a box ((2r + 1)^2 or (2r + 1)^3 taps), radius 1 to 4, float or double, with
// copy-edges, clamp, constant or periodic boundaries, and weights the user may set.
//
// The 2D CPU steps differ only in the schedule that orders the output points (row-major, tiled,
// column, zigzag: include/swath/schedule/), which is the point: the same arithmetic, four traversals,
// and the cache model choosing the column width. The CUDA steps are the stencil study's 3D progression
// (01-04: naive, shared-memory tiles, thread coarsening, register tiling), generic kernels (05
// streaming, 06 planes copied ahead by cp.async, 07 16 bytes a thread), 3D stars fed by the copy
// engine (08; 09 two output planes a step at radius 3-4), and the plane march, each input plane read
// once into the 2r + 1 output planes it feeds (10 boxes; 11 stars the copy engine cannot take). How
// the fastest work: docs/stencil.md.
//
// Traffic: one read and one write per point at best, 8 bytes in float (16 in double); 2 flops per tap.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "swath/core/hd.hpp"
#include "swath/registry.hpp"
#include "swath/core/stream.hpp"
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
  // The traversal steps' tile and band are not here: each step reads its policy from the launch
  // (src/stencil/policies.hpp).
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
support any_box(const problem& p);         // 2D or 3D box stencils, any radius, boundary and row pitch
support aligned_star_3d(const problem& p);  // 3D stars, boundary other than periodic, row pitch of whole 16 bytes
support aligned_wide_star_3d(const problem& p);  // the same at radius 3 or 4
support seven_point_3d(const problem& p);  // the 3D 7-point stencil (star, radius 1), any boundary
// "default" keeps the taps' weights; otherwise one number per tap, colon-separated, in tap order.
// Throws usage_error on a count mismatch or a non-number.
void set_weights(std::vector<tap>& taps, const std::string& text);

// The library's steps of this family (src/stencil/registry.cpp), in reading order; CUDA rows only in
// CUDA builds. The lab adds the vendor baselines and the entry points' rows (swath/lab/stencil.hpp).
std::span<const variant> steps();



// ---- Iterated sweeps: T applications of one operator (the iterate family) -------------------------
// A step of this family computes out = S^T(in), the operator applied `sweeps` times, each sweep
// applying the boundary as apply() does. Steps that fuse sweeps work in passes (several sweeps per
// read of the grid); each pass reads what the previous one wrote, and the passes alternate between out
// and scratch so that the last writes out. in may be out or scratch (the library's ping-pong): the
// steps then make as many passes as T has parity (an even count when in is out), so the first pass
// never writes where it reads. T = 0 copies in to out.
struct iterated_problem {
  problem sweep;    // one sweep's problem
  int sweeps = 1;   // T >= 0
};
struct sweep_operands {
  const void* in = nullptr;
  void* out = nullptr;
  void* scratch = nullptr;
};
struct iterated_variant {
  variant_info info;
  support (*supports)(const iterated_problem&) = nullptr;
  void (*run)(const iterated_problem&, const sweep_operands&, const launch_context&) = nullptr;
  work_amount (*work)(const iterated_problem&) = nullptr;
};
// T sweeps' work as the single sweep counts it (T reads and writes of the grid, 2 flops a tap): a row's
// fraction of copy bandwidth is then its ratio to the single-sweep roofline.
work_amount iterated_work(const iterated_problem& p);
// The library's iterated steps (src/stencil/iterate_registry.cpp), in reading order.
std::span<const iterated_variant> iterated_steps();

std::string_view to_string(shape form);
std::string_view to_string(boundary edge);
std::string_view to_string(traversal order);

// ---- The library calls -----------------------------------------------------------------------------
// The grid as stored: width × height points per plane, depth planes (1 for 2D), rows row_pitch elements
// apart (0: width, rows back to back) and planes row_pitch × height apart. dims says whether a depth of
// 1 is a 2D grid (2) or a 3D grid of one plane (3).
struct grid_layout {
  std::int64_t width = 0, height = 0, depth = 1;
  std::int64_t row_pitch = 0;
  int dims = 2;
};
// The operator: the shape and radius (1-4), the boundary, the value outside for boundary::constant, and
// the weights, one per tap in the order of default_taps (z, then y, then x, each from -r to r; empty:
// the default weights).
struct operator_spec {
  shape form = shape::star;
  int radius = 1;
  boundary edge = boundary::clamp;
  double edge_value = 0;
  std::vector<double> weights;
};
// out = the stencil of in, one sweep. Device memory: asynchronous on `stream`, on its device, with the
// fastest step for the GPU, the shape and the alignment (docs/library.md); host memory: OpenMP threads,
// done on return (host grids must have their rows back to back). in and out must not overlap. Throws
// swath::usage_error naming the argument, before anything runs and without touching out, for a bad
// size, radius, pitch or weight count, a null pointer, or operands split between host and device or on
// another device than the stream's.
void apply(const float* in, float* out, const grid_layout& grid, const operator_spec& op, stream_t stream = nullptr);
void apply(const double* in, double* out, const grid_layout& grid, const operator_spec& op, stream_t stream = nullptr);
// T sweeps, ping-ponging between a (which holds the input) and b; returns the buffer that holds the
// result (a when T is even, b when odd; T = 0 leaves a as it is). Asynchronous as apply. On the GPU,
// stars and boxes under clamp, constant and copy boundaries fuse several sweeps per pass over memory
// (temporal blocking: docs/stencil.md, "Iterated sweeps"); periodic grids and radius-size limits the
// fused step cannot hold run T single sweeps. On the host, 2D grids fuse sweeps per column band (time-
// skewed columns); 3D grids run T sweeps. Both buffers are overwritten.
float* iterate(float* a, float* b, const grid_layout& grid, const operator_spec& op, int sweeps, stream_t stream = nullptr);
double* iterate(double* a, double* b, const grid_layout& grid, const operator_spec& op, int sweeps,
                stream_t stream = nullptr);

}  // namespace swath::stencil
