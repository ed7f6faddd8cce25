// Step 07 (GPU iterated stencil): 2D stars, L sweeps a pass, each warp an independent strip.
//
// Step 02 runs 2D grids as rows of 512 points a block, one point a thread, the sweeps' rows in shared
// memory behind a barrier each: on an H100 1.35-1.45x the single-sweep roofline for the 5-point star at
// 16384^2, where DRAM allows L x. Here a warp needs no one else:
// - each warp owns a strip of 128 columns (4 a thread: one 16-byte load or store in float) and a
//   segment of rows, and marches it along y. Step s loads row s; sweep τ computes row s - τ r from the
//   last 2r + 1 rows of sweep τ - 1, which the thread holds in registers (its y taps); the x taps beside
//   its own 4 columns come from the neighbouring lanes by 2r shuffles. Nothing shared between warps, no
//   barrier: a warp waits only on its own loads (the rows ahead: rows_ahead_ring, strip_pipeline_of);
// - the strip's edges are recomputed (sweep τ is right only τ r columns in from them: a pass keeps
//   strip_kept of 128 columns, 112 at L = 8, r = 1), and so are L r rows at each end of a segment;
// - as in step 04, the depth is a template parameter, the queues rotate by renaming (the march unrolled
//   by 2r + 1 steps), the loads and stores advance row offsets, and the tests of a segment's ends run
//   only near them;
// - the strips at the grid's x faces are moved into the grid (strip_kind::face): the boundary is then
//   one value in place of a shuffle's at lane 0 or 31, and those warps cost about what the others do.
//   Blocks of the first and last strips are launched first all the same.
// The boundary: rows outside the grid are queued as step 02 does (row 0 stands for the rows below it,
// the last repeated past it), the copy boundary keeps the points within r of a face, and periodic grids
// read their rows and columns modulo the grid: a strip's recomputed edge is then right by translation.
// Grids narrower than a strip, and periodic ones' first and last strips, hold the boundary's value in
// their columns outside the grid (strip_kind::outside).
//
// Prediction (H100, 16384^2 float, 5-point, T = 64): about 7.5 instructions a point-sweep, 1.14 computed
// a kept one at L = 8: 6.4x the single-sweep roofline by issue, 7x by DRAM at L = 7; expect 5-6x.
// Outcomes (gpu-check rows; the history in docs/journal/stencil.md, "Step 07"): 2.3x first; 4.17x with
// the face strips moved into the grid and the depth chosen for T's whole passes (c75eab3); 4.55x with
// the pipeline as data; 4.77x with the edge strips' marches out of line (c893a5c). Then the 16-byte path
// as a template parameter (ptxas had merged it with the 4-byte one into four loads a row) and the inner
// strips' rows ahead through shared memory by cp.async (in registers they were loop-carried, and the
// move ptxas made of each waited on its load: 59-70% of the cycles in long-scoreboard stalls). Predicted
// from the SASS and ncu: 15% fewer instructions in the plain groups, and the kernel bound by issue, not
// by one row in flight. Measured on an H200 in one call, float r 1: 8.79 -> 6.73 ms.
#include "../core/async_copy.cuh"
#include "march.cuh"

namespace swath::stencil::cuda {
namespace {

using march::slot_of;

constexpr int strip_warps = 4;  // a block's strips, side by side in x

template <class T, int R, int L>
struct strip_config {
  static constexpr int V = strip_columns, Q = 2 * R + 1, halo = L * R;
  static constexpr int kept = strip_kept(L, R), lead = strip_lead(L, R);
  static constexpr int taps = 4 * R + 1;  // a 2D star in the frame: x and z (the grid's y) taps
  static constexpr strip_pipeline pipeline = strip_pipeline_of(R, static_cast<int>(sizeof(T)));
  static_assert(kept >= V, "the pass is deeper than the strip");
};

// How a warp's strip meets the grid's x faces. Inner: all 128 columns in the grid, away from both
// faces (its edges are halo). Face: all in the grid, one edge on a face (grids at least 128 wide
// without the periodic boundary place their first and last strips so): the boundary is one value in
// place of a shuffle's at lane 0 or 31. Outside: some columns outside the grid (periodic grids' first
// and last strips, read modulo the width; grids narrower than a strip), which hold the boundary's value.
enum class strip_kind { inner, face, outside };

// What a thread decides once: its 4 columns' boundary and whether it stores them. Vectors: every row's
// 4 columns a thread are loaded and stored as 16-byte vectors (inner strips on rows of 16-byte aligned
// starts: an inner strip's x0 is a multiple of 4, as kept and lead are). A compile-time choice: tested
// at run time, ptxas merged the two load paths of the march's plain groups into four 4-byte loads a
// row (cuobjdump of L = 8 at c893a5c), the 16-byte load gone from the loop that runs nearly every row.
template <class T, int R, int L, strip_kind Kind, bool Vectors>
struct strip_columns_of {
  static_assert(!Vectors || Kind == strip_kind::inner, "the 16-byte stores need a strip's kept columns 4-aligned");
  static constexpr int V = strip_columns;
  static constexpr bool outside_kind = Kind == strip_kind::outside;
  int x;                // the first of the thread's columns
  bool left, right;     // face: lane 0's left neighbours, lane 31's right ones lie past a face
  int source[V];        // outside: the column each loads (clamped, or wrapped)
  bool outside[V];      // outside: outside the grid
  bool keeps[V];        // kept by the copy boundary (face, outside)
  bool stores[V];       // in the strip's kept columns and in the grid
  int first_lane;       // outside: the lanes holding columns 0 and nx - 1, the latter's element (clamp)
  int last_lane, last_element;

