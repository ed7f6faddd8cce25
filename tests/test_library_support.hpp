#pragma once
// What the library tests share: random inputs, float64 references written here from the definitions
// (independent of the lab's checks), and the error-contract check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "swath/swath.hpp"
#include "test_support.hpp"

namespace swath::testing {

inline std::vector<float> random_floats(std::mt19937_64& draw, std::int64_t n, double lo = 0.5, double hi = 2.0) {
  std::uniform_real_distribution<double> value(lo, hi);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (float& x : out) x = static_cast<float>(value(draw));
  return out;
}

// The call throws usage_error whose message holds `argument`.
template <class Call>
void expect_usage_error(Call&& call, const std::string& argument) {
  try {
    call();
    ADD_FAILURE() << "no usage_error for '" << argument << "'";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find(argument), std::string::npos) << "message: " << e.what();
  }
}

// --- sgemm -------------------------------------------------------------------------------------------------

struct gemm_shape {
  std::int64_t m, n, k;
};
struct gemm_form {
  op op_a = op::none, op_b = op::none;
  float alpha = 1, beta = 0;
  int pad = 0;  // elements added to every leading dimension
};
inline std::vector<gemm_form> every_gemm_form() {
  return {{op::none, op::none, 1, 0, 0},
          {op::none, op::transpose, 0.5f, 0, 3},
          {op::transpose, op::none, 2, 1.5f, 0},
          {op::transpose, op::transpose, 1, 0.25f, 5}};
}
inline std::string describe(gemm_shape s, gemm_form f) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         (f.op_a == op::transpose ? " t" : " n") + (f.op_b == op::transpose ? "t" : "n") + " alpha " +
         std::to_string(f.alpha) + " beta " + std::to_string(f.beta) + " pad " + std::to_string(f.pad);
}

// Operands in host memory with their leading dimensions, C's first values kept, and the float64 check.
struct gemm_case {
  gemm_shape shape;
  gemm_form form;
  std::int64_t lda, ldb, ldc;
  std::vector<float> a, b, c, c_before;

  gemm_case(gemm_shape s, gemm_form f, std::mt19937_64& draw) : shape(s), form(f) {
    const std::int64_t a_rows = f.op_a == op::transpose ? s.k : s.m, a_cols = f.op_a == op::transpose ? s.m : s.k;
    const std::int64_t b_rows = f.op_b == op::transpose ? s.n : s.k, b_cols = f.op_b == op::transpose ? s.k : s.n;
    lda = std::max<std::int64_t>(a_cols, 1) + f.pad, ldb = std::max<std::int64_t>(b_cols, 1) + f.pad, ldc = s.n + f.pad;
    a = random_floats(draw, std::max<std::int64_t>(a_rows * lda, 1));
    b = random_floats(draw, std::max<std::int64_t>(b_rows * ldb, 1));
    c = random_floats(draw, s.m * ldc);
    // beta = 0 must not read C: NaN there would show it.
    if (f.beta == 0) {
      for (std::int64_t i = 0; i < s.m; ++i) {
        for (std::int64_t j = 0; j < s.n; ++j) c[static_cast<std::size_t>(i * ldc + j)] = std::numeric_limits<float>::quiet_NaN();
      }
    }
    c_before = c;
  }
  [[nodiscard]] float a_at(std::int64_t i, std::int64_t kk) const {
    return a[static_cast<std::size_t>(form.op_a == op::transpose ? kk * lda + i : i * lda + kk)];
  }
  [[nodiscard]] float b_at(std::int64_t kk, std::int64_t j) const {
    return b[static_cast<std::size_t>(form.op_b == op::transpose ? j * ldb + kk : kk * ldb + j)];
  }
  // Every element of C within (K + 2) · 2^-24 · 2 of the float64 value; the pads untouched.
  void expect_matches(const std::string& what) const { expect_result(c, what); }
  void expect_result(const std::vector<float>& result, const std::string& what) const {
    const double tolerance = 2 * 0x1p-24 * static_cast<double>(shape.k + 2);
    for (std::int64_t i = 0; i < shape.m; ++i) {
      for (std::int64_t j = 0; j < ldc; ++j) {
        const auto at = static_cast<std::size_t>(i * ldc + j);
        if (j >= shape.n) {
          ASSERT_EQ(std::memcmp(&result[at], &c_before[at], sizeof(float)), 0) << what << ": pad written at " << i << ", " << j;
          continue;
        }
        double sum = 0;
        for (std::int64_t kk = 0; kk < shape.k; ++kk) sum += static_cast<double>(a_at(i, kk)) * b_at(kk, j);
        const double expected = form.alpha * sum + (form.beta == 0 ? 0.0 : form.beta * static_cast<double>(c_before[at]));
        const double error = std::abs(result[at] - expected) / std::max(std::abs(expected), 1e-6);
        ASSERT_TRUE(error <= tolerance) << what << ": C[" << i << "][" << j << "] = " << result[at] << ", expected "
                                        << expected << " (relative error " << error << ")";
      }
    }
  }
};

// --- stencil -----------------------------------------------------------------------------------------------

