// Calls every entry point of swath on host memory, and on device memory on a stream of its own when the
// library has CUDA and a GPU is there; checks each answer and exits non-zero on any mismatch.
#include <swath/swath.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#if SWATH_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace {

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED %s\n", what);
    ++failures;
  }
}

// A small random problem set, with the answers computed here in double.
struct problems {
  static constexpr int m = 45, n = 37, k = 29;  // sizes that divide no tile
  std::vector<float> a, b, c;
  std::vector<std::uint8_t> bytes;
  explicit problems(std::uint64_t seed) : a(m * k), b(k * n), c(m * n), bytes(100003) {
    std::mt19937_64 draw(seed);
    std::uniform_real_distribution<float> value(0.5f, 2.0f);
    for (float& x : a) x = value(draw);
    for (float& x : b) x = value(draw);
    for (auto& x : bytes) x = static_cast<std::uint8_t>(draw());
  }
  bool product_ok(const std::vector<float>& got) const {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int kk = 0; kk < k; ++kk) sum += static_cast<double>(a[i * k + kk]) * b[kk * n + j];
        if (!(std::abs(got[i * n + j] - sum) <= 1e-5 * sum)) return false;
      }
    }
    return true;
  }
  bool counts_ok(const std::vector<std::uint64_t>& counts) const {
    std::vector<std::uint64_t> expected(257, 0);
    for (const auto byte : bytes) ++expected[byte];
    return counts == expected;
  }
  bool sum_ok(const std::vector<float>& got) const {
    for (int i = 0; i < m * k; ++i) {
      if (got[i] != a[i] + a[i]) return false;
    }
    return true;
  }
};

// The 2D 5-point star with its default weights, clamp boundary, at one interior point and one corner.
bool stencil_ok(const std::vector<float>& in, const std::vector<float>& out, int w, int h) {
  const auto taps = swath::stencil::default_taps(swath::stencil::shape::star, 1, 2);
  for (const auto [x, y] : {std::pair{5, 7}, std::pair{0, 0}}) {
    double sum = 0;
    for (const auto& t : taps) {
      const int sx = std::clamp(x + t.dx, 0, w - 1), sy = std::clamp(y + t.dy, 0, h - 1);
      sum += t.weight * in[sy * w + sx];
    }
    if (!(std::abs(out[y * w + x] - sum) <= 1e-5 * std::abs(sum))) return false;
  }
  return true;
}

// One red sphere in the middle of the default camera's view, one point light.
swath::raytracer::scene small_scene() {
  const swath::raytracer::sphere_geometry spheres[] = {{{0, 0, 0}, 1.0f}};
  const swath::raytracer::material materials[] = {{{1, 0.2f, 0.2f}}};
  const swath::raytracer::light lights[] = {{swath::raytracer::light_kind::point, {5, 5, 5}, {1, 1, 1}}};
  const int which[] = {0};
  return swath::raytracer::make_scene(spheres, which, materials, lights, swath::raytracer::camera_spec{});
}

void on_host(const problems& p) {
  std::vector<float> c(p.m * p.n);
  swath::sgemm(swath::op::none, swath::op::none, p.m, p.n, p.k, 1.0f, p.a.data(), p.k, p.b.data(), p.n, 0.0f, c.data(), p.n);
  expect(p.product_ok(c), "host sgemm");
  std::vector<float> sum(p.a.size());
  swath::vector_add(p.a.data(), p.a.data(), sum.data(), static_cast<std::int64_t>(sum.size()));
  expect(p.sum_ok(sum), "host vector_add");
  std::vector<std::uint64_t> counts(257);
  swath::histogram::count(p.bytes.data(), static_cast<std::int64_t>(p.bytes.size()), counts.data());
  expect(p.counts_ok(counts), "host histogram::count");
  std::vector<float> out(p.a.size());
  swath::stencil::apply(p.a.data(), out.data(), {p.k, p.m, 1, 0, 2}, {});
  expect(stencil_ok(p.a, out, p.k, p.m), "host stencil::apply");
  const swath::raytracer::scene scene = small_scene();
  swath::raytracer::render_settings settings;
  settings.width = 64, settings.height = 48;
  std::vector<swath::raytracer::rgba> pixels(64 * 48);
  swath::raytracer::render(scene, settings, pixels.data());
  // The sphere covers the middle of the frame and is lit red; the corner sees the black background.
  expect(pixels[24 * 64 + 32].r > pixels[24 * 64 + 32].g && pixels[0].r == 0, "host raytracer::render");
  bool refused = false;
  try {
    swath::sgemm(swath::op::none, swath::op::none, p.m, p.n, p.k, 1.0f, p.a.data(), p.k - 1, p.b.data(), p.n, 0.0f,
                 c.data(), p.n);
  } catch (const swath::error&) {
    refused = true;
  }
  expect(refused, "a short lda throws swath::error");
}

