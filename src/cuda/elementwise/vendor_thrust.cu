// Vendor baseline: thrust::transform with plus, the way a Thrust user adds two vectors.
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

#include "elementwise_common.cuh"

namespace swath::elementwise::cuda {

void thrust_transform(const problem& p, const operands& x, const launch_context& launch) {
  const std::int64_t n = p.count();
  thrust::transform(thrust::cuda::par_nosync.on(stream_of(launch)), x.a, x.a + n, x.b, x.c, thrust::plus<float>());
  SWATH_CHECK_LAST();
}

}  // namespace swath::elementwise::cuda
