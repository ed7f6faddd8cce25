// The library's entry points on device memory, on the caller's streams: the same answers as on the host,
// mixed host and device operands refused, and the SGEMM steps that keep workspaces between calls
// (14-17, 19, 20, through the registry and through swath::sgemm) run on two streams at once, and on two
// GPUs at once where there are two, with the same bits as when they run one after the other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "swath/swath.hpp"
#include "test_library_support.hpp"

#if SWATH_WITH_CUDA
#include <cuda_runtime.h>

#include "swath/lab/gemm.hpp"
#include "swath/lab/raytracer.hpp"

namespace swath::testing {
namespace {

// The lab's trials run on the legacy default stream, whose workspaces the library keeps until told: a
// program that ends releases them, as a user's would, so that memcheck's leak check reads clean.
class release_default_stream_workspaces : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!query_gpu()) return;
    release_stream_workspaces(nullptr);
    cudaDeviceSynchronize();
  }
};
[[maybe_unused]] ::testing::Environment* const releaser =
    ::testing::AddGlobalTestEnvironment(new release_default_stream_workspaces);

#define EXPECT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

// A device copy of a host vector, freed at scope exit.
template <class T>
struct device_copy {
  buffer<T> held;
  explicit device_copy(const std::vector<T>& host) : held(memory_kind::device, host.size()) {
    copy_bytes(held.data(), memory_kind::device, host.data(), memory_kind::host, host.size() * sizeof(T));
    // A copy from pageable memory may land after cudaMemcpy returns, and the tests' streams do not wait
    // for the legacy stream: wait here, before any of them reads or writes this memory.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  [[nodiscard]] std::vector<T> read() const {
    std::vector<T> host(held.size());
    copy_bytes(host.data(), memory_kind::host, held.data(), memory_kind::device, host.size() * sizeof(T));
    return host;
  }
  T* data() { return held.data(); }
};

struct owned_stream {
  cudaStream_t stream = nullptr;
  owned_stream() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess); }
  ~owned_stream() {
    release_stream_workspaces(stream);
    cudaStreamDestroy(stream);
  }
};

