"""swath: data-parallel kernels, step by step, measured: the library's fastest steps on PyTorch, CuPy,
NumPy and JAX arrays, without copying them.

Device arrays run on the caller's current stream (PyTorch's or CuPy's, from the array's framework) or on
``stream=``, asynchronously: a call never waits for the GPU. Host arrays run on the CPU's OpenMP threads
and are done on return. Results come back in the framework of the inputs, or in ``out=``. Bad input
raises TypeError or ValueError naming the argument, before anything is written.

    >>> import numpy, swath
    >>> a = numpy.random.rand(300, 200).astype(numpy.float32)
    >>> b = numpy.random.rand(200, 100).astype(numpy.float32)
    >>> c = swath.sgemm(a, b)                       # 300 x 100, float32

docs/python.md documents every function.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from . import _arrays
from . import _swath
from . import schedule

__version__ = _swath.version

__all__ = ["info", "sgemm", "sgemm_batched", "stencil", "histogram", "vector_add", "matrix_add", "render", "schedule"]


def info() -> dict:
    """What this build holds: version, whether it has the CUDA backend (and for which architectures),
    the GPUs it sees and the CPU."""
    return _swath.info()


# ---- helpers --------------------------------------------------------------------------------------

def _same_place(views: Sequence[_arrays.View], names: Sequence[str], checked: int = 1) -> None:
    """All on the host, or all on one GPU; and a GPU array only where this build has the CUDA backend.
    The first `checked` views were checked before (the inputs, before an output was allocated)."""
    first = views[0]
    for i in range(max(checked, 1), len(views)):
        v = views[i]
        if v.on_device != first.on_device:
            raise ValueError(f"{names[i]} is in {'device' if v.on_device else 'host'} memory and {names[0]} in "
                             f"{'device' if first.on_device else 'host'} memory: pass all on the GPU or all on the host")
        if first.device is not None and v.device is not None and first.device != v.device:
            raise ValueError(f"{names[i]} is on device {v.device} and {names[0]} on device {first.device}")
    if checked <= 1 and first.on_device and not _swath.with_cuda:
        raise ValueError(f"{names[0]} is a CUDA array, and this build of swath has no CUDA backend "
                         "(swath.info()['cuda'] is False): rebuild with nvcc on the PATH")


def _stream(first: _arrays.View, views: Sequence[_arrays.View], stream: Any) -> int:
    """The stream a call runs on, after ordering it behind the streams its arrays' data is ready on."""
    if not first.on_device:
        return 0
    handle = _arrays.current_stream(first) if stream is None else _arrays.stream_of(stream)
    for v in views:
        if v.producer_stream is not None and v.producer_stream != handle:
            _swath.stream_wait(handle, v.producer_stream)
    return handle


def _dtype(v: _arrays.View, name: str, allowed: Sequence[str]) -> None:
    if v.dtype not in allowed:
        raise TypeError(f"{name}: expected dtype {' or '.join(allowed)}, got {v.dtype}")


def _ndim(v: _arrays.View, name: str, allowed: Sequence[int]) -> None:
    if len(v.shape) not in allowed:
        raise ValueError(f"{name}: expected {' or '.join(str(n) for n in allowed)} dimensions, got {len(v.shape)}")


# ---- sgemm ----------------------------------------------------------------------------------------

def _stored(v: _arrays.View, name: str, transposed: bool) -> Tuple[bool, int, int, int]:
    """A 2D operand as the library takes it: (op is transpose, rows of op(X), cols of op(X), ld). A
    row-major view (strides (ld, 1)) is X as stored; a column-major one (strides (1, ld), e.g. a .T) is
    the transpose of a row-major matrix, so its op flips."""
    rows, cols = v.shape
    row_stride, col_stride = v.strides
    if cols <= 1 or col_stride == 1:
        if rows > 1 and row_stride < cols:
            raise ValueError(f"{name}: rows {row_stride} elements apart overlap (a row holds {cols})")
        ld = max(row_stride if rows > 1 else cols, cols, 1)
        return (transposed, cols if transposed else rows, rows if transposed else cols, ld)
    if rows <= 1 or row_stride == 1:
        if cols > 1 and col_stride < rows:
            raise ValueError(f"{name}: columns {col_stride} elements apart overlap (a column holds {rows})")
        ld = max(col_stride if cols > 1 else rows, rows, 1)
        return (not transposed, cols if transposed else rows, rows if transposed else cols, ld)
    raise ValueError(f"{name}: strides {v.strides} (elements): the kernels take row-major or column-major "
                     "2D views (one of the strides 1); make it contiguous first")


