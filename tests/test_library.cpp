// The library's entry points as a user calls them (swath/swath.hpp), on host memory here and on device
// memory in the Gpu tests (test_library_gpu.cpp): answers against float64 references on fresh random
// inputs (the seed is printed with every failure), outputs poisoned and checked element by element,
// sizes that divide no tile, and the error contract: a bad argument throws usage_error naming it, before
// anything is written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "swath/lab/raytracer.hpp"
#include "swath/swath.hpp"
#include "test_library_support.hpp"

namespace swath::testing {
namespace {

// --- sgemm ------------------------------------------------------------------------------------------------

TEST(Library, SgemmOnHostMatchesTheReferenceInEveryForm) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  for (const gemm_shape shape : {gemm_shape{1, 1, 1}, gemm_shape{7, 1, 5}, gemm_shape{33, 17, 65}, gemm_shape{129, 67, 131}}) {
    for (const gemm_form form : every_gemm_form()) {
      gemm_case c(shape, form, draw);
      sgemm(form.op_a, form.op_b, shape.m, shape.n, shape.k, form.alpha, c.a.data(), c.lda, c.b.data(), c.ldb,
            form.beta, c.c.data(), c.ldc);
      c.expect_matches(describe(shape, form));
    }
  }
}

TEST(Library, SgemmEmptySizesFollowBlas) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  // M = 0 or N = 0: nothing happens, C may be null.
  std::vector<float> untouched = random_floats(draw, 12);
  const std::vector<float> before = untouched;
  sgemm(op::none, op::none, 0, 3, 4, 1, nullptr, 4, nullptr, 3, 0, nullptr, 3);
  sgemm(op::none, op::none, 4, 0, 3, 1, untouched.data(), 3, untouched.data(), 1, 0, untouched.data(), 1);
  EXPECT_EQ(std::memcmp(untouched.data(), before.data(), before.size() * sizeof(float)), 0);
  // K = 0: C = beta C (A and B are not read: null is fine).
  gemm_case c(gemm_shape{5, 7, 0}, gemm_form{op::none, op::none, 1.5f, 0.5f, 2}, draw);
  sgemm(op::none, op::none, 5, 7, 0, 1.5f, nullptr, 1, nullptr, 7, 0.5f, c.c.data(), c.ldc);
  c.expect_matches("K = 0");
}

TEST(Library, SgemmRefusesBadArgumentsBeforeWritingC) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  gemm_case c(gemm_shape{9, 10, 11}, gemm_form{op::none, op::transpose, 1, 0, 0}, draw);
  const std::vector<float> before = c.c;
  const auto refused = [&](const std::string& argument, auto&& call) {
    expect_usage_error(call, argument);
    EXPECT_EQ(std::memcmp(c.c.data(), before.data(), before.size() * sizeof(float)), 0) << argument;
  };
  float* const a = c.a.data();
  float* const b = c.b.data();
  float* const out = c.c.data();
  refused("m = -1", [&] { sgemm(op::none, op::transpose, -1, 10, 11, 1, a, c.lda, b, c.ldb, 0, out, c.ldc); });
  refused("k = -3", [&] { sgemm(op::none, op::transpose, 9, 10, -3, 1, a, c.lda, b, c.ldb, 0, out, c.ldc); });
  refused("a is null", [&] { sgemm(op::none, op::transpose, 9, 10, 11, 1, nullptr, c.lda, b, c.ldb, 0, out, c.ldc); });
  refused("b is null", [&] { sgemm(op::none, op::transpose, 9, 10, 11, 1, a, c.lda, nullptr, c.ldb, 0, out, c.ldc); });
  refused("c is null", [&] { sgemm(op::none, op::transpose, 9, 10, 11, 1, a, c.lda, b, c.ldb, 0, nullptr, c.ldc); });
  refused("lda = 10", [&] { sgemm(op::none, op::transpose, 9, 10, 11, 1, a, 10, b, c.ldb, 0, out, c.ldc); });
  // op(B) = B^T: B is stored N x K, so its rows are K = 11 long.
  refused("ldb = 10", [&] { sgemm(op::none, op::transpose, 9, 10, 11, 1, a, c.lda, b, 10, 0, out, c.ldc); });
  refused("ldc = 9", [&] { sgemm(op::none, op::transpose, 9, 10, 11, 1, a, c.lda, b, c.ldb, 0, out, 9); });
}

