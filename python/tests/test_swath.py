"""The Python package against float64 NumPy references: every function at ragged sizes, every bad input,
and (where a GPU and PyTorch or CuPy are present) zero-copy, the result's framework and stream order.

Inputs are random; the seed of each test is printed and SWATH_TEST_SEED=<seed> replays it.
"""

import math
import os
import zlib

import numpy as np
import pytest

import swath


# ---- fixtures -------------------------------------------------------------------------------------

@pytest.fixture
def rng(request):
    base = int(os.environ.get("SWATH_TEST_SEED", np.random.SeedSequence().entropy % (1 << 32)))
    seed = (base + zlib.crc32(request.node.name.encode())) % (1 << 32)
    print(f"SWATH_TEST_SEED={base} ({request.node.name}: seed {seed})")
    return np.random.default_rng(seed)


def relative_error(got, want):
    got = np.asarray(got, dtype=np.float64)
    assert np.all(np.isfinite(got)), "a result is not finite (unwritten, or NaN)"
    scale = np.maximum(np.abs(want), 1e-30)
    return float(np.max(np.abs(got - want) / scale)) if got.size else 0.0


def has_cuda_torch():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available() and swath.info()["cuda"]


def has_cuda_cupy():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0 and swath.info()["cuda"]
    except Exception:  # no CuPy, or no driver
        return False


needs_torch_gpu = pytest.mark.skipif(not has_cuda_torch(), reason="no GPU with PyTorch and a CUDA build of swath")
needs_cupy_gpu = pytest.mark.skipif(not has_cuda_cupy(), reason="no GPU with CuPy and a CUDA build of swath")


# ---- info -----------------------------------------------------------------------------------------

def test_info_says_what_the_build_holds():
    info = swath.info()
    assert info["version"].count(".") == 2 and info["version"] == swath.__version__
    assert isinstance(info["cuda"], bool)
    assert info["cpu"]["logical_cores"] >= 1
    if not info["cuda"]:
        assert info["gpus"] == []


# ---- sgemm ----------------------------------------------------------------------------------------

def positive(rng, shape, dtype=np.float32):
    """Inputs in [0.5, 2): no cancellation, so the relative error bound (K + 2) 2^-24 holds."""
    return rng.uniform(0.5, 2.0, size=shape).astype(dtype)


def stored(rng, rows, cols, layout):
    """A rows x cols float32 matrix as a row-major array, a slice of a wider one (ld > cols), or a
    column-major view (.T of a row-major one)."""
    if layout == "packed":
        return positive(rng, (rows, cols))
    if layout == "padded":
        return positive(rng, (rows, cols + 7))[:, :cols]
    return positive(rng, (cols, rows)).T


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 1, 5), (1, 7, 3), (33, 17, 65), (257, 129, 131), (61, 3, 1000)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_sgemm_matches_the_float64_reference(rng, m, n, k, trans_a, trans_b):
    for layout in ("packed", "padded", "column"):
        a = stored(rng, k if trans_a else m, m if trans_a else k, layout)
        b = stored(rng, n if trans_b else k, k if trans_b else n, layout)
        op_a = a.T.astype(np.float64) if trans_a else a.astype(np.float64)
        op_b = b.T.astype(np.float64) if trans_b else b.astype(np.float64)
        tolerance = 2 * (k + 2) * 2.0 ** -24
        c = swath.sgemm(a, b, trans_a=trans_a, trans_b=trans_b)
        assert isinstance(c, np.ndarray) and c.shape == (m, n) and c.dtype == np.float32
        assert relative_error(c, op_a @ op_b) <= tolerance, layout
        # alpha, beta, and C a slice with rows 3 elements longer; the padding stays untouched.
        wide = np.full((m, n + 3), np.nan, dtype=np.float32)
        c_in = positive(rng, (m, n))
        wide[:, :n] = c_in
        out = swath.sgemm(a, b, wide[:, :n], alpha=0.5, beta=1.5, trans_a=trans_a, trans_b=trans_b)
        assert out is not None and np.shares_memory(out, wide)
        assert relative_error(wide[:, :n], 0.5 * (op_a @ op_b) + 1.5 * c_in.astype(np.float64)) <= tolerance
        assert np.all(np.isnan(wide[:, n:])), "a write past C's rows"


