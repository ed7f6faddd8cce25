// Step 03 (GPU iterated stencil): step 02's temporal blocking for 3D stars, with the in-plane taps moved
// off shared memory. Step 02 on an H100 (512^3 float, 7-point, T = 64) ran at 0.70 of the single-sweep
// roofline, below the T single sweeps it should beat: its 1024-thread blocks, one an SM, wait at a
// barrier for every sweep of every plane, and each column-sweep costs 5 shared-memory accesses.
//
// Here a block is 32 x 8 threads over the same 32 x 32 tile: each thread owns 4 rows of its column
// (y = 4 ty .. 4 ty + 3), each with its sweeps' z queues in registers. The x taps come from the
// neighbouring lanes by warp shuffles (a warp is one row of the tile); the y taps from the thread's own
// rows, except the r rows past each end of its 4, which the threads above and below publish in shared
// memory: 2r writes and 2r reads a thread a sweep, for 4 rows, where step 02 made 4 · 5. Blocks at the
// grid's faces resolve the boundary as step 02 does, through shared memory for all rows.
//
// Prediction (H100, 512^3 float, r = 1, T = 64): about 3 shuffles and shared accesses a column-sweep
// (step 02: 5), 256-thread blocks three an SM so one computes while another waits: the shared-memory
// bound rises ~1.7x and the barrier stalls shrink; expect 1.6-2.2x the single-sweep roofline at L = 3
// (DRAM allows 3x). Stars of radius 1 and 2 (radius 3-4 would need more queue registers than a thread has).
// Outcome (H100): slower than step 02, 0.54x (float, L = 3) and 0.87x (double) of the single-sweep
// roofline; radius 2 0.29x. ncu: 37.5% occupancy (80 registers), 0.65 warps issued a scheduler a clock:
// the shuffles and the 4 rows' bookkeeping did not buy back the lost warps. Registered as measured; the
// library does not take it. docs/journal/stencil.md, "Iterated sweeps".
#include "../../stencil/iterate.hpp"
#include "../stencil/stencil_cuda.cuh"

namespace swath::stencil::cuda {
namespace {

template <class T, int R>
struct rows_config {
  static constexpr int bx = 32, by = 8, rows = 4;    // threads; rows a thread owns
  static constexpr int tile = by * rows;             // 32 rows of 32 columns
  static constexpr int depth = register_rows_depth_limit(R, static_cast<int>(sizeof(T)));
  // Blocks an SM asked of the register allocator: 3 in float (80 registers), 2 in double (128: the queues
  // hold twice the registers).
  static constexpr int min_blocks = sizeof(T) == 4 ? 3 : 2;
  static constexpr int th = tile + 2 * R;            // the published rows, and r pad rows each side
  static constexpr int taps = 6 * R + 1;
  static constexpr std::size_t shared_bytes(int sweeps) { return sizeof(T) * sweeps * th * bx; }
};

// Longer than a screen, on purpose: the queues of 4 rows and every sweep live across the whole march.
template <class T, int R>
__global__ void __launch_bounds__(256, rows_config<T, R>::min_blocks)
    register_rows_kernel(const T* __restrict__ in, T* __restrict__ out, frame f, T edge_value, int depth, int z_chunk,
                         const __grid_constant__ weights<T, rows_config<T, R>::taps> c) {
  using C = rows_config<T, R>;
  constexpr int L = C::depth, Q = 2 * R + 1, Y = C::rows;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);  // [sweep 0 .. depth - 1][th][32]