TEST(GpuLibrary, EntryPointsOnDeviceMatchTheReference) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  owned_stream s;
  // sgemm: ragged shapes, every form, and one size large enough for steps 14-16.
  for (const gemm_shape shape : {gemm_shape{1, 1, 1}, gemm_shape{129, 67, 131}, gemm_shape{1000, 3000, 70},
                                 gemm_shape{2049, 4100, 129}, gemm_shape{5, 7, 0}}) {
    // The large shape (steps 14-16's kernels) in one form: its float64 reference is 10^9 multiply-adds.
    // Not under the sanitizers (SWATH_SMALL_GPU_TESTS), where it would take minutes.
    if (shape.m > 2000 && std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr) continue;
    const std::vector<gemm_form> forms = shape.m > 2000 ? std::vector<gemm_form>{every_gemm_form()[1]} : every_gemm_form();
    for (const gemm_form form : forms) {
      gemm_case c(shape, form, draw);
      device_copy<float> a(c.a), b(c.b), out(c.c);
      sgemm(form.op_a, form.op_b, shape.m, shape.n, shape.k, form.alpha, a.data(), c.lda, b.data(), c.ldb, form.beta,
            out.data(), c.ldc, s.stream);
      EXPECT_CUDA(cudaStreamSynchronize(s.stream));
      c.expect_result(out.read(), describe(shape, form));
    }
  }
  // sgemm_strided_batched: every form with strides 5 elements longer than a product (16-byte alignment
  // lost from one product to the next), and the suite's 1024 products of 64^3 back to back.
  for (const auto& [shape, batch, gap] : {std::tuple{gemm_shape{33, 17, 65}, std::int64_t{4}, std::int64_t{5}},
                                          std::tuple{gemm_shape{64, 64, 64}, std::int64_t{1024}, std::int64_t{0}}}) {
    if (batch > 4 && std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr) continue;
    for (const gemm_form form : batch > 4 ? std::vector<gemm_form>{every_gemm_form()[0]} : every_gemm_form()) {
      std::vector<gemm_case> products;
      for (std::int64_t i = 0; i < batch; ++i) products.emplace_back(shape, form, draw);
      const auto sa = static_cast<std::int64_t>(products[0].a.size()) + gap,
                 sb = static_cast<std::int64_t>(products[0].b.size()) + gap,
                 sc = static_cast<std::int64_t>(products[0].c.size()) + gap;
      std::vector<float> ha(static_cast<std::size_t>(sa * batch), NAN), hb(static_cast<std::size_t>(sb * batch), NAN),
          hc(static_cast<std::size_t>(sc * batch), -7.0f);
      for (std::int64_t i = 0; i < batch; ++i) {
        const gemm_case& product = products[static_cast<std::size_t>(i)];
        std::copy(product.a.begin(), product.a.end(), ha.begin() + i * sa);
        std::copy(product.b.begin(), product.b.end(), hb.begin() + i * sb);
        std::copy(product.c.begin(), product.c.end(), hc.begin() + i * sc);
      }
      device_copy<float> a(ha), b(hb), out(hc);
      sgemm_strided_batched(form.op_a, form.op_b, shape.m, shape.n, shape.k, form.alpha, a.data(), products[0].lda, sa,
                            b.data(), products[0].ldb, sb, form.beta, out.data(), products[0].ldc, sc, batch, s.stream);
      EXPECT_CUDA(cudaStreamSynchronize(s.stream));
      const std::vector<float> result = out.read();
      for (std::int64_t i = 0; i < batch; ++i) {
        const auto first = result.begin() + i * sc;
        products[static_cast<std::size_t>(i)].expect_result(
            std::vector<float>(first, first + static_cast<std::int64_t>(products[0].c.size())),
            describe(shape, form) + " product " + std::to_string(i) + " of " + std::to_string(batch));
        for (std::int64_t g = static_cast<std::int64_t>(products[0].c.size()); g < sc; ++g) {
          ASSERT_EQ(first[g], -7.0f) << "gap after product " << i << " written";
        }
      }
    }
  }
  // A batch with K = 0: every product's C = beta C (A and B are not read: null is fine).
  {
    constexpr std::int64_t batch = 3, m = 5, n = 7;
    const std::vector<float> before = random_floats(draw, batch * m * n);
    device_copy<float> out(before);
    sgemm_strided_batched(op::none, op::none, m, n, 0, 1.5f, nullptr, 1, 0, nullptr, n, 0, 0.5f, out.data(), n, m * n,
                          batch, s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    const std::vector<float> after = out.read();
    for (std::size_t i = 0; i < after.size(); ++i) ASSERT_EQ(after[i], 0.5f * before[i]) << "element " << i;
  }
  // vector_add at an unaligned start (the grid-stride step) and an aligned one (bulk copies).
  for (const std::int64_t offset : {0, 1}) {
    const std::int64_t n = 1000003;
    const std::vector<float> ha = random_floats(draw, n + 1), hb = random_floats(draw, n + 1);
    device_copy<float> a(ha), b(hb), c(std::vector<float>(static_cast<std::size_t>(n + 1), NAN));
    vector_add(a.data() + offset, b.data() + offset, c.data() + offset, n, s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    const std::vector<float> hc = c.read();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hc[i + offset], ha[i + offset] + hb[i + offset]) << offset << " " << i;
  }
  // stencil: a 3D star the copy engine takes, a pitched 2D box, a 3D periodic star (vector planes).
  for (const auto& [grid, op] : {std::pair{stencil::grid_layout{128, 67, 45, 0, 3}, stencil::operator_spec{}},
                                 std::pair{stencil::grid_layout{131, 77, 1, 160, 2},
                                           stencil::operator_spec{stencil::shape::box, 2, stencil::boundary::constant, 0.5, {}}},
                                 std::pair{stencil::grid_layout{61, 33, 29, 0, 3},
                                           stencil::operator_spec{stencil::shape::star, 3, stencil::boundary::periodic, 0, {}}}}) {
    stencil_grids<float> g(grid, draw);
    device_copy<float> in(g.a), out(g.b);
    stencil::apply(in.data(), out.data(), grid, op, s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    const std::vector<float> result = out.read();
    g.expect_sweeps(op, 1, result.data(), describe(grid, op));
    // Five sweeps (fused passes where the step takes the grid; periodic: five single sweeps): the result
    // lands in b, the second buffer.
    device_copy<float> a(g.a), b(g.b);
    float* const swept = stencil::iterate(a.data(), b.data(), grid, op, 5, s.stream);
    EXPECT_EQ(swept, b.data());
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    g.expect_sweeps(op, 5, b.read().data(), describe(grid, op) + ", 5 sweeps");
  }
  // histogram: device bytes into device counts, pinned bytes into pinned counts, floats on the device.
  {
    const std::int64_t n = 3000017;
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(draw());
    device_copy<std::uint8_t> device_bytes(bytes);
    device_copy<std::uint64_t> counts(std::vector<std::uint64_t>(257, 99));
    histogram::count(device_bytes.data(), n, counts.data(), s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    EXPECT_EQ(counts.read(), byte_counts(bytes));
    buffer<std::uint8_t> pinned_bytes(memory_kind::pinned_host, bytes.size());
    std::memcpy(pinned_bytes.data(), bytes.data(), bytes.size());
    buffer<std::uint64_t> pinned_counts(memory_kind::pinned_host, 257);
    histogram::count(pinned_bytes.data(), n, pinned_counts.data(), s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    EXPECT_EQ(std::vector<std::uint64_t>(pinned_counts.data(), pinned_counts.data() + 257), byte_counts(bytes));
    std::vector<float> floats = random_floats(draw, 200003, -1, 11);
    device_copy<float> device_floats(floats);
    device_copy<std::uint64_t> binned(std::vector<std::uint64_t>(41, 5));
    histogram::count(device_floats.data(), static_cast<std::int64_t>(floats.size()), 40, 0.0, 10.0, binned.data(), s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    EXPECT_EQ(binned.read(), binned_counts(floats, 40, 0.0, 10.0));
    // Device bytes with pageable counts would make the call wait: refused.
    std::vector<std::uint64_t> pageable(257);
    expect_usage_error([&] { histogram::count(device_bytes.data(), n, pageable.data(), s.stream); }, "pageable");
  }
  // render: the GPU's image within 40 dB of the CPU's (the same tree and shading; FMA contraction differs).
  {
    const raytracer::scene scene = raytracer::load_scene("spheres");
    raytracer::render_settings settings = scene.defaults;
    settings.width = 160, settings.height = 90, settings.samples = 2;
    const auto count = static_cast<std::size_t>(settings.width * settings.height);
    std::vector<raytracer::rgba> host(count);
    raytracer::render(scene, settings, host.data());
    buffer<raytracer::rgba> device_pixels(memory_kind::device, count);
    raytracer::render(scene, settings, device_pixels.data(), s.stream);
    EXPECT_CUDA(cudaStreamSynchronize(s.stream));
    std::vector<raytracer::rgba> from_gpu(count);
    copy_bytes(from_gpu.data(), memory_kind::host, device_pixels.data(), memory_kind::device, count * sizeof(raytracer::rgba));
    EXPECT_GE(raytracer::psnr(host, from_gpu), 40.0);
  }
}

TEST(GpuLibrary, MixedHostAndDeviceOperandsAreRefused) {
  SWATH_SKIP_WITHOUT_GPU();
  std::vector<float> host(64, 1.0f);
  device_copy<float> device(host);
  expect_usage_error([&] { vector_add(device.data(), host.data(), device.data(), 64); }, "b is in host memory");
  expect_usage_error([&] { sgemm(op::none, op::none, 8, 8, 8, 1, device.data(), 8, device.data(), 8, 0, host.data(), 8); },
                     "c is in host memory");
  expect_usage_error([&] { stencil::apply(host.data(), device.data(), {8, 8, 1, 0, 2}, {}); }, "out is in device memory");
}

// --- two streams, two devices -------------------------------------------------------------------------------

// One SGEMM problem in device memory: inputs, a poisoned C, the bits it must end with.
// A product and the settings its step runs it with.
struct gemm_case {
  gemm::problem p;
  chosen_settings settings;
};

struct device_gemm {
  gemm::problem p;
  std::shared_ptr<const chosen_settings> settings;
  device_copy<float> a, b, c;
  std::vector<float> expected;
  device_gemm(const gemm_case& chosen, std::mt19937_64& draw)
      : p(chosen.p),
        settings(std::make_shared<const chosen_settings>(chosen.settings)),
        a(random_floats(draw, gemm::rows_of_a(p) * p.lda)),
        b(random_floats(draw, gemm::rows_of_b(p) * p.ldb)),
        c(std::vector<float>(static_cast<std::size_t>(p.m * p.ldc), NAN)) {}
  void poison() {  // NaN everywhere, done before the (non-blocking) streams run
    ASSERT_EQ(cudaMemset(c.data(), 0xff, c.held.bytes()), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
};

// Steps 14-16 on their own kernels whatever the size (tma=on), with the same bits every run
// (shares=even); blocks=N where given; steps 17, 19 and 20 with three splits of K (their parts in the
// stream's workspace; 20's rewritten operands too).
gemm_case case_of(std::int64_t m, std::int64_t n, std::int64_t k, bool trans_a, bool trans_b, const char* blocks = nullptr) {
  gemm_case c;
  c.p.m = m, c.p.n = n, c.p.k = k, c.p.trans_a = trans_a, c.p.trans_b = trans_b;
  c.p.lda = trans_a ? m : k, c.p.ldb = trans_b ? k : n, c.p.ldc = n;
  c.settings = {{"tma", "on"}, {"shares", "even"}, {"splits", "3"}};
  if (blocks != nullptr) c.settings.emplace("blocks", blocks);
  return c;
}

// The sizes: large enough that step 16 splits a last wave over every SM, unless SWATH_SMALL_GPU_TESTS is
// set (the sanitizers' runs), where a 16-block grid cuts the tail instead.
std::vector<gemm_case> two_stream_problems() {
  if (std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr) {
    return {case_of(520, 390, 200, true, false, "16"), case_of(300, 650, 130, false, true, "12")};
  }
  return {case_of(4096, 4096, 512, true, false), case_of(3000, 4100, 333, false, true)};
}

void run_step(const gemm::variant& v, device_gemm& g, cudaStream_t stream) {
  launch_context launch;
  launch.stream = stream;
  launch.sm_count = query_gpu()->sm_count;
  launch.settings = g.settings;
  v.run(g.p, gemm::operands{g.a.data(), g.b.data(), g.c.data()}, launch);
}

TEST(GpuLibraryStreams, StepsWithWorkspacesGiveTheSerialBitsOnTwoStreamsAtOnce) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  const std::vector<gemm_case> problems = two_stream_problems();
  // Each step with its own settings, and step 17 again with its parts' pass as the tiles' programmatic
  // dependent (pass=dependent).
  for (const auto& [name, dependent] : {std::pair{"gemm/cuda/14_copy_engine", false}, {"gemm/cuda/15_producer_warp", false},
                                        {"gemm/cuda/16_balanced_tail", false}, {"gemm/cuda/17_split_k", false},
                                        {"gemm/cuda/17_split_k", true}, {"gemm/cuda/19_sliced_k", false},
                                        {"gemm/cuda/20_rewritten_operands", false},
                                        {"gemm/cuda/22_last_split_adds", false}, {"gemm/cuda/auto", false}}) {
    SCOPED_TRACE(std::string(name) + (dependent ? " pass=dependent" : ""));
    const gemm::variant& v = gemm::find_variant(name);
    device_gemm one(problems[0], draw), two(problems[1], draw);
    if (dependent) {
      for (device_gemm* g : {&one, &two}) {
        chosen_settings with_pass = *g->settings;
        with_pass["pass"] = "dependent";
        g->settings = std::make_shared<const chosen_settings>(std::move(with_pass));
      }
    }
    // Serial: one after the other, on one stream.
    {
      owned_stream s;
      for (device_gemm* g : {&one, &two}) {
        g->poison();
        run_step(v, *g, s.stream);
        EXPECT_CUDA(cudaStreamSynchronize(s.stream));
        g->expected = g->c.read();
      }
    }
    // Concurrent: fresh streams (fresh workspaces), launches interleaved with allocations, three rounds.
    owned_stream s1, s2;
    for (int round = 0; round < 3; ++round) {
      one.poison(), two.poison();
      EXPECT_CUDA(cudaDeviceSynchronize());
      run_step(v, one, s1.stream);
      buffer<float> in_between(memory_kind::device, 1 << 20);
      run_step(v, two, s2.stream);
      run_step(v, one, s1.stream);
      run_step(v, two, s2.stream);
      EXPECT_CUDA(cudaStreamSynchronize(s1.stream));
      EXPECT_CUDA(cudaStreamSynchronize(s2.stream));
      for (device_gemm* g : {&one, &two}) {
        const std::vector<float> got = g->c.read();
        ASSERT_EQ(std::memcmp(got.data(), g->expected.data(), got.size() * sizeof(float)), 0)
            << "round " << round << ": " << g->p.m << "x" << g->p.n << "x" << g->p.k << " differs from its serial run";
      }
    }
  }
}

// swath::sgemm recorded into a CUDA graph gives the direct call's bits at every replay, in both capture
// modes, on a stream that never ran a call (its first workspaces are the graph's own) and on one that
// did (its kept workspaces are neither read nor grown by the capture: a direct call after the replays
// still gives the bits). The shapes take the steps with workspaces on the H100 and H200 tables: split K's
// parts (256³), step 18's parts and counters (M = 16), step 20's rewritten operands (1023³), step 16's
// tail records (1000 × 3000 × 700), and a strided batch.
TEST(GpuLibraryGraphs, SgemmCapturedIntoAGraphGivesTheDirectCallsBits) {
  SWATH_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  const bool small = std::getenv("SWATH_SMALL_GPU_TESTS") != nullptr;
  struct shape {
    std::int64_t m, n, k;
    bool trans_a, trans_b;
    std::int64_t batch;
  };
  std::vector<shape> shapes = {{256, 256, 256, false, false, 1}, {16, 2048, 3000, false, false, 1},
                               {1023, 1023, 1023, true, false, 1}, {1023, 1023, 1023, false, false, 1},
                               {64, 64, 64, false, true, 64}};
  if (!small) shapes.push_back({1000, 3000, 700, false, false, 1});
  for (const shape& sh : shapes) {
    SCOPED_TRACE(std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" + std::to_string(sh.k) + " batch " +
                 std::to_string(sh.batch));
    gemm_case chosen = case_of(sh.m, sh.n, sh.k, sh.trans_a, sh.trans_b);
    const std::int64_t stride_a = gemm::rows_of_a(chosen.p) * chosen.p.lda;
    const std::int64_t stride_b = gemm::rows_of_b(chosen.p) * chosen.p.ldb, stride_c = sh.m * sh.n;
    chosen.p.batch = sh.batch;
    device_copy<float> a(random_floats(draw, stride_a * sh.batch)), b(random_floats(draw, stride_b * sh.batch));
    device_copy<float> c(std::vector<float>(static_cast<std::size_t>(stride_c * sh.batch), NAN));
    const auto call = [&](cudaStream_t stream) {
      const gemm::problem& p = chosen.p;
      sgemm_strided_batched(p.trans_a ? op::transpose : op::none, p.trans_b ? op::transpose : op::none, p.m, p.n, p.k,
                            1, a.data(), p.lda, stride_a, b.data(), p.ldb, stride_b, 0, c.data(), p.ldc, stride_c,
                            sh.batch, stream);
    };
    const auto poison = [&] {
      ASSERT_EQ(cudaMemset(c.data(), 0xff, c.held.bytes()), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    };
    const auto expect_bits = [&](const std::vector<float>& expected, const std::string& what) {
      const std::vector<float> got = c.read();
      ASSERT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0) << what;
    };
    owned_stream used;
    poison();
    call(used.stream);
    EXPECT_CUDA(cudaStreamSynchronize(used.stream));
    const std::vector<float> expected = c.read();
    for (const float x : expected) ASSERT_FALSE(std::isnan(x)) << "the direct call left an element unwritten";
    for (const cudaStreamCaptureMode mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal}) {
      owned_stream fresh;
      for (cudaStream_t on : {fresh.stream, used.stream}) {
        const std::string where = std::string(on == fresh.stream ? "a fresh stream" : "a used stream") +
                                  (mode == cudaStreamCaptureModeGlobal ? ", global capture" : ", thread-local capture");
        cudaGraph_t graph = nullptr;
        EXPECT_CUDA(cudaStreamBeginCapture(on, mode));
        call(on);
        EXPECT_CUDA(cudaStreamEndCapture(on, &graph));
        cudaGraphExec_t exec = nullptr;
        EXPECT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 2; ++replay) {
          poison();
          EXPECT_CUDA(cudaGraphLaunch(exec, on));
          EXPECT_CUDA(cudaStreamSynchronize(on));
          expect_bits(expected, where + ", replay " + std::to_string(replay));
        }
        EXPECT_CUDA(cudaGraphExecDestroy(exec));
        EXPECT_CUDA(cudaGraphDestroy(graph));
      }
    }
    poison();
    call(used.stream);
    EXPECT_CUDA(cudaStreamSynchronize(used.stream));
    expect_bits(expected, "a direct call after the captures");
  }
}

TEST(GpuLibraryStreams, TwoDevicesAtOnceGiveTheSerialBits) {
  SWATH_SKIP_WITHOUT_GPU();
  int devices = 0;
  EXPECT_CUDA(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "one CUDA device: the two-device test needs two";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  const gemm_case p = two_stream_problems()[0];
  struct on_device {
    std::unique_ptr<device_gemm> g;
    cudaStream_t stream = nullptr;
  };
  std::vector<on_device> per(2);
  for (int d = 0; d < 2; ++d) {
    EXPECT_CUDA(cudaSetDevice(d));
    EXPECT_CUDA(cudaStreamCreateWithFlags(&per[d].stream, cudaStreamNonBlocking));
    std::mt19937_64 same(seed);  // the same inputs on both devices
    per[d].g = std::make_unique<device_gemm>(p, same);  // the library call below picks its own settings
  }
  EXPECT_CUDA(cudaSetDevice(0));
  const auto call = [&](on_device& o) {
    device_gemm& g = *o.g;
    sgemm(g.p.trans_a ? op::transpose : op::none, g.p.trans_b ? op::transpose : op::none, g.p.m, g.p.n, g.p.k, 1,
          g.a.data(), g.p.lda, g.b.data(), g.p.ldb, 0, g.c.data(), g.p.ldc, o.stream);
  };
  // Serial on device 0, then both at once: each call sets its stream's device itself.
  call(per[0]);
  EXPECT_CUDA(cudaStreamSynchronize(per[0].stream));
  const std::vector<float> expected = per[0].g->c.read();
  for (int round = 0; round < 3; ++round) {
    call(per[1]);
    call(per[0]);
    for (int d = 0; d < 2; ++d) {
      EXPECT_CUDA(cudaSetDevice(d));
      EXPECT_CUDA(cudaStreamSynchronize(per[d].stream));
      const std::vector<float> got = per[d].g->c.read();
      ASSERT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)), 0) << "device " << d << " round " << round;
    }
    EXPECT_CUDA(cudaSetDevice(0));
  }
  for (int d = 0; d < 2; ++d) {
    EXPECT_CUDA(cudaSetDevice(d));
    release_stream_workspaces(per[d].stream);
    per[d].g.reset();
    cudaStreamDestroy(per[d].stream);
  }
  EXPECT_CUDA(cudaSetDevice(0));
}

}  // namespace
}  // namespace swath::testing

#endif  // SWATH_WITH_CUDA
