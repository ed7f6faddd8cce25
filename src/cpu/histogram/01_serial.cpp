// CPU step 1, the seed's serial loop: one histogram, one core. Bytes index the counts directly; other
// samples go through bin_of. The loop is bound by the load-increment-store chain on the counts, not by
// memory: consecutive equal bytes wait on each other's store (on constant input, every byte does).
#include "../../histogram/steps.hpp"

#include <algorithm>

namespace swath::histogram::cpu {
namespace {

template <class Sample>
void count_general(const problem& p, const Sample* samples, std::uint64_t* counts) {
  const double lo = p.lo, hi = p.hi, scale = p.scale();
  for (std::int64_t i = 0; i < p.n; ++i) ++counts[bin_of(static_cast<double>(samples[i]), lo, hi, scale, p.bins)];
}

}  // namespace

void serial(const problem& p, const operands& io, const launch_context&) {
  std::fill(io.counts, io.counts + p.bins + 1, 0);
  if (p.byte_fast_path()) {
    const auto* bytes = static_cast<const std::uint8_t*>(io.samples);
    for (std::int64_t i = 0; i < p.n; ++i) ++io.counts[bytes[i]];
    return;
  }
  switch (p.type) {
    case sample_type::u8: count_general(p, static_cast<const std::uint8_t*>(io.samples), io.counts); break;
    case sample_type::i32: count_general(p, static_cast<const std::int32_t*>(io.samples), io.counts); break;
    case sample_type::f32: count_general(p, static_cast<const float*>(io.samples), io.counts); break;
  }
}

}  // namespace swath::histogram::cpu
