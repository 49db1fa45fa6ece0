"""Helpers under upstream Allo's names (`allo.utils`).

Example::

    from allo.utils import get_np_struct_type
    packed = np.zeros(4, dtype=get_np_struct_type(128))   # 4 x 16-byte words for a UInt(128) array
"""
from __future__ import annotations

import numpy as np

from .errors import AlloValueError


def get_np_struct_type(bitwidth: int) -> np.dtype:
    """A numpy structured dtype of ceil(bitwidth / 8) unsigned bytes (fields f0, f1, ...): the host
    container upstream Allo uses for integers wider than 64 bits. `arr.view(np.uint8)` reads its
    bytes, least significant first.

    Example: ``get_np_struct_type(256).itemsize == 32``
    """
    if isinstance(bitwidth, bool) or not isinstance(bitwidth, (int, np.integer)) or bitwidth < 1:
        raise AlloValueError(f"get_np_struct_type({bitwidth!r}): expected a positive number of bits")
    n_bytes = (int(bitwidth) + 7) // 8
    return np.dtype({"names": [f"f{i}" for i in range(n_bytes)], "formats": ["u1"] * n_bytes,
                     "offsets": list(range(n_bytes)), "itemsize": n_bytes})


__all__ = ["get_np_struct_type"]
