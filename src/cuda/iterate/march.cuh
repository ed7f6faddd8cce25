#pragma once
// What the unrolled marches (steps 04-06) share: the block's tile and thread layout, the decisions a
// thread makes once (its rows, their boundary, their tap offsets, the sweeps its warp runs), the
// block's choice of path, and the host's passes. A step supplies its march (how a step of z runs) and
// its layout (march_layout, iterate.hpp).
//
// A block is 32 x by threads over a tile of 32 x (by rows) columns; each thread owns `rows` consecutive
// rows of its column (rows ty .. rows ty + rows - 1). A pass of L sweeps keeps the tile's middle, L r
// narrower on each side. Blocks
// whose tile crosses an x-y face of the grid take the edge path (the boundary's neighbours,
// precomputed per thread, and the columns outside the grid, which hold the constant or are never read);
// all others read their neighbours directly.
#include <cstdint>
#include <string>
#include <utility>

#include "../../stencil/iterate.hpp"
#include "../stencil/stencil_cuda.cuh"

namespace swath::stencil::cuda::march {

template <class T, int R, march_layout Layout>
struct config {
  using value = T;
  static constexpr int radius = R;
  static constexpr march_layout layout = Layout;
  static constexpr int bx = 32, by = Layout.threads_y, rows = Layout.rows;  // threads; rows a thread owns
  static constexpr int tile_x = bx, tile_y = Layout.tile_y();                // columns
  static constexpr int width_x = tile_x + 2 * R, width_y = tile_y + 2 * R;  // a plane's, r of pad each side
  static constexpr int plane_size = width_x * width_y;
  static constexpr int taps = 6 * R + 1;
  static constexpr int depth = march_depth_limit(R, static_cast<int>(sizeof(T)));
  static constexpr int min_blocks = Layout.min_blocks;
  static constexpr std::size_t shared_bytes(int planes) { return sizeof(T) * static_cast<std::size_t>(planes) * plane_size; }
};

// The slot of plane s + offset at unrolled step `phase` (0 .. Q - 1) of a march unrolled by Q: plane z
// of every sweep sits in slot (z - the march's first step) mod Q, so each slot is a constant.
template <int Q>
constexpr int slot_of(int phase, int offset) {
  return (((phase + offset) % Q) + Q) % Q;
}

// The in-plane tap k's displacement: -r .. -1 for k < r, then 1 .. r.
constexpr int tap_displacement(int radius, int k) { return k < radius ? k - radius : k - radius + 1; }

// What a thread decides once about its rows (C: the step's config).
template <class C, int L, bool Edge>
struct rows {
  static constexpr int R = C::radius, n = C::rows;
  static constexpr int halo = L * R;
  int z0, z1;                  // the planes the block's last sweep stores
  bool inside[n];              // the row's column lies in the grid
  bool keeps[n];               // the copy boundary keeps it (within r of an x-y face; edge blocks)
  bool stores[n];              // in the tile's kept middle and in the grid
  std::int64_t offset[n];      // y sy + x in the grid (0 outside it)
  int own[n];                  // the row's cell in a plane
  int x_offset[2 * R];         // the in-plane taps' cells from own: dx and dy W, or in an edge block
  int y_offset[n][2 * R];      // with the clamp boundary those of the clamped column and row
  int reach;                   // the warp's rows are needed by sweeps 1 .. reach