def test_sgemm_writes_every_element_of_c(rng):
    a, b = positive(rng, (45, 31)), positive(rng, (31, 77))
    c = np.full((45, 77), np.nan, dtype=np.float32)
    swath.sgemm(a, b, c)
    assert np.all(np.isfinite(c))


def test_sgemm_refuses_bad_input_and_writes_nothing(rng):
    a, b = positive(rng, (4, 3)), positive(rng, (3, 5))
    c = np.full((4, 5), 7.0, dtype=np.float32)
    bad = [
        (TypeError, dict(a=a.astype(np.float64), b=b)),
        (TypeError, dict(a=[[1.0]], b=b)),
        (ValueError, dict(a=a[None], b=b)),
        (ValueError, dict(a=a, b=positive(rng, (4, 5)))),
        (ValueError, dict(a=a, b=b, c=np.zeros((5, 4), np.float32))),
        (ValueError, dict(a=a, b=b, c=np.zeros((5, 4), np.float32).T)),  # column-major C
        (ValueError, dict(a=positive(rng, (8, 6))[::2, ::2], b=b)),      # neither stride 1
        (ValueError, dict(a=a, b=b, beta=1.0)),                          # beta without C
    ]
    for error, arguments in bad:
        arguments.setdefault("c", None)
        before = c.copy()
        with pytest.raises(error):
            swath.sgemm(**arguments)
        np.testing.assert_array_equal(c, before)
    with pytest.raises(TypeError, match="c: expected dtype float32"):
        swath.sgemm(a, b, np.zeros((4, 5), np.float64))


def batch_of(rng, batch, rows, cols, layout):
    """A batch of rows x cols float32 matrices: packed, padded rows, column-major matrices, or products
    with a gap between them (the batch's stride longer than a matrix)."""
    if layout == "packed":
        return positive(rng, (batch, rows, cols))
    if layout == "padded":
        return positive(rng, (batch, rows, cols + 5))[:, :, :cols]
    if layout == "column":
        return positive(rng, (batch, cols, rows)).transpose(0, 2, 1)
    return positive(rng, (2 * batch, rows, cols))[::2]  # a matrix's room left empty between products


@pytest.mark.parametrize("batch,m,n,k", [(1, 1, 1, 1), (3, 5, 7, 9), (4, 33, 17, 65), (2, 1, 130, 300), (5, 17, 1, 3)])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, True), (False, True)])
def test_sgemm_batched_matches_each_products_reference(rng, batch, m, n, k, trans_a, trans_b):
    tolerance = 2 * (k + 2) * 2.0 ** -24
    for layout in ("packed", "padded", "column", "gapped"):
        a = batch_of(rng, batch, k if trans_a else m, m if trans_a else k, layout)
        b = batch_of(rng, batch, n if trans_b else k, k if trans_b else n, layout)
        op_a = np.swapaxes(a, 1, 2).astype(np.float64) if trans_a else a.astype(np.float64)
        op_b = np.swapaxes(b, 1, 2).astype(np.float64) if trans_b else b.astype(np.float64)
        c = swath.sgemm_batched(a, b, trans_a=trans_a, trans_b=trans_b)
        assert isinstance(c, np.ndarray) and c.shape == (batch, m, n) and c.dtype == np.float32
        assert relative_error(c, op_a @ op_b) <= tolerance, layout
        # alpha, beta, and C's products with gaps between them that stay untouched.
        spaced = np.full((batch, m + 2, n), np.nan, dtype=np.float32)
        c_in = positive(rng, (batch, m, n))
        spaced[:, :m] = c_in
        out = swath.sgemm_batched(a, b, spaced[:, :m], alpha=0.5, beta=1.5, trans_a=trans_a, trans_b=trans_b)
        assert np.shares_memory(out, spaced)
        assert relative_error(spaced[:, :m], 0.5 * (op_a @ op_b) + 1.5 * c_in.astype(np.float64)) <= tolerance, layout
        assert np.all(np.isnan(spaced[:, m:])), "a write between C's products"


def test_sgemm_batched_shares_a_2d_or_broadcast_operand(rng):
    a, b = positive(rng, (6, 40, 30)), positive(rng, (30, 20))
    want = a.astype(np.float64) @ b.astype(np.float64)
    for shared in (b, np.broadcast_to(b, (6, 30, 20))):  # a matrix, and a batch of stride 0
        c = np.full((6, 40, 20), np.nan, dtype=np.float32)
        swath.sgemm_batched(a, shared, c)
        assert relative_error(c, want) <= 2 * 32 * 2.0 ** -24
    weights = positive(rng, (40, 30))
    c = swath.sgemm_batched(weights, positive(rng, (6, 30, 20)))
    assert c.shape == (6, 40, 20)
    assert swath.sgemm_batched(positive(rng, (0, 4, 3)), positive(rng, (0, 3, 5))).shape == (0, 4, 5)


