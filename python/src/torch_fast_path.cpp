// PyTorch CUDA tensors read in C++ (torch_fast_path.hpp says why and what it leaves to Python).
#include "torch_fast_path.hpp"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "calls.hpp"
#include "swath/swath.hpp"

namespace swath::python {

namespace {

std::int64_t as_int(nb::handle h) { return PyLong_AsLongLong(h.ptr()); }

// Whether a 2D tensor is row-major (its last stride 1) with rows at least a row apart; its ld.
std::optional<std::int64_t> row_major_ld(const tensor_facts& t) {
  const std::int64_t rows = t.shape[0], cols = t.shape[1];
  if (cols > 1 && t.strides[1] != 1) return std::nullopt;
  if (rows > 1 && t.strides[0] < cols) return std::nullopt;
  return std::max<std::int64_t>({rows > 1 ? t.strides[0] : cols, cols, 1});
}

// An SGEMM operand as the library takes it, as the Python layer's _stored reads it: row-major is X as
// stored, column-major (a .T) is the transpose of a row-major matrix, so its op flips.
struct operand {
  bool transpose;
  std::int64_t rows, cols, ld;  // of op(X)
};
std::optional<operand> operand_of(const tensor_facts& t, bool transposed) {
  const std::int64_t rows = t.shape[0], cols = t.shape[1];
  const std::int64_t op_rows = transposed ? cols : rows, op_cols = transposed ? rows : cols;
  if (const auto ld = row_major_ld(t)) return operand{transposed, op_rows, op_cols, *ld};
  if ((rows <= 1 || t.strides[0] == 1) && (cols <= 1 || t.strides[1] >= rows)) {
    return operand{!transposed, op_rows, op_cols, std::max<std::int64_t>({cols > 1 ? t.strides[1] : rows, rows, 1})};
  }
  return std::nullopt;
}

bool contiguous(const tensor_facts& t) {
  std::int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] > 1 && t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

nb::object new_tensor(const torch_api& torch, nb::handle like, nb::tuple shape, const nb::object& dtype) {
  return torch.empty(shape, nb::arg("dtype") = dtype, nb::arg("device") = like.attr(torch.device));
}

// ---- the calls ------------------------------------------------------------------------------------

nb::object fast_sgemm(nb::handle a, nb::handle b, nb::handle c, double alpha, double beta, bool trans_a, bool trans_b,
                      nb::handle stream) {
  const torch_api* torch = torch_loaded();
  if (torch == nullptr) return nb::none();
  const auto ta = cuda_tensor(*torch, a), tb = cuda_tensor(*torch, b);
  if (!ta || !tb || ta->ndim != 2 || tb->ndim != 2 || ta->type != element::f32 || tb->type != element::f32 ||
      ta->device != tb->device) {
    return nb::none();
  }
  const auto oa = operand_of(*ta, trans_a), ob = operand_of(*tb, trans_b);
  if (!oa || !ob || oa->cols != ob->rows) return nb::none();
  const std::int64_t m = oa->rows, n = ob->cols, k = oa->cols;
  nb::object result;
  std::optional<tensor_facts> tc;
  if (c.is_none()) {
    if (beta != 0) return nb::none();
    result = new_tensor(*torch, a, nb::make_tuple(m, n), torch->float32);
    tc = cuda_tensor(*torch, result);
  } else {
    result = nb::borrow(c);
    tc = cuda_tensor(*torch, c);
    if (!tc || tc->ndim != 2 || tc->type != element::f32 || tc->device != ta->device || tc->shape[0] != m ||
        tc->shape[1] != n) {
      return nb::none();
    }
  }
  const auto ldc = row_major_ld(*tc);
  const auto handle = stream_for(*torch, stream, ta->device);
  if (!ldc || !handle) return nb::none();
  released([&] {
    swath::sgemm(oa->transpose ? swath::op::transpose : swath::op::none, ob->transpose ? swath::op::transpose : swath::op::none,
                 m, n, k, static_cast<float>(alpha), pointer<const float>(ta->pointer), oa->ld,
                 pointer<const float>(tb->pointer), ob->ld, static_cast<float>(beta), pointer<float>(tc->pointer), *ldc,
                 stream_of(*handle));
  });
  return result;
}

nb::object fast_vector_add(nb::handle a, nb::handle b, nb::handle out, nb::handle stream) {
  const torch_api* torch = torch_loaded();
  if (torch == nullptr) return nb::none();
  const auto ta = cuda_tensor(*torch, a), tb = cuda_tensor(*torch, b);
  if (!ta || !tb || ta->ndim != 1 || tb->ndim != 1 || ta->type != element::f32 || tb->type != element::f32 ||
      ta->device != tb->device || ta->shape[0] != tb->shape[0] || !contiguous(*ta) || !contiguous(*tb)) {
    return nb::none();
  }
  nb::object result = out.is_none() ? new_tensor(*torch, a, nb::make_tuple(ta->shape[0]), torch->float32) : nb::borrow(out);
  const auto to = cuda_tensor(*torch, result);
  if (!to || to->ndim != 1 || to->type != element::f32 || to->device != ta->device || to->shape[0] != ta->shape[0] ||
      !contiguous(*to)) {
    return nb::none();
  }
  const auto handle = stream_for(*torch, stream, ta->device);
  if (!handle) return nb::none();
  released([&] {
    swath::vector_add(pointer<const float>(ta->pointer), pointer<const float>(tb->pointer), pointer<float>(to->pointer),
                      ta->shape[0], stream_of(*handle));
  });
  return result;
}

// Bytes only (256 bins); (counts[:256], counts[256]) as the Python layer returns them.
nb::object fast_histogram_bytes(nb::handle x, nb::handle stream) {
  const torch_api* torch = torch_loaded();
  if (torch == nullptr) return nb::none();
  const auto tx = cuda_tensor(*torch, x);
  if (!tx || tx->type != element::u8 || !contiguous(*tx)) return nb::none();
  std::int64_t n = 1;
  for (int d = 0; d < tx->ndim; ++d) n *= tx->shape[d];
  const auto handle = stream_for(*torch, stream, tx->device);
  if (!handle) return nb::none();
  nb::object counts = new_tensor(*torch, x, nb::make_tuple(257), torch->int64);
  const auto tc = cuda_tensor(*torch, counts);
  if (!tc) return nb::none();
  released([&] {
    swath::histogram::count(pointer<const std::uint8_t>(tx->pointer), n, pointer<std::uint64_t>(tc->pointer),
                            stream_of(*handle));
  });
  return nb::make_tuple(counts[nb::slice(0, 256)], counts[nb::int_(256)]);
}

// One sweep (steps == 1), every shape and boundary the Python layer accepts; out a new tensor of x's
// strides, or x's shape and strides.
nb::object fast_stencil(nb::handle x, int radius, const std::string& form, nb::handle weights, const std::string& edge,
                        int steps, nb::handle out, double edge_value, nb::handle stream) {
  const torch_api* torch = torch_loaded();
  if (torch == nullptr || steps != 1 || radius < 1 || radius > 4) return nb::none();
  if ((form != "star" && form != "box") || (edge != "clamp" && edge != "copy" && edge != "constant" && edge != "periodic")) {
    return nb::none();
  }
  const auto tx = cuda_tensor(*torch, x);
  if (!tx || (tx->ndim != 2 && tx->ndim != 3) || (tx->type != element::f32 && tx->type != element::f64)) return nb::none();
  const int dims = tx->ndim;
  const std::int64_t height = tx->shape[dims - 2], width = tx->shape[dims - 1], depth = dims == 3 ? tx->shape[0] : 1;
  const std::int64_t pitch = height > 1 ? tx->strides[dims - 2] : width;
  if ((width > 1 && tx->strides[dims - 1] != 1) || pitch < width || (dims == 3 && depth > 1 && tx->strides[0] != pitch * height)) {
    return nb::none();
  }
  std::vector<double> taps;
  if (!weights.is_none()) {
    if (!PyList_Check(weights.ptr()) && !PyTuple_Check(weights.ptr())) return nb::none();  // arrays: the Python layer
    for (nb::handle w : weights) {
      if (!PyFloat_Check(w.ptr()) && !PyLong_Check(w.ptr())) return nb::none();
      taps.push_back(PyFloat_AsDouble(w.ptr()));
    }
  }
  nb::object result;
  if (out.is_none()) {
    nb::tuple shape = dims == 3 ? nb::make_tuple(depth, height, width) : nb::make_tuple(height, width);
    nb::tuple strides = dims == 3 ? nb::make_tuple(tx->strides[0], tx->strides[1], tx->strides[2])
                                  : nb::make_tuple(tx->strides[0], tx->strides[1]);
    result = torch->empty_strided(shape, strides, nb::arg("dtype") = x.attr(torch->dtype),
                                  nb::arg("device") = x.attr(torch->device));
  } else {
    result = nb::borrow(out);
  }
  const auto to = cuda_tensor(*torch, result);
  if (!to || to->ndim != dims || to->type != tx->type || to->device != tx->device) return nb::none();
  for (int d = 0; d < dims; ++d) {
    if (to->shape[d] != tx->shape[d] || (to->shape[d] > 1 && to->strides[d] != tx->strides[d])) return nb::none();
  }
  const auto handle = stream_for(*torch, stream, tx->device);
  if (!handle) return nb::none();
  const swath::stencil::grid_layout grid{width, height, depth, pitch, dims};
  const swath::stencil::operator_spec op{shape_of(form), radius, boundary_of(edge), edge_value, taps};
  released([&] {
    if (tx->type == element::f64) {
      swath::stencil::apply(pointer<const double>(tx->pointer), pointer<double>(to->pointer), grid, op, stream_of(*handle));
    } else {
      swath::stencil::apply(pointer<const float>(tx->pointer), pointer<float>(to->pointer), grid, op, stream_of(*handle));
    }
  });
  return result;
}

}  // namespace

const torch_api* torch_loaded() {
  static torch_api* found = nullptr;  // leaked: it must outlive every call, up to the interpreter's exit
  if (found != nullptr) return found;
  PyObject* modules = PyImport_GetModuleDict();
  PyObject* torch = PyDict_GetItemString(modules, "torch");  // borrowed; only if the caller imported it
  if (torch == nullptr) return nullptr;
  nb::handle t(torch);
  if (!nb::hasattr(t, "Tensor") || !nb::hasattr(t.attr("_C"), "_cuda_getCurrentRawStream")) return nullptr;
  auto* api = new torch_api;
  api->tensor = reinterpret_cast<PyTypeObject*>(t.attr("Tensor").ptr());
  api->float32 = t.attr("float32");
  api->float64 = t.attr("float64");
  api->uint8 = t.attr("uint8");
  api->int64 = t.attr("int64");
  api->raw_stream = t.attr("_C").attr("_cuda_getCurrentRawStream");
  api->empty = t.attr("empty");
  api->empty_strided = t.attr("empty_strided");
  api->is_cuda = nb::str("is_cuda");
  api->dtype = nb::str("dtype");
  api->shape = nb::str("shape");
  api->stride = nb::str("stride");
  api->data_ptr = nb::str("data_ptr");
  api->get_device = nb::str("get_device");
  api->device = nb::str("device");
  found = api;
  return found;
}

std::optional<tensor_facts> cuda_tensor(const torch_api& torch, nb::handle object) {
  if (!PyObject_TypeCheck(object.ptr(), torch.tensor)) return std::nullopt;
  if (!PyObject_IsTrue(object.attr(torch.is_cuda).ptr())) return std::nullopt;
  tensor_facts t;
  nb::object shape = object.attr(torch.shape);
  t.ndim = static_cast<int>(PyTuple_GET_SIZE(shape.ptr()));
  if (t.ndim < 1 || t.ndim > 3) return std::nullopt;
  nb::object strides = object.attr(torch.stride)();
  for (int d = 0; d < t.ndim; ++d) {
    t.shape[d] = as_int(PyTuple_GET_ITEM(shape.ptr(), d));
    t.strides[d] = as_int(PyTuple_GET_ITEM(strides.ptr(), d));
  }
  const nb::object dtype = object.attr(torch.dtype);
  t.type = dtype.is(torch.float32)   ? element::f32
           : dtype.is(torch.float64) ? element::f64
           : dtype.is(torch.uint8)   ? element::u8
           : dtype.is(torch.int64)   ? element::i64
                                     : element::other;
  t.pointer = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(object.attr(torch.data_ptr)().ptr()));
  t.device = static_cast<int>(as_int(object.attr(torch.get_device)()));
  if (PyErr_Occurred()) {  // a value that did not fit: let the Python layer read it
    PyErr_Clear();
    return std::nullopt;
  }
  return t;
}

