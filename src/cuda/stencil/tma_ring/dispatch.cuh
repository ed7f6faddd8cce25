#pragma once
// The copy-engine ring of stencil steps 08 and 09, layer 3 of 3: the host side (policy.cuh says the
// layers). The input's tensor maps, the choice among the kernel's compiled forms from the grid's facts
// (rows split by parity, partial vectors, aligned stores, the pad), the launch's grid, and the check
// that the ring fits the device it runs on. Steps call run<T, R, ring_policy{...}>.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernel.cuh"

namespace swath::stencil::cuda::tma {

using swath::cuda::tensor_map_encoder;

// The input as a 3D tensor (x, y, z) whose box is one plane of a block's tile with its halo; split
// (row_step 2), its rows of one parity (from first_row), whose box is half the tile's rows.
//
// L2 promotion of 128 bytes: each of the copy engine's reads brings whole 128-byte lines into the L2.
// A box row that starts or ends mid-line (a row pitch that is not whole lines, the sector pads of 09 and
// of 08 at radius 3-4, split rows) asks for part of a line whose rest the neighbouring tile's box asks
// for at another time. Our reading (not profiled): without promotion the L2 fills only the sectors
// asked for, and the rest of the line comes from DRAM later in a second, smaller request; with it, the
// second box finds the line whole. Measured alternately against no promotion (H100 and H200;
// docs/journal/stencil.md, "L2 promotion"): on the H100 08 at radius 1 in float at 508 x 509 x 511 94.4% ->
// 95.3% of the copy bandwidth, and +0.3 to +2.3 points on every grid whose rows miss the lines, every
// radius and type of 08 and 09; at 512^3 the boxes whose rows start on lines moved under 0.15 points and
// the sector-padded ones (09, 08 at radius 4) gained 0.5-1.4. The H200 gained up to 1.5 points and lost
// none beyond 0.1. Step 08's first form had promotion and lost no time without it, before its boxes
// were line-padded.
template <class C, class T>
CUtensorMap plane_tiles(const T* in, const frame& f, int first_row = 0, int row_step = 1) {
  CUtensorMap map{};
  const cuuint64_t extents[3] = {static_cast<cuuint64_t>(f.nx), static_cast<cuuint64_t>((f.ny - first_row + row_step - 1) / row_step),
                                 static_cast<cuuint64_t>(f.nz)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(f.sy * row_step) * sizeof(T), static_cast<cuuint64_t>(f.sz) * sizeof(T)};
  const cuuint32_t box[3] = {C::row, static_cast<cuuint32_t>(C::rows / row_step), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = tensor_map_encoder()(
      &map, sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 3,
      const_cast<T*>(in + first_row * f.sy), extents, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  SWATH_EXPECTS(result == CUDA_SUCCESS, "tma_planes: cuTensorMapEncodeTiled failed with CUresult " + std::to_string(result));
  return map;
}

// The compiled ring needs C::shared_bytes of a block's shared memory and was sized for Blocks of them an
// SM on the architecture it was compiled for (policy.cuh, ring_budget). The device's own figures are
// read (once per device, by the occupancy query): where it offers less, the launch would fail with an
// opaque error; this says what is missing instead.
template <class C, int Blocks>
void require_ring_fits(int blocks_per_sm) {
  int device = 0, per_block = 0;
  SWATH_CUDA_CHECK(cudaGetDevice(&device));
  SWATH_CUDA_CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  SWATH_EXPECTS(static_cast<std::size_t>(per_block) >= C::shared_bytes,
                "tma_planes: the ring needs " + std::to_string(C::shared_bytes) + " bytes of shared memory a block, and device " +
                    std::to_string(device) + " offers " + std::to_string(per_block));
  (void)blocks_per_sm;  // fewer than Blocks resident is slower, not wrong
}

// Split rows: row y of plane z starts mid-sector when (base / 16 + y + z · plane / 16) is odd (row
// pitch / 16 odd); half 0's rows are y0 - R + 2k with y0 even.
template <class T, int R>
row_parity parity_of_split_rows(const T* in, const frame& f) {
  const auto sixteens = [](std::uint64_t bytes) { return static_cast<int>((bytes / 16) & 1); };
  return {(sixteens(reinterpret_cast<std::uintptr_t>(in)) ^ R) & 1, sixteens(static_cast<std::uint64_t>(f.sz) * sizeof(T))};
}

// One launch over the grid, its rows split by parity or not. Split in float with an even number of
// planes a step, the kernel is the one compiled for the grid's parity (planes_kernel, Parity).
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad, bool SplitRows, bool PartialVectors = false, int Parity = -1,
          bool AlignedStores = false>
void launch_planes(const frame& f, const problem& p, const operands& x, const launch_context& launch, int planes_per_chunk) {
  const T* in = static_cast<const T*>(x.in);
  if constexpr (SplitRows && Planes % 2 == 0 && sizeof(T) == 4 && Parity < 0 && !AlignedStores) {
    const row_parity parity = parity_of_split_rows<T, R>(in, f);
    switch (parity.code()) {
      case 0: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 0>(f, p, x, launch, planes_per_chunk);
      case 1: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 1>(f, p, x, launch, planes_per_chunk);
      case 2: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 2>(f, p, x, launch, planes_per_chunk);
      default: return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, PartialVectors, 3>(f, p, x, launch, planes_per_chunk);
    }
  } else {
    using C = config<T, R, Rows, Planes, Blocks, LinePad, SplitRows>;
    const auto kernel = planes_kernel<T, R, Rows, Planes, Blocks, LinePad, SplitRows, PartialVectors, Parity, AlignedStores>;
    const int blocks_per_sm = prepare_kernel(kernel, C::threads, C::shared_bytes);
    require_ring_fits<C, Blocks>(blocks_per_sm);
    marching_launch plan = plan_marching(f, C::width, C::by, blocks_per_sm, launch, planes_per_chunk);
    if constexpr (Parity >= 0) {  // every chunk, and so every step, starts on an even plane
      if (plan.z_chunk % 2 != 0) {
        ++plan.z_chunk;
        plan.grid.z = static_cast<unsigned>((f.nz + plan.z_chunk - 1) / plan.z_chunk);
      }
    }
    // Tile rows in groups of at most one wave of blocks, each group's chunks launched in turn (group 0's
    // first chunks, then its second ones, ..., then group 1's). The hardware starts blocks in launch order,
    // so a tile's next chunk then starts about when its last one ends, and reads the 2r planes they share
    // while the L2 still holds them. Launched chunk by chunk over the whole plane instead, a plane wider
    // than a wave (09 in double at 512^2: 256 tiles, 1.94 waves of 132) starts a tile's next chunk about
    // a wave after its last one ended, and the planes are gone: ncu on an H100 at 512^3, radius 4, read
    // 1.21 GB from DRAM for a 1.07 GB input (1.16 grouped; float, whose 128 tiles are one wave, 1.00).
    const int chunks = static_cast<int>(plan.grid.z), tile_rows = static_cast<int>(plan.grid.y);
    int rows_per_group = tile_rows;
    const int resident = (launch.sm_count > 0 ? launch.sm_count : 1) * blocks_per_sm;
    if (static_cast<int>(plan.grid.x) * tile_rows > resident) rows_per_group = std::max(1, resident / static_cast<int>(plan.grid.x));
    const int groups = (tile_rows + rows_per_group - 1) / rows_per_group;
    SWATH_EXPECTS(static_cast<std::int64_t>(groups) * chunks <= 65535,
                  "tma_planes: " + std::to_string(groups) + " groups of tile rows x " + std::to_string(chunks) +
                      " z-chunks exceed CUDA's 65535 blocks in z");
    plan.grid.y = static_cast<unsigned>(rows_per_group);
    plan.grid.z = static_cast<unsigned>(groups * chunks);
    const CUtensorMap map = plane_tiles<C>(in, f, 0, C::halves);
    const row_parity parity = SplitRows ? parity_of_split_rows<T, R>(in, f) : row_parity{0, 0};
    kernel<<<plan.grid, C::threads, C::shared_bytes, stream_of(launch)>>>(
        map, SplitRows ? plane_tiles<C>(in, f, 1, 2) : map, parity, static_cast<T*>(x.out), f, static_cast<T>(p.edge_value),
        plan.z_chunk, chunks, rows_per_group, pack_weights<T, C::taps>(p, R, R, shape::star));
    SWATH_CHECK_LAST();
  }
}

// One launch over the grid. planes_per_chunk: the z-chunks' length (a multiple of Planes is best:
// a chunk's last step otherwise computes planes it does not store). Rows whose pitch is an odd multiple
// of 16 bytes (half of them start mid-sector) are split by parity where a warp's rows are an even
// count, up to radius 3, and at radius 4 in float. Measured on an H200 at 508 x 509 x 511 in float:
// radius 1 0.297 -> 0.283 ms, radius 2 0.314 -> 0.300, radius 3 (step 09) 0.312 -> 0.303. At radius 4
// (09) in float: 0.324 ms split against 0.321 not on the H200 at v3; after v4's sector pads 0.3243
// against 0.3250 on the H200 and 0.4247 against 0.4372 on an H100 (161 registers against 142). Not in
// double, where the split kernel spilled. A width that is not whole vectors (pitched grids only) takes
// the PartialVectors kernel, never split: a line pitch starts every row on a line anyway.
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad = true>
void choose_and_launch(const problem& p, const operands& x, const launch_context& launch, int planes_per_chunk) {
  const frame f = frame_of(p);
  SWATH_EXPECTS(reinterpret_cast<std::uintptr_t>(x.in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(x.out) % 16 == 0,
                "tma_planes: the grids must start 16-byte aligned");
  SWATH_EXPECTS(f.sy * static_cast<std::int64_t>(sizeof(T)) % 16 == 0, "tma_planes: rows must start 16 bytes apart");
  if (f.nx % (16 / static_cast<int>(sizeof(T))) != 0) {
    return launch_planes<T, R, Rows, Planes, Blocks, LinePad, false, true>(f, p, x, launch, planes_per_chunk);
  }
  if constexpr (Rows % 2 == 0 && (R <= 3 || (R == 4 && sizeof(T) == 4))) {
    const bool rows_off_sectors = f.sy * static_cast<std::int64_t>(sizeof(T)) % 32 == 16 && f.ny >= 2;
    if (rows_off_sectors) {
      if constexpr (Planes == 1) {
        // Aligned stores where the last tile column has a vector to spare: a dense split grid's width is an
        // odd number of vectors; a pitched one may be whole tiles wide (128 floats pitched to 132).
        constexpr int width = config<T, R, Rows, Planes, Blocks, LinePad, true>::width, V = 16 / static_cast<int>(sizeof(T));
        const bool room_for_a_vector = (f.nx + width - 1) / width * width - f.nx >= V;
        if (room_for_a_vector) {
          return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true, false, -1, true>(f, p, x, launch, planes_per_chunk);
        }
      }
      return launch_planes<T, R, Rows, Planes, Blocks, LinePad, true>(f, p, x, launch, planes_per_chunk);
    }
  }
  // At radius 3 (step 08: one row a warp, 2 blocks an SM) the line pad leaves 10 ring slots where the
  // sector pad leaves 14, and it puts the box rows on lines only where the grid's rows start on lines.
  // Elsewhere the deeper ring wins: on an H100, 08 at radius 3 went from 79.7% to 82.8% of the copy
  // bandwidth at 508 x 509 x 511 in float and from 83.9% to 87.8% in double, and by 1.3-4.7 points at
  // 504 x 509 x 511 and 1000 x 700 x 300, both types. At radius 1-2 the same switch won only where the
  // planes are 504 or 508 floats wide; it lost in double at every width, by up to 3.4 points, and lost or
  // tied in float at every other width from 252 to 1020. So there the line pad stays wherever the ring
  // fits (docs/journal/stencil.md, "The pad off lines").
  if constexpr (R == 3 && config<T, R, Rows, Planes, Blocks, LinePad, false>::line_padded) {
    const bool rows_on_lines = f.sy * static_cast<std::int64_t>(sizeof(T)) % 128 == 0 && reinterpret_cast<std::uintptr_t>(x.in) % 128 == 0;
    if (!rows_on_lines) return launch_planes<T, R, Rows, Planes, Blocks, false, false>(f, p, x, launch, planes_per_chunk);
  }
  launch_planes<T, R, Rows, Planes, Blocks, LinePad, false>(f, p, x, launch, planes_per_chunk);
}

// The steps' entry: the ring of `Policy` over the grid.
template <class T, int R, ring_policy Policy>
void run(const problem& p, const operands& x, const launch_context& launch, int planes_per_chunk) {
  choose_and_launch<T, R, Policy.rows, Policy.planes, Policy.blocks, Policy.line_pad>(p, x, launch, planes_per_chunk);
}

}  // namespace swath::stencil::cuda::tma
