// Step 09: step 08's ring at radius 3 and 4, each compute warp computing two output planes a step.
//
// At radius 4 step 08 is bound by the shared-memory pipe (ncu on an H200 at 512^3: 76% busy in
// float, 85% in double, L1/shared 81% and 90%; docs/stencil.md). A step reads, per 16-byte vector of a
// row, 3 vectors of the x window (5 in double), 2r y taps and 2r z taps: 19 loads of 16 bytes at radius
// 4 in float, 76 shared-memory wavefronts per 128 points, plus the copy engine's 8.5 for the box.
// Two output planes z and z + 1 in one step share their z taps: planes z - r ... z + 1 + r are each
// read once for both (the two output planes' own rows come from their x windows), so the step reads
// 2 · 3 (windows) + 2r (the other planes) + 2 · 2r (y taps) = 30 vectors for two planes, 15 a plane
// instead of 19 (double 17 instead of 21; radius 3 in float 12 instead of 15).
// Expected at radius 4: the shared-memory wavefronts per 128 points from 84.5 to 68.5 (0.81x); if
// the pipe stayed the limit at the same busy share, 0.438 -> ~0.36 ms in float at 512^3 on an H200
// (0.58x -> ~0.71x of the copy bandwidth), and double alike. The ring must hold the 2r + 2 planes a
// step reads and a step in flight.
//
// Measured (H200; docs/stencil.md, step 09): the first form (one row a warp, two blocks an SM, the ring
// holding 3 planes beyond the 10 read) cut the shared wavefronts to 0.8x as predicted but the time only
// 6%: radius 4 float 0.412 against 08's 0.438 ms at 512^3, double 0.839 against 0.865. It had given up
// ring depth (08 holds 4 planes ahead): 16-row tiles at one block an SM with the 16-byte pad hold 7 and
// took 0.388 in float and 0.745 in double (0.65x and 0.68x of the copy bandwidth), the same on the
// ragged 508 x 509 x 511. Three and four planes a step were slower than 08. Radius 1 and 2 gained
// nothing (float radius 1 0.274 against 0.275, double 0.552 against 0.543): 08 runs them.
//
// v3: fewer instructions and longer chunks. ncu's source counters showed every warp of a block at an x
// face (half the blocks at 512 wide) spending ~190 instructions a step testing and selecting window
// elements, and each plane's ring address costing ~4-5 (tma_planes.cuh now fills whole pieces and picks
// from two bases). Expected: ~19% fewer instructions a step and ~10% less time; measured: 9-13% fewer,
// radius 4 float 0.388 -> 0.357 ms, double 0.745 -> 0.699. Chunks of 8r planes (16 steps) paid a ring
// fill and 2r halo planes for each: chunks of 32r measured 0.341-0.345 ms in float and 0.654-0.667 in
// double at 512^3, 16r and whole columns less well. One block marching through all its tiles with its
// ring carried from each to the next was slower (0.422 ms): its blocks at different depths no longer
// share their halo rows in L2, and DRAM moved 1.36x the bytes (ncu).
//
// v4: rows that start on a sector. The x pad of a vector (16 bytes) each side started every box row
// mid-sector; the ring-only kernel had shown that to cost the copy engine ~4 points at radius 1, and the
// ragged 508-wide grid, half of whose rows then started on a sector, ran 2.6% faster a point than 512^3.
// Pads of a whole sector (tma::config): radius 4 float 0.334 -> 0.309 ms at 512^3 (0.75x -> 0.82x of
// the copy bandwidth), 16 ring slots in place of 17; double already had 32-byte pads.
//
// v5: split rows (ragged widths) with their layout known when compiled. Each step starts on an even
// plane, so which half of a slot holds the shifted rows is fixed for the whole launch; a float kernel
// for each of the four layouts turns those offsets into immediates. ncu, H100, radius 4 at 508 x 509 x
// 511: instructions 177.7 M -> 168.6 M (504 wide, not split: 165.2 M). Timed: H200 0.325 -> 0.320 ms;
// H100 unchanged (0.420 ms), where radius 4 waits on memory rather than on issue.
//
// v6: chunks of 96 planes at radius 4 too (24r, from 32r = 128). Swept from 16r to 128r in one call on
// each GPU: double at radius 4 ran fastest at 24r on both, H100 0.890 -> 0.862 ms at 512^3 and 0.882 ->
// 0.842 at 508 x 509 x 511, H200 0.657 -> 0.649 and 0.656 -> 0.644; float moved under 1% at 512^3 and
// gained 0.5-1.4% on the ragged grid. A list-scheduling model of the waves predicted 1% slower: what
// the shorter chunks buy is not in the waves alone (docs/stencil.md). Radius 3 stays at 96 (32r),
// where 24r lost 1% in double on the H200.
//
// v7: tile rows in groups of one wave (tma_planes.cuh, launch_planes). ncu on an H100 at 512^3, radius 4:
// float read 1.00x its input from DRAM, double 1.13x, with its SMs busy 97.9% of the time (so not the last
// wave; unequal chunk lengths measured no better, docs/stencil.md). Double's 256 tiles a plane are 1.94 waves
// at one block an SM, so launched chunk by chunk over the whole plane a tile's next chunk starts a wave
// after its last one and re-reads the 2r planes they share from DRAM. Expected: double at radius 4 a few
// percent faster, float unchanged (its 128 tiles are one wave). Measured alternately (H100): double radius
// 4 82.7% -> 83.6% of the copy bandwidth at 512^3 and 83.4% -> 85.0% at 508 x 509 x 511 (DRAM reads 1.21
// -> 1.16 GB); float and radius 3 within half a point.
//
// v8: chunks of 64 planes (16r) at radius 4 in double. With the groups, a tile's chunks run back to back,
// and shorter chunks now cost double less than they did: swept alternately on an H100 at 64, 96 and 128,
// double at radius 4 ran fastest at 64 (84.6% against 83.5% of the copy bandwidth at 512^3, 86.2% against
// 85.0% at 508 x 509 x 511), float at 64 within 0.2 points of 96 (128: +1 point at 512^3, -0.3 ragged),
// so float keeps 96.
//
// v9: chunks of 40 planes (10r) at radius 4 in double. v8's sweep stopped at 64, the fastest it tried;
// swept again alternately at 32-64 (H100, two rounds): 40 ran 85.3-85.45% at 512^3 against 84.5% for 64,
// and 87.3-87.5% at 508 x 509 x 511 against 85.9-86.1% (32: 85.2% and 87.1-87.6%). ncu at 512^3: DRAM
// reads 1.15 GB at 32, 1.14 at 48, 1.16 at 64, so the shorter chunks do not read less; their 20% more
// halo planes come from the L2.
//
// v10: 40 planes on GPUs whose DRAM is slow next to their SMs, 96 elsewhere. The H200 gate of v9 measured
// double at radius 4 at 0.753x of the copy bandwidth at 512^3 and 0.744x at 508 x 509 x 511, against
// 0.787x and 0.783x with chunks of 96 in its gate of v7 (the same copy bandwidth, 4233 GB/s): the chunk
// the H100 wants costs the H200 4%. Before the groups, 96 was the fastest on both (v6); with them the
// H100 moved to shorter chunks (v8, v9) and the H200, by this gate, did not. The GPUs have the same SMs
// and clocks; the H200's DRAM gives 18.4 bytes an SM clock, the H100's 12.8. Our reading: on the H100
// the kernel waits on memory, and shorter chunks keep each wave's blocks at one depth; on the H200 the
// SMs set the pace, and a chunk's ring fill and its 2r halo planes through shared memory cost it time.
// The threshold between the two (16 bytes an SM clock) rests on those two GPUs alone.
//
// v11: 40 planes at radius 3-4 in both types where the DRAM is slow beside the SMs (v10's rule). v8 had
// swept float at radius 4 only at 64, 96 and 128 (within 0.3 points of each other) and radius 3 not at
// all. Swept alternately on an H100, two rounds: float at radius 4 at 512^3 85.9% (96) -> 86.9% (40), at
// 508 x 509 x 511 83.6-84.1% -> 85.7-86.0% (32-48 alike, 56 85.5%, 64 83.9%: the gain comes below 64);
// radius 3 at 508 x 509 x 511 84.2-84.6% -> 87.1-87.7% in float and 85.4% -> 88.1% in double, at 512^3
// double 85.0% -> 87.0% and float 92.3% -> 92.0%; at 1000 x 700 x 300 and 2048 x 1100 x 160, 3.2-5.3
// points at radius 3 and at radius 4 in float (docs/stencil.md).

