// swath._swath: the library's calls for Python. The Python layer (python/swath/__init__.py) reads each
// array's pointer, shape, strides and device from its __cuda_array_interface__ or __array_interface__
// (so no array is copied), checks them, allocates outputs in the caller's framework and picks the
// stream; these functions take those numbers and call the library with the GIL released.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swath/core/device.hpp"
#include "swath/schedule/column.hpp"
#include "swath/schedule/explain.hpp"
#include "swath/schedule/row_major.hpp"
#include "swath/schedule/tiled.hpp"
#include "swath/schedule/zigzag.hpp"
#include "swath/swath.hpp"
#include "calls.hpp"
#include "torch_fast_path.hpp"
#if SWATH_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace nb = nanobind;

namespace {

using swath::python::boundary_of;
using swath::python::pointer;
using swath::python::released;
using swath::python::shape_of;
using swath::python::stream_of;

// The stream `consumer` waits (on the device, not the host) for the work queued so far on `producer`:
// what __cuda_array_interface__ v3 asks of a consumer whose stream differs from the array's.
void stream_wait(std::uintptr_t consumer, std::uintptr_t producer) {
#if SWATH_WITH_CUDA
  if (consumer == producer) return;
  nb::gil_scoped_release unlocked;
  cudaEvent_t done = nullptr;
  if (cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventRecord(done, reinterpret_cast<cudaStream_t>(producer)) != cudaSuccess ||
      cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), done, 0) != cudaSuccess) {
    if (done != nullptr) cudaEventDestroy(done);
    throw std::runtime_error(std::string("swath: ordering the array's stream before the call's failed: ") +
                             cudaGetErrorString(cudaGetLastError()));
  }
  cudaEventDestroy(done);  // released once the wait has been queued; the wait stays
#else
  (void)consumer, (void)producer;
#endif
}

nb::dict info() {
  nb::dict d;
  d["version"] = swath::build::version;
  d["cuda"] = static_cast<bool>(SWATH_WITH_CUDA);
  d["cuda_architectures"] = std::string(swath::build::cuda_architecture_list);
  nb::list gpus;
#if SWATH_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  for (int device = 0; device < count; ++device) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) continue;
    nb::dict g;
    g["index"] = device;
    g["name"] = std::string(p.name);
    g["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
    g["sm_count"] = p.multiProcessorCount;
    g["memory_bytes"] = static_cast<std::int64_t>(p.totalGlobalMem);
    g["l2_bytes"] = p.l2CacheSize;
    gpus.append(g);
  }
#endif
  d["gpus"] = gpus;
  const swath::cpu_info cpu = swath::query_cpu();
  nb::dict c;
  c["model"] = cpu.model;
  c["logical_cores"] = cpu.logical_cores;
  c["openmp_threads"] = cpu.openmp_threads;
  c["l2_bytes"] = static_cast<std::int64_t>(cpu.l2_bytes);
  c["l3_bytes"] = static_cast<std::int64_t>(cpu.l3_bytes);
  d["cpu"] = c;
  return d;
}

// The visiting order of a traversal over a width x height grid: element i is the linear index (row-major)
// of the i-th point visited.
template <class Schedule>
void fill_order(const Schedule& order, swath::schedule::extent2d grid, std::int64_t* out) {
  std::int64_t i = 0;
  order.for_each_run(grid, [&](const swath::schedule::run& r) {
    if (r.reversed) {
      for (std::int64_t x = r.x_end - 1; x >= r.x_begin; --x) out[i++] = r.y * grid.width + x;
    } else {
      for (std::int64_t x = r.x_begin; x < r.x_end; ++x) out[i++] = r.y * grid.width + x;
    }
  });
}

}  // namespace

