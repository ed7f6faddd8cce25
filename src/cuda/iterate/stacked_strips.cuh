#pragma once
// Steps 08 and 09's stacked strips (3D stars): the tile's layout, the decisions a thread makes once,
// and the march of a block's tile along z. Step 08 launches one block a tile (its tiles overlap by
// their halo in y); step 09 stacks blocks in y into a thread-block cluster that hands each sweep's edge
// rows to the neighbouring block's shared memory (`Clustered`), so only the cluster's ends lose a halo.
#include <cstdint>
#include <numeric>

#include "../core/async_copy.cuh"
#include "march.cuh"

namespace swath::stencil::cuda::stack {

using march::slot_of;

// ---- The cluster's shared memory (step 09) ---------------------------------------------------------
// The address of `shared` (this block's) in block `rank`'s shared memory, as a shared::cluster address.
__device__ __forceinline__ unsigned cluster_address(const void* shared, int rank) {
  unsigned mapped = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(mapped)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(shared))), "r"(rank));
  return mapped;
}
// A 16-byte store into another block's shared memory (a shared::cluster address).
__device__ __forceinline__ void store_remote(unsigned address, const float (&v)[4]) {
  asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(address), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]) : "memory");
}
__device__ __forceinline__ void store_remote(unsigned address, const double (&v)[2]) {
  asm volatile("st.shared::cluster.v2.f64 [%0], {%1, %2};" ::"r"(address), "d"(v[0]), "d"(v[1]) : "memory");
}
// The cluster's barrier in its two halves (every thread of every block): the loads and stores before
// the arrival (this block's shared memory and the others') happen before every thread's accesses after
// the wait. ptxas makes the release a MEMBAR.ALL.GPU, which waits for all of the thread's memory
// operations still in flight, global stores and cp.async copies included (step 09's outcome).
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_barrier() {
  cluster_arrive();
  cluster_wait();
}

template <class T, int R, int L>
struct stack_config {
  static constexpr int u = static_cast<int>(sizeof(T));
  static constexpr stack_layout layout = stack_layout_of(R);
  static constexpr int V = stack_columns(u), W = stack_width(u);  // a thread's columns, a strip's
  static constexpr int rows = layout.rows, TY = layout.warps * layout.rows, threads = 32 * layout.warps;
  static constexpr int D = layout.rows_ahead, halo = L * R;
  static constexpr int lead = stack_lead(L, R, u), kept_x = stack_kept_x(L, R, u), kept_y = TY - 2 * halo;
  static constexpr int S0 = D + R + 1, S = R + 1;          // the input's ring slots, each later sweep's
  static constexpr int U = std::lcm(std::lcm(R, S), S0);   // the march's unroll: every slot a constant
  static constexpr int slot_elements = (TY + 2 * R) * W;   // a plane of the tile and its pad rows
  static constexpr int taps = 6 * R + 1;
  static constexpr std::size_t shared_bytes = sizeof(T) * static_cast<std::size_t>(slot_elements) * (S0 + (L - 1) * S);
  static_assert(kept_x >= V && kept_y >= 1, "the pass is deeper than the tile");
  static_assert(R <= V, "the x taps come from the neighbouring lanes only");
  // Sweep `level`'s (0: the input's) slot k, as an offset in elements; the slot of plane s + offset at
  // unrolled step `phase` (plane m in slot (m - first) mod the ring's slots).
  static constexpr int slot_at(int level, int k) { return ((level == 0 ? 0 : S0 + (level - 1) * S) + k) * slot_elements; }
  static constexpr int ring_slot(int level, int phase, int offset) {
    return level == 0 ? march::slot_of<S0>(phase, offset) : march::slot_of<S>(phase, offset);
  }
  static constexpr int plane_at(int level, int phase, int offset) { return slot_at(level, ring_slot(level, phase, offset)); }
};

