// CUDA step 1, the seed's kernel: one thread per sample, `atomicAdd(&hist[buf[i]], 1)` on the global
// counts. Every increment is an atomic in the L2; the 256 counters sit in a few L2 lines, so the
// atomics queue there: the seed measured this slower than its CPU loop. On constant input all of them
// hit one address and run one after another.
//
// Prediction (H200): the L2 serves same-line atomics at roughly one per clock per slice, so uniform
// bytes (spread over 256 counters) should reach a few hundred GB/s at best and constant input a few
// GB/s: far below the ~4.5 TB/s read bandwidth whatever the input.
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

constexpr int threads = 256;

template <class Sample, class Binner>
__global__ void __launch_bounds__(threads) global_atomic_kernel(const Sample* samples, std::int64_t n, counter64* counts,
                                                                 Binner bin) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * threads;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x; i < n; i += stride) {
    atomicAdd(counts + bin(samples[i]), counter64{1});
  }
}

}  // namespace

void global_atomic(const problem& p, const operands& io, const launch_context& launch) {
  const cudaStream_t stream = stream_of(launch);
  clear_counts(p, io, stream);
  if (p.n == 0) return;
  // One thread per sample, as the seed; past 2^31 - 1 blocks the threads loop.
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((p.n + threads - 1) / threads, 0x7fffffff));
  for_sample_kind(p, [&](auto sample_tag, auto binner) {
    using Sample = decltype(sample_tag);
    global_atomic_kernel<<<blocks, threads, 0, stream>>>(static_cast<const Sample*>(io.samples), p.n,
                                                         as_counters(io.counts), binner);
    SWATH_CHECK_LAST();
  });
}

}  // namespace swath::histogram::cuda
