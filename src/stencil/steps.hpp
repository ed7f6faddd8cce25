#pragma once
// Every stencil step's entry point, for the registry table. CPU: one pair (serial, OpenMP) per file
// for the schedule steps; CUDA: one function per numbered file.
#include "swath/stencil.hpp"

namespace swath::stencil {
// The registry rows' tolerance, for float; double runs scale it by ε_f64 / ε_f32 (family.cpp). With
// positive taps and inputs, the float sum of at most 81 products is within 81 ε_f32 ≈ 4.8e-6 of the
// exact value.
inline constexpr double float_tolerance = 1e-5;

// The library call's arguments that state this problem (the lab's auto rows and iterate step 01 call
// the library): its layout, and its operator with every tap's weight.
grid_layout layout_of(const problem& p);
operator_spec operator_of(const problem& p);
}  // namespace swath::stencil

namespace swath::stencil::cpu {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cpp
void naive_openmp(const problem&, const operands&, const launch_context&);
void tiled(const problem&, const operands&, const launch_context&);            // 02_tiled.cpp
void tiled_openmp(const problem&, const operands&, const launch_context&);
void column(const problem&, const operands&, const launch_context&);           // 03_column.cpp
void column_openmp(const problem&, const operands&, const launch_context&);
void zigzag(const problem&, const operands&, const launch_context&);           // 04_zigzag.cpp
void zigzag_openmp(const problem&, const operands&, const launch_context&);
void openmp_3d(const problem&, const operands&, const launch_context&);        // 09_openmp_3d.cpp
}  // namespace swath::stencil::cpu

namespace swath::stencil::cuda {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cu
void smem_tiled(const problem&, const operands&, const launch_context&);       // 02_smem_tiled.cu
void coarsened(const problem&, const operands&, const launch_context&);        // 03_coarsened.cu
void register_tiled(const problem&, const operands&, const launch_context&);   // 04_register_tiled.cu
void streaming(const problem&, const operands&, const launch_context&);        // 05_streaming.cu
void async_planes(const problem&, const operands&, const launch_context&);     // 06_async_planes.cu
void vector_planes(const problem&, const operands&, const launch_context&);    // 07_vector_planes.cu
void tma_planes(const problem&, const operands&, const launch_context&);       // 08_tma_planes.cu
void plane_pairs(const problem&, const operands&, const launch_context&);      // 09_plane_pairs.cu
void box_planes(const problem&, const operands&, const launch_context&);       // 10_box_planes.cu
void star_planes(const problem&, const operands&, const launch_context&);      // 11_star_planes.cu
}  // namespace swath::stencil::cuda
