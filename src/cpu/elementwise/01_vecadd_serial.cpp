// Step 01 (CPU): vector add on one core.
// The baseline every other CPU step is measured against. 12 bytes per element, 1 flop: the loop is
// bound by one core's memory bandwidth (the "copy, one core" ceiling), not by the adds; the compiler
// vectorises it, which changes nothing about the bytes.
#include "../../elementwise/steps.hpp"

namespace swath::elementwise::cpu {

void vecadd_serial(const problem& p, const operands& x, const launch_context&) {
  const std::int64_t n = p.count();
  const float* __restrict a = x.a;
  const float* __restrict b = x.b;
  float* __restrict c = x.c;
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

}  // namespace swath::elementwise::cpu