inline std::string describe(const stencil::grid_layout& g, const stencil::operator_spec& op) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + "x" + std::to_string(g.depth) + " pitch " +
         std::to_string(g.row_pitch) + " " + std::string(to_string(op.form)) + " r" + std::to_string(op.radius) + " " +
         std::string(to_string(op.edge));
}

// Two grids a and b as stored (pads NaN: never read, never written), a random, and the float64 sweep.
template <class T>
struct stencil_grids {
  stencil::grid_layout grid;
  std::int64_t pitch;
  std::vector<T> a, b, a_before;

  stencil_grids(const stencil::grid_layout& g, std::mt19937_64& draw)
      : grid(g), pitch(g.row_pitch > 0 ? g.row_pitch : g.width) {
    const auto stored = static_cast<std::size_t>(pitch * g.height * g.depth);
    a.assign(stored, std::numeric_limits<T>::quiet_NaN());
    b = a;
    std::uniform_real_distribution<double> value(0.5, 2.0);
    for (std::int64_t z = 0; z < g.depth; ++z) {
      for (std::int64_t y = 0; y < g.height; ++y) {
        for (std::int64_t x = 0; x < g.width; ++x) a[index(x, y, z)] = static_cast<T>(value(draw));
      }
    }
    a_before = a;
  }
  [[nodiscard]] std::size_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::size_t>((z * grid.height + y) * pitch + x);
  }
  // One sweep of `in` in float64, by the definition (stencil.hpp): taps in default_taps' order.
  [[nodiscard]] std::vector<double> sweep(const stencil::operator_spec& op, const std::vector<double>& in) const {
    auto taps = stencil::default_taps(op.form, op.radius, grid.dims);
    for (std::size_t t = 0; t < taps.size() && !op.weights.empty(); ++t) taps[t].weight = op.weights[t];
    std::vector<double> out(in.size(), std::numeric_limits<double>::quiet_NaN());
    const std::int64_t w = grid.width, h = grid.height, d = grid.depth;
    const auto wrap = [](std::int64_t v, std::int64_t n) { return ((v % n) + n) % n; };
    for (std::int64_t z = 0; z < d; ++z) {
      for (std::int64_t y = 0; y < h; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
          if (op.edge == stencil::boundary::copy && stencil::near_face(x, y, z, w, h, d, op.radius, grid.dims)) {
            out[index(x, y, z)] = in[index(x, y, z)];
            continue;
          }
          double sum = 0;
          for (const stencil::tap& t : taps) {
            std::int64_t sx = x + t.dx, sy = y + t.dy, sz = z + t.dz;
            const bool inside = sx >= 0 && sx < w && sy >= 0 && sy < h && sz >= 0 && sz < d;
            double v = 0;
            if (inside) {
              v = in[index(sx, sy, sz)];
            } else if (op.edge == stencil::boundary::constant) {
              v = op.edge_value;
            } else if (op.edge == stencil::boundary::periodic) {
              v = in[index(wrap(sx, w), wrap(sy, h), wrap(sz, d))];
            } else {
              v = in[index(std::clamp<std::int64_t>(sx, 0, w - 1), std::clamp<std::int64_t>(sy, 0, h - 1),
                           std::clamp<std::int64_t>(sz, 0, d - 1))];
            }
            sum += t.weight * v;
          }
          out[index(x, y, z)] = sum;
        }
      }
    }
    return out;
  }
  void expect_sweeps(const stencil::operator_spec& op, int sweeps, const T* result, const std::string& what) const {
    std::vector<double> expected(a_before.begin(), a_before.end());
    for (int s = 0; s < sweeps; ++s) expected = sweep(op, expected);
    // float: the sum of at most 81 positive products per sweep, each within a few ulps.
    const double tolerance = (sizeof(T) == 4 ? 1e-5 : 1e-12) * sweeps;
    for (std::int64_t z = 0; z < grid.depth; ++z) {
      for (std::int64_t y = 0; y < grid.height; ++y) {
        for (std::int64_t x = 0; x < pitch; ++x) {
          const std::size_t i = index(x, y, z);
          if (x >= grid.width) {
            ASSERT_TRUE(std::isnan(result[i])) << what << ": the pad at " << x << ", " << y << ", " << z << " was written";
            continue;
          }
          const double error = std::abs(result[i] - expected[i]) / std::abs(expected[i]);
          ASSERT_TRUE(error <= tolerance) << what << ": (" << x << ", " << y << ", " << z << ") = " << result[i]
                                          << ", expected " << expected[i];
        }
      }
    }
  }
  void expect_one_sweep(const stencil::operator_spec& op, const std::string& what) const { expect_sweeps(op, 1, b.data(), what); }
};

// --- histogram ---------------------------------------------------------------------------------------------

inline std::vector<std::uint64_t> byte_counts(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint64_t> counts(257, 0);
  for (const std::uint8_t byte : bytes) ++counts[byte];
  return counts;
}

template <class T>
std::vector<std::uint64_t> binned_counts(const std::vector<T>& samples, int bins, double lo, double hi) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(bins) + 1, 0);
  const double scale = bins / (hi - lo);
  for (const T sample : samples) ++counts[static_cast<std::size_t>(histogram::bin_of(sample, lo, hi, scale, bins))];
  return counts;
}

}  // namespace swath::testing