// How a block's tile meets the grid's x and y faces. Inner: all in the grid, away from the faces (its
// edges are halo). Face: all in the grid, an edge on a face: grids at least a tile wide and high, of
// 16-byte aligned rows whose width is a whole number of vectors, move their first and last tiles into
// the grid (as step 07 moves its strips), so the face is one value in place of a shuffle's at lane 0 or
// 31 in x, and a row index in y (clamp: the face's row; the constant: a pad row, which holds it).
// Outside: some columns or rows outside the grid (other grids): they load clamped, and their writers
// give them the boundary's value after each sweep.
enum class tile_kind { inner, face, outside };

// What a thread decides once.
template <class T, int R, int L, tile_kind Kind, bool Clustered = false>
struct stack_thread {
  using C = stack_config<T, R, L>;
  static constexpr int V = C::V, rows = C::rows, around = rows + 2 * R;
  int lane;
  int x;                          // the thread's first column
  int z0, z1;                     // the planes the last sweep stores
  int shared_offset;              // its first row's cell in a slot (elements)
  std::int64_t row_offset[rows];  // its rows' y sy (clamped into the grid)
  bool stores_row[rows];          // in the tile's kept rows and in the grid
  bool stores[V];                 // in the strip's kept columns and in the grid (inner and face: all alike)
  // The face and outside tiles':
  int read_offset[around];     // the rows from r above to r below its own, from `mine` (clamp: the face's past it)
  bool keeps_row[rows];        // copy: within r of a y face
  bool keeps[V];               // copy: within r of an x face
  bool left, right;            // face: lane 0's left neighbours, lane 31's right ones lie past a face
  // The outside tiles':
  bool row_outside[rows];      // its rows outside the grid
  bool whole;                  // its columns in the grid and rows 16-byte aligned: one 16-byte copy a row
  int source[V];               // the column each element loads (clamped)
  bool outside[V];             // outside the grid
  bool is_last[V];             // column nx - 1 (clamp: its value fills the columns past the right face)
  int first_lane, last_lane;   // clamp: who holds columns 0 and nx - 1
  // A cluster's (step 09): the first and last warps' pad rows of the input (rows r beyond the tile,
  // fetched where they lie in the grid), and the rows they hand to the neighbouring block.
  int pad_shift;                       // the first pad row from `mine` (elements)
  bool fetches_pad[R];
  std::int64_t pad_row_offset[R];      // its y sy
  int neighbour;                       // the neighbouring block's rank in the cluster, or -1
  int remote_shift;                    // `mine`'s rows in the neighbour's slots, from `mine` (elements)
  bool pushes_row[rows];

  // x0, y0: the tile's first column and row; it stores rows keep_y .. keep_y + kept_y - 1 of the grid.
  // above, below: the ranks of the cluster's blocks whose tiles end and begin beside this one (-1: none).
  __device__ stack_thread(const frame& f, int x0, int y0, int z_chunk, bool aligned_rows, int keep_y, int kept_y, int above = -1,
                          int below = -1) {
    lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32, t0 = warp * rows;  // the warp's first row in the tile
    const int keep_x = static_cast<int>(blockIdx.x) * C::kept_x;
    x = x0 + lane * V;
    z0 = static_cast<int>(blockIdx.z) * z_chunk;
    z1 = min(z0 + z_chunk, f.nz);
    shared_offset = (t0 + R) * C::W + lane * V;
    const bool clamp = f.edge == boundary::clamp, copy = f.edge == boundary::copy;
    left = Kind == tile_kind::face && lane == 0 && x0 == 0;
    right = Kind == tile_kind::face && lane == 31 && x0 + C::W == f.nx;
    whole = aligned_rows;
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const int col = x + k;
      outside[k] = static_cast<unsigned>(col) >= static_cast<unsigned>(f.nx);
      source[k] = min(max(col, 0), f.nx - 1);
      keeps[k] = copy && (col < R || col >= f.nx - R);
      stores[k] = col >= keep_x && col < keep_x + C::kept_x && !outside[k];
      whole = whole && !outside[k];
    }
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      const int y = y0 + t0 + j;
      row_outside[j] = static_cast<unsigned>(y) >= static_cast<unsigned>(f.ny);
      row_offset[j] = static_cast<std::int64_t>(min(max(y, 0), f.ny - 1)) * f.sy;
      stores_row[j] = !row_outside[j] && y >= keep_y && y < keep_y + kept_y;
      keeps_row[j] = copy && (y < R || y >= f.ny - R);
    }
    // Under clamp the rows past a y face read the face's: a tile that reaches past a face holds the
    // face's row too (outside: y0 > -TY and the tile keeps a row of the grid; face: the face is its
    // first or last row). The constant's rows past a face hold it: pad rows (face tiles), or rows whose
    // writers see to it (outside tiles). Copy never reads them.