def test_sgemm_batched_refuses_bad_input_and_writes_nothing(rng):
    a, b = positive(rng, (3, 4, 2)), positive(rng, (3, 2, 5))
    c = np.full((3, 4, 5), 7.0, dtype=np.float32)
    overlapping = np.lib.stride_tricks.as_strided(np.zeros(40, np.float32), (3, 4, 5), (4 * 4, 5 * 4, 4))
    bad = [
        (TypeError, dict(a=a.astype(np.float64), b=b)),
        (ValueError, dict(a=a[0], b=b[0])),                              # no batch
        (ValueError, dict(a=a, b=positive(rng, (2, 2, 5)))),             # batches differ
        (ValueError, dict(a=a, b=positive(rng, (3, 3, 5)))),             # inner dimensions differ
        (ValueError, dict(a=a, b=b, c=np.zeros((3, 5, 4), np.float32))),
        (ValueError, dict(a=a, b=b, c=np.zeros((4, 5), np.float32))),    # C 2D
        (ValueError, dict(a=a, b=b, c=np.zeros((3, 5, 4), np.float32).transpose(0, 2, 1))),  # column-major C
        (ValueError, dict(a=a, b=b, c=overlapping)),                     # C's products overlap
        (ValueError, dict(a=a[::-1], b=b)),                              # a negative batch stride
        (ValueError, dict(a=a, b=b, beta=1.0)),                          # beta without C
    ]
    for error, arguments in bad:
        arguments.setdefault("c", None)
        before = c.copy()
        with pytest.raises(error):
            swath.sgemm_batched(**arguments)
        np.testing.assert_array_equal(c, before)


class FakeCudaArray:
    """An object that says its data is on a GPU (as PyTorch and CuPy arrays do)."""

    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (1 << 40, False),
                                         "version": 3, "strides": None}


@pytest.mark.skipif(swath.info()["cuda"], reason="this build has the CUDA backend")
def test_a_cuda_array_to_a_cpu_build_is_a_value_error(rng):
    with pytest.raises(ValueError, match="no CUDA backend"):
        swath.sgemm(FakeCudaArray((4, 3)), FakeCudaArray((3, 5)))


def test_host_and_device_arrays_together_are_a_value_error(rng):
    with pytest.raises(ValueError, match="device memory"):
        swath.sgemm(positive(rng, (4, 3)), FakeCudaArray((3, 5)))


# ---- stencil --------------------------------------------------------------------------------------

def offsets(shape, radius, dims):
    """The taps' offsets in the library's order (z, then y, then x, each from -r to r)."""
    z_radius = radius if dims == 3 else 0
    found = []
    for dz in range(-z_radius, z_radius + 1):
        for dy in range(-radius, radius + 1):
            for dx in range(-radius, radius + 1):
                if shape == "star" and (dx != 0) + (dy != 0) + (dz != 0) > 1:
                    continue
                found.append((dz, dy, dx))
    return found


