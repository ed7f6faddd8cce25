#pragma once
// What the iterated steps share: how T sweeps are cut into passes and where each pass writes, the
// steps' settings, and their entry points for the registry table (src/stencil/iterate_registry.cpp).
#include <cstdint>
#include <span>
#include <vector>

#include "policies.hpp"
#include "swath/stencil.hpp"

namespace swath::stencil {

// ---- Passes ------------------------------------------------------------------------------------
// T sweeps cut into passes of at most `depth` sweeps: ceil(T / depth) passes, one more when
// `same_parity` and that count and T differ in parity (so the library's ping-pong, which may hand in =
// out or in = scratch, never has a pass write where it reads: sweep_operands), the sweeps spread
// evenly, deeper passes first. T = 64 at depth 6: 11 passes, 12 for parity: 4 of 6 sweeps and 8 of 5.
// Empty for T = 0. (The CPU's skewed step alternates its buffers by sweep, not by pass: no parity.)
std::vector<int> plan_passes(int sweeps, int depth, bool same_parity = true);

// Where pass k of n reads and writes: pass 0 reads in; each later pass reads what the one before
// wrote; pass k writes out when n - 1 - k is even, else scratch, so the last writes out.
struct pass_buffers {
  const void* source;
  void* target;
};
pass_buffers pass_at(const sweep_operands& x, int pass, int passes);

// ---- Settings ----------------------------------------------------------------------------------
inline constexpr parameter fused_setting{"fused", "model|N", "model",
                                         "sweeps fused per pass over memory; model: the step's model of its rate (docs/stencil.md)"};
inline constexpr parameter fused_settings[] = {fused_setting};
// The CPU step's: its depth, and its band (the column steps' records: column_width, cache).
inline constexpr parameter skewed_settings[] = {fused_setting, column_width_setting, cache_setting};

// Step 02's (GPU) blocks, as data the kernel and the model both read: 3D grids take tiles of 32 x 32
// columns (one thread each, 1024 threads), 2D grids rows of 512 points (their y is the kernel's z). A
// pass of L sweeps computes the tile but keeps its middle, L r narrower on each side.
struct fused_block {
  int x;
  int y;
};
constexpr fused_block fused_block_of(int dims) { return dims == 3 ? fused_block{32, 32} : fused_block{512, 1}; }
// The deepest pass step 02 is compiled for: by registers (each thread queues 2r + 1 planes of every
// sweep but the last: at most 24 of 64 at 1024 threads a block), by the tile (its middle must keep a
// column), and by shared memory (each sweep but the last keeps a plane of the tile, halo included,
// boxes 2r + 1 of them, within 200 KiB of Hopper's 227). 0 or 1: the step does not take the problem.
constexpr int fused_depth_limit(int dims, int radius, shape form, int element_bytes) {
  const fused_block block = fused_block_of(dims);
  const int by_registers = dims == 3 ? (radius == 1 ? 4 : radius == 2 ? 3 : 2) : (radius == 1 ? 8 : radius == 2 ? 6 : 4);
  const int plane_bytes = (block.x + 2 * radius) * (dims == 3 ? block.y + 2 * radius : 1) * element_bytes;
  const int planes = form == shape::star ? 1 : 2 * radius + 1;
  const int by_shared = 200 * 1024 / (plane_bytes * planes);
  const int by_tile = (block.x - 1) / (2 * radius);
  const int limit = by_registers < by_shared ? by_registers : by_shared;
  return limit < by_tile ? limit : by_tile;
}

// Step 03's limit: 3D stars of radius 1 and 2. Each thread queues 2r + 1 planes of 4 rows for every
// sweep but the last: in float 36 registers at r = 1, L = 4 and 40 at r = 2, L = 2 (of 80); in double
// twice as many, of 128, at r = 1, L = 3 and r = 2, L = 2 (ptxas -v: no spills but 8 bytes in float).
constexpr int register_rows_depth_limit(int radius, int element_bytes) {
  if (radius == 1) return element_bytes == 4 ? 4 : 3;
  return radius == 2 ? 2 : 0;
}

// Steps 04 and 05's limit: 3D stars of radius 1 and 2, a template per depth. Each thread queues 2r + 1
// planes of its 2 rows for the input and every sweep but the last: 2 L (2r + 1) values, 30 in float at
// r = 1, L = 5 and at r = 2, L = 3, of 64 registers (two 512-thread blocks an SM); in double twice the
// registers, of 128. ptxas -v: no spills at radius 1 (step 05: 12 bytes at L = 5); at radius 2, L = 3,
// 388-548 bytes in float and up to 160 in double (the deepest passes the model does not choose there).
constexpr int march_depth_limit(int radius, int element_bytes) {
  if (radius == 1) return element_bytes == 4 ? 5 : 4;
  return radius == 2 ? 3 : 0;
}

// The marches' layouts: a block of 32 x `threads_y` threads over a tile of 32 x (threads_y x rows)
// columns, each thread owning `rows` consecutive rows of its column. Step 04 (and 05): 32 x 16 threads,
// two rows each, two blocks an SM in float (64 registers), one in double. Step 06: 32 x 8 threads, four
// rows each, over the same 32 x 32 tile, two blocks an SM in float (128 registers), one in double (the
// queues take twice the registers; up to 255 at 256 threads). The registers a thread's queues take grow
// with its rows as the threads a block shrink, so march_depth_limit holds for both. (Step 06's first
// layout, 32 x 16 threads over 32 x 64 at one block an SM, measured 0.88x step 04: docs/journal/stencil.md.)
struct march_layout {
  int threads_y;
  int rows;
  int min_blocks;  // blocks an SM the kernel asks the register allocator for
  [[nodiscard]] constexpr int tile_y() const { return threads_y * rows; }
};
constexpr march_layout two_row_layout(int element_bytes) { return {16, 2, element_bytes == 4 ? 2 : 1}; }
constexpr march_layout four_row_layout(int element_bytes) { return {8, 4, element_bytes == 4 ? 2 : 1}; }

// Step 07's strips (2D stars): each warp owns a strip of 32 x 4 columns (4 a thread, one 16-byte
// vector in float) and marches it along y with its L sweeps in registers, no shared memory, no barrier.
// A pass keeps `strip_kept` columns of the 128: sweep τ is right only τ r columns in from the strip's
// edges, and the strip starts `strip_lead` (L r rounded up to 4) left of its kept columns so that every
// thread's 4 columns are 16-byte aligned and either all kept or none. L = 8, r = 1: 112 of 128 kept.
inline constexpr int strip_columns = 4;   // a thread's
inline constexpr int strip_width = 32 * strip_columns;
constexpr int strip_lead(int depth, int radius) { return (depth * radius + 3) / 4 * 4; }
constexpr int strip_kept(int depth, int radius) {
  return (strip_width - depth * radius - strip_lead(depth, radius)) / strip_columns * strip_columns;
}
// Its deepest pass: each thread queues 2r + 1 rows of its 4 columns for the input and every sweep but
// the last, L (2r + 1) 4 values, held to 120 registers (of 168 at three 128-thread blocks an SM): float
// L = 10 at r = 1 and 6 at r = 2; double, two registers a value, 5 and 3.
constexpr int strip_depth_limit(int radius, int element_bytes) {
  const int values = 120 / (element_bytes / 4);
  return radius == 1 || radius == 2 ? values / ((2 * radius + 1) * strip_columns) : 0;
}
// Its pipeline, as data: the rows loaded ahead of the march, through shared memory (cp.async, a ring
// of rows_ahead + 1 slots a thread) or in registers (renamed like the queues: rows_ahead divides 2r + 1),
// and the blocks an SM its launch bounds ask for (3: at most 168 registers; 1: as many as the queues
// take, two blocks an SM; on an H100, float r 1 at L = 8 took 10.9 ms unbounded, 10.0 at 3 blocks and
// 15.9 at 4, whose 128 registers spill 456 bytes). The rows ahead, measured on an H200 (16384^2,
// T = 64, ms; journal, "Step 07: the rows ahead"): float r 1 (L = 8): registers shifted a slot a step
// 7.27 (2 ahead), renamed 7.59 (3), shared 7.53 (2), 6.74 (4), 7.01 (8); float r 2 (L = 4): renamed
// 14.72 (5), shared 13.87 (4); double r 1: renamed 19.03 (3), shared 19.43 (4), 18.95 (8); double r 2:
// renamed 33.50 (5), shared 36.76 (4), 38.73 (8).
struct strip_pipeline {
  int rows_ahead;
  int min_blocks;
  bool shared_ring;
};
constexpr strip_pipeline strip_pipeline_of(int radius, int element_bytes) {
  if (element_bytes == 8) return radius == 1 ? strip_pipeline{8, 1, true} : strip_pipeline{2 * radius + 1, 1, false};
  return {4, 3, true};
}

// Step 08's stacked strips (3D stars): step 07's strips stacked in y. A block of `warps` warps owns a tile of
// 32 V columns (V = one 16-byte vector a thread: 4 floats, 2 doubles) by warps x rows rows and marches
// it along z; each warp owns `rows` rows of the strip. Sweep τ computes plane s - τ r at step s from
// sweep τ - 1's plane in shared memory (its centre, x taps by shuffles, y taps from the rows beside it)
// and the r planes below it, held in registers, and the plane above from the sweep before's result of
// this step: one barrier a step for all L sweeps. Each sweep but the last keeps r + 1 planes in a ring
// of shared memory, the input rows_ahead + r + 1 (its copies land there by cp.async), each plane of the
// tile with r pad rows above and below. The tile loses L r rows at each end in y and the strip L r
// columns (rounded up to V) at each end in x: at L = 4, r = 1, 120 x 24 of 128 x 32 kept in float.
struct stack_layout {
  int warps;       // a block's, stacked in y
  int rows;        // a warp's (and a thread's): rows of the strip
  int rows_ahead;  // input planes copied ahead of the march
};
// 16 warps of 2 rows: a 32-row tile at one block an SM (the rings take most of the shared memory). The
// planes ahead make the rings' slot counts divide a short unroll: r = 1, 2 ahead: 4 input slots and 2 a
// sweep, unrolled by 4; r = 2, 3 ahead: 6 and 3, unrolled by 6.
constexpr stack_layout stack_layout_of(int radius) { return {16, 2, radius == 1 ? 2 : 3}; }
constexpr int stack_columns(int element_bytes) { return 16 / element_bytes; }  // a thread's
constexpr int stack_width(int element_bytes) { return 32 * stack_columns(element_bytes); }
constexpr int stack_tile_y(int radius) { return stack_layout_of(radius).warps * stack_layout_of(radius).rows; }
// The strip starts `lead` (L r rounded up to V) left of its kept columns, as step 07's does.
constexpr int stack_lead(int depth, int radius, int element_bytes) {
  const int v = stack_columns(element_bytes);
  return (depth * radius + v - 1) / v * v;
}
constexpr int stack_kept_x(int depth, int radius, int element_bytes) {
  const int v = stack_columns(element_bytes);
  return (stack_width(element_bytes) - depth * radius - stack_lead(depth, radius, element_bytes)) / v * v;
}
constexpr int stack_kept_y(int depth, int radius) { return stack_tile_y(radius) - 2 * depth * radius; }
// Its shared memory: the input's ring and one a sweep but the last, each slot a plane of the tile
// with its pad rows, (32 + 2r) x 32 V elements: 17 KiB at r = 1 in float and double.
constexpr int stack_slots(int depth, int radius) {
  return stack_layout_of(radius).rows_ahead + radius + 1 + (depth - 1) * (radius + 1);
}
constexpr long stack_shared_bytes(int depth, int radius, int element_bytes) {
  return static_cast<long>(stack_slots(depth, radius)) * (stack_tile_y(radius) + 2 * radius) * stack_width(element_bytes) * element_bytes;
}
// Its deepest pass: the rings within Hopper's 227 KiB a block, a column and a row kept. r = 1: L = 5
// (12 slots, 204 KiB); r = 2: L = 3 (12 slots of 18 KiB, 216 KiB). The held planes are few registers
// (L r rows x V values, 40 in float at L = 5).
constexpr int stack_depth_limit(int radius, int element_bytes) {
  if (radius != 1 && radius != 2) return 0;
  int depth = 0;
  while (stack_shared_bytes(depth + 1, radius, element_bytes) <= 227 * 1024 && stack_kept_x(depth + 1, radius, element_bytes) > 0 &&
         stack_kept_y(depth + 1, radius) > 0) {
    ++depth;
  }
  return depth;
}

// Step 09's clusters: `cluster` of step 08's blocks stacked in y as a thread-block cluster, each sweep's
// edge rows handed to the neighbouring block's shared memory (its pad rows), so the cluster loses L r
// rows at its two ends only: it keeps cluster x 32 - 2 L r of its cluster x 32 rows. At 512^3, L = 4,
// r = 1: 22 tiles of 32 rows compute a plane's rows alone, 6 clusters of 3 (96 rows, 88 kept) 18.
inline constexpr parameter cluster_setting{"cluster", "model|N", "model",
                                           "blocks a thread-block cluster stacks in y (1: step 08's tiles; grids a cluster does not fit run them too); "
                                           "model: the fewest rows computed a resident block"};
inline constexpr parameter cluster_settings[] = {fused_setting, cluster_setting};
inline constexpr int stack_cluster_limit = 8;  // Hopper's portable cluster size
constexpr int stack_cluster_kept_y(int depth, int radius, int cluster) { return cluster * stack_tile_y(radius) - 2 * depth * radius; }
// The cluster step 09 takes: the chosen one (at most stack_cluster_limit), else the model's: of 1-4
// blocks that fit the grid's rows (cluster x 32 <= ny), the fewest rows computed a resident block,
// ceil(ny / kept) cluster x 32 / resident[cluster - 1], where resident[c - 1] is how many blocks the
// GPU holds at once in clusters of c (a cluster's blocks share a GPC: cudaOccupancyMaxActiveClusters
// x c; 0 where none fits). Ties go to the smaller cluster. 1 means step 08's tiles.
int stack_cluster_of(const launch_context& launch, int ny, int depth, int radius, std::span<const int> resident);

// The sweeps a pass of step 02 (GPU) fuses: the chosen number, else the model's, within its compiled
// limit for this radius, shape, dimension and type (0: the step cannot fuse this problem).
int fused_depth_of(const problem& p, const launch_context& launch);
int register_rows_depth_of(const problem& p, const launch_context& launch);  // step 03's, the same way
int march_depth_of(const problem& p, const launch_context& launch, march_layout layout);  // steps 04-06's, the same way
int strip_depth_of(const iterated_problem& p, const launch_context& launch);  // step 07's: the T sweeps' least time
int stack_depth_of(const iterated_problem& p, const launch_context& launch);   // step 08's, the same way

// The CPU skewed step's band: the widest band whose rows in flight for `depth` fused sweeps fit the
// cache (schedule::skewed_column_width), and narrow enough to give each thread one, unless chosen. Its
// depth: chosen, else 4, fewer where the rows in flight would outnumber the cache's ways (iterate.cpp).
std::int64_t skewed_band_of(const problem& p, int depth, const launch_context& launch);
int skewed_depth_of(const problem& p, const launch_context& launch);
// The 3D CPU step's slab of rows (of y; all x, streamed along z): the same model with a grid row for an
// element (iterate.cpp).
std::int64_t skewed_slab_of(const problem& p, int depth, const launch_context& launch);

// ---- Steps ---------------------------------------------------------------------------------------
support any_iterated(const iterated_problem& p);
support skewable(const iterated_problem& p);     // 2D, rows back to back, boundary other than periodic
support skewable_3d(const iterated_problem& p);  // the same in 3D
support fusable_on_gpu(const iterated_problem& p);  // boundary other than periodic, a depth >= 2 compiled
support rows_on_gpu(const iterated_problem& p);     // the same, 3D stars of radius 1 or 2
support marches_on_gpu(const iterated_problem& p);  // steps 04-06: as step 03
support strips_on_gpu(const iterated_problem& p);   // step 07: 2D stars of radius 1 or 2, every boundary
support stacks_on_gpu(const iterated_problem& p);    // steps 08 and 09: 3D stars of radius 1 or 2, boundary other than periodic

// T single sweeps of the library's apply (host or device: where the operands are).
void repeated_sweeps(const iterated_problem&, const sweep_operands&, const launch_context&);  // cpu/iterate/01_sweeps.cpp
namespace cpu {
void skewed_columns(const iterated_problem&, const sweep_operands&, const launch_context&);  // cpu/iterate/02_skewed_columns.cpp
void skewed_slabs(const iterated_problem&, const sweep_operands&, const launch_context&);    // cpu/iterate/03_skewed_slabs.cpp
}
namespace cuda {
void fused_planes(const iterated_problem&, const sweep_operands&, const launch_context&);    // cuda/iterate/02_fused_planes.cu
void register_rows(const iterated_problem&, const sweep_operands&, const launch_context&);   // cuda/iterate/03_register_rows.cu
void unrolled_march(const iterated_problem&, const sweep_operands&, const launch_context&);  // cuda/iterate/04_unrolled_march.cu
void one_barrier_a_step(const iterated_problem&, const sweep_operands&, const launch_context&);  // cuda/iterate/05_one_barrier_a_step.cu
void four_row_march(const iterated_problem&, const sweep_operands&, const launch_context&);  // cuda/iterate/06_four_row_march.cu
void warp_strips(const iterated_problem&, const sweep_operands&, const launch_context&);     // cuda/iterate/07_warp_strips.cu
void stacked_strips(const iterated_problem&, const sweep_operands&, const launch_context&);  // cuda/iterate/08_stacked_strips.cu
void cluster_halos(const iterated_problem&, const sweep_operands&, const launch_context&);   // cuda/iterate/09_cluster_halos.cu
// Copies the grid in to out on the launch's stream (T = 0), pads untouched.
void copy_grid(const problem& p, const void* in, void* out, const launch_context& launch);

// The GPU steps' loop over passes: T = 0 copies the input; else T is cut into passes of at most
// `depth` sweeps (plan_passes), each launched as run_pass(source, target, its depth) on the buffers
// pass_at gives it.
template <class RunPass>
void run_passes(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch, int depth, RunPass&& run_pass) {
  if (ip.sweeps == 0) {
    if (x.in != x.out) copy_grid(ip.sweep, x.in, x.out, launch);
    return;
  }
  const std::vector<int> passes = plan_passes(ip.sweeps, depth);
  const int count = static_cast<int>(passes.size());
  for (int k = 0; k < count; ++k) {
    const pass_buffers at = pass_at(x, k, count);
    run_pass(at.source, at.target, passes[static_cast<std::size_t>(k)]);
  }
}
}

}  // namespace swath::stencil