  const int lane = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int halo = depth * R;
  const int gx0 = static_cast<int>(blockIdx.x) * (C::bx - 2 * halo) - halo;
  const int gy0 = static_cast<int>(blockIdx.y) * (C::tile - 2 * halo) - halo;
  const int x = gx0 + lane, y0 = gy0 + ty * Y;  // this thread's column and first row
  const int z0 = static_cast<int>(blockIdx.z) * z_chunk, z1 = min(z0 + z_chunk, f.nz);
  const bool edge_block = gx0 < 0 || gx0 + C::bx > f.nx || gy0 < 0 || gy0 + C::tile > f.ny;
  const bool constant = f.edge == boundary::constant;
  const bool x_inside = static_cast<unsigned>(x) < static_cast<unsigned>(f.nx);
  const bool x_kept = x_inside && lane >= halo && lane < C::bx - halo;
  // The x tap dx reads lane lane + dx, or in an edge block the lane of the clamped column (x never
  // leaves the warp: the clamped column is in the tile), or the constant.
  int source_lane[2 * R + 1];
  bool outside_x[2 * R + 1];
#pragma unroll
  for (int dx = -R; dx <= R; ++dx) {
    const int xx = x + dx;
    outside_x[dx + R] = static_cast<unsigned>(xx) >= static_cast<unsigned>(f.nx);
    source_lane[dx + R] = edge_block ? min(max(xx, 0), f.nx - 1) - gx0 : lane + dx;
  }
  const auto row_at = [&](T* plane, int tile_row) -> T& { return plane[(tile_row + R) * C::bx + lane]; };

  T q[L][Y][Q];
  const auto push = [&](T(&queue)[Q], int z, T value) {
    if (z == 0) {
      const T below = constant ? edge_value : value;
#pragma unroll
      for (int k = 0; k < Q - 1; ++k) queue[k] = below;
    } else {
#pragma unroll
      for (int k = 0; k < Q - 1; ++k) queue[k] = queue[k + 1];
    }
    queue[Q - 1] = value;
  };