#pragma unroll
    for (int i = 0; i < around; ++i) {
      const int y = y0 + t0 + i - R;
      const bool inside = static_cast<unsigned>(y) < static_cast<unsigned>(f.ny);
      read_offset[i] = (clamp && !inside ? min(max(y, 0), f.ny - 1) - y0 - t0 : i - R) * C::W;
    }
    // An outside tile's x0 is a multiple of V (kept and lead are): column 0 is an element 0.
    first_lane = x0 < 0 ? -x0 / V : 0;
    const int last = f.nx - 1 - x0;
    last_lane = last < C::W ? last / V : 0;
#pragma unroll
    for (int k = 0; k < V; ++k) is_last[k] = x + k == f.nx - 1;
    if constexpr (Clustered) {
      const bool first_warp = warp == 0, last_warp = warp == C::layout.warps - 1;
      pad_shift = first_warp ? -R * C::W : rows * C::W;
#pragma unroll
      for (int i = 0; i < R; ++i) {
        const int y = first_warp ? y0 - R + i : y0 + C::TY + i;
        fetches_pad[i] = (first_warp || last_warp) && static_cast<unsigned>(y) < static_cast<unsigned>(f.ny);
        pad_row_offset[i] = static_cast<std::int64_t>(min(max(y, 0), f.ny - 1)) * f.sy;
      }
      neighbour = first_warp ? above : last_warp ? below : -1;
      remote_shift = first_warp ? C::TY * C::W : -C::TY * C::W;
#pragma unroll
      for (int j = 0; j < rows; ++j) pushes_row[j] = neighbour >= 0 && (first_warp ? j < R : j >= rows - R);
    }
  }
};

// The columns and rows outside the grid after a sweep (the outside tiles' writers): the constant, or under
// clamp the face column's value (its lane's, by shuffle; rows past a y face are read from the face's).
// Copy never reads them.
template <class T, int R, int L>
__device__ __forceinline__ void hold_outside(const stack_thread<T, R, L, tile_kind::outside>& at, int j, const frame& f, T edge_value,
                                             T (&v)[stack_config<T, R, L>::V]) {
  constexpr int V = stack_config<T, R, L>::V;
  if (f.edge == boundary::constant) {
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = at.row_outside[j] || at.outside[k] ? edge_value : v[k];
  } else if (f.edge == boundary::clamp) {
    T last = v[0];
#pragma unroll
    for (int k = 1; k < V; ++k) last = at.is_last[k] ? v[k] : last;
    const T left = __shfl_sync(0xffffffffu, v[0], at.first_lane);
    const T right = __shfl_sync(0xffffffffu, last, at.last_lane);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = at.outside[k] ? (at.x + k < 0 ? left : right) : v[k];
  }
}

template <class T, int V>
__device__ __forceinline__ void store_vector(T* target, const T (&v)[V]) {
  using vector = typename vector16<T>::type;
  *reinterpret_cast<vector*>(target) = vector16<T>::pack(v);
}

