// CUDA step 5: step 4 plus aggregation of equal neighbours. Each thread carries (value, run) through
// its bytes in address order and issues one atomic of `run` when the value changes, so a run of equal
// bytes inside a thread's words costs one atomic instead of one per byte.
//
// Prediction: constant input and long runs fall from 16 atomics per 16-byte word to about one, and
// should stop being serialised: near the load rate. Uniform bytes change at almost every position
// (15/16 of the time), so they pay a compare and a select per byte for nothing: a few percent slower
// than step 4. Text and skewed input have short runs (a space after a space, a hot value twice): a
// small gain at most, and the lanes of a warp still collide on the hot values.
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

constexpr int threads = 512;
constexpr int warps = threads / 32;

__global__ void __launch_bounds__(threads) run_aggregated_kernel(const std::uint8_t* bytes, byte_split split,
                                                                 counter64* counts) {
  __shared__ std::uint32_t warp_counts[warps * 256];
  zero_shared(warp_counts, warps * 256);
  __syncthreads();
  std::uint32_t* mine = warp_counts + 256 * (threadIdx.x / 32);
  // The run in progress: `run` copies of `value` not yet counted (value 0, run 0 to start: a first
  // byte 0 extends the empty run, any other starts a new one).
  std::uint32_t value = 0, run = 0;
  const auto count = [&](std::uint32_t byte) {
    if (byte == value) {
      ++run;
    } else {
      if (run != 0) atomicAdd(mine + value, run);
      value = byte;
      run = 1;
    }
  };
  count_all_bytes(bytes, split, count);
  if (run != 0) atomicAdd(mine + value, run);
  __syncthreads();
  add_warp_counts(warp_counts, warps, counts);
}

}  // namespace

void run_aggregated(const problem& p, const operands& io, const launch_context& launch) {
  clear_counts(p, io, stream_of(launch));
  launch_byte_kernel(run_aggregated_kernel, threads, static_cast<const std::uint8_t*>(io.samples), p.n, io.counts, launch);
}

}  // namespace swath::histogram::cuda
