"""The schedule layer from Python: the traversals as index arrays, and the cache model.

    >>> import swath
    >>> swath.schedule.order("zigzag", 6, 4, column_width=2)[:8]   # linear indices, in visiting order
    >>> swath.schedule.explain(4096, 4096, radius=2, cache="L2")    # widths and predicted fetches
"""

from __future__ import annotations

import json
from typing import Optional, Union

import numpy

from . import _swath

__all__ = ["order", "explain", "cache_size"]


def order(kind: str, width: int, height: int, column_width: int = 1, tile: Union[int, tuple] = 1) -> numpy.ndarray:
    """The visiting order of a traversal over a width x height grid: an int64 array of the grid's
    row-major indices, the i-th point visited first. kind: row_major, tiled (tile = t or (w, h)),
    column or zigzag (bands column_width wide; zigzag walks alternate rows and bands backwards)."""
    width, height = int(width), int(height)
    if width < 0 or height < 0:
        raise ValueError(f"width, height: expected >= 0, got {width} x {height}")
    if kind in ("column", "zigzag") and int(column_width) < 1:
        raise ValueError(f"column_width: expected >= 1, got {column_width}")
    tile_w, tile_h = (tile, tile) if isinstance(tile, int) else tuple(tile)
    if kind == "tiled" and (int(tile_w) < 1 or int(tile_h) < 1):
        raise ValueError(f"tile: expected sides >= 1, got {tile}")
    out = numpy.empty(width * height, dtype=numpy.int64)
    _swath.schedule_order(kind, width, height, int(column_width), int(tile_w), int(tile_h), out.ctypes.data)
    return out


def cache_size(text: str) -> tuple:
    """A cache as swath reads it: 'L1', 'L2', 'L3' (this CPU's), or '256K', '2MiB', '2^21', bytes.
    Returns (bytes, ways), ways 0 where unknown."""
    return _swath.cache_size(str(text))


def explain(width: int, height: int, radius: int = 1, shape: str = "star", dtype: str = "float32",
            cache: Union[str, int] = "L2", threads: int = 1, line_bytes: int = 64,
            ways: Optional[int] = None) -> dict:
    """The cache model applied to a 2D stencil over a width x height grid (what `swath schedule
    explain` prints): the column widths it can choose and each traversal's predicted cache-line
    fetches, with the reasoning. cache: a level or a size; ways: the associativity (None: the cache's)."""
    if shape not in ("star", "box"):
        raise ValueError(f"shape: expected 'star' or 'box', got {shape!r}")
    if dtype not in ("float32", "float64"):
        raise TypeError(f"dtype: expected 'float32' or 'float64', got {dtype!r}")
    size, cache_ways = cache_size(str(cache))
    answer = _swath.schedule_explain(int(width), int(height), int(radius), shape == "box", 4 if dtype == "float32" else 8,
                                     float(size), str(cache), int(cache_ways if ways is None else ways), int(threads),
                                     int(line_bytes))
    return json.loads(answer)