std::optional<std::uintptr_t> stream_for(const torch_api& torch, nb::handle stream, int device) {
  if (stream.is_none()) return static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(torch.raw_stream(device).ptr()));
  if (PyLong_Check(stream.ptr())) return static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(stream.ptr()));
  return std::nullopt;
}

void bind_torch_fast_path(nb::module_& m) {
  // Every object argument may be anything, None included: what the fast path cannot read it hands back.
  m.def("fast_sgemm", &fast_sgemm, nb::arg("a").none(), nb::arg("b").none(), nb::arg("c").none(), nb::arg("alpha"),
        nb::arg("beta"), nb::arg("trans_a"), nb::arg("trans_b"), nb::arg("stream").none());
  m.def("fast_vector_add", &fast_vector_add, nb::arg("a").none(), nb::arg("b").none(), nb::arg("out").none(),
        nb::arg("stream").none());
  m.def("fast_histogram_bytes", &fast_histogram_bytes, nb::arg("x").none(), nb::arg("stream").none());
  m.def("fast_stencil", &fast_stencil, nb::arg("x").none(), nb::arg("radius"), nb::arg("shape"), nb::arg("weights").none(),
        nb::arg("boundary"), nb::arg("steps"), nb::arg("out").none(), nb::arg("edge_value"), nb::arg("stream").none());
}

}  // namespace swath::python