def reference_sweep(x, radius, shape, weights, boundary, edge_value):
    """One sweep in float64 with NumPy's padding: clamp = edge, periodic = wrap, constant; copy keeps the
    points within r of a face."""
    grid = x.astype(np.float64)
    dims = grid.ndim
    mode = {"clamp": "edge", "copy": "edge", "periodic": "wrap", "constant": "constant"}[boundary]
    pad = [(radius, radius)] * dims
    padded = np.pad(grid, pad, mode=mode, constant_values=edge_value) if mode == "constant" else np.pad(grid, pad, mode=mode)
    out = np.zeros_like(grid)
    for (dz, dy, dx), w in zip(offsets(shape, radius, dims), weights):
        if dims == 2:
            out += w * padded[radius + dy:radius + dy + grid.shape[0], radius + dx:radius + dx + grid.shape[1]]
        else:
            out += w * padded[radius + dz:radius + dz + grid.shape[0], radius + dy:radius + dy + grid.shape[1],
                              radius + dx:radius + dx + grid.shape[2]]
    if boundary == "copy":
        inner = tuple(slice(radius, max(radius, extent - radius)) for extent in grid.shape)
        kept = grid.copy()
        kept[inner] = out[inner]
        out = kept
    return out


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stencil_matches_the_float64_reference(rng, dims, dtype):
    sizes = [(9, 13), (37, 29), (1, 1)] if dims == 2 else [(5, 9, 13), (11, 7, 6)]
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    for size in sizes:
        for radius in (1, 2, 4):
            for shape in ("star", "box"):
                for boundary in ("clamp", "copy", "constant", "periodic"):
                    if boundary == "periodic" and min(size) < radius:
                        continue
                    x = positive(rng, size, dtype)
                    weights = rng.uniform(0.5, 2.0, len(offsets(shape, radius, dims))) / len(offsets(shape, radius, dims))
                    y = swath.stencil(x, radius=radius, shape=shape, weights=weights, boundary=boundary, edge_value=0.75)
                    want = reference_sweep(x, radius, shape, weights, boundary, 0.75)
                    assert y.dtype == dtype and y.shape == x.shape
                    assert relative_error(y, want) <= tolerance, (size, radius, shape, boundary)


def test_stencil_steps(rng):
    x = positive(rng, (40, 64))
    weights = rng.uniform(0.5, 2.0, 5) / 5
    original = x.copy()
    for steps in (0, 1, 2, 3, 4):
        out = np.full_like(x, np.nan)
        got = swath.stencil(x, weights=weights, steps=steps, out=out)
        assert got is out
        want = x.astype(np.float64)
        for _ in range(steps):
            want = reference_sweep(want, 1, "star", weights, "clamp", 0.0)
        assert relative_error(out, want) <= 1e-5 * max(steps, 1), steps
    np.testing.assert_array_equal(x, original)  # the input is never written


def test_stencil_on_the_host_needs_rows_back_to_back(rng):
    wide = positive(rng, (40, 69))
    out = np.full((40, 69), 3.0, np.float32)
    with pytest.raises(ValueError, match="back to back"):
        swath.stencil(wide[:, :64], out=out[:, :64])
    assert np.all(out == 3.0)


def test_stencil_refuses_bad_input_and_writes_nothing(rng):
    x = positive(rng, (8, 9))
    out = np.full((8, 9), 3.0, np.float32)
    for error, arguments in [
        (TypeError, dict(x=x.astype(np.int32))),
        (ValueError, dict(x=x[0])),
        (ValueError, dict(x=x, radius=5)),
        (ValueError, dict(x=x, shape="circle")),
        (ValueError, dict(x=x, boundary="mirror")),
        (ValueError, dict(x=x, steps=-1)),
        (ValueError, dict(x=x, weights=[1.0, 2.0])),             # a star of radius 1 has 5 taps
        (ValueError, dict(x=x[:, ::2])),                         # columns not contiguous
        (TypeError, dict(x=x, out=np.zeros((8, 9), np.float64))),
        (ValueError, dict(x=x, out=np.zeros((9, 8), np.float32))),
    ]:
        arguments.setdefault("out", out)
        before = out.copy()
        with pytest.raises(error):
            swath.stencil(**arguments)
        np.testing.assert_array_equal(out, before)


# ---- histogram ------------------------------------------------------------------------------------

def test_histogram_counts_bytes(rng):
    for n in (0, 1, 1000, 65537):
        x = rng.integers(0, 256, n, dtype=np.uint8)
        counts, outside = swath.histogram(x)
        assert counts.dtype == np.int64 and counts.shape == (256,)
        np.testing.assert_array_equal(counts, np.bincount(x, minlength=256))
        assert int(outside) == 0
    counts, _ = swath.histogram(rng.integers(0, 256, (30, 41), dtype=np.uint8))  # any shape, contiguous
    assert counts.sum() == 30 * 41


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_histogram_counts_bins_over_a_range(rng, dtype):
    for bins, lo, hi in ((7, -3.0, 11.5), (1, 0.0, 1.0), (1000, -50.0, 50.0)):
        x = rng.uniform(lo - 5, hi + 5, 5001).astype(dtype)
        if dtype == np.float32:
            x[::97] = np.nan
        counts, outside = swath.histogram(x, bins=bins, range=(lo, hi))
        values = x.astype(np.float64)
        inside = (values >= lo) & (values < hi)
        index = np.minimum(((values[inside] - lo) * (bins / (hi - lo))).astype(np.int64), bins - 1)
        np.testing.assert_array_equal(counts, np.bincount(index, minlength=bins))
        assert int(outside) == x.size - int(inside.sum())