// A block's march (steps first .. last): step s takes input plane s and issues the copies of s + D;
// sweep τ computes plane s - τ r; the last sweep stores; one barrier ends the step.
template <class T, int R, int L, tile_kind Kind, bool Clustered>
__device__ __forceinline__ void march_stack(const T* __restrict__ in, T* __restrict__ out, const frame& f, T edge_value,
                                            const stack_thread<T, R, L, Kind, Clustered>& at, T* shared, const weights<T, 6 * R + 1>& c) {
  using C = stack_config<T, R, L>;
  constexpr int V = C::V, W = C::W, rows = C::rows, U = C::U, D = C::D, halo = C::halo;
  constexpr bool Edge = Kind != tile_kind::inner, Outside = Kind == tile_kind::outside;
  constexpr int around = rows + 2 * R;
  const int first = max(0, at.z0 - halo), last = at.z1 - 1 + halo;
  const bool constant = f.edge == boundary::constant, copy = f.edge == boundary::copy;
  T* const mine = shared + at.shared_offset;
  static_assert(!Clustered || Kind != tile_kind::outside, "a cluster's tiles lie in the grid");
  // The neighbour's copy of `mine`'s rows shifted by a tile: its pad rows beside this tile.
  unsigned remote = 0;
  if constexpr (Clustered) {
    if (at.neighbour >= 0) remote = cluster_address(shared, at.neighbour) + static_cast<unsigned>((at.shared_offset + at.remote_shift) * static_cast<int>(sizeof(T)));
  }

  // held[τ - 1][slot][j]: sweep τ - 1's planes below the one sweep τ computes (its z taps below), the
  // thread's own rows, plane m in slot (m - first) mod r.
  T held[L][R][rows][V];
#pragma unroll
  for (int s = 0; s < L; ++s)
#pragma unroll
    for (int d = 0; d < R; ++d)
#pragma unroll
      for (int j = 0; j < rows; ++j)
#pragma unroll
        for (int k = 0; k < V; ++k) held[s][d][j][k] = T(0);

  // Input plane `plane_offset` into the input ring's slot (clamped rows and columns; the caller clamps
  // the plane past the top face).
  const auto fetch = [&](std::int64_t plane_offset, int slot) {
    T* target = mine + C::slot_at(0, slot);
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      const T* row = in + plane_offset + at.row_offset[j];
      if (!Outside || at.whole) {
        swath::cuda::copy_async(target + j * W, row + at.x, 16);
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k) swath::cuda::copy_async(target + j * W + k, row + at.source[k], static_cast<int>(sizeof(T)));
      }
    }
    if constexpr (Clustered) {
#pragma unroll
      for (int i = 0; i < R; ++i) {
        if (at.fetches_pad[i]) swath::cuda::copy_async(target + at.pad_shift + i * W, in + plane_offset + at.pad_row_offset[i] + at.x, 16);
      }
    }
  };