def _product_output(c: Any, first: _arrays.View, views: Sequence[_arrays.View], names: Sequence[str],
                    shape: Tuple[int, ...], beta: float) -> Tuple[Any, _arrays.View]:
    """C of a product whose operands `views` (named `names`) are read: checked to lie in one place,
    then C as given (float32, of `shape`) or a new array beside `first`."""
    _same_place(views, names)
    if c is None:
        if beta != 0:
            raise ValueError("c: beta != 0 reads C; pass c")
        c = _arrays.empty(first, shape, "float32")
    vc = _arrays.view(c, "c")
    _dtype(vc, "c", ["float32"])
    _ndim(vc, "c", [len(shape)])
    if vc.shape != shape:
        raise ValueError(f"c: expected shape {shape}, got {vc.shape}")
    return c, vc


def sgemm(a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
          trans_b: bool = False, stream: Any = None) -> Any:
    """C = alpha · op(A) · op(B) + beta · C in float32; op(X) = X, or X transposed with trans_x.

    a, b and c are 2D float32 arrays, row-major or column-major views (strided where the leading
    dimension allows: a slice, or a .T). Without c, a new M × N array is returned (beta must then be 0).
    On the GPU the call is queued on the stream and returns at once.
    """
    if stream is None or type(stream) is int:  # PyTorch CUDA tensors: read in C++ (torch_fast_path.hpp)
        done = _swath.fast_sgemm(a, b, c, float(alpha), float(beta), bool(trans_a), bool(trans_b), stream)
        if done is not None:
            return done
    va, vb = _arrays.view(a, "a"), _arrays.view(b, "b")
    for v, name in ((va, "a"), (vb, "b")):
        _dtype(v, name, ["float32"])
        _ndim(v, name, [2])
    op_a, m, k, lda = _stored(va, "a", bool(trans_a))
    op_b, k_b, n, ldb = _stored(vb, "b", bool(trans_b))
    if k != k_b:
        raise ValueError(f"b: op(a) is {m} x {k} and op(b) {k_b} x {n}: the inner dimensions differ")
    views, names = [va, vb], ["a", "b"]
    c, vc = _product_output(c, va, views, names, (m, n), beta)
    if not (vc.row_major() and (m <= 1 or vc.strides[0] >= n)):
        raise ValueError(f"c: strides {vc.strides} (elements): C must be row-major (its last stride 1)")
    ldc = max(vc.strides[0] if m > 1 else n, n, 1)
    views.append(vc)
    names.append("c")
    _same_place(views, names, checked=2)
    handle = _stream(va, views, stream)
    _swath.sgemm(op_a, op_b, m, n, k, float(alpha), va.pointer, lda, vb.pointer, ldb, float(beta), vc.pointer, ldc,
                 handle)
    return c


def _batched(v: _arrays.View, name: str, transposed: bool) -> Tuple[int, Tuple[bool, int, int, int], int]:
    """A batched operand: (its batch, or 0 for a 2D matrix every product shares; the matrix as _stored
    reads it; the elements between consecutive matrices, 0 when shared)."""
    if len(v.shape) == 2:
        return 0, _stored(v, name, transposed), 0
    matrix = _arrays.View(v.array, v.pointer, v.shape[1:], v.strides[1:], v.dtype, v.on_device, v.device,
                          v.producer_stream, v.framework)
    return v.shape[0], _stored(matrix, name, transposed), v.strides[0] if v.shape[0] > 1 else 0