#if SWATH_WITH_CUDA
template <class T>
T* to_device(const std::vector<T>& host) {
  T* device = nullptr;
  cudaMalloc(&device, host.size() * sizeof(T));
  cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return device;
}
template <class T>
std::vector<T> to_host(const T* device, std::size_t count) {
  std::vector<T> host(count);
  cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost);
  return host;
}

void on_device(const problems& p) {
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  float* a = to_device(p.a);
  float* b = to_device(p.b);
  float* c = to_device(std::vector<float>(p.m * p.n, NAN));
  float* sum = to_device(std::vector<float>(p.a.size(), NAN));
  float* out = to_device(std::vector<float>(p.a.size(), NAN));
  std::uint8_t* bytes = to_device(p.bytes);
  std::uint64_t* counts = to_device(std::vector<std::uint64_t>(257, 1));
  swath::raytracer::rgba* pixels = to_device(std::vector<swath::raytracer::rgba>(64 * 48));
  cudaDeviceSynchronize();  // the uploads (ordinary copies) are done before the non-blocking stream reads
  swath::sgemm(swath::op::none, swath::op::none, p.m, p.n, p.k, 1.0f, a, p.k, b, p.n, 0.0f, c, p.n, stream);
  swath::vector_add(a, a, sum, static_cast<std::int64_t>(p.a.size()), stream);
  swath::stencil::apply(a, out, {p.k, p.m, 1, 0, 2}, {}, stream);
  swath::histogram::count(bytes, static_cast<std::int64_t>(p.bytes.size()), counts, stream);
  const swath::raytracer::scene scene = small_scene();
  swath::raytracer::render_settings settings;
  settings.width = 64, settings.height = 48;
  swath::raytracer::render(scene, settings, pixels, stream);
  cudaStreamSynchronize(stream);
  expect(p.product_ok(to_host(c, p.m * p.n)), "device sgemm");
  expect(p.sum_ok(to_host(sum, p.a.size())), "device vector_add");
  expect(stencil_ok(p.a, to_host(out, p.a.size()), p.k, p.m), "device stencil::apply");
  expect(p.counts_ok(to_host(counts, 257)), "device histogram::count");
  std::vector<swath::raytracer::rgba> host_pixels(64 * 48);
  swath::raytracer::render(scene, settings, host_pixels.data());
  const auto gpu_pixels = to_host(pixels, 64 * 48);
  double worst = 0;
  for (std::size_t i = 0; i < gpu_pixels.size(); ++i) worst = std::max(worst, static_cast<double>(std::abs(gpu_pixels[i].g - host_pixels[i].g)));
  expect(worst < 0.05, "device raytracer::render");
  expect(cudaGetLastError() == cudaSuccess, "no CUDA error");
  for (void* pointer : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(sum),
                        static_cast<void*>(out), static_cast<void*>(bytes), static_cast<void*>(counts),
                        static_cast<void*>(pixels)}) {
    cudaFree(pointer);
  }
  swath::release_stream_workspaces(stream);
  cudaStreamDestroy(stream);
}
#endif

}  // namespace

int main() {
  const std::uint64_t seed = std::random_device{}();
  std::printf("consumer: swath %s, seed %llu\n", swath::build::version, static_cast<unsigned long long>(seed));
  const problems p(seed);
  try {
    on_host(p);
    const char* device = "skipped (no CUDA in this build of swath)";
#if SWATH_WITH_CUDA
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0) {
      on_device(p);
      device = "checked";
    } else {
      cudaGetLastError();
      device = "skipped (no GPU)";
    }
#endif
    std::printf("consumer: host calls checked, device calls %s\n", device);
  } catch (const swath::error& e) {
    std::fprintf(stderr, "consumer: swath::error: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