#include "tma_planes.cuh"

namespace swath::stencil::cuda {

void plane_pairs(const problem& p, const operands& x, const launch_context& launch) {
  const support fits = aligned_wide_star_3d(p);
  SWATH_EXPECTS(fits.ok(), "plane_pairs: " + std::string(fits.why));
  for_generic_instance(p, [&]<class T, int R, shape S, int Dims>() {
    if constexpr (S == shape::star && Dims == 3 && R >= 3) {
      // Two tile rows a warp (they share their y taps too) and one block an SM, for the registers
      // (129-168) and a deep ring: with the 16-byte pad 17-19 slots, 7-8 planes in flight beyond the
      // 2r + 2 read. The line pad (rows starting on a line) leaves 12-13 slots; it pays only where the
      // rows are themselves line-aligned, and measured so only at radius 3 in float. Chunks of 96 planes
      // (32r at radius 3, 24r at radius 4; v6 above); 40 where the DRAM is slow beside the SMs (v8-v11).
      const int chunk = tma::dram_slow_beside_sms() ? 40 : 96;
      if constexpr (R == 3 && sizeof(T) == 4) {
        const bool line_aligned_rows = p.grid.width * static_cast<std::int64_t>(sizeof(T)) % 128 == 0;
        if (line_aligned_rows) return tma::run<T, R, 2, 2, 1, true>(p, x, launch, chunk);
      }
      tma::run<T, R, 2, 2, 1, false>(p, x, launch, chunk);
    }
  });
}

}  // namespace swath::stencil::cuda
