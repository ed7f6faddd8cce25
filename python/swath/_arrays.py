"""Arrays from any framework as (pointer, shape, strides, dtype, device), without copying them.

Device arrays are read through ``__cuda_array_interface__`` (PyTorch, CuPy, Numba, JAX), host arrays
through ``__array_interface__`` (NumPy), PyTorch CPU tensors through ``Tensor.numpy()`` (a view) and
other host arrays through DLPack (``numpy.from_dlpack``, a view). Outputs are allocated in the
framework of the first input, on its device, and streams are read from that framework.
"""

from __future__ import annotations

import sys
from typing import Any, Optional, Sequence, Tuple

_DTYPES = {"f4": "float32", "f8": "float64", "u1": "uint8", "i4": "int32", "i8": "int64"}


class View:
    """One array as the library sees it: where it starts, its shape and strides in elements, and where
    it lives (a plain class with slots: a call makes three of these, and each microsecond shows in a
    small call's cost)."""

    __slots__ = ("array", "pointer", "shape", "strides", "dtype", "on_device", "device", "producer_stream", "framework")

    def __init__(self, array: Any, pointer: int, shape: Tuple[int, ...], strides: Tuple[int, ...], dtype: str,
                 on_device: bool, device: Optional[int], producer_stream: Optional[int], framework: str):
        self.array = array
        self.pointer = pointer
        self.shape = shape
        self.strides = strides  # elements
        self.dtype = dtype  # "float32", "float64", "uint8", "int32", "int64", or the typestr when other
        self.on_device = on_device
        self.device = device  # the CUDA device, where the framework says; None on the host or when unknown
        self.producer_stream = producer_stream  # __cuda_array_interface__ v3: the stream the data is ready on
        self.framework = framework  # "torch", "cupy", "numpy", or the array type's top-level module

    @property
    def itemsize(self) -> int:
        return {"float32": 4, "float64": 8, "uint8": 1, "int32": 4, "int64": 8}.get(self.dtype, 0)

    def row_major(self) -> bool:
        """Whether the last dimension is contiguous (stride 1, or of extent 1)."""
        return len(self.shape) == 0 or self.shape[-1] <= 1 or self.strides[-1] == 1

    def contiguous(self) -> bool:
        expected = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent > 1 and stride != expected:
                return False
            expected *= extent
        return True


def _framework(array: Any) -> str:
    return type(array).__module__.split(".")[0]


def _stream_handle(value: Optional[int]) -> Optional[int]:
    """__cuda_array_interface__ v3's stream field as a handle: 1 is the legacy default stream (0), 2 the
    per-thread default stream (cudaStreamPerThread, 2); None says nothing to wait for."""
    if value is None:
        return None
    return 0 if value == 1 else int(value)