#pragma unroll
  for (int d = 0; d < D; ++d) {
    if (first + d <= last) fetch(static_cast<std::int64_t>(min(first + d, f.nz - 1)) * f.sz, d);
    swath::cuda::commit_copies();
  }
  std::int64_t load_offset = static_cast<std::int64_t>(first + D) * f.sz;     // plane s + D's (the plain groups')
  std::int64_t store_offset = static_cast<std::int64_t>(first - halo) * f.sz;  // plane s - L r's

  const auto step = [&]<int P, bool Ends>(int s) {
    [[maybe_unused]] bool arrived = false;  // a cluster's: the arrival made (by the last sweep)
    // Input plane s, the thread's rows: the plane above sweep 1's. A thread reads only its own copies.
    swath::cuda::wait_copies<D - 1>();
    T newest[rows][V];
#pragma unroll
    for (int j = 0; j < rows; ++j) load_run<T, V>(mine + C::plane_at(0, P, 0) + j * W, newest[j]);
    if constexpr (Outside) {
      // The constant's columns and rows outside the grid were copied clamped: the constant, for the
      // sweep that reads this plane.
      if (constant) {
#pragma unroll
        for (int j = 0; j < rows; ++j) {
          hold_outside<T, R, L>(at, j, f, edge_value, newest[j]);
          store_vector<T, V>(mine + C::plane_at(0, P, 0) + j * W, newest[j]);
        }
      }
    }
    if (Ends && constant && s >= f.nz) {
#pragma unroll
      for (int j = 0; j < rows; ++j)
#pragma unroll
        for (int k = 0; k < V; ++k) newest[j][k] = edge_value;
    }
    if (!Ends) {
      fetch(load_offset, C::ring_slot(0, P, D));
    } else if (s + D <= last) {
      fetch(static_cast<std::int64_t>(min(s + D, f.nz - 1)) * f.sz, C::ring_slot(0, P, D));
    }
    swath::cuda::commit_copies();
    load_offset += f.sz;

#pragma unroll
    for (int sweep = 1; sweep <= L; ++sweep) {
      const int p = s - sweep * R;
      if (Ends && p < first) break;  // and every later sweep
      const int from = sweep - 1;
      T result[rows][V];
      if (Ends && p >= f.nz) {
        // Past the top face: the boundary's plane (clamp and copy: the plane below, itself the
        // boundary's past the first). The last sweep stores none.
        if (sweep == L) break;
#pragma unroll
        for (int j = 0; j < rows; ++j) {
          if (constant) {
#pragma unroll
            for (int k = 0; k < V; ++k) result[j][k] = edge_value;
          } else {
            load_run<T, V>(mine + C::plane_at(sweep, P, -sweep * R - 1) + j * W, result[j]);
          }
        }
      } else {
        // Sweep τ - 1's plane p: the thread's rows and r rows each side.
        const T* plane = mine + C::plane_at(from, P, -sweep * R);
        T near[around][V];
#pragma unroll
        for (int i = 0; i < around; ++i) load_run<T, V>(plane + (Edge ? at.read_offset[i] : (i - R) * W), near[i]);
        // Its planes p + 1 .. p + r - 1 (r = 2), the thread's rows; past the top face the constant.
        T above[R > 1 ? R - 1 : 1][rows][V];
#pragma unroll
        for (int d = 1; d < R; ++d) {
          const T* upper = mine + C::plane_at(from, P, -sweep * R + d);
#pragma unroll
          for (int j = 0; j < rows; ++j) {
            load_run<T, V>(upper + j * W, above[d - 1][j]);
            if (Ends && constant && p + d >= f.nz) {
#pragma unroll
              for (int k = 0; k < V; ++k) above[d - 1][j][k] = edge_value;
            }
          }
        }
        if constexpr (Clustered) {
          // The last sweep has read what it needs of the rings: the cluster's arrival now, so that its
          // arithmetic hides the barrier's latency, and its release orders these loads before the
          // slots' next writes but need not wait for the global stores below (they come after it).
          if (sweep == L) {
            cluster_arrive();
            arrived = true;
          }
        }
        // At the bottom face the planes below are the boundary's: the constant, or plane 0 (clamp;
        // copy never reads them).
        if (Ends && p == 0) {
#pragma unroll
          for (int d = 1; d <= R; ++d)
#pragma unroll
            for (int j = 0; j < rows; ++j)
#pragma unroll
              for (int k = 0; k < V; ++k) held[from][slot_of<R>(P, -d)][j][k] = constant ? edge_value : near[R + j][k];
        }
#pragma unroll
        for (int j = 0; j < rows; ++j) {
          const T(&centre)[V] = near[R + j];
          T wide[V + 2 * R];  // the row's columns x - r .. x + V - 1 + r
          march::widen_row<Kind == tile_kind::face, R>(centre, at.left, at.right, constant, edge_value, wide);
          const bool keeps_plane = Ends && copy && (p < R || p >= f.nz - R);
#pragma unroll
          for (int k = 0; k < V; ++k) {
            T sum = c.w[star_index<R, R>(0, 0, 0)] * centre[k];
#pragma unroll
            for (int d = 1; d <= R; ++d) {
              sum += c.w[star_index<R, R>(0, 0, -d)] * held[from][slot_of<R>(P, -d)][j][k];
              sum += c.w[star_index<R, R>(0, -d, 0)] * near[R + j - d][k];
              sum += c.w[star_index<R, R>(-d, 0, 0)] * wide[R + k - d];
              sum += c.w[star_index<R, R>(d, 0, 0)] * wide[R + k + d];
              sum += c.w[star_index<R, R>(0, d, 0)] * near[R + j + d][k];
              sum += c.w[star_index<R, R>(0, 0, d)] * (d < R ? above[d < R ? d - 1 : 0][j][k] : newest[j][k]);
            }
            bool keeps = keeps_plane;
            if constexpr (Edge) keeps = keeps || (copy && (at.keeps[k] || at.keeps_row[j]));
            result[j][k] = keeps ? centre[k] : sum;
          }
          if constexpr (Outside) hold_outside<T, R, L>(at, j, f, edge_value, result[j]);
        }
        // Plane p becomes the lowest but one of the planes below sweep τ's next: in the slot of p - r.
#pragma unroll
        for (int j = 0; j < rows; ++j)
#pragma unroll
          for (int k = 0; k < V; ++k) held[from][slot_of<R>(P, 0)][j][k] = near[R + j][k];
      }
      if (sweep == L) {
        if (!Ends || (p >= at.z0 && p < at.z1)) {
#pragma unroll
          for (int j = 0; j < rows; ++j) {
            if (!at.stores_row[j]) continue;
            T* target = out + store_offset + at.row_offset[j] + at.x;
            if constexpr (!Outside) {
              if (at.stores[0]) store_vector<T, V>(target, result[j]);
            } else {
#pragma unroll
              for (int k = 0; k < V; ++k) {
                if (at.stores[k]) target[k] = result[j][k];
              }
            }
          }
        }
      } else {
        T* target = mine + C::plane_at(sweep, P, -sweep * R);
#pragma unroll
        for (int j = 0; j < rows; ++j) {
          store_vector<T, V>(target + j * W, result[j]);
          if constexpr (Clustered) {
            // The edge rows into the neighbour's pad rows, for its next sweep's y taps.
            if (at.pushes_row[j]) store_remote(remote + static_cast<unsigned>((C::plane_at(sweep, P, -sweep * R) + j * W) * static_cast<int>(sizeof(T))), result[j]);
          }
#pragma unroll
          for (int k = 0; k < V; ++k) newest[j][k] = result[j][k];
        }
      }
    }
    // This step's planes for the next steps' sweeps (and its input copies, waited for above); a
    // cluster's, the rows handed to the neighbours too.
    if constexpr (Clustered) {
      if (!arrived) cluster_arrive();  // no last sweep this step (the march's ends)
      store_offset += f.sz;
      cluster_wait();
    } else {
      store_offset += f.sz;
      __syncthreads();
    }
  };

  // Groups of U steps, each a compile-time phase; the plain groups test no z face, load every plane
  // unclamped and store every plane of the last sweep. A few steps past `last` compute planes nobody reads.
  for (int s = first; s <= last; s += U) {
    const bool plain = s - halo >= max(at.z0, R) && s + U - 1 + D <= min(last, f.nz - 1);
    if (plain) {
      [&]<int... P>(std::integer_sequence<int, P...>) { (step.template operator()<P, false>(s + P), ...); }(std::make_integer_sequence<int, U>{});
    } else {
      [&]<int... P>(std::integer_sequence<int, P...>) { (step.template operator()<P, true>(s + P), ...); }(std::make_integer_sequence<int, U>{});
    }
  }
}

