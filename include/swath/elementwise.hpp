#pragma once
// The elementwise family (seed 001, items 1-3 and the pinned-memory note): vector add, matrix add,
// and host<->device transfers. All of them are bound by memory traffic: an add moves 12 bytes (two
// 4-byte reads, one 4-byte write) for one flop, an arithmetic intensity of 1/12 flop per byte.
#include <cstdint>
#include <span>

#include "swath/core/buffer.hpp"
#include "swath/core/hd.hpp"
#include "swath/registry.hpp"
#include "swath/core/stream.hpp"

namespace swath::elementwise {

enum class operation {
  vector_add,      // c[i] = a[i] + b[i], i < n
  matrix_add,      // C = A + B, rows × cols, row-major with leading dimension ld ≥ cols
  copy_to_device,  // device c = host a
  copy_to_host,    // host c = device a
};
std::string_view to_string(operation op);

struct problem {
  operation op = operation::vector_add;
  std::int64_t rows = 1;
  std::int64_t cols = 0;  // vectors: the length n
  std::int64_t ld = 0;    // elements between the starts of consecutive rows (vectors: n)
  [[nodiscard]] std::int64_t count() const { return rows * cols; }
  [[nodiscard]] std::int64_t allocated() const { return rows == 0 ? 0 : (rows - 1) * ld + cols; }
};

// One input set. Pointers are in the memory the variant works on: device memory for CUDA kernels,
// host memory for CPU steps; for transfers `a` is the source and `c` the destination.
struct operands {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
};

// The family's registry record: the common part, the operation it computes, and (for transfers) the
// kind of host memory the family must allocate for it.
struct variant {
  variant_info info;
  operation op = operation::vector_add;
  memory_kind host_memory = memory_kind::host;
  support (*supports)(const problem&) = nullptr;
  void (*run)(const problem&, const operands&, const launch_context&) = nullptr;
  work_amount (*work)(const problem&) = nullptr;
};

// The float64 reference of one element: exact for the sum of two floats.
SWATH_HD_INLINE double add_reference(float a, float b) { return static_cast<double>(a) + static_cast<double>(b); }

// Work per operation: an add reads two floats and writes one (12 B, 1 flop); a copy moves 4 B.
work_amount add_work(const problem& p);
work_amount copy_work(const problem& p);
support any_size(const problem& p);

// The library's steps of this family (src/elementwise/registry.cpp), in reading order; CUDA rows only in
// CUDA builds. The lab adds the vendor baselines and the entry points' rows (swath/lab/elementwise.hpp).
std::span<const variant> steps();




// ---- The library calls -----------------------------------------------------------------------------
// c[i] = a[i] + b[i] for i < n. Device memory: asynchronous on `stream`, on its device; host memory: on
// the CPU's OpenMP threads, done on return. a, b and c may be the same array. Throws
// swath::usage_error naming the argument, before anything runs, for n < 0, a null pointer, or operands
// split between host and device or on another device than the stream's.
void vector_add(const float* a, const float* b, float* c, std::int64_t n, stream_t stream = nullptr);
// C = A + B over rows × cols, row-major, all three with rows ld ≥ cols elements apart. As vector_add
// otherwise.
void matrix_add(const float* a, const float* b, float* c, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                stream_t stream = nullptr);

}  // namespace swath::elementwise

namespace swath {
using elementwise::matrix_add;
using elementwise::vector_add;
}  // namespace swath