def test_histogram_refuses_bad_input(rng):
    x = rng.integers(0, 256, 100, dtype=np.uint8)
    for error, arguments in [
        (TypeError, dict(x=x.astype(np.int16))),
        (ValueError, dict(x=x, bins=10)),
        (ValueError, dict(x=x.astype(np.float32))),                       # no range
        (ValueError, dict(x=x.astype(np.float32), bins=0, range=(0, 1))),
        (ValueError, dict(x=x.astype(np.float32), range=(1, 0))),
        (ValueError, dict(x=x.reshape(10, 10)[:, ::2])),                  # not contiguous
    ]:
        with pytest.raises(error):
            swath.histogram(**arguments)


# ---- elementwise ----------------------------------------------------------------------------------

def test_vector_and_matrix_add(rng):
    for n in (0, 1, 4099):
        a, b = positive(rng, n), positive(rng, n)
        np.testing.assert_array_equal(swath.vector_add(a, b), a + b)
    wide_a, wide_b = positive(rng, (33, 50)), positive(rng, (33, 50))
    out = np.full((33, 50), np.nan, np.float32)
    swath.matrix_add(wide_a[:, :41], wide_b[:, :41], out[:, :41])
    np.testing.assert_array_equal(out[:, :41], wide_a[:, :41] + wide_b[:, :41])
    assert np.all(np.isnan(out[:, 41:]))
    got = swath.matrix_add(wide_a[:, :41], wide_b[:, :41])
    np.testing.assert_array_equal(got, wide_a[:, :41] + wide_b[:, :41])
    with pytest.raises(ValueError):
        swath.vector_add(positive(rng, 5), positive(rng, 6))
    with pytest.raises(ValueError):
        swath.matrix_add(wide_a[:, :41], positive(rng, (33, 41)))   # rows 50 and 41 apart
    with pytest.raises(TypeError):
        swath.vector_add(positive(rng, 5).astype(np.float64), positive(rng, 5))


def test_torch_cpu_tensors_give_torch_tensors(rng):
    torch = pytest.importorskip("torch")
    a, b = torch.from_numpy(positive(rng, (33, 17))), torch.from_numpy(positive(rng, (17, 9)))
    c = swath.sgemm(a, b)
    assert isinstance(c, torch.Tensor) and not c.is_cuda
    assert relative_error(c.numpy(), a.double().numpy() @ b.double().numpy()) <= 2 * 19 * 2.0 ** -24
    counts, outside = swath.histogram(torch.from_numpy(rng.integers(0, 256, 999, dtype=np.uint8)))
    assert isinstance(counts, torch.Tensor) and int(counts.sum()) == 999 and int(outside) == 0


# ---- schedule and render -------------------------------------------------------------------------

@pytest.mark.parametrize("width,height", [(1, 1), (7, 5), (37, 29), (130, 7)])
def test_every_traversal_visits_every_point_once(width, height):
    np.testing.assert_array_equal(swath.schedule.order("row_major", width, height), np.arange(width * height))
    for kind, arguments in [("tiled", dict(tile=3)), ("tiled", dict(tile=(5, 2))), ("column", dict(column_width=4)),
                            ("zigzag", dict(column_width=3)), ("column", dict(column_width=1000))]:
        order = swath.schedule.order(kind, width, height, **arguments)
        np.testing.assert_array_equal(np.sort(order), np.arange(width * height), err_msg=f"{kind} {arguments}")
    column = swath.schedule.order("column", width, height, column_width=4)
    bands = (column % width) // 4
    assert np.all(np.diff(bands) >= 0), "a column traversal finishes each band before the next"


def test_schedule_refuses_bad_input():
    with pytest.raises(ValueError):
        swath.schedule.order("diagonal", 4, 4)
    with pytest.raises(ValueError):
        swath.schedule.order("column", 4, 4, column_width=0)
    with pytest.raises(ValueError):
        swath.schedule.cache_size("lots")


def test_schedule_explain_gives_the_models_widths_and_fetches():
    answer = swath.schedule.explain(4096, 4096, radius=2, cache="256K", threads=2)
    assert {"widths", "fetches", "problem"} <= set(answer)
    size, _ = swath.schedule.cache_size("256K")
    assert size == 256 * 1024