// A strided batch on host memory: every form; A shared by every product (stride 0) or each its own,
// strides longer than a product (gaps never written), and the batch's own refusals.
TEST(Library, SgemmStridedBatchedOnHostMatchesEachProduct) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  constexpr std::int64_t batch = 3;
  for (const gemm_shape shape : {gemm_shape{1, 1, 1}, gemm_shape{33, 17, 65}}) {
    for (const gemm_form form : every_gemm_form()) {
      for (const bool shared_a : {false, true}) {
        std::vector<gemm_case> products;
        for (std::int64_t b = 0; b < batch; ++b) products.emplace_back(shape, form, draw);
        if (shared_a) {
          for (gemm_case& product : products) product.a = products.front().a;
        }
        // Operands back to back with a gap of 5 elements (C's gap poisoned: it must stay as it was).
        const auto stride_of = [](const std::vector<float>& one) { return static_cast<std::int64_t>(one.size()) + 5; };
        const std::int64_t stride_a = shared_a ? 0 : stride_of(products[0].a), stride_b = stride_of(products[0].b),
                           stride_c = stride_of(products[0].c);
        std::vector<float> a(static_cast<std::size_t>(stride_of(products[0].a) * batch), NAN),
            b(static_cast<std::size_t>(stride_b * batch), NAN), c(static_cast<std::size_t>(stride_c * batch), -7.0f);
        for (std::int64_t i = 0; i < batch; ++i) {
          const gemm_case& product = products[static_cast<std::size_t>(i)];
          std::copy(product.a.begin(), product.a.end(), a.begin() + i * stride_a);
          std::copy(product.b.begin(), product.b.end(), b.begin() + i * stride_b);
          std::copy(product.c.begin(), product.c.end(), c.begin() + i * stride_c);
        }
        sgemm_strided_batched(form.op_a, form.op_b, shape.m, shape.n, shape.k, form.alpha, a.data(), products[0].lda,
                              stride_a, b.data(), products[0].ldb, stride_b, form.beta, c.data(), products[0].ldc,
                              stride_c, batch);
        for (std::int64_t i = 0; i < batch; ++i) {
          const auto first = c.begin() + i * stride_c;
          products[static_cast<std::size_t>(i)].expect_result(
              std::vector<float>(first, first + static_cast<std::int64_t>(products[0].c.size())),
              describe(shape, form) + " product " + std::to_string(i) + (shared_a ? " shared A" : ""));
          for (std::int64_t g = static_cast<std::int64_t>(products[0].c.size()); g < stride_c; ++g) {
            ASSERT_EQ(first[g], -7.0f) << "gap after product " << i << " written";
          }
        }
      }
    }
  }
}

TEST(Library, SgemmStridedBatchedRefusesBadArgumentsBeforeWritingC) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  gemm_case c(gemm_shape{9, 10, 11}, gemm_form{}, draw);
  std::vector<float> out(static_cast<std::size_t>(9 * c.ldc * 2), 3.0f);
  const std::vector<float> before = out;
  const auto refused = [&](const std::string& argument, auto&& call) {
    expect_usage_error(call, argument);
    EXPECT_EQ(out, before) << argument;
  };
  const float* a = c.a.data();
  const float* b = c.b.data();
  const std::int64_t extent = 8 * c.ldc + 10;
  const auto call = [&](std::int64_t stride_a, std::int64_t stride_c, std::int64_t batch) {
    sgemm_strided_batched(op::none, op::none, 9, 10, 11, 1, a, c.lda, stride_a, b, c.ldb, 0, 0, out.data(), c.ldc,
                          stride_c, batch);
  };
  refused("batch = -1", [&] { call(0, extent, -1); });
  refused("stride_a = -4", [&] { call(-4, extent, 2); });
  refused("stride_c = 10 makes the products of C overlap", [&] { call(0, 10, 2); });
  refused("m = -1", [&] {
    sgemm_strided_batched(op::none, op::none, -1, 10, 11, 1, a, c.lda, 0, b, c.ldb, 0, 0, out.data(), c.ldc, extent, 2);
  });
  // batch = 0 does nothing; batch = 1 ignores the strides (any stride_c).
  call(0, extent, 0);
  EXPECT_EQ(out, before);
  EXPECT_NO_THROW(call(0, 0, 1));
  // K = 0: every product's C = beta C (A and B are not read: null is fine); two products of 9 x 10 fill
  // `out` back to back.
  std::vector<float> scaled(static_cast<std::size_t>(2 * extent), 3.0f);
  sgemm_strided_batched(op::none, op::none, 9, 10, 0, 1, nullptr, 1, 0, nullptr, 10, 0, 2.0f, scaled.data(), 10,
                        extent, 2);
  for (const float value : scaled) ASSERT_EQ(value, 6.0f);
}

// --- elementwise -------------------------------------------------------------------------------------------

