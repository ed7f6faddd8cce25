#pragma once
// The common call made cheap: PyTorch CUDA tensors read in C++. The package's Python layer reads any
// framework's arrays and checks them (python/swath/__init__.py), which costs ~13 us a call on an H100
// host, more than the library's own ~6 us. Here a call whose arguments are all PyTorch CUDA tensors in
// layouts the kernels take is read through PyTorch's own accessors from C++ and run at once; anything
// else (another framework, the host, a layout or value that needs a message) returns None, and the
// Python layer takes the call from the start, with its checks and its errors. So this path raises for
// bad input only where the library itself refuses it (a weight count, say: ValueError, as on the Python
// layer's path), and decides nothing the Python layer would decide differently.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace swath::python {

namespace nb = nanobind;

enum class element { f32, f64, u8, i64, other };

// One tensor as the fast path reads it.
struct tensor_facts {
  std::uintptr_t pointer = 0;
  int ndim = 0;
  std::int64_t shape[3] = {0, 0, 0};
  std::int64_t strides[3] = {0, 0, 0};  // elements
  element type = element::other;
  int device = -1;
};

// PyTorch's pieces, found once torch has been imported by the caller (never imported from here).
struct torch_api {
  PyTypeObject* tensor = nullptr;
  nb::object float32, float64, uint8, int64;
  nb::object raw_stream;  // torch._C._cuda_getCurrentRawStream(device) -> int
  nb::object empty, empty_strided;
  nb::object is_cuda, dtype, shape, stride, data_ptr, get_device, device;  // interned attribute names
};

// The API when torch is loaded, else nullptr.
const torch_api* torch_loaded();

// A CUDA tensor's facts; nullopt for anything else (another type, the host, more than 3 dimensions).
std::optional<tensor_facts> cuda_tensor(const torch_api& torch, nb::handle object);

// The stream a call runs on: PyTorch's current stream on the device for None, the handle for an int;
// nullopt for any other stream object (the Python layer reads those).
std::optional<std::uintptr_t> stream_for(const torch_api& torch, nb::handle stream, int device);

void bind_torch_fast_path(nb::module_& m);

}  // namespace swath::python