def _from_interface(array: Any, interface: dict, on_device: bool, owner: Any) -> View:
    typestr = interface["typestr"]
    dtype = _DTYPES.get(typestr[1:], typestr)
    itemsize = int(typestr[2:])
    shape = tuple(int(s) for s in interface["shape"])
    strides_bytes = interface.get("strides")
    if strides_bytes is None:  # C-contiguous
        strides, step = [], 1
        for extent in reversed(shape):
            strides.append(step)
            step *= max(extent, 1)
        strides = tuple(reversed(strides))
    else:
        if any(s % itemsize for s in strides_bytes):
            raise ValueError(f"strides {tuple(strides_bytes)} bytes are not whole {dtype} elements")
        strides = tuple(int(s) // itemsize for s in strides_bytes)
    pointer = int(interface["data"][0] or 0)
    stream = _stream_handle(interface.get("stream")) if on_device else None
    device = None
    if on_device:
        for attribute in ("index", "id"):
            value = getattr(getattr(owner, "device", None), attribute, None)
            if isinstance(value, int):
                device = value
    return View(owner, pointer, shape, strides, dtype, on_device, device, stream, _framework(owner))


_TORCH_DTYPES: dict = {}


def _torch_view(array: Any, torch: Any) -> View:
    """A PyTorch tensor read through its own accessors: __cuda_array_interface__ costs ~10 us a tensor
    (it builds a dict), these under 1 us, and the call's overhead is what a small product pays."""
    if not _TORCH_DTYPES:
        _TORCH_DTYPES.update({torch.float32: "float32", torch.float64: "float64", torch.uint8: "uint8",
                              torch.int32: "int32", torch.int64: "int64"})
    dtype = _TORCH_DTYPES.get(array.dtype, str(array.dtype))
    on_device = array.is_cuda
    return View(array, array.data_ptr(), tuple(array.shape), array.stride(), dtype, on_device,
                array.get_device() if on_device else None, None, "torch")


def view(array: Any, name: str) -> View:
    """The array named `name` (in error messages) as a View; TypeError when it is not an array swath reads."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(array, torch.Tensor):
        return _torch_view(array, torch)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(array, cupy.ndarray):  # its own accessors, as for PyTorch
        item = array.itemsize
        return View(array, array.data.ptr, array.shape, tuple(s // item for s in array.strides), array.dtype.name,
                    True, array.device.id, None, "cupy")
    if hasattr(array, "__cuda_array_interface__"):
        return _from_interface(array, array.__cuda_array_interface__, True, array)
    if hasattr(array, "__array_interface__"):
        return _from_interface(array, array.__array_interface__, False, array)
    if hasattr(array, "__dlpack__"):
        import numpy

        try:
            host = numpy.from_dlpack(array)
        except (RuntimeError, TypeError, BufferError) as error:
            raise TypeError(
                f"{name}: a {type(array).__name__} that is neither on the host (DLPack) nor exposes "
                f"__cuda_array_interface__ ({error})") from None
        return _from_interface(array, host.__array_interface__, False, array)
    raise TypeError(f"{name}: expected an array (PyTorch, CuPy, NumPy, JAX, or any DLPack or "
                    f"__cuda_array_interface__ object), got {type(array).__name__}")


def current_stream(v: View) -> int:
    """The stream the framework of a device array is working on now (PyTorch's or CuPy's current
    stream on the array's device); the legacy default stream (0) for others and for host arrays."""
    if not v.on_device:
        return 0
    if v.framework == "torch":
        torch = sys.modules["torch"]
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # an int, without a Stream object
        return int(raw(v.device)) if raw is not None else int(torch.cuda.current_stream(v.device).cuda_stream)
    if v.framework == "cupy":
        import cupy

        with cupy.cuda.Device(v.device):
            return int(cupy.cuda.get_current_stream().ptr)
    return 0


def stream_of(stream: Any) -> int:
    """A stream argument as a handle: an int, or an object with __cuda_stream__ (the CUDA stream
    protocol), .cuda_stream (PyTorch) or .ptr (CuPy)."""
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        protocol = stream.__cuda_stream__
        handle = protocol() if callable(protocol) else protocol
        return int(handle[1])
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"stream: expected an int, or an object with __cuda_stream__, .cuda_stream or .ptr; "
                    f"got {type(stream).__name__}")


def empty(like: View, shape: Sequence[int], dtype: str, strides: Optional[Sequence[int]] = None) -> Any:
    """A new array of the framework and device of `like`, C-contiguous or with the given strides (in
    elements)."""
    shape = tuple(int(s) for s in shape)
    if like.framework == "torch":
        import torch

        torch_dtype = getattr(torch, dtype)
        if strides is None:
            return torch.empty(shape, dtype=torch_dtype, device=like.array.device)
        return torch.empty_strided(shape, tuple(strides), dtype=torch_dtype, device=like.array.device)
    if like.on_device:
        try:
            import cupy
        except ImportError:
            raise TypeError(f"out: swath cannot allocate a result for a {type(like.array).__name__} on the GPU; "
                            "pass out=") from None
        with cupy.cuda.Device(like.device or 0):
            if strides is None:
                return cupy.empty(shape, dtype=dtype)
            size = _span(shape, strides)
            base = cupy.empty(size, dtype=dtype)
            item = base.itemsize
            return cupy.lib.stride_tricks.as_strided(base, shape, tuple(s * item for s in strides))
    import numpy

    if strides is None:
        return numpy.empty(shape, dtype=dtype)
    base = numpy.empty(_span(shape, strides), dtype=dtype)
    item = base.itemsize
    return numpy.lib.stride_tricks.as_strided(base, shape, tuple(s * item for s in strides))


def _span(shape: Sequence[int], strides: Sequence[int]) -> int:
    if any(extent == 0 for extent in shape):
        return 0
    return 1 + sum((extent - 1) * stride for extent, stride in zip(shape, strides))