def test_render_on_the_cpu():
    image = swath.render("spheres", width=48, height=27, spp=1, device="cpu")
    assert image.shape == (27, 48, 3) and image.dtype == np.float32
    assert np.all(np.isfinite(image)) and np.all(image >= 0) and image.max() > 0
    np.testing.assert_array_equal(image, swath.render("spheres", width=48, height=27, spp=1, device="cpu"))
    with pytest.raises(ValueError):
        swath.render("spheres", width=0, device="cpu")
    with pytest.raises(ValueError):
        swath.render("no-such-scene", device="cpu")


# ---- the GPU: PyTorch and CuPy --------------------------------------------------------------------

@needs_torch_gpu
def test_torch_tensors_zero_copy_on_the_current_stream(rng):
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.from_numpy(positive(rng, (257, 131))).cuda()
    b = torch.from_numpy(positive(rng, (131, 129))).cuda()
    c = torch.full((257, 129), float("nan"), device="cuda")
    pointer = c.data_ptr()
    got = swath.sgemm(a, b, c)
    assert got is c and c.data_ptr() == pointer
    want = a.double().cpu().numpy() @ b.double().cpu().numpy()
    assert relative_error(c.cpu().numpy(), want) <= 2 * (131 + 2) * 2.0 ** -24
    new = swath.sgemm(a, b.T.contiguous().T)  # a column-major view of B
    assert isinstance(new, torch.Tensor) and new.is_cuda and new.shape == (257, 129)
    assert relative_error(new.cpu().numpy(), want) <= 2 * (131 + 2) * 2.0 ** -24
    x = torch.from_numpy(positive(rng, (20, 30, 40))).cuda()
    y = swath.stencil(x, radius=2, boundary="periodic")
    assert isinstance(y, torch.Tensor) and y.device == x.device
    weights = np.ones(13) / 13  # not the default weights: the reference needs them
    y = swath.stencil(x, radius=2, weights=weights)
    assert relative_error(y.cpu().numpy(), reference_sweep(x.cpu().numpy(), 2, "star", weights, "clamp", 0.0)) <= 1e-5
    pitched = torch.from_numpy(positive(rng, (20, 30, 44))).cuda()[:, :, :40]  # rows 44 apart
    for steps in (1, 2, 3):
        y = swath.stencil(pitched, weights=np.ones(7) / 7, steps=steps)
        assert y.stride() == pitched.stride()
        want = pitched.cpu().numpy().astype(np.float64)
        for _ in range(steps):
            want = reference_sweep(want, 1, "star", np.ones(7) / 7, "clamp", 0.0)
        assert relative_error(y.cpu().numpy(), want) <= 1e-5 * steps
    batch_a = torch.from_numpy(positive(rng, (5, 67, 33))).cuda()
    batch_b = torch.from_numpy(positive(rng, (5, 33, 45))).cuda()
    batched = swath.sgemm_batched(batch_a, batch_b)
    assert isinstance(batched, torch.Tensor) and batched.is_cuda and batched.shape == (5, 67, 45)
    want = batch_a.double().cpu().numpy() @ batch_b.double().cpu().numpy()
    assert relative_error(batched.cpu().numpy(), want) <= 2 * (33 + 2) * 2.0 ** -24
    bytes_ = torch.randint(0, 256, (100003,), dtype=torch.uint8, device="cuda")
    counts, outside = swath.histogram(bytes_)
    assert counts.is_cuda and counts.dtype == torch.int64
    np.testing.assert_array_equal(counts.cpu().numpy(), np.bincount(bytes_.cpu().numpy(), minlength=256))
    assert int(outside) == 0


@needs_torch_gpu
def test_torch_side_stream_orders_the_call_after_the_producer(rng):
    import torch

    side = torch.cuda.Stream()
    source = torch.from_numpy(positive(rng, (2048, 2048))).cuda()
    b = torch.from_numpy(positive(rng, (2048, 64))).cuda()
    a = torch.zeros(2048, 2048, device="cuda")
    torch.cuda.synchronize()
    for explicit in (False, True):
        a.zero_()
        torch.cuda.synchronize()
        with torch.cuda.stream(side):
            for _ in range(20):          # keep the side stream busy, then write a on it
                torch.mm(source, source)
            a.copy_(source)
            c = swath.sgemm(a, b, stream=side if explicit else None)  # the current stream is `side`
        side.synchronize()
        want = source.double().cpu().numpy() @ b.double().cpu().numpy()
        assert relative_error(c.cpu().numpy(), want) <= 2 * (2048 + 2) * 2.0 ** -24, explicit