NB_MODULE(_swath, m) {
  m.doc() = "swath's library calls on raw pointers; use the swath package, which checks and prepares arrays";
  m.def("info", &info);
  m.attr("with_cuda") = static_cast<bool>(SWATH_WITH_CUDA);
  m.attr("version") = swath::build::version;
  swath::python::bind_torch_fast_path(m);
  m.def("stream_wait", &stream_wait);
  m.def("sgemm", [](bool trans_a, bool trans_b, std::int64_t rows, std::int64_t cols, std::int64_t depth, float alpha,
                    std::uintptr_t a, std::int64_t lda, std::uintptr_t b, std::int64_t ldb, float beta, std::uintptr_t c,
                    std::int64_t ldc, std::uintptr_t stream) {
    released([&] {
      swath::sgemm(trans_a ? swath::op::transpose : swath::op::none, trans_b ? swath::op::transpose : swath::op::none, rows,
                   cols, depth, alpha, pointer<const float>(a), lda, pointer<const float>(b), ldb, beta, pointer<float>(c), ldc,
                   stream_of(stream));
    });
  });
  m.def("sgemm_strided_batched", [](bool trans_a, bool trans_b, std::int64_t rows, std::int64_t cols, std::int64_t depth,
                                    float alpha, std::uintptr_t a, std::int64_t lda, std::int64_t stride_a, std::uintptr_t b,
                                    std::int64_t ldb, std::int64_t stride_b, float beta, std::uintptr_t c, std::int64_t ldc,
                                    std::int64_t stride_c, std::int64_t batch, std::uintptr_t stream) {
    released([&] {
      swath::sgemm_strided_batched(trans_a ? swath::op::transpose : swath::op::none,
                                   trans_b ? swath::op::transpose : swath::op::none, rows, cols, depth, alpha,
                                   pointer<const float>(a), lda, stride_a, pointer<const float>(b), ldb, stride_b, beta,
                                   pointer<float>(c), ldc, stride_c, batch, stream_of(stream));
    });
  });
  // One sweep, in -> out.
  m.def("stencil", [](std::uintptr_t in, std::uintptr_t out, bool f64, std::int64_t width, std::int64_t height,
                      std::int64_t depth, std::int64_t row_pitch, int dims, int radius, const std::string& form,
                      const std::string& edge, double edge_value, const std::vector<double>& weights, std::uintptr_t stream) {
    const swath::stencil::grid_layout grid{width, height, depth, row_pitch, dims};
    const swath::stencil::operator_spec op{shape_of(form), radius, boundary_of(edge), edge_value, weights};
    released([&] {
      if (f64) {
        swath::stencil::apply(pointer<const double>(in), pointer<double>(out), grid, op, stream_of(stream));
      } else {
        swath::stencil::apply(pointer<const float>(in), pointer<float>(out), grid, op, stream_of(stream));
      }
    });
  });
  // `sweeps` sweeps ping-ponging between a (the input) and b; returns the one that holds the result.
  m.def("stencil_iterate", [](std::uintptr_t a, std::uintptr_t b, bool f64, std::int64_t width, std::int64_t height,
                              std::int64_t depth, std::int64_t row_pitch, int dims, int radius, const std::string& form,
                              const std::string& edge, double edge_value, const std::vector<double>& weights, int sweeps,
                              std::uintptr_t stream) {
    const swath::stencil::grid_layout grid{width, height, depth, row_pitch, dims};
    const swath::stencil::operator_spec op{shape_of(form), radius, boundary_of(edge), edge_value, weights};
    std::uintptr_t result = a;
    released([&] {
      result = f64 ? reinterpret_cast<std::uintptr_t>(
                         swath::stencil::iterate(pointer<double>(a), pointer<double>(b), grid, op, sweeps, stream_of(stream)))
                   : reinterpret_cast<std::uintptr_t>(
                         swath::stencil::iterate(pointer<float>(a), pointer<float>(b), grid, op, sweeps, stream_of(stream)));
    });
    return result;
  });
  m.def("histogram_bytes", [](std::uintptr_t bytes, std::int64_t n, std::uintptr_t counts, std::uintptr_t stream) {
    released([&] { swath::histogram::count(pointer<const std::uint8_t>(bytes), n, pointer<std::uint64_t>(counts), stream_of(stream)); });
  });
  m.def("histogram_binned", [](std::uintptr_t samples, bool floats, std::int64_t n, int bins, double lo, double hi,
                               std::uintptr_t counts, std::uintptr_t stream) {
    released([&] {
      if (floats) {
        swath::histogram::count(pointer<const float>(samples), n, bins, lo, hi, pointer<std::uint64_t>(counts), stream_of(stream));
      } else {
        swath::histogram::count(pointer<const std::int32_t>(samples), n, bins, lo, hi, pointer<std::uint64_t>(counts),
                                stream_of(stream));
      }
    });
  });
  m.def("vector_add", [](std::uintptr_t a, std::uintptr_t b, std::uintptr_t c, std::int64_t n, std::uintptr_t stream) {
    released([&] { swath::vector_add(pointer<const float>(a), pointer<const float>(b), pointer<float>(c), n, stream_of(stream)); });
  });
  // The host time of one swath::vector_add call made from C++, averaged over `calls` calls (seconds): the
  // baseline of bench/python/compare.py's per-call overhead.
  m.def("time_vector_add_calls", [](std::uintptr_t a, std::uintptr_t b, std::uintptr_t c, std::int64_t n, int calls,
                                    std::uintptr_t stream) {
    double seconds = 0;
    released([&] {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) {
        swath::vector_add(pointer<const float>(a), pointer<const float>(b), pointer<float>(c), n, stream_of(stream));
      }
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / std::max(calls, 1);
    });
    return seconds;
  });
  m.def("schedule_order", [](const std::string& kind, std::int64_t width, std::int64_t height, std::int64_t column_width,
                             std::int64_t tile_width, std::int64_t tile_height, std::uintptr_t out) {
    const swath::schedule::extent2d grid{width, height};
    auto* order = pointer<std::int64_t>(out);
    if (kind == "row_major") return fill_order(swath::schedule::row_major{}, grid, order);
    if (kind == "tiled") return fill_order(swath::schedule::tiled{tile_width, tile_height}, grid, order);
    if (kind == "column") return fill_order(swath::schedule::column{column_width}, grid, order);
    if (kind == "zigzag") return fill_order(swath::schedule::zigzag{column_width}, grid, order);
    throw std::invalid_argument("kind: expected 'row_major', 'tiled', 'column' or 'zigzag', got '" + kind + "'");
  });
  // The cache model on one stencil problem (swath schedule explain's answer), as JSON text.
  m.def("schedule_explain", [](std::int64_t width, std::int64_t height, int radius, bool box, int element_bytes,
                               double cache_bytes, const std::string& cache_name, std::int64_t ways, std::int64_t threads,
                               std::int64_t line_bytes) {
    swath::schedule::stencil_question q;
    q.grid = {width, height};
    q.radius = radius, q.box = box, q.element_bytes = element_bytes, q.cache_bytes = cache_bytes;
    q.cache_name = cache_name, q.ways = ways, q.threads = threads, q.line_bytes = line_bytes;
    try {
      return swath::schedule::explain_stencil(q).dump();
    } catch (const swath::usage_error& e) {
      throw std::invalid_argument(e.what());
    }
  });
  // A cache size as swath reads it ("L2", "256K", "2^21", bytes): (bytes, ways).
  m.def("cache_size", [](const std::string& text) {
    try {
      const swath::cache_size size = swath::parse_cache_size(text);
      return std::make_pair(size.bytes, size.ways);
    } catch (const swath::usage_error& e) {
      throw std::invalid_argument(e.what());
    }
  });
  nb::class_<swath::raytracer::scene>(m, "Scene")
      .def_prop_ro("name", [](const swath::raytracer::scene& s) { return s.name; })
      .def_prop_ro("spheres", [](const swath::raytracer::scene& s) { return s.spheres.size(); })
      .def_prop_ro("width", [](const swath::raytracer::scene& s) { return s.defaults.width; })
      .def_prop_ro("height", [](const swath::raytracer::scene& s) { return s.defaults.height; })
      .def_prop_ro("samples", [](const swath::raytracer::scene& s) { return s.defaults.samples; });
  m.def("load_scene", [](const std::string& name_or_path) {
    try {
      return swath::raytracer::load_scene(name_or_path);
    } catch (const swath::usage_error& e) {
      throw std::invalid_argument(e.what());
    }
  });
  m.def("render", [](const swath::raytracer::scene& s, int width, int height, int samples, std::uintptr_t pixels,
                     std::uintptr_t stream) {
    swath::raytracer::render_settings settings = s.defaults;
    settings.width = width, settings.height = height, settings.samples = samples;
    released([&] { swath::raytracer::render(s, settings, pointer<swath::raytracer::rgba>(pixels), stream_of(stream)); });
  });
  m.def("matrix_add", [](std::uintptr_t a, std::uintptr_t b, std::uintptr_t c, std::int64_t rows, std::int64_t cols,
                         std::int64_t ld, std::uintptr_t stream) {
    released([&] {
      swath::matrix_add(pointer<const float>(a), pointer<const float>(b), pointer<float>(c), rows, cols, ld, stream_of(stream));
    });
  });
}