  __device__ strip_columns_of(const frame& f, int x0, int keep_lo, int keep_hi) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    x = x0 + lane * V;
    left = Kind == strip_kind::face && lane == 0 && x0 == 0;
    right = Kind == strip_kind::face && lane == 31 && x0 + strip_width == f.nx;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int col = x + k;
      outside[k] = outside_kind && static_cast<unsigned>(col) >= static_cast<unsigned>(f.nx);
      source[k] = outside_kind ? wrap_or_clamp(col, f.nx, f.edge == boundary::periodic ? boundary::periodic : boundary::clamp) : col;
      keeps[k] = Kind != strip_kind::inner && f.edge == boundary::copy && (col < R || col >= f.nx - R);
      stores[k] = col >= keep_lo && col < keep_hi && col >= 0 && col < f.nx;
    }
    first_lane = x0 < 0 ? (-x0 / V) & 31 : 0;  // an outside strip's x0 is a multiple of 4: column 0 is an element 0
    const int last = f.nx - 1 - x0;
    last_lane = last >= 0 && last < strip_width ? last / V : 0;
    last_element = last >= 0 ? last % V : 0;
  }
};

// A row of the strip: its 4 columns a thread, from the row at `row` (the row's first element).
template <class T, int R, int L, strip_kind Kind, bool Vectors>
__device__ __forceinline__ void load_row(const T* __restrict__ row, const frame& f, const strip_columns_of<T, R, L, Kind, Vectors>& at,
                                         T edge_value, T (&v)[strip_columns]) {
  if constexpr (Vectors) {
    load_run<T, strip_columns>(row + at.x, v);  // the shared-memory helper works on any aligned address
    return;
  }
  constexpr bool outside = Kind == strip_kind::outside;
#pragma unroll
  for (int k = 0; k < strip_columns; ++k) {
    v[k] = outside && at.outside[k] && f.edge == boundary::constant ? edge_value : row[outside ? at.source[k] : at.x + k];
  }
}

