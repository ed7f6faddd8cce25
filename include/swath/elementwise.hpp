#pragma once
// The elementwise family (seed 001, items 1-3 and the pinned-memory note): vector add, matrix add,
// and host<->device transfers. All of them are bound by memory traffic: an add moves 12 bytes (two
// 4-byte reads, one 4-byte write) for one flop, an arithmetic intensity of 1/12 flop per byte.
#include <cstdint>
#include <span>

#include "swath/bench/family.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/hd.hpp"
#include "swath/registry.hpp"

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

// The registry table (src/elementwise/registry.cpp). CUDA rows are present only in CUDA builds.
std::span<const variant> variants();
const variant& find_variant(std::string_view name);

// The problem a variant solves at a size: vectors take "N", matrices "WxH" (leading dimension W rounded
// up to 32 floats, as cudaMallocPitch would).
problem make_problem(const variant& v, const bench::size_spec& size);

// A trial for any record, in the table or not (the tests feed deliberately broken variants through it).
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);

const bench::family& family();

}  // namespace swath::elementwise
