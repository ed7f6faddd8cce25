// The GPU ceilings of a build without CUDA: there are none to measure.
#include "swath/core/error.hpp"
#include "swath/bench/ceilings.hpp"
namespace swath::bench {
gpu_ceilings measure_gpu_ceilings(bool) { throw usage_error("GPU ceilings: this build of swath has no CUDA backend"); }
}  // namespace swath::bench