// Row `row` of a sweep enters its queue in slot slot_of(phase, offset). Row 0 also stands for the rows
// below it (the constant, or a copy) near a segment's ends (Ends), unless the grid is periodic.
template <bool Ends, int Q, int V, class T>
__device__ __forceinline__ void push_row(T (&queue)[Q][V], int phase, int offset, int row, const T (&value)[V], const frame& f,
                                         T edge_value) {
  if constexpr (Ends) {
    if (row == 0 && f.edge != boundary::periodic) {
      const bool constant = f.edge == boundary::constant;
#pragma unroll
      for (int d = 1; d <= (Q - 1) / 2; ++d)
#pragma unroll
        for (int k = 0; k < V; ++k) queue[slot_of<Q>(phase, offset - d)][k] = constant ? edge_value : value[k];
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) queue[slot_of<Q>(phase, offset)][k] = value[k];
}

// Past the last row: the boundary's row (clamp and copy repeat the last; copy never reads it).
template <int Q, int V, class T>
__device__ __forceinline__ void push_beyond(T (&queue)[Q][V], int phase, int offset, const frame& f, T edge_value) {
  const bool constant = f.edge == boundary::constant;
#pragma unroll
  for (int k = 0; k < V; ++k) queue[slot_of<Q>(phase, offset)][k] = constant ? edge_value : queue[slot_of<Q>(phase, offset - 1)][k];
}

// One sweep of the thread's 4 points of a row: `from` is the sweep before's queue, the row in slot
// slot_of(phase, at), its y taps beside it; the x taps beyond the thread's columns by shuffles, the
// boundary's value at a face strip's face (march::widen_row).
template <class T, int R, int L, strip_kind Kind, bool Vectors, int Q, int V>
__device__ __forceinline__ void sweep_row(const T (&from)[Q][V], int phase, int at, const strip_columns_of<T, R, L, Kind, Vectors>& columns,
                                          const frame& f, T edge_value, const weights<T, 4 * R + 1>& c, T (&result)[V]) {
  const T(&centre)[V] = from[slot_of<Q>(phase, at)];
  T wide[V + 2 * R];  // the row's columns x - r .. x + 3 + r
  march::widen_row<Kind == strip_kind::face, R>(centre, columns.left, columns.right, f.edge == boundary::constant, edge_value, wide);
#pragma unroll
  for (int k = 0; k < V; ++k) {
    T sum = c.w[star_index<R, 0>(0, 0, 0)] * centre[k];
#pragma unroll
    for (int d = -R; d <= R; ++d) {
      if (d == 0) continue;
      sum += c.w[star_index<R, 0>(d, 0, 0)] * wide[R + k + d];
      sum += c.w[star_index<R, 0>(0, 0, d)] * from[slot_of<Q>(phase, at + d)][k];
    }
    result[k] = sum;
    if constexpr (Kind != strip_kind::inner) result[k] = columns.keeps[k] ? centre[k] : result[k];
  }
}

// An outside strip's columns after a sweep: outside the grid the boundary's value (the constant, or
// the face column's new value for clamp). Periodic strips computed theirs from wrapped rows: already
// right; under copy no point that computes reads them.
template <class T, int R, int L>
__device__ __forceinline__ void hold_boundary(const strip_columns_of<T, R, L, strip_kind::outside, false>& at, const frame& f, T edge_value,
                                              T (&v)[strip_columns]) {
  constexpr int V = strip_columns;
  if (f.edge == boundary::constant) {
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = at.outside[k] ? edge_value : v[k];
  } else if (f.edge == boundary::clamp) {
    T last = v[0];
#pragma unroll
    for (int k = 1; k < V; ++k) last = at.last_element == k ? v[k] : last;
    const T left = __shfl_sync(0xffffffffu, v[0], at.first_lane);
    const T right = __shfl_sync(0xffffffffu, last, at.last_lane);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = at.outside[k] ? (at.x + k < 0 ? left : right) : v[k];
  }
}

// The inner strips' rows ahead (the 16-byte path): each thread copies its own 16-byte pieces of row
// s + D into shared memory by cp.async and reads row s back from there, D + 1 slots a thread in turn.
// Held in registers instead, the rows ahead were loop-carried values: ptxas moved each loaded row into
// the register the next group expected, and that move waited on the load (ncu, H100 and H200: 59-70% of
// the warps' cycles in long-scoreboard stalls on one MOV a group), so a row was in flight for one step
// whatever D was. Copies land in shared memory with no register in between, and a thread waits only for
// its own copies (cp.async.wait_group), which are visible to it without a barrier.
template <class T, int D>
struct rows_ahead_ring {
  static constexpr int V = strip_columns, per = 16 / static_cast<int>(sizeof(T));
  static constexpr int slot_elements = 32 * strip_warps * V;  // a block's threads' pieces of one row
  T* base;   // the thread's piece in slot 0
  int slot;  // row s's
  __device__ explicit rows_ahead_ring(T* ring) : base(ring + static_cast<int>(threadIdx.x) * V), slot(0) {}
  // Row `row`'s 4 columns (16-byte aligned) into slot j. The caller commits a group every step, whether
  // it copied or not: wait_copies counts steps.
  __device__ __forceinline__ void fetch(const T* row, int j) const {
#pragma unroll
    for (int k = 0; k < V / per; ++k) swath::cuda::copy_async(base + j * slot_elements + k * per, row + k * per, 16);
  }
  __device__ __forceinline__ void take(T (&v)[V]) const {
    swath::cuda::wait_copies<D - 1>();  // rows s + 1 .. s + D - 1 may still be in flight
    load_run<T, V>(base + slot * slot_elements, v);
  }
  __device__ __forceinline__ int ahead_slot() const { return slot == 0 ? D : slot - 1; }  // (slot + D) mod (D + 1)
  __device__ __forceinline__ void advance() { slot = slot == D ? 0 : slot + 1; }
};

// A warp's pass over its strip (columns x0 .. x0 + 127, storing keep_lo .. keep_hi - 1) and segment
// (rows ys .. ye - 1 of the last sweep). `ring`: the block's rows_ahead_ring (the 16-byte path's).
template <class T, int R, int L, strip_kind Kind, bool Vectors>
__device__ __forceinline__ void march_strip(const T* __restrict__ in, T* __restrict__ out, const frame& f, T edge_value, int x0,
                                            int keep_lo, int keep_hi, int ys, int ye, const weights<T, 4 * R + 1>& c,
                                            T* ring = nullptr) {
  using C = strip_config<T, R, L>;
  constexpr int V = C::V, Q = C::Q, halo = C::halo;
  // Rows ahead: through shared memory on the 16-byte path where the pipeline says so; else in
  // registers, renamed like the queues (row first + i in slot i mod D, D dividing the Q steps of a
  // group: the pipeline's on the 16-byte path, Q on the others), which keeps ptxas's moves off them.
  constexpr bool through_shared = Vectors && C::pipeline.shared_ring;
  constexpr int D = Vectors ? C::pipeline.rows_ahead : Q;
  static_assert(through_shared || Q % D == 0, "rows ahead in registers must divide the 2r + 1 steps of a group");
  const strip_columns_of<T, R, L, Kind, Vectors> at(f, x0, keep_lo, keep_hi);
  const int ny = f.nz;  // the grid's rows: the frame's z
  const bool periodic = f.edge == boundary::periodic;
  const bool copy = f.edge == boundary::copy;

  // q[s][slot][k]: sweep s's rows (s = 0 the input), row y in slot (y - first) mod Q.
  T q[L][Q][V];
#pragma unroll
  for (int s = 0; s < L; ++s)
#pragma unroll
    for (int j = 0; j < Q; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) q[s][j][k] = T(0);

  // Rows ys - L r .. ye - 1 + L r of the input feed rows ys .. ye - 1 of the last sweep (clipped to the
  // grid unless it is periodic). Sweep τ needs its rows ys - (L - τ) r .. ye - 1 + (L - τ) r.
  const int first = periodic ? ys - halo : max(0, ys - halo), last = ye - 1 + halo;
  const int load_end = periodic ? ye + halo : min(ny, ye + halo);
  // A group of Q steps from s runs without the tests of the segment's ends (Ends = false) when every
  // sweep's row is in its range, away from the y faces, and every load of the group (rows up to
  // s + Q - 1 + D) is in the grid and needed.
  const int plain_lo = max(ys, R) + halo, plain_hi = min(ny, ye + halo) - Q - D;

  // Row y's first element; periodic grids wrap y near a segment's ends (the plain groups' rows are in
  // the grid). The loads and stores advance their rows' offsets a step at a time.
  const auto row_at = [&](int y) { return (periodic ? wrap_or_clamp(y, ny, boundary::periodic) : y) * static_cast<std::int64_t>(f.sz); };
  [[maybe_unused]] rows_ahead_ring<T, D> async_rows(ring);
  T next[through_shared ? 1 : D][V];
#pragma unroll
  for (int d = 0; d < D; ++d) {
    if constexpr (through_shared) {
      if (first + d < load_end) async_rows.fetch(in + row_at(first + d) + at.x, d);
      swath::cuda::commit_copies();
    } else if (first + d < load_end) {
      load_row<T, R, L, Kind, Vectors>(in + row_at(first + d), f, at, edge_value, next[d]);
    }
  }
  std::int64_t load_offset = static_cast<std::int64_t>(first + D) * f.sz;     // row s + D's, unwrapped
  std::int64_t store_offset = static_cast<std::int64_t>(first - halo) * f.sz;  // row s - L r's

  const auto step = [&]<int P, bool Ends>(int s) {
    T row[V];
    if constexpr (through_shared) {
      async_rows.take(row);
      if (!Ends) {
        async_rows.fetch(in + load_offset + at.x, async_rows.ahead_slot());
      } else if (s + D < load_end) {
        async_rows.fetch(in + row_at(s + D) + at.x, async_rows.ahead_slot());
      }
      swath::cuda::commit_copies();
      async_rows.advance();
    } else {
      T(&ahead)[V] = next[slot_of<D>(P, 0)];  // row s; row s + D takes its place
#pragma unroll
      for (int k = 0; k < V; ++k) row[k] = ahead[k];
      if (!Ends) {
        load_row<T, R, L, Kind, Vectors>(in + load_offset, f, at, edge_value, ahead);
      } else if (s + D < load_end) {
        load_row<T, R, L, Kind, Vectors>(in + row_at(s + D), f, at, edge_value, ahead);
      }
    }
    load_offset += f.sz;
    if (!Ends || s < load_end) {
      push_row<Ends>(q[0], P, 0, s, row, f, edge_value);
    } else if (!periodic && s >= ny) {
      push_beyond(q[0], P, 0, f, edge_value);
    }
#pragma unroll
    for (int sweep = 1; sweep <= L; ++sweep) {
      const int j = s - sweep * R, reach = (L - sweep) * R;
      const bool active = !Ends || (periodic ? j >= ys - reach && j < ye + reach : j >= max(0, ys - reach) && j < min(ny, ye + reach));
      if (active) {
        T result[V];
        sweep_row(q[sweep - 1], P, -sweep * R, at, f, edge_value, c, result);
        if constexpr (Kind == strip_kind::outside) hold_boundary<T, R, L>(at, f, edge_value, result);
        if constexpr (Ends) {
          if (copy && (j < R || j >= ny - R)) {
#pragma unroll
            for (int k = 0; k < V; ++k) result[k] = q[sweep - 1][slot_of<Q>(P, -sweep * R)][k];
          }
        }
        if (sweep == L) {
          T* target = out + store_offset + at.x;  // j = s - L r: in the grid
          if constexpr (Vectors) {
            if (at.stores[0]) {
              using vector = typename vector16<T>::type;
              constexpr int per = 16 / static_cast<int>(sizeof(T));
#pragma unroll
              for (int k = 0; k < V / per; ++k) reinterpret_cast<vector*>(target)[k] = vector16<T>::pack(result + k * per);
            }
          } else {
#pragma unroll
            for (int k = 0; k < V; ++k) {
              if (at.stores[k]) target[k] = result[k];
            }
          }
        } else {
          push_row<Ends>(q[sweep < L ? sweep : 0], P, -sweep * R, j, result, f, edge_value);
        }
      } else if (Ends && sweep < L && !periodic && j >= ny) {
        push_beyond(q[sweep < L ? sweep : 0], P, -sweep * R, f, edge_value);
      }
    }
    store_offset += f.sz;
  };
  // Steps in groups of Q, each a compile-time phase; a few past `last` compute rows nobody reads.
  for (int s = first; s <= last; s += Q) {
    if (s >= plain_lo && s <= plain_hi) {
      [&]<int... P>(std::integer_sequence<int, P...>) { (step.template operator()<P, false>(s + P), ...); }(std::make_integer_sequence<int, Q>{});
    } else {
      [&]<int... P>(std::integer_sequence<int, P...>) { (step.template operator()<P, true>(s + P), ...); }(std::make_integer_sequence<int, Q>{});
    }
  }
}

// The first and last strips' marches, and the inner strips' on rows not 16-byte aligned, out of line:
// the boundary's state (the columns outside the grid, the faces' lanes, the copy boundary's kept
// columns) takes registers the inner strips' march does not need, and ptxas gives a function one
// allocation for all its paths. Inlined, the three kinds shared 168 registers with 376 bytes of spills
// at L = 8 (float, r = 1); apart, the inner strips' march takes 150 and spills nothing, and the edge
// strips spill in their own code. The frame and weights come by value: in registers, where a reference
// would have them copied to the stack and read from there. Their loads are 4-byte ones.
template <class T, int R, int L, strip_kind Kind>
__device__ __noinline__ void march_edge_strip(const T* __restrict__ in, T* __restrict__ out, const frame f, T edge_value, int x0,
                                              int keep_lo, int keep_hi, int ys, int ye, const weights<T, 4 * R + 1> c) {
  march_strip<T, R, L, Kind, false>(in, out, f, edge_value, x0, keep_lo, keep_hi, ys, ye, c);
}

// Blocks run in the order of blockIdx.x: the blocks of the grid's first and last strips first (their
// face or outside warps are the slowest), then the rest, each group of strips over all its segments.
template <class T, int R, int L>
__global__ void __launch_bounds__(32 * strip_warps, strip_config<T, R, L>::pipeline.min_blocks) strip_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value,
                                                                 int segment, int segments, bool aligned_rows,
                                                                 const __grid_constant__ weights<T, 4 * R + 1> c) {
  using C = strip_config<T, R, L>;
  // The inner strips' rows ahead, where they go through shared memory.
  __shared__ alignas(16) T ring[C::pipeline.shared_ring ? (C::pipeline.rows_ahead + 1) * 32 * strip_warps * C::V : 1];
  const int block = static_cast<int>(blockIdx.x), rank = block / segments, groups = static_cast<int>(gridDim.x) / segments;
  const int group = rank == 0 ? 0 : rank == 1 ? groups - 1 : rank - 1;
  const int strip = group * strip_warps + static_cast<int>(threadIdx.x) / 32;
  const int keep_lo = strip * C::kept;
  if (keep_lo >= f.nx) return;  // the whole warp: the block's last strips past the grid
  const int keep_hi = keep_lo + C::kept;
  const int ys = (block % segments) * segment, ye = min(ys + segment, f.nz);
  // The strip starts `lead` left of its kept columns; without the periodic boundary, on a grid at least
  // a strip wide, it is moved into the grid: its edge on the face is then right at every sweep (the
  // boundary's values in place of the shuffles'), so it still keeps its columns.
  int x0 = keep_lo - C::lead;
  const bool periodic = f.edge == boundary::periodic;
  if (!periodic && f.nx >= strip_width) x0 = min(max(x0, 0), f.nx - strip_width);
  if (x0 < 0 || x0 + strip_width > f.nx) {
    march_edge_strip<T, R, L, strip_kind::outside>(in, out, f, edge_value, x0, keep_lo, keep_hi, ys, ye, c);
  } else if (!periodic && (x0 == 0 || x0 + strip_width == f.nx)) {
    march_edge_strip<T, R, L, strip_kind::face>(in, out, f, edge_value, x0, keep_lo, keep_hi, ys, ye, c);
  } else if (aligned_rows) {
    march_strip<T, R, L, strip_kind::inner, true>(in, out, f, edge_value, x0, keep_lo, keep_hi, ys, ye, c, ring);
  } else {
    march_edge_strip<T, R, L, strip_kind::inner>(in, out, f, edge_value, x0, keep_lo, keep_hi, ys, ye, c);
  }
}