def sgemm_batched(a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
                  trans_b: bool = False, stream: Any = None) -> Any:
    """C[i] = alpha · op(A[i]) · op(B[i]) + beta · C[i] for each i of a batch, in float32, as one call
    (the library's sgemm_strided_batched, cuBLAS's cublasSgemmStridedBatched).

    a and b are 3D (batch, rows, columns) float32 arrays whose matrices are row-major or column-major
    views, or 2D matrices that every product shares (a broadcast batch, stride 0, is shared too); at
    least one of them is 3D. c is a 3D (batch, M, N) array with row-major matrices that do not overlap;
    without it a new one is returned (beta must then be 0). On the GPU the call is queued on the stream
    and returns at once.
    """
    va, vb = _arrays.view(a, "a"), _arrays.view(b, "b")
    for v, name in ((va, "a"), (vb, "b")):
        _dtype(v, name, ["float32"])
        _ndim(v, name, [2, 3])
    batch_a, (op_a, m, k, lda), stride_a = _batched(va, "a", bool(trans_a))
    batch_b, (op_b, k_b, n, ldb), stride_b = _batched(vb, "b", bool(trans_b))
    if len(va.shape) == 2 and len(vb.shape) == 2:
        raise ValueError("a, b: both are 2D; sgemm_batched takes a batch (batch, rows, columns) of at least one")
    if batch_a and batch_b and batch_a != batch_b:
        raise ValueError(f"b: a batch of {batch_b} products where a holds {batch_a}")
    batch = max(batch_a, batch_b)
    if k != k_b:
        raise ValueError(f"b: op(a) is {m} x {k} and op(b) {k_b} x {n}: the inner dimensions differ")
    views, names = [va, vb], ["a", "b"]
    c, vc = _product_output(c, va, views, names, (batch, m, n), beta)
    if not (vc.row_major() and (m <= 1 or vc.strides[1] >= n)):
        raise ValueError(f"c: strides {vc.strides} (elements): C's matrices must be row-major (its last stride 1)")
    ldc = max(vc.strides[1] if m > 1 else n, n, 1)
    stride_c = vc.strides[0] if batch > 1 else 0
    views.append(vc)
    names.append("c")
    _same_place(views, names, checked=2)
    handle = _stream(va, views, stream)
    _swath.sgemm_strided_batched(op_a, op_b, m, n, k, float(alpha), va.pointer, lda, stride_a, vb.pointer, ldb, stride_b,
                                 float(beta), vc.pointer, ldc, stride_c, batch, handle)
    return c


# ---- stencil --------------------------------------------------------------------------------------

def _grid(v: _arrays.View, name: str) -> Tuple[int, int, int, int, int]:
    """(width, height, depth, row pitch, dims) of a 2D (rows, columns) or 3D (planes, rows, columns) grid."""
    dims = len(v.shape)
    if not v.row_major():
        raise ValueError(f"{name}: its last dimension must be contiguous (strides {v.strides})")
    height, width = v.shape[-2], v.shape[-1]
    pitch = v.strides[-2] if height > 1 else width
    if pitch < width:
        raise ValueError(f"{name}: rows {pitch} elements apart overlap (a row holds {width})")
    depth = v.shape[0] if dims == 3 else 1
    if dims == 3 and depth > 1:
        if v.strides[0] != pitch * height:
            raise ValueError(f"{name}: planes must be rows x pitch apart ({pitch * height} elements), got {v.strides[0]}")
    return width, height, depth, pitch, dims


def stencil(x: Any, radius: int = 1, shape: str = "star", weights: Optional[Sequence[float]] = None,
            boundary: str = "clamp", steps: int = 1, out: Any = None, edge_value: float = 0.0,
            stream: Any = None) -> Any:
    """`steps` sweeps of a star or box stencil of radius 1-4 over a 2D (rows, columns) or 3D (planes,
    rows, columns) float32 or float64 grid; rows may be pitched (a slice), columns contiguous.

    weights: one per tap in the order z, then y, then x, each from -r to r (None: the default weights).
    boundary: clamp, copy, constant (edge_value outside) or periodic. out: an array of x's shape, dtype
    and strides (None: a new one). steps > 1 ping-pongs between out and a scratch grid.
    """
    if (steps == 1 and type(radius) is int and type(shape) is str and type(boundary) is str
            and (stream is None or type(stream) is int)):
        done = _swath.fast_stencil(x, radius, shape, weights, boundary, 1, out, float(edge_value), stream)
        if done is not None:
            return done
    vx = _arrays.view(x, "x")
    _dtype(vx, "x", ["float32", "float64"])
    _ndim(vx, "x", [2, 3])
    width, height, depth, pitch, dims = _grid(vx, "x")
    if not (isinstance(steps, int) and steps >= 0):
        raise ValueError(f"steps: expected a whole number >= 0, got {steps!r}")
    if not 1 <= int(radius) <= 4:
        raise ValueError(f"radius: expected 1-4, got {radius}")
    if shape not in ("star", "box"):
        raise ValueError(f"shape: expected 'star' or 'box', got {shape!r}")
    if boundary not in ("clamp", "copy", "constant", "periodic"):
        raise ValueError(f"boundary: expected 'clamp', 'copy', 'constant' or 'periodic', got {boundary!r}")
    _same_place([vx], ["x"])
    if out is None:
        out = _arrays.empty(vx, vx.shape, vx.dtype, vx.strides)
    vo = _arrays.view(out, "out")
    if vo.dtype != vx.dtype:
        raise TypeError(f"out: expected dtype {vx.dtype}, got {vo.dtype}")
    if vo.shape != vx.shape:
        raise ValueError(f"out: expected shape {vx.shape}, got {vo.shape}")
    if _grid(vo, "out") != (width, height, depth, pitch, dims):
        raise ValueError(f"out: expected the same strides as x {vx.strides}, got {vo.strides}")
    views = [vx, vo]
    scratch = None
    if steps > 1:
        scratch = _arrays.empty(vx, vx.shape, vx.dtype, vx.strides)
        views.append(_arrays.view(scratch, "scratch"))
    _same_place(views, ["x", "out", "scratch"][:len(views)], checked=1)
    handle = _stream(vx, views, stream)
    f64 = vx.dtype == "float64"
    taps = [float(w) for w in weights] if weights is not None else []
    args = (width, height, depth, pitch, dims, int(radius), shape, boundary, float(edge_value), taps)
    if steps == 0:
        out[...] = x
        return out
    if steps == 1:
        _swath.stencil(vx.pointer, vo.pointer, f64, *args, handle)
        return out
    # Sweep 1 from x into whichever of out and scratch makes the last of the other steps - 1 land in out
    # (x is never written).
    vs = views[2]
    first, second = (vo, vs) if (steps - 1) % 2 == 0 else (vs, vo)
    _swath.stencil(vx.pointer, first.pointer, f64, *args, handle)
    result = _swath.stencil_iterate(first.pointer, second.pointer, f64, *args, steps - 1, handle)
    if result != vo.pointer:
        raise RuntimeError("swath: the sweeps did not end in out (a bug: please report it)")
    return out