  const int lo0 = max(0, z0 - halo), hi0 = min(f.nz, z1 + halo), last = z1 - 1 + halo;
  T next[Y];
#pragma unroll
  for (int j = 0; j < Y; ++j) {
    const bool inside = x_inside && static_cast<unsigned>(y0 + j) < static_cast<unsigned>(f.ny);
    next[j] = inside && lo0 < hi0 ? in[lo0 * f.sz + static_cast<std::int64_t>(y0 + j) * f.sy + x] : T(0);
  }
  for (int s = lo0; s <= last; ++s) {
#pragma unroll
    for (int j = 0; j < Y; ++j) {
      const T loaded = next[j];
      const bool inside = x_inside && static_cast<unsigned>(y0 + j) < static_cast<unsigned>(f.ny);
      if (inside && s + 1 < hi0) next[j] = in[(s + 1) * f.sz + static_cast<std::int64_t>(y0 + j) * f.sy + x];
      if (s < hi0) {
        push(q[0][j], s, loaded);
      } else if (s >= f.nz) {
        push(q[0][j], s, constant ? edge_value : q[0][j][Q - 1]);
      }
    }
#pragma unroll
    for (int sweep = 1; sweep <= L; ++sweep) {
      if (sweep > depth) break;
      T* plane = shared + (sweep - 1) * C::th * C::bx;
      const T(&from)[Y][Q] = q[sweep - 1];
      // Publish the rows the threads above and below read (all rows in an edge block).
#pragma unroll
      for (int j = 0; j < Y; ++j) {
        if (edge_block || j < R || j >= Y - R) row_at(plane, ty * Y + j) = from[j][R];
      }
      __syncthreads();
      const int z = s - sweep * R;
      const int lo = max(0, z0 - (depth - sweep) * R), hi = min(f.nz, z1 + (depth - sweep) * R);
      if (z >= lo && z < hi) {
#pragma unroll
        for (int j = 0; j < Y; ++j) {
          const int y = y0 + j;
          const T centre = from[j][R];
          // Mode: 0 inside, 1 an edge block, 2 either (tested a tap). Radius 1 takes a path per block
          // (measured 42.4 ms against 46.3 at 512^3, T = 64); radius 2 the one path: two paths slowed it
          // from 79 to 161 ms with no spills (ptxas -v), the unrolled code doubled (not profiled).
          const auto taps_sum = [&]<int Mode>() {
          const bool Edge = Mode == 2 ? edge_block : Mode == 1;
          T sum = 0;
          int k = 0;
#pragma unroll
          for (int dz = -R; dz <= R; ++dz) {
#pragma unroll
            for (int dy = -R; dy <= R; ++dy) {
#pragma unroll
              for (int dx = -R; dx <= R; ++dx) {
                if ((dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
                T value;
                if (dz != 0) {
                  value = from[j][R + dz];
                } else if (dx != 0) {
                  value = __shfl_sync(0xffffffffu, centre, source_lane[dx + R]);
                  if (Edge && constant && outside_x[dx + R]) value = edge_value;
                } else if (dy != 0) {
                  if (!Edge) {
                    value = j + dy >= 0 && j + dy < Y ? from[j + dy < 0 ? 0 : (j + dy >= Y ? Y - 1 : j + dy)][R]
                                                      : row_at(plane, ty * Y + j + dy);
                  } else {
                    const int yy = y + dy;
                    if (static_cast<unsigned>(yy) >= static_cast<unsigned>(f.ny)) {
                      value = constant ? edge_value : row_at(plane, min(max(yy, 0), f.ny - 1) - gy0);
                    } else {
                      value = row_at(plane, yy - gy0);
                    }
                  }
                } else {
                  value = centre;
                }
                sum += c.w[k++] * value;
              }
            }
          }
          return sum;
          };
          T sum;
          if constexpr (R == 1) {
            sum = edge_block ? taps_sum.template operator()<1>() : taps_sum.template operator()<0>();
          } else {
            sum = taps_sum.template operator()<2>();
          }
          const T result = copies_itself(f, x, y, z) ? centre : sum;
          if (sweep == depth) {
            if (x_kept && ty * Y + j >= halo && ty * Y + j < C::tile - halo && static_cast<unsigned>(y) < static_cast<unsigned>(f.ny)) {
              out[z * f.sz + static_cast<std::int64_t>(y) * f.sy + x] = result;
            }
          } else {
            push(q[sweep < L ? sweep : L - 1][j], z, result);
          }
        }
      } else if (sweep < depth && z >= f.nz) {
#pragma unroll
        for (int j = 0; j < Y; ++j) {
          T(&queue)[Q] = q[sweep < L ? sweep : L - 1][j];
          push(queue, z, constant ? edge_value : queue[Q - 1]);
        }
      }
    }
    if (depth == 1) __syncthreads();  // the one sweep's rows are rewritten next step: wait for their readers
  }
}

template <class T, int R>
void run_pass(const problem& p, const void* source, void* target, int depth, const launch_context& launch) {
  using C = rows_config<T, R>;
  SWATH_EXPECTS(depth >= 1 && depth <= C::depth, "iterate step 03: pass depth outside its compiled range");
  const auto kernel = register_rows_kernel<T, R>;
  const int blocks_per_sm = prepare_kernel(kernel, C::bx * C::by, C::shared_bytes(C::depth));
  const frame f = frame_of(p);
  const int halo = depth * R;
  const unsigned gx = blocks_for(f.nx, C::bx - 2 * halo), gy = blocks_for(f.ny, C::tile - 2 * halo);
  SWATH_EXPECTS(gy <= 65535, "iterate step 03: more than 65535 tiles in y");
  const int sms = launch.sm_count > 0 ? launch.sm_count : 1;
  const int chunks = choose_chunks(static_cast<std::int64_t>(gx) * gy, static_cast<std::int64_t>(sms) * blocks_per_sm, f.nz, halo);
  const int z_chunk = std::max((f.nz + chunks - 1) / chunks, (f.nz + 65534) / 65535);
  const dim3 grid(gx, gy, static_cast<unsigned>((f.nz + z_chunk - 1) / z_chunk));
  kernel<<<grid, dim3(C::bx, C::by), C::shared_bytes(depth), stream_of(launch)>>>(
      static_cast<const T*>(source), static_cast<T*>(target), f, static_cast<T>(p.edge_value), depth, z_chunk,
      pack_weights<T, C::taps>(p, R, R, shape::star));
  SWATH_CHECK_LAST();
}

}  // namespace

void register_rows(const iterated_problem& ip, const sweep_operands& x, const launch_context& launch) {
  const problem& p = ip.sweep;
  run_passes(ip, x, launch, register_rows_depth_of(p, launch), [&](const void* source, void* target, int depth) {
    for_element_type(p, [&]<class T>() {
      if (p.radius == 1) {
        run_pass<T, 1>(p, source, target, depth, launch);
      } else {
        SWATH_EXPECTS(p.radius == 2, "iterate step 03: stars of radius 1 and 2");
        run_pass<T, 2>(p, source, target, depth, launch);
      }
    });
  });
}

}  // namespace swath::stencil::cuda
