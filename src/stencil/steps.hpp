#pragma once
// Every stencil step's entry point, for the registry table. One pair (serial, OpenMP) per file.
#include "swath/stencil.hpp"

namespace swath::stencil::cpu {
void naive(const problem&, const operands&, const launch_context&);            // 01_naive.cpp
void naive_openmp(const problem&, const operands&, const launch_context&);
void tiled(const problem&, const operands&, const launch_context&);            // 02_tiled.cpp
void tiled_openmp(const problem&, const operands&, const launch_context&);
void column(const problem&, const operands&, const launch_context&);           // 03_column.cpp
void column_openmp(const problem&, const operands&, const launch_context&);
void zigzag(const problem&, const operands&, const launch_context&);           // 04_zigzag.cpp
void zigzag_openmp(const problem&, const operands&, const launch_context&);
}  // namespace swath::stencil::cpu