# ---- histogram ------------------------------------------------------------------------------------

def histogram(x: Any, bins: int = 256, range: Optional[Tuple[float, float]] = None, stream: Any = None) -> Tuple[Any, Any]:
    """Counts of x's samples in `bins` equal bins over [lo, hi), as int64, and the count outside.

    uint8 samples: 256 bins of the byte values (range None or (0, 256)). int32 and float32 samples:
    `bins` bins over `range` = (lo, hi), which is needed; samples outside it and NaN go to the outside
    count. Returns (counts, outside): counts an array of `bins` int64, outside a 0-d int64 array (an
    element of the same buffer, so that reading it waits for nothing until you ask).
    """
    if bins == 256 and range is None and (stream is None or type(stream) is int):
        done = _swath.fast_histogram_bytes(x, stream)
        if done is not None:
            return done
    vx = _arrays.view(x, "x")
    _dtype(vx, "x", ["uint8", "int32", "float32"])
    if not vx.contiguous():
        raise ValueError(f"x: the samples must be contiguous (strides {vx.strides})")
    n = 1
    for extent in vx.shape:
        n *= extent
    bins = int(bins)
    if vx.dtype == "uint8":
        if bins != 256:
            raise ValueError(f"bins: uint8 samples take 256 bins, got {bins}")
        if not (range is None or tuple(range) == (0, 256)):
            raise ValueError(f"range: uint8 samples count over (0, 256), got {range}")
    else:
        if range is None:
            raise ValueError(f"range: {vx.dtype} samples need range=(lo, hi)")
        if bins < 1:
            raise ValueError(f"bins: expected >= 1, got {bins}")
        lo, hi = (float(r) for r in range)
        if not lo < hi:
            raise ValueError(f"range: expected lo < hi, got ({lo}, {hi})")
    _same_place([vx], ["x"])
    counts = _arrays.empty(vx, (bins + 1,), "int64")
    vc = _arrays.view(counts, "counts")
    _same_place([vx, vc], ["x", "counts"], checked=1)
    handle = _stream(vx, [vx, vc], stream)
    # The library writes uint64 counts; below 2^63 they are the same bits as int64.
    if vx.dtype == "uint8":
        _swath.histogram_bytes(vx.pointer, n, vc.pointer, handle)
    else:
        _swath.histogram_binned(vx.pointer, vx.dtype == "float32", n, bins, lo, hi, vc.pointer, handle)
    return counts[:bins], counts[bins]


# ---- elementwise ----------------------------------------------------------------------------------

def _addends(a: Any, b: Any, ndim: int) -> Tuple[_arrays.View, _arrays.View]:
    """a and b of an add: float32, of one shape, contiguous vectors (ndim 1) or row-major rows (2), in
    one place."""
    va, vb = _arrays.view(a, "a"), _arrays.view(b, "b")
    for v, name in ((va, "a"), (vb, "b")):
        _dtype(v, name, ["float32"])
        _ndim(v, name, [ndim])
        if not (v.contiguous() if ndim == 1 else v.row_major()):
            raise ValueError(f"{name}: expected {'a contiguous vector' if ndim == 1 else 'row-major rows'} "
                             f"(strides {v.strides})")
    if va.shape != vb.shape:
        raise ValueError(f"b: expected shape {va.shape}, got {vb.shape}")
    _same_place([va, vb], ["a", "b"])
    return va, vb