TEST(Library, VectorAndMatrixAddOnHostAreExact) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  for (const std::int64_t n : {1, 3, 1000, 100003}) {
    const std::vector<float> a = random_floats(draw, n), b = random_floats(draw, n);
    std::vector<float> c(static_cast<std::size_t>(n), std::numeric_limits<float>::quiet_NaN());
    vector_add(a.data(), b.data(), c.data(), n);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "n " << n << " at " << i;
  }
  const std::int64_t rows = 37, cols = 41, ld = 45;
  const std::vector<float> a = random_floats(draw, rows * ld), b = random_floats(draw, rows * ld);
  std::vector<float> c(static_cast<std::size_t>(rows * ld), std::numeric_limits<float>::quiet_NaN());
  matrix_add(a.data(), b.data(), c.data(), rows, cols, ld);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < ld; ++j) {
      const std::int64_t i = r * ld + j;
      if (j < cols) {
        ASSERT_EQ(c[i], a[i] + b[i]) << r << ", " << j;
      } else {
        ASSERT_TRUE(std::isnan(c[i])) << "the pad at " << r << ", " << j << " was written";
      }
    }
  }
  expect_usage_error([&] { vector_add(a.data(), nullptr, c.data(), 5); }, "b is null");
  expect_usage_error([&] { vector_add(a.data(), b.data(), c.data(), -1); }, "n = -1");
  expect_usage_error([&] { matrix_add(a.data(), b.data(), c.data(), rows, cols, cols - 1); }, "ld = 40");
}

// --- stencil -----------------------------------------------------------------------------------------------

TEST(Library, StencilApplyAndIterateOnHostMatchTheReference) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  using stencil::boundary;
  using stencil::shape;
  struct stencil_case {
    stencil::grid_layout grid;
    stencil::operator_spec op;
  };
  const stencil_case cases[] = {
      {{67, 45, 1, 0, 2}, {shape::star, 1, boundary::clamp, 0, {}}},
      {{67, 45, 1, 0, 2}, {shape::box, 2, boundary::periodic, 0, {}}},
      {{31, 29, 1, 0, 2}, {shape::star, 4, boundary::constant, 0.75, {}}},
      {{23, 19, 17, 0, 3}, {shape::star, 1, boundary::copy, 0, {}}},
      {{13, 11, 9, 0, 3}, {shape::box, 1, boundary::periodic, 0, {}}},
  };
  for (const stencil_case& c : cases) {
    const std::string what = describe(c.grid, c.op);
    // Random weights of the right count, to show they are used.
    stencil::operator_spec op = c.op;
    const auto taps = stencil::default_taps(op.form, op.radius, c.grid.dims);
    for (std::size_t k = 0; k < taps.size(); ++k) op.weights.push_back(0.5 + std::uniform_real_distribution<double>(0, 1)(draw));
    stencil_grids<double> g(c.grid, draw);
    stencil::apply(g.a.data(), g.b.data(), c.grid, op);
    g.expect_one_sweep(op, what);
    // Three sweeps (single sweeps) and six and seven (2D grids: fused in time-skewed bands): the result
    // lands in b when T is odd, in a when even; zero sweeps leave a.
    for (const int sweeps : {3, 6, 7}) {
      stencil_grids<double> h(c.grid, draw);
      double* const result = stencil::iterate(h.a.data(), h.b.data(), c.grid, op, sweeps);
      EXPECT_EQ(result, sweeps % 2 == 1 ? h.b.data() : h.a.data()) << what;
      h.expect_sweeps(op, sweeps, result, what + ", " + std::to_string(sweeps) + " sweeps");
      EXPECT_EQ(stencil::iterate(h.a.data(), h.b.data(), c.grid, op, 0), h.a.data());
    }
  }
  // float too, at one shape.
  stencil_grids<float> f({51, 40, 1, 0, 2}, draw);
  stencil::apply(f.a.data(), f.b.data(), {51, 40, 1, 0, 2}, {});
  f.expect_one_sweep({}, "float 51x40");
}

TEST(Library, StencilRefusesBadArguments) {
  std::vector<float> a(1000, 1.0f), b(1000, 1.0f);
  using stencil::grid_layout;
  expect_usage_error([&] { stencil::apply(a.data(), b.data(), grid_layout{10, 10, 1, 0, 2}, {stencil::shape::star, 5, stencil::boundary::clamp, 0, {}}); },
                     "radius = 5");
  expect_usage_error([&] { stencil::apply(a.data(), b.data(), grid_layout{10, 0, 1, 0, 2}, {}); }, "every extent");
  expect_usage_error([&] { stencil::apply(a.data(), b.data(), grid_layout{10, 10, 1, 9, 2}, {}); }, "row_pitch = 9");
  expect_usage_error([&] { stencil::apply(a.data(), a.data() + 5, grid_layout{10, 10, 1, 0, 2}, {}); }, "overlap");
  expect_usage_error([&] { stencil::apply(a.data(), nullptr, grid_layout{10, 10, 1, 0, 2}, {}); }, "out is null");
  stencil::operator_spec wrong_count;
  wrong_count.weights = {1, 2, 3};
  expect_usage_error([&] { stencil::apply(a.data(), b.data(), grid_layout{10, 10, 1, 0, 2}, wrong_count); }, "5 taps");
  expect_usage_error([&] { stencil::apply(a.data(), b.data(), grid_layout{9, 9, 9, 10, 3}, {}); }, "back to back");
  expect_usage_error([&] { stencil::apply(a.data(), b.data(), grid_layout{9, 9, 1, 12, 2}, {}); }, "back to back");
  expect_usage_error([&] { stencil::iterate(a.data(), b.data(), grid_layout{10, 10, 1, 0, 2}, {}, -1); }, "sweeps = -1");
}

