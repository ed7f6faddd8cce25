// CUDA step 15: a producer warpgroup feeds the stages; the eight compute warps only read, multiply and
// release.
// - What changed from 14: thread 0's refill paths (~120 instructions a 32-deep slice, run by warp 0,
//   branched around by the rest) move to a third warpgroup of which one thread works; setmaxnreg gives
//   the producer 24 registers and the compute warps 240. Without that bookkeeping slices can be short:
//   16 deep in 8 stages of 24 KiB (14's 32-deep slice missed the instruction cache).
// - Settings: tma= as step 14 (the same rule picks this kernel or step 13).
// - Prediction: the 32-deep loop 1.5-2% faster than 14 (8192³ ~1.02x cuBLAS on the H200), up to ~5%
//   more with shorter slices if the instruction-cache stalls go.
// - Outcome (H100, four calls): 32-deep +2.6% / +3.0%, 16-deep +6.3% / +4.7% at 4096³ / 8192³ (1.018x
//   and 1.046x cuBLAS); other depths, stage counts and a persistent form lost. docs/journal/gemm.md.
#include "producer_warp.cuh"

namespace swath::gemm::cuda {
namespace {

template <int BlockK, int Stages>
void launch(const problem& p, const operands& x, const launch_context& launch_on) {
  const cudaStream_t stream = stream_of(launch_on);
  const slice_maps maps = slice_maps_of<BlockK>(p, x, stream);
  launch_producer_warp<BlockK, Stages>(walked(p, launch_on), maps, x.c, stream, blocks_for_tiles(p, tile_m, tile_n));
}

}  // namespace

// Where step 14's rule sends a problem to the copy engine (tma=auto|on|off), this kernel; else step 13.
void producer_warp(const problem& p, const operands& x, const launch_context& launch_on) {
  if (copy_engine_chosen(p, x, launch_on)) {
    // 16-deep slices in 8 stages of 24 KiB: the fastest of the shapes timed (8-32 deep, 3-12 stages;
    // docs/journal/gemm.md, step 15), within 0.5% of 4-9 stages.
    launch<16, 8>(p, x, launch_on);
  } else {
    wave_fitted_tiles(p, x, launch_on);
  }
}

}  // namespace swath::gemm::cuda