  __device__ rows(const frame& f, int z_chunk) {
    const int tx = static_cast<int>(threadIdx.x), row0 = static_cast<int>(threadIdx.y) * n;
    const int gx0 = static_cast<int>(blockIdx.x) * (C::tile_x - 2 * halo) - halo;
    const int gy0 = static_cast<int>(blockIdx.y) * (C::tile_y - 2 * halo) - halo;
    z0 = static_cast<int>(blockIdx.z) * z_chunk;
    z1 = min(z0 + z_chunk, f.nz);
    const int x = gx0 + tx;
    const bool x_inside = static_cast<unsigned>(x) < static_cast<unsigned>(f.nx);
#pragma unroll
    for (int j = 0; j < n; ++j) {
      const int y = gy0 + row0 + j, row = row0 + j;
      inside[j] = x_inside && static_cast<unsigned>(y) < static_cast<unsigned>(f.ny);
      keeps[j] = Edge && f.edge == boundary::copy && (x < R || x >= f.nx - R || y < R || y >= f.ny - R);
      stores[j] = inside[j] && tx >= halo && tx < C::tile_x - halo && row >= halo && row < C::tile_y - halo;
      offset[j] = inside[j] ? static_cast<std::int64_t>(y) * f.sy + x : 0;
      own[j] = (row + R) * C::width_x + tx + R;
    }
    // A clamped neighbour lies between the column and the tap, so in the tile. The constant boundary
    // reads the columns outside the grid, which hold it.
    const bool clamp = Edge && f.edge == boundary::clamp;
#pragma unroll
    for (int k = 0; k < 2 * R; ++k) {
      const int d = k < R ? k - R : k - R + 1;  // -R .. -1, 1 .. R
      x_offset[k] = clamp ? min(max(x + d, 0), f.nx - 1) - x : d;
#pragma unroll
      for (int j = 0; j < n; ++j) {
        const int y = gy0 + row0 + j;
        y_offset[j][k] = (clamp ? min(max(y + d, 0), f.ny - 1) - y : d) * C::width_x;
      }
    }
    // Sweep τ is right only τ r rows in from the tile's edge: rows [τ r, tile_y - τ r) are needed.
    reach = min((row0 + n - 1) / R, (C::tile_y - 1 - row0) / R);
  }