template <class T, int R, int L>
void run_strip_pass(const problem& p, const void* source, void* target, const launch_context& launch) {
  using C = strip_config<T, R, L>;
  const auto kernel = strip_kernel<T, R, L>;
  const int threads = 32 * strip_warps;
  const int blocks_per_sm = prepare_kernel(kernel, threads, 0);
  const frame f = frame_of(p);
  const unsigned gx = blocks_for((static_cast<std::int64_t>(f.nx) + C::kept - 1) / C::kept, strip_warps);
  const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
  // Segments of rows: enough blocks to fill the SMs, each segment long against its 2 L r recomputed rows.
  const int chunks = choose_chunks(gx, static_cast<std::int64_t>(sms) * blocks_per_sm, f.nz, C::halo);
  const int segment = (f.nz + chunks - 1) / chunks, segments = (f.nz + segment - 1) / segment;
  const bool aligned_rows = rows_aligned16(f, source, target, sizeof(T));
  kernel<<<blocks_for(static_cast<std::int64_t>(gx) * segments, 1), threads, 0, stream_of(launch)>>>(
      static_cast<const T*>(source), static_cast<T*>(target), f, static_cast<T>(p.edge_value), segment, segments, aligned_rows,
      pack_weights<T, C::taps>(p, R, 0, shape::star));
  SWATH_CHECK_LAST();
}

}  // namespace

void warp_strips(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  run_passes(ip, x, launch, strip_depth_of(ip, launch), [&](const void* source, void* target, int depth) {
    SWATH_EXPECTS(p.dims == 2 && p.form == shape::star && (p.radius == 1 || p.radius == 2), "iterate step 07: 2D stars of radius 1 and 2");
    march::with_star_pass<strip_depth_limit>(p, depth, "iterate step 07", [&]<class T, int R, int L>() {
      run_strip_pass<T, R, L>(p, source, target, launch);
    });
  });
}

}  // namespace swath::stencil::cuda
