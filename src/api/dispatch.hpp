#pragma once
// The dispatch tables' record: which step runs a call, as data. Each entry point keeps one table per
// backend, in order of preference; the first rule whose architecture and condition hold runs the call.
// The `why` of each rule cites the measurement that put it there (docs/library.md lists them).
#include <span>

#include "swath/core/error.hpp"
#include "swath/registry.hpp"

namespace swath::api {

template <class Problem, class Operands>
struct dispatch_rule {
  const char* step;          // the registry row it runs, "gemm/cuda/16_balanced_tail"
  int min_capability;        // the lowest compute capability (major · 10 + minor); 0 for the CPU
  int max_capability;        // the highest
  bool (*applies)(const Problem&, const Operands&);  // the shapes, types and alignments it takes
  void (*run)(const Problem&, const Operands&, const launch_context&);
  const char* why;
};

template <class Problem, class Operands>
bool always(const Problem&, const Operands&) {
  return true;
}

template <class Problem, class Operands>
const dispatch_rule<Problem, Operands>& choose(std::span<const dispatch_rule<Problem, Operands>> table, int capability,
                                               const Problem& p, const Operands& x) {
  for (const auto& rule : table) {
    if (capability >= rule.min_capability && capability <= rule.max_capability && rule.applies(p, x)) return rule;
  }
  throw usage_error("swath: no step of this build runs this call on a device of compute capability " +
                    std::to_string(capability / 10) + "." + std::to_string(capability % 10));
}

}  // namespace swath::api
