#pragma once
// Every histogram step's entry point, for the registry table, and the device fill the trials use.
#include "swath/histogram.hpp"

namespace swath::histogram::cpu {
void serial(const problem&, const operands&, const launch_context&);              // 01_serial.cpp
void openmp(const problem&, const operands&, const launch_context&);              // 02_openmp.cpp
}  // namespace swath::histogram::cpu

namespace swath::histogram::cuda {
void global_atomic(const problem&, const operands&, const launch_context&);       // 01_global_atomic.cu
void shared_privatized(const problem&, const operands&, const launch_context&);   // 02_shared_privatized.cu
void coarsened(const problem&, const operands&, const launch_context&);           // 03_coarsened.cu
void warp_private(const problem&, const operands&, const launch_context&);        // 04_warp_private.cu
void run_aggregated(const problem&, const operands&, const launch_context&);      // 05_run_aggregated.cu
void bank_spread(const problem&, const operands&, const launch_context&);         // 06_bank_spread.cu
void host_input(const problem&, const operands&, const launch_context&);          // 07_host_input.cu
void cub_histogram_even(const problem&, const operands&, const launch_context&);  // vendor_cub.cu

// The fastest byte kernel (06), adding into counts[0, 256) without clearing them first: the building
// block for input that arrives in pieces. Device pointers; asynchronous on launch.stream.
void add_byte_counts(const std::uint8_t* bytes, std::int64_t n, std::uint64_t* counts, const launch_context& launch);

// Counts bytes in host memory (pinned or pageable) into device counts[0, 257), streaming them through
// the GPU in chunks (07). Asynchronous on launch.stream for pinned input.
void add_host_byte_counts(const std::uint8_t* host_bytes, std::int64_t n, std::uint64_t* counts,
                          const launch_context& launch);

// Whether `pointer` is device (or managed) memory that kernels can read.
bool device_accessible(const void* pointer);

// Fills `samples` (device memory, n samples of p.type) with the problem's inputs from `seed`: the same
// values inputs::byte_at / float_at / int_at give on the host. Asynchronous on `stream`.
void fill_samples(const problem& p, std::uint64_t seed, void* samples, void* stream);
}  // namespace swath::histogram::cuda