// The face and outside tiles' marches, out of line: their boundary state takes registers the inner
// tiles' march does not need, and ptxas gives a function one allocation for all its paths (step 07's
// finding). The frame and weights come by value.
template <class T, int R, int L, tile_kind Kind, bool Clustered = false>
__device__ __noinline__ void march_edge_stack(const T* __restrict__ in, T* __restrict__ out, const frame f, T edge_value, int x0, int y0,
                                              int z_chunk, bool aligned_rows, int keep_y, int kept_y, int above, int below, T* shared,
                                              const weights<T, 6 * R + 1> c) {
  march_stack<T, R, L, Kind, Clustered>(
      in, out, f, edge_value, stack_thread<T, R, L, Kind, Clustered>(f, x0, y0, z_chunk, aligned_rows, keep_y, kept_y, above, below), shared, c);
}

// Every cell of the block's rings and pad rows: the constant under that boundary (face tiles read the
// pad rows past a y face), else zeros. The caller's barrier follows.
template <class T, int R, int L>
__device__ __forceinline__ void fill_rings(T* shared, const frame& f, T edge_value) {
  using C = stack_config<T, R, L>;
  const T pad = f.edge == boundary::constant ? edge_value : T(0);
  for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(C::shared_bytes / sizeof(T)); i += C::threads) shared[i] = pad;
}