  // The in-plane tap d (-r .. -1, 1 .. r) of row j along y, and along x, as indices of its cell.
  [[nodiscard]] __device__ int y_cell(int j, int k) const { return own[j] + y_offset[j][k]; }
  [[nodiscard]] __device__ int x_cell(int j, int k) const { return own[j] + x_offset[k]; }
};

// Plane z of a sweep enters its queue, in slot slot_of(phase, offset). On the face path past the top
// face the boundary's plane takes its place (clamp and copy repeat the last), and plane 0 also stands
// for the planes below it.
template <bool Face, int Q, class T>
__device__ __forceinline__ void push(T (&queue)[Q], int phase, int offset, int z, T value, const frame& f, T edge_value) {
  if constexpr (Face) {
    const bool constant = f.edge == boundary::constant;
    if (z >= f.nz) value = constant ? edge_value : queue[slot_of<Q>(phase, offset - 1)];
    if (z == 0) {
#pragma unroll
      for (int d = 1; d <= (Q - 1) / 2; ++d) queue[slot_of<Q>(phase, offset - d)] = constant ? edge_value : value;
    }
  }
  queue[slot_of<Q>(phase, offset)] = value;
}

// The input's plane s enters sweep 0's queues: the value loaded a step ago; the next plane's load is
// issued now, to arrive across the step's sweeps. `load_plane` is s + 1's offset.
template <bool Face, class C, int L, bool Edge, int Q, class T = typename C::value>
__device__ __forceinline__ void take_input(const rows<C, L, Edge>& at, T (&queues)[C::rows][Q], T (&next)[C::rows], int phase, int s,
                                           const T* __restrict__ in, std::int64_t load_plane, const frame& f, T edge_value) {
#pragma unroll
  for (int j = 0; j < C::rows; ++j) {
    T value = next[j];
    if (at.inside[j] && s + 1 < f.nz) next[j] = in[load_plane + at.offset[j]];
    if (Edge && !at.inside[j]) value = edge_value;
    push<Face>(queues[j], phase, 0, s, value, f, edge_value);
  }
}

// Row j's value of a sweep at plane z, from the sweep before: its queues `from` (every row's; plane z
// in slot slot_of(phase, centre_at), the z taps beside it) and its plane z in shared memory (`plane`,
// the in-plane taps; the y taps on the thread's other rows from its registers). Then the boundary: an edge
// block's columns outside the grid hold the constant, and the copy boundary keeps the points within r
// of a face.
template <bool Face, class C, int L, bool Edge, int Q, class T = typename C::value, int R = C::radius>
__device__ __forceinline__ T sweep_point(const rows<C, L, Edge>& at, int j, const T (&from)[C::rows][Q], int phase, int centre_at,
                                         const T* plane, int z, const frame& f, T edge_value,
                                         const weights<T, 6 * R + 1>& c) {
  const T centre = from[j][slot_of<Q>(phase, centre_at)];
  T sum = c.w[star_index<R, R>(0, 0, 0)] * centre;
#pragma unroll
  for (int dz = -R; dz <= R; ++dz) {
    if (dz != 0) sum += c.w[star_index<R, R>(0, 0, dz)] * from[j][slot_of<Q>(phase, centre_at + dz)];
  }
#pragma unroll
  for (int k = 0; k < 2 * R; ++k) {
    const int d = tap_displacement(R, k), other = j + d;
    const bool in_registers = !Edge && other >= 0 && other < C::rows;
    const T y_value = in_registers ? from[in_registers ? other : 0][slot_of<Q>(phase, centre_at)] : plane[at.y_cell(j, k)];
    sum += c.w[star_index<R, R>(0, d, 0)] * y_value;
    sum += c.w[star_index<R, R>(d, 0, 0)] * plane[at.x_cell(j, k)];
  }
  T result = sum;
  if constexpr (Edge) {
    if (at.keeps[j]) result = centre;
    if (!at.inside[j]) result = edge_value;
  }
  if constexpr (Face) {
    if (f.edge == boundary::copy && (z < R || z >= f.nz - R)) result = centre;
  }
  return result;
}

// A block's start: its shared planes zeroed (the pads are read only by the tile's outer columns, whose
// results are never kept: zeroed so that nothing reads memory no one wrote), then the march on the
// edge path or the middle one. March: `template <bool Edge> void operator()(const rows<C, L, Edge>&)`.
template <class C, int L, class March, class T = typename C::value>
__device__ __forceinline__ void run_block(const frame& f, int z_chunk, T* shared, int planes, March&& march) {
  const int thread = static_cast<int>(threadIdx.y * C::bx + threadIdx.x);
  for (int i = thread; i < planes * C::plane_size; i += C::bx * C::by) shared[i] = T(0);
  __syncthreads();
  constexpr int halo = L * C::radius;
  const int gx0 = static_cast<int>(blockIdx.x) * (C::tile_x - 2 * halo) - halo;
  const int gy0 = static_cast<int>(blockIdx.y) * (C::tile_y - 2 * halo) - halo;
  if (gx0 < 0 || gx0 + C::tile_x > f.nx || gy0 < 0 || gy0 + C::tile_y > f.ny) {
    march.template operator()<true>(rows<C, L, true>(f, z_chunk));
  } else {
    march.template operator()<false>(rows<C, L, false>(f, z_chunk));
  }
}

// Steps first .. last in groups of Q (each a compile-time phase), those where some sweep may meet a z
// face (a plane within r of one, below 0 or past the top) on the face path, the rest without its tests:
// group_step.template operator()<P, Face>(s). `lag` is each sweep's distance behind the one before.
template <int Q, int L, class Step>
__device__ __forceinline__ void climb(int first, int last, int nz, int radius, int lag, Step&& group_step) {
  for (int s = first; s <= last; s += Q) {
    // In this group the last sweep computes planes from s - L lag and the input reaches s + Q - 1.
    const bool plain = s - L * lag >= radius && s + Q - 1 < nz - radius;
    if (plain) {
      [&]<int... P>(std::integer_sequence<int, P...>) {
        (group_step.template operator()<P, false>(s + P), ...);
      }(std::make_integer_sequence<int, Q>{});
    } else {
      [&]<int... P>(std::integer_sequence<int, P...>) {
        (group_step.template operator()<P, true>(s + P), ...);
      }(std::make_integer_sequence<int, Q>{});
    }
  }
}

// The host's side. Step: a type with `template <class T> static constexpr march_layout layout()` (its
// layout by element type), `template <class T, int R, int L> static auto kernel()` (the step's kernel,
// launched as kernel(in, out, frame, edge value, z chunk, weights)), `planes(L)` (its shared planes) and
// `name` (for errors).
template <class Step, class T, int R>
using config_of = config<T, R, Step::template layout<T>()>;

template <class Step, class T, int R, int L>
void run_pass(const problem& p, const void* source, void* target, const launch_context& launch) {
  using C = config_of<Step, T, R>;
  const auto kernel = Step::template kernel<T, R, L>();
  const std::size_t shared = C::shared_bytes(Step::planes(L));
  const int blocks_per_sm = prepare_kernel(kernel, C::bx * C::by, shared);
  const frame f = frame_of(p);
  constexpr int halo = L * R;
  const unsigned gx = blocks_for(f.nx, C::tile_x - 2 * halo), gy = blocks_for(f.ny, C::tile_y - 2 * halo);
  SWATH_EXPECTS(gy <= 65535, std::string(Step::name) + ": more than 65535 tiles in y");
  const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
  const int chunks = choose_chunks(static_cast<std::int64_t>(gx) * gy, static_cast<std::int64_t>(sms) * blocks_per_sm, f.nz, halo);
  const int z_chunk = std::max((f.nz + chunks - 1) / chunks, (f.nz + 65534) / 65535);
  const dim3 grid(gx, gy, static_cast<unsigned>((f.nz + z_chunk - 1) / z_chunk));
  kernel<<<grid, dim3(C::bx, C::by), shared, stream_of(launch)>>>(static_cast<const T*>(source), static_cast<T*>(target), f,
                                                                   static_cast<T>(p.edge_value), z_chunk,
                                                                   pack_weights<T, C::taps>(p, R, R, shape::star));
  SWATH_CHECK_LAST();
}

// Calls launch_depth.template operator()<D>() for the compiled depth D = depth, 1 <= D <= Limit (a
// step's kernels are templates of their depth: the queues rotate by renaming). Once a pass: the step's
// name becomes a message only when the depth is out of range.
template <int Limit, class LaunchDepth>
void with_compiled_depth(int depth, const char* step, LaunchDepth&& launch_depth) {
  SWATH_EXPECTS(depth >= 1 && depth <= Limit, std::string(step) + ": pass depth outside its compiled range");
  [&]<int... D>(std::integer_sequence<int, D...>) {
    ((depth == D + 1 ? launch_depth.template operator()<D + 1>() : void()), ...);
  }(std::make_integer_sequence<int, Limit>{});
}

// A thread's V columns of a row with r columns each side, for its x taps (steps 07 and 08: a warp's
// lanes hold consecutive vectors of a strip): wide[r + k] is column x + k, the columns beyond the
// thread's come from the neighbouring lanes by shuffles. The lanes at the strip's ends read their own
// values there: wrong, but only in columns the pass drops, unless that end is a face (Face: `left` for
// lane 0, `right` for lane 31), where the boundary's value takes their place: the constant, or under
// clamp the face column's (copy never reads them).
template <bool Face, int R, int V, class T>
__device__ __forceinline__ void widen_row(const T (&centre)[V], bool left, bool right, bool constant, T edge_value, T (&wide)[V + 2 * R]) {
#pragma unroll
  for (int k = 0; k < V; ++k) wide[R + k] = centre[k];
#pragma unroll
  for (int i = 1; i <= R; ++i) {
    wide[R - i] = __shfl_up_sync(0xffffffffu, centre[V - i], 1);
    wide[R + V - 1 + i] = __shfl_down_sync(0xffffffffu, centre[i - 1], 1);
  }
  if constexpr (Face) {
#pragma unroll
    for (int i = 1; i <= R; ++i) {
      if (left) wide[R - i] = constant ? edge_value : centre[0];
      if (right) wide[R + V - 1 + i] = constant ? edge_value : centre[V - 1];
    }
  }
}

// Runs launch.template operator()<T, R, L>() for the problem's element type T, its radius R (1 or 2)
// and the compiled depth L = depth (1 <= L <= Limit(R, sizeof(T))): steps 07 and 08, whose kernels are
// templates of all three.
template <int (*Limit)(int, int), class Launch>
void with_star_pass(const problem& p, int depth, const char* step, Launch&& launch) {
  for_element_type(p, [&]<class T>() {
    const auto with_radius = [&]<int R>() {
      with_compiled_depth<Limit(R, static_cast<int>(sizeof(T)))>(depth, step, [&]<int L>() { launch.template operator()<T, R, L>(); });
    };
    p.radius == 1 ? with_radius.template operator()<1>() : with_radius.template operator()<2>();
  });
}

// T sweeps as passes of the model's (or the chosen) depth, each pass the template of its depth.
template <class Step>
void run(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  const march_layout layout = p.element_bytes() == 4 ? Step::template layout<float>() : Step::template layout<double>();
  run_passes(ip, x, launch, march_depth_of(p, launch, layout), [&](const void* source, void* target, int depth) {
    for_element_type(p, [&]<class T>() {
      const auto with_radius = [&]<int R>() {
        with_compiled_depth<config_of<Step, T, R>::depth>(depth, Step::name, [&]<int L>() {
          run_pass<Step, T, R, L>(p, source, target, launch);
        });
      };
      SWATH_EXPECTS(p.radius == 1 || p.radius == 2, std::string(Step::name) + ": stars of radius 1 and 2");
      p.radius == 1 ? with_radius.template operator()<1>() : with_radius.template operator()<2>();
    });
  });
}

}  // namespace swath::stencil::cuda::march
