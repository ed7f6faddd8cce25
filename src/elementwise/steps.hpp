#pragma once
// Every elementwise step's entry point, for the registry table. One function per numbered file.
#include "swath/elementwise.hpp"

namespace swath::elementwise {

// The float sum of two floats is correctly rounded: at most 2^-24 ≈ 6e-8 relative error.
inline constexpr double add_tolerance = 1e-6;

namespace cpu {
void vecadd_serial(const problem&, const operands&, const launch_context&);    // 01_vecadd_serial.cpp
void vecadd_openmp(const problem&, const operands&, const launch_context&);    // 02_vecadd_openmp.cpp
void matadd_openmp(const problem&, const operands&, const launch_context&);    // 03_matadd_openmp.cpp
}  // namespace cpu

namespace cuda {
void vecadd_single_block(const problem&, const operands&, const launch_context&);    // 01_vecadd_single_block.cu
void vecadd_many_blocks(const problem&, const operands&, const launch_context&);     // 02_vecadd_many_blocks.cu
void vecadd_grid_stride(const problem&, const operands&, const launch_context&);     // 03_vecadd_grid_stride.cu
void vecadd_vectorized(const problem&, const operands&, const launch_context&);      // 04_vecadd_vectorized.cu
void vecadd_in_flight(const problem&, const operands&, const launch_context&);       // 05_vecadd_in_flight.cu
void vecadd_tile_per_block(const problem&, const operands&, const launch_context&);  // 06_vecadd_tile_per_block.cu
void vecadd_bulk_copy(const problem&, const operands&, const launch_context&);       // 07_vecadd_bulk_copy.cu
void matadd_2d(const problem&, const operands&, const launch_context&);              // 08_matadd_2d.cu
void matadd_vectorized(const problem&, const operands&, const launch_context&);      // 09_matadd_vectorized.cu
void copy_to_device(const problem&, const operands&, const launch_context&);         // 10_host_transfers.cpp
void copy_to_host(const problem&, const operands&, const launch_context&);           // 10_host_transfers.cpp
void thrust_transform(const problem&, const operands&, const launch_context&);       // vendor_thrust.cu
void cublas_geam(const problem&, const operands&, const launch_context&);            // vendor_cublas_geam.cpp
}  // namespace cuda

}  // namespace swath::elementwise
