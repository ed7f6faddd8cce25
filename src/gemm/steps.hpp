#pragma once
// Every gemm step's entry point, for the registry table.
#include "swath/gemm.hpp"

namespace swath::gemm {
// The registry rows' tolerance field is per unit of K: tolerance(p) = this × (K + 2) (see gemm.hpp).
inline constexpr double tolerance_per_k = 2 * 0x1p-24;
// Every setting a gemm step declares (src/gemm/registry.cpp), the CUDA steps' too in a CPU-only build:
// the problem's maker reads them all.
std::span<const parameter> step_settings();
}  // namespace swath::gemm

namespace swath::gemm::cpu {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cpp
void tiled(const problem&, const operands&, const launch_context&);            // 02_tiled.cpp
void column(const problem&, const operands&, const launch_context&);           // 03_column.cpp
void register_tile(const problem&, const operands&, const launch_context&);    // 04_register_tile.cpp
void packed_panels(const problem&, const operands&, const launch_context&);    // 05_packed_panels.cpp
void openblas(const problem&, const operands&, const launch_context&);         // vendor_openblas.cpp
}  // namespace swath::gemm::cpu

namespace swath::gemm::cuda {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cu
void coalesced(const problem&, const operands&, const launch_context&);        // 02_coalesced.cu
void smem_tiled(const problem&, const operands&, const launch_context&);       // 03_smem_tiled.cu
void blocktile_1d(const problem&, const operands&, const launch_context&);     // 04_blocktile_1d.cu
void blocktile_2d(const problem&, const operands&, const launch_context&);     // 05_blocktile_2d.cu
void vectorized(const problem&, const operands&, const launch_context&);       // 06_vectorized.cu
void warptiled(const problem&, const operands&, const launch_context&);        // 07_warptiled.cu
void double_buffered(const problem&, const operands&, const launch_context&);  // 08_double_buffered.cu
void interior_fast_path(const problem&, const operands&, const launch_context&); // 09_interior_fast_path.cu
void async_pipeline(const problem&, const operands&, const launch_context&);   // 10_async_pipeline.cu
void stream_k(const problem&, const operands&, const launch_context&);         // 11_stream_k.cu
void narrow_strip(const problem&, const operands&, const launch_context&);     // 12_narrow_strip.cu
void wave_fitted_tiles(const problem&, const operands&, const launch_context&); // 13_wave_fitted_tiles.cu
void copy_engine(const problem&, const operands&, const launch_context&);      // 14_copy_engine.cu
void producer_warp(const problem&, const operands&, const launch_context&);    // 15_producer_warp.cu
void balanced_tail(const problem&, const operands&, const launch_context&);    // 16_balanced_tail.cu
void split_k(const problem&, const operands&, const launch_context&);          // 17_split_k.cu
void skinny(const problem&, const operands&, const launch_context&);           // 18_skinny.cu
support skinny_shape(const problem&);  // 18_skinny.cu: M <= 16, op(B) as stored, one product
void sliced_k(const problem&, const operands&, const launch_context&);         // 19_sliced_k.cu
void rewritten_operands(const problem&, const operands&, const launch_context&); // 20_rewritten_operands.cu
void streamed_tiles(const problem&, const operands&, const launch_context&);   // 21_streamed_tiles.cu
void last_split_adds(const problem&, const operands&, const launch_context&);  // 22_last_split_adds.cu
void cublas_sgemm(const problem&, const operands&, const launch_context&);     // vendor_cublas.cpp
}  // namespace swath::gemm::cuda
