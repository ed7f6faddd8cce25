// The benchmark's inputs on the device: the same values the host's inputs:: functions give, so the
// reference can regenerate them instead of copying gigabytes back.
#include "histogram_cuda.cuh"

namespace swath::histogram::cuda {
namespace {

template <class Make>
__global__ void fill_kernel(std::int64_t n, Make make) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) make(i);
}

struct make_bytes {
  std::uint8_t* out;
  distribution input;
  std::uint64_t seed;
  __device__ void operator()(std::int64_t i) const { out[i] = inputs::byte_at(input, seed, static_cast<std::uint64_t>(i)); }
};
struct make_ints {
  std::int32_t* out;
  std::uint64_t seed;
  double lo, hi;
  __device__ void operator()(std::int64_t i) const { out[i] = inputs::int_at(seed, static_cast<std::uint64_t>(i), lo, hi); }
};
struct make_floats {
  float* out;
  std::uint64_t seed;
  double lo, hi;
  __device__ void operator()(std::int64_t i) const { out[i] = inputs::float_at(seed, static_cast<std::uint64_t>(i), lo, hi); }
};

}  // namespace

void fill_samples(const problem& p, std::uint64_t seed, void* samples, void* stream_handle) {
  if (p.n == 0) return;
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>((p.n + 255) / 256, 65536));
  switch (p.type) {
    case sample_type::u8:
      fill_kernel<<<blocks, 256, 0, stream>>>(p.n, make_bytes{static_cast<std::uint8_t*>(samples), p.input, seed});
      break;
    case sample_type::i32:
      fill_kernel<<<blocks, 256, 0, stream>>>(p.n, make_ints{static_cast<std::int32_t*>(samples), seed, p.lo, p.hi});
      break;
    case sample_type::f32:
      fill_kernel<<<blocks, 256, 0, stream>>>(p.n, make_floats{static_cast<float*>(samples), seed, p.lo, p.hi});
      break;
  }
  SWATH_CHECK_LAST();
}

}  // namespace swath::histogram::cuda