// moved: the grid moves its first and last tiles into itself (tile_kind::face; rows_aligned16, a width of
// whole vectors, at least a tile wide and high). Else tiles that reach past a face are outside tiles.
template <class T, int R, int L>
__global__ void __launch_bounds__(stack_config<T, R, L>::threads, 1)
    stack_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int z_chunk, bool aligned_rows, bool moved,
                 const __grid_constant__ weights<T, 6 * R + 1> c) {
  using C = stack_config<T, R, L>;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);
  // The pad rows are read (by the tile's first and last rows) and never written: they hold the constant,
  // which face tiles read past a y face; else zeros (the rows reading them are dropped).
  fill_rings<T, R, L>(shared, f, edge_value);
  __syncthreads();
  int x0 = static_cast<int>(blockIdx.x) * C::kept_x - C::lead, y0 = static_cast<int>(blockIdx.y) * C::kept_y - C::halo;
  const int keep_y = static_cast<int>(blockIdx.y) * C::kept_y;
  if (moved) {
    x0 = min(max(x0, 0), f.nx - C::W);
    y0 = min(max(y0, 0), f.ny - C::TY);
    if (x0 == 0 || x0 + C::W == f.nx || y0 == 0 || y0 + C::TY == f.ny) {
      march_edge_stack<T, R, L, tile_kind::face>(in, out, f, edge_value, x0, y0, z_chunk, true, keep_y, C::kept_y, -1, -1, shared, c);
      return;
    }
  } else if (!aligned_rows || x0 < 0 || x0 + C::W > f.nx || y0 < 0 || y0 + C::TY > f.ny) {
    march_edge_stack<T, R, L, tile_kind::outside>(in, out, f, edge_value, x0, y0, z_chunk, aligned_rows, keep_y, C::kept_y, -1, -1, shared, c);
    return;
  }
  march_stack<T, R, L, tile_kind::inner, false>(in, out, f, edge_value,
                                                stack_thread<T, R, L, tile_kind::inner>(f, x0, y0, z_chunk, true, keep_y, C::kept_y), shared, c);
}

template <class T, int R, int L>
void run_stack_pass(const problem& p, const void* source, void* target, const launch_context& launch) {
  using C = stack_config<T, R, L>;
  const auto kernel = stack_kernel<T, R, L>;
  const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
  const frame f = frame_of(p);
  const unsigned gx = blocks_for(f.nx, C::kept_x), gy = blocks_for(f.ny, C::kept_y);
  SWATH_EXPECTS(gy <= 65535, "iterate step 08: more than 65535 tiles in y");
  const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
  const int chunks = choose_chunks(static_cast<std::int64_t>(gx) * gy, static_cast<std::int64_t>(sms) * std::max(blocks_per_sm, 1), f.nz, C::halo);
  const int z_chunk = std::max((f.nz + chunks - 1) / chunks, (f.nz + 65534) / 65535);
  const dim3 grid(gx, gy, static_cast<unsigned>((f.nz + z_chunk - 1) / z_chunk));
  const bool aligned = rows_aligned16(f, source, target, sizeof(T));
  const bool moved = aligned && f.nx % C::V == 0 && f.nx >= C::W && f.ny >= C::TY;
  kernel<<<grid, C::threads, C::shared_bytes, stream_of(launch)>>>(static_cast<const T*>(source), static_cast<T*>(target), f,
                                                                   static_cast<T>(p.edge_value), z_chunk,
                                                                   aligned, moved, pack_weights<T, C::taps>(p, R, R, shape::star));
  SWATH_CHECK_LAST();
}

}  // namespace swath::stencil::cuda::stack
