#pragma once
// The copy-engine ring of stencil steps 08 and 09, layer 1 of 3: its policy. What the kernel's shape is
// for a type, radius and ring policy (config), the shared-memory budget it is sized for, and the facts
// of the device the steps' choices rest on. The kernel is tma_ring/kernel.cuh, the host side (tensor
// maps, the runtime-to-template choice, the launch) tma_ring/dispatch.cuh: CUB's policy, agent and
// dispatch layers.
#include <cstdint>
#include <optional>

#include "../../core/per_device.cuh"
#include "../stencil_cuda.cuh"
#include "swath/core/device.hpp"

namespace swath::stencil::cuda::tma {

// A ring's shape, named: the callers' one template argument (tma::run<T, R, ring_policy{...}>).
//  rows    tile rows per compute warp (registers: 2 up to radius 2, 1 beyond);
//  planes  output planes per step (1: step 08; 2: step 09, which reads the planes between once for both);
//  blocks  blocks per SM: the register allocator is held to it, and the ring takes the shared memory
//          they leave;
//  line_pad whether the halo columns may be a whole 128-byte line where the ring then still fits.
struct ring_policy {
  int rows = 1;
  int planes = 1;
  int blocks = 1;
  bool line_pad = true;
};

// The shared memory the ring is sized for, per architecture: its depth is a compile-time constant (the
// slot loops unroll over it), so it is sized for the SM of the architecture it is compiled for, and the
// launch checks the device's own figures (dispatch.cuh, require_ring_fits). Hopper (sm_90): 228 KiB an
// SM, 1 KiB of it reserved per resident block (CUDA C++ Programming Guide, "Compute capabilities",
// table "Technical specifications per compute capability").
struct shared_budget {
  int shared_bytes_per_sm;
  int reserved_per_block;
};
inline constexpr shared_budget ring_budget{228 * 1024, 1024};

// DRAM bytes per SM clock, from the device's peak figures (double data rate): 12.8 on an H100 SXM,
// 18.4 on an H200, whose SMs, clocks and L2 are the same. Asked once per device; 0 where it cannot be
// asked.
inline double dram_bytes_per_sm_clock() {
  static swath::cuda::per_device<double> ratios;
  return ratios.get([] {
    const std::optional<gpu_info> gpu = query_gpu();
    if (!gpu || gpu->sm_count <= 0 || gpu->sm_clock_khz <= 0) return 0.0;
    const double dram_bytes_per_second = 2.0 * gpu->memory_clock_khz * 1e3 * gpu->memory_bus_bits / 8;
    return dram_bytes_per_second / (static_cast<double>(gpu->sm_count) * gpu->sm_clock_khz * 1e3);
  });
}

// Whether the DRAM is slow beside the SMs: under 16 bytes an SM clock. Both steps take shorter z-chunks
// there: on an H100 08 ran faster at radius 1-2 with 5r planes than with 6r, and 09 with 40 than with
// 96, where on an H200 6r and 96 were the faster. Why we think so, and that the threshold rests on those
// two GPUs alone: 09_plane_pairs.cu, v10-v11.
inline bool dram_slow_beside_sms() { return dram_bytes_per_sm_clock() < 16; }

// Rows tile rows per compute warp, Planes output planes per step, Blocks blocks per SM (the register
// allocator is held to it, and the ring takes the shared memory they leave). LinePad: whether the
// halo columns may be a whole line (below) where the ring then still fits. SplitRows: each plane's
// tile rows of either parity come as their own box (below), for rows whose pitch is an odd multiple of
// 16 bytes.
template <class T, int R, int Rows, int Planes, int Blocks, bool LinePad = true, bool SplitRows = false>
struct config {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));  // points per thread along x
  static constexpr int consumers = 8;                               // compute warps
  static constexpr int threads = 32 * (consumers + 1);              // and the producer warp
  static constexpr int width = 32 * vector;                         // points per tile row: 128 floats
  static constexpr int by = consumers * Rows;                       // tile rows
  static constexpr int rows = by + 2 * R;
  // A step reads planes z - r ... z + Planes - 1 + r; the ring should hold at least one more step
  // beyond them (two planes when a step takes one) so that the copy engine works ahead.
  static constexpr int reads = 2 * R + Planes;
  static constexpr int ahead = Planes < 2 ? 2 : Planes;
  // One plane's box with rows of row_elements, rounded to the 128 bytes the copy engine aligns each
  // slot to (each half's box when split, below), and how many of those slots fit one block's shared
  // memory (ring_budget: what the SM offers on the architecture the ring is compiled for).
  //
  // Split rows. The copy engine reads a box row that starts mid-sector (16 bytes past a 32-byte
  // boundary) much more slowly than one that starts on a sector (ring and stores alone at 512^3 on an
  // H200: 84.2% of the copy bandwidth against 88.4%, the same sectors moved). With a row pitch that is
  // an odd multiple of 16 bytes (508 floats: 2032 bytes) every other row of the grid starts mid-sector,
  // whatever the box's x origin. So the tile's rows of either parity go as two boxes of rows/2 rows each,
  // through a tensor map whose row stride is two rows, into the two halves of the slot, and the box of
  // the rows that start mid-sector begins a vector (16 bytes) further left, on a sector. Which half that
  // is depends on the grid's base address and, when a plane's size is also an odd multiple of 16 bytes,
  // on the plane's parity: the compute warps find a row at its half, its pair and that shift.
  static constexpr int halves = SplitRows ? 2 : 1;
  static_assert(!SplitRows || Rows % 2 == 0, "split rows keep a warp's rows' parities fixed at compile time");
  static constexpr unsigned half_size(int row_elements) {
    return (row_elements * (rows / halves) * static_cast<unsigned>(sizeof(T)) + 127) / 128 * 128;
  }
  static constexpr unsigned slot_size(int row_elements) { return halves * half_size(row_elements); }
  static constexpr int slots_that_fit(int row_elements) {
    return static_cast<int>((ring_budget.shared_bytes_per_sm / Blocks - ring_budget.reserved_per_block - 512) /
                            slot_size(row_elements));
  }
  // Halo columns each side of the tile. The copy engine reads a box whose rows start 16 bytes before
  // a 128-byte line (the r <= 4 columns rounded to a vector) 8 points slower than one whose rows start
  // on a line, even when the aligned box is 1.5x wider (H200, ring and stores alone at 512^3:
  // 128 + 2·4 floats 84.2% of the copy bandwidth, 128 + 2·32 floats 90.5%, no halo 92.3%). So the pad
  // is a whole line (32 floats, 16 doubles) wherever the ring still has a step in flight and LinePad
  // allows it; at radius 4 it does not, and half a line (which fits) measured no better there. Step 09
  // measured a deeper ring worth more than aligned rows except at radius 3 in float (docs/journal/stencil.md).
  // Otherwise each pad is the x window's side rounded up to a sector (32 bytes), so that rows start
  // and end on a sector: 8 floats or 4 doubles at radius 4, where a vector (4 floats) started them
  // mid-sector (09 at radius 4 in float, 512^3 on an H200: 0.334 -> 0.309 ms). The right one holds a
  // vector more for split rows, whose shifted box begins a vector left. Measured and not kept, at
  // radius 4 in float: a right pad of one vector (140 floats, 17 slots in place of 16; the rows end
  // mid-sector), 0.323 against 0.312 ms; the line pad (12 slots), 0.354.
  static constexpr int line_pad = 128 / static_cast<int>(sizeof(T));
  static constexpr int window = window_side<T, R>();
  static constexpr int sector_pad(int elements) {
    return (elements * static_cast<int>(sizeof(T)) + 31) / 32 * 32 / static_cast<int>(sizeof(T));
  }
  static constexpr int left_pad = sector_pad(window);
  static constexpr int right_pad = sector_pad(window + (SplitRows ? vector : 0));
  static constexpr bool line_padded = LinePad && slots_that_fit(width + 2 * line_pad) >= reads + ahead;
  static constexpr int pad = line_padded ? line_pad : left_pad;  // the tile's first point in a box row
  static constexpr int row = line_padded ? width + 2 * line_pad : width + left_pad + right_pad;
  static_assert(pad >= window && row - width - pad >= window + (SplitRows ? vector : 0),
                "the box must hold the x window on both sides");
  static constexpr unsigned box_bytes = rows * row * sizeof(T);  // both halves' boxes when split
  static constexpr unsigned half_bytes = half_size(row);
  static constexpr unsigned slot_bytes = slot_size(row);
  static constexpr int fit = slots_that_fit(row);
  static constexpr int slots = fit < reads + 8 ? fit : reads + 8;  // up to 8 planes beyond those read
  static_assert(slots >= reads + ahead, "the ring must hold a step in flight beyond the planes a step reads");
  static constexpr std::size_t shared_bytes = slots * slot_bytes + 2 * 8 * slots;  // ring, full and empty barriers
  static constexpr int taps = 6 * R + 1;
};

}  // namespace swath::stencil::cuda::tma