@needs_torch_gpu
def test_torch_fast_path_agrees_with_the_python_layer_and_hands_back_bad_input(rng):
    """PyTorch CUDA tensors are read in C++ (stream None or an int); a stream object takes the Python
    layer's path. Both give the same bits, and bad input still raises the Python layer's errors."""
    import torch

    side = torch.cuda.current_stream()  # an object: the Python layer's path, on the same stream
    a = torch.from_numpy(positive(rng, (300, 200))).cuda()
    b = torch.from_numpy(positive(rng, (200, 150))).cuda()
    for trans_b, operand in ((False, b), (True, b.T.contiguous()), (False, b.T.contiguous().T)):
        fast = swath.sgemm(a, operand, trans_b=trans_b)
        slow = swath.sgemm(a, operand, trans_b=trans_b, stream=side)
        assert torch.equal(fast, slow)
    x = torch.from_numpy(positive(rng, (30, 40, 50))).cuda()
    assert torch.equal(swath.stencil(x, radius=2, weights=[0.1] * 13), swath.stencil(x, radius=2, weights=[0.1] * 13, stream=side))
    v = torch.from_numpy(positive(rng, 1001)).cuda()
    out = torch.empty_like(v)
    assert swath.vector_add(v, v, out) is out and torch.equal(out, v + v)
    data = torch.randint(0, 256, (5000,), dtype=torch.uint8, device="cuda")
    fast_counts, fast_outside = swath.histogram(data)
    slow_counts, slow_outside = swath.histogram(data, stream=side)
    assert torch.equal(fast_counts, slow_counts) and int(fast_outside) == int(slow_outside) == 0
    with pytest.raises(TypeError, match="float32"):
        swath.sgemm(a.double(), b)
    with pytest.raises(ValueError, match="inner dimensions"):
        swath.sgemm(a, a)
    c = torch.full((300, 149), 7.0, device="cuda")
    with pytest.raises(ValueError, match="shape"):
        swath.sgemm(a, b, c)
    assert bool((c == 7.0).all())
    with pytest.raises(ValueError):
        swath.stencil(x, radius=2, weights=[0.1] * 5)  # 13 taps
    with pytest.raises(ValueError, match="length|shape"):
        swath.vector_add(v, v[:1000])


@needs_torch_gpu
def test_render_on_the_gpu_matches_the_cpu():
    import torch

    image = swath.render("spheres", width=96, height=54, spp=1)
    assert isinstance(image, torch.Tensor) and image.is_cuda and image.shape == (54, 96, 3)
    host = swath.render("spheres", width=96, height=54, spp=1, device="cpu")
    # Silhouette pixels may flip between the two (as in the C++ tests): PSNR >= 40 dB, not equality.
    mse = float(((image.cpu().double() - torch.from_numpy(np.ascontiguousarray(host)).double()) ** 2).mean())
    assert mse == 0 or 10 * math.log10(1.0 / mse) >= 40.0


@needs_cupy_gpu
def test_cupy_arrays_zero_copy(rng):
    import cupy

    a = cupy.asarray(positive(rng, (100, 70)))
    b = cupy.asarray(positive(rng, (70, 50)))
    c = cupy.empty((100, 50), dtype=cupy.float32)
    got = swath.sgemm(a, b, c)
    assert got is c
    want = cupy.asnumpy(a).astype(np.float64) @ cupy.asnumpy(b).astype(np.float64)
    assert relative_error(cupy.asnumpy(c), want) <= 2 * 72 * 2.0 ** -24
    v = swath.vector_add(cupy.ones(1000, cupy.float32), cupy.ones(1000, cupy.float32))
    assert isinstance(v, cupy.ndarray) and float(v.sum()) == 2000.0
    with cupy.cuda.Stream(non_blocking=True) as stream:
        x = cupy.asarray(rng.integers(0, 256, 4096, dtype=np.uint8))
        counts, _ = swath.histogram(x)
        stream.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(counts), np.bincount(cupy.asnumpy(x), minlength=256))