def vector_add(a: Any, b: Any, out: Any = None, stream: Any = None) -> Any:
    """out = a + b over 1D float32 arrays of one length (contiguous)."""
    if stream is None or type(stream) is int:
        done = _swath.fast_vector_add(a, b, out, stream)
        if done is not None:
            return done
    va, vb = _addends(a, b, 1)
    if out is None:
        out = _arrays.empty(va, va.shape, "float32")
    vo = _arrays.view(out, "out")
    _dtype(vo, "out", ["float32"])
    if not (vo.shape == va.shape and vo.contiguous()):
        raise ValueError(f"out: expected a contiguous vector of shape {va.shape}, got {vo.shape} with strides {vo.strides}")
    _same_place([va, vb, vo], ["a", "b", "out"], checked=2)
    handle = _stream(va, [va, vb, vo], stream)
    _swath.vector_add(va.pointer, vb.pointer, vo.pointer, va.shape[0], handle)
    return out


def matrix_add(a: Any, b: Any, out: Any = None, stream: Any = None) -> Any:
    """out = a + b over 2D float32 arrays of one shape, row-major, their rows equally far apart."""
    va, vb = _addends(a, b, 2)
    rows, cols = va.shape
    ld = max(va.strides[0] if rows > 1 else cols, cols, 1)
    if out is None:
        out = _arrays.empty(va, va.shape, "float32", (ld, 1))
    vo = _arrays.view(out, "out")
    _dtype(vo, "out", ["float32"])
    if vo.shape != va.shape:
        raise ValueError(f"out: expected shape {va.shape}, got {vo.shape}")
    for v, name in ((vb, "b"), (vo, "out")):
        other = max(v.strides[0] if rows > 1 else cols, cols, 1)
        if not (v.row_major() and other == ld):
            raise ValueError(f"{name}: rows {other} elements apart, and a's {ld}: the three share one leading dimension")
    _same_place([va, vb, vo], ["a", "b", "out"], checked=2)
    handle = _stream(va, [va, vb, vo], stream)
    _swath.matrix_add(va.pointer, vb.pointer, vo.pointer, rows, cols, ld, handle)
    return out


# ---- render ---------------------------------------------------------------------------------------

def render(scene: Any, width: Optional[int] = None, height: Optional[int] = None, spp: Optional[int] = None,
           device: str = "cuda", stream: Any = None) -> Any:
    """Ray-traces a scene of spheres (a name from scenes/, e.g. "spheres", or a scene JSON path) and
    returns its H x W x 3 linear RGB image, float32: a view of the H x W x 4 RGBA frame the library
    writes. width, height, spp (samples per pixel): the scene file's unless given. device: "cuda" (a
    PyTorch tensor, or a CuPy array without PyTorch, on the current device and stream) or "cpu" (NumPy,
    done on return)."""
    if device not in ("cuda", "cpu"):
        raise ValueError(f"device: expected 'cuda' or 'cpu', got {device!r}")
    loaded = scene if isinstance(scene, _swath.Scene) else _swath.load_scene(str(scene))
    width = loaded.width if width is None else int(width)
    height = loaded.height if height is None else int(height)
    samples = loaded.samples if spp is None else int(spp)
    if width < 1 or height < 1 or samples < 1:
        raise ValueError(f"width, height, spp: expected >= 1, got {width}, {height}, {samples}")
    if device == "cpu":
        import numpy

        frame = numpy.empty((height, width, 4), dtype=numpy.float32)
        _swath.render(loaded, width, height, samples, frame.ctypes.data, 0)
        return frame[:, :, :3]
    if not _swath.with_cuda:
        raise ValueError("device: 'cuda', and this build of swath has no CUDA backend (swath.info()['cuda'] is False)")
    try:
        import torch

        frame = torch.empty((height, width, 4), dtype=torch.float32, device="cuda")
    except ImportError:
        try:
            import cupy
        except ImportError:
            raise ValueError("device: 'cuda' needs PyTorch or CuPy to hold the image") from None
        frame = cupy.empty((height, width, 4), dtype=cupy.float32)
    v = _arrays.view(frame, "image")
    handle = _stream(v, [v], stream)
    _swath.render(loaded, width, height, samples, v.pointer, handle)
    return frame[:, :, :3]