// --- histogram ---------------------------------------------------------------------------------------------

TEST(Library, HistogramCountOnHostIsExact) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 draw(seed);
  for (const std::int64_t n : {0, 1, 1000, 1000003}) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(draw());
    std::vector<std::uint64_t> counts(257, 12345);
    histogram::count(bytes.data(), n, counts.data());
    EXPECT_EQ(counts, byte_counts(bytes)) << "n " << n;
  }
  const int bins = 37;
  const double lo = -2.5, hi = 7.25;
  std::vector<float> floats = random_floats(draw, 100001, lo - 1, hi + 1);
  floats[17] = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::int32_t> ints(50001);
  for (auto& x : ints) x = static_cast<std::int32_t>(std::uniform_int_distribution<int>(-4, 9)(draw));
  std::vector<std::uint64_t> counts(bins + 1, 7);
  histogram::count(floats.data(), static_cast<std::int64_t>(floats.size()), bins, lo, hi, counts.data());
  EXPECT_EQ(counts, binned_counts(floats, bins, lo, hi));
  histogram::count(ints.data(), static_cast<std::int64_t>(ints.size()), bins, lo, hi, counts.data());
  EXPECT_EQ(counts, binned_counts(ints, bins, lo, hi));
  expect_usage_error([&] { histogram::count(ints.data(), 5, 0, lo, hi, counts.data()); }, "bins = 0");
  expect_usage_error([&] { histogram::count(ints.data(), 5, 3, hi, lo, counts.data()); }, "lo < hi");
  expect_usage_error([&] { histogram::count(floats.data(), -1, 3, lo, hi, counts.data()); }, "n = -1");
  expect_usage_error([&] { histogram::count(floats.data(), 5, 3, lo, hi, nullptr); }, "counts is null");
}

// --- raytracer ---------------------------------------------------------------------------------------------

TEST(Library, RenderOnHostDrawsWhatTheReferenceStepDraws) {
  const raytracer::scene s = raytracer::load_scene("spheres");
  raytracer::render_settings settings = s.defaults;
  settings.width = 97, settings.height = 61, settings.samples = 2;
  std::vector<raytracer::rgba> pixels(static_cast<std::size_t>(settings.width * settings.height),
                                      raytracer::rgba{NAN, NAN, NAN, NAN});
  raytracer::render(s, settings, pixels.data());
  std::vector<raytracer::rgba> reference;
  raytracer::problem p = raytracer::make_problem("scene=spheres samples=2", settings.width, settings.height);
  raytracer::render(raytracer::find_variant("raytracer/cpu/02_bvh_sah"), p, reference);
  ASSERT_EQ(pixels.size(), reference.size());
  EXPECT_TRUE(std::isinf(raytracer::psnr(reference, pixels))) << "the same step and settings draw the same bits";
}

TEST(Library, ScenesFromArraysAreChecked) {
  const raytracer::sphere_geometry spheres[] = {{{0, 0, 0}, 1}, {{2, 0, 0}, 0.5f}};
  const raytracer::material materials[] = {raytracer::material{}};
  const raytracer::light lights[] = {raytracer::light{}};
  const int good[] = {0, 0}, bad[] = {0, 3};
  const raytracer::scene s = raytracer::make_scene(spheres, good, materials, lights, raytracer::camera_spec{});
  EXPECT_EQ(s.spheres.size(), 2u);
  expect_usage_error([&] { raytracer::make_scene(spheres, bad, materials, lights, raytracer::camera_spec{}); },
                     "sphere_materials[1] = 3");
  std::vector<raytracer::rgba> pixels(16);
  raytracer::render_settings settings;
  settings.width = 0;
  expect_usage_error([&] { raytracer::render(s, settings, pixels.data()); }, "width and height");
  expect_usage_error([&] { raytracer::render(s, raytracer::render_settings{}, nullptr); }, "pixels is null");
}

}  // namespace
}  // namespace swath::testing
