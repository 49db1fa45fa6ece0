"""numpy arguments <-> the container arrays the generated C++ reads and writes (csim, cosim).

Values are checked against the parameter (shape, dtype, values inside the type: allo.backend.convert)
and converted as the LLVM module converts them (fixed point floors to its fraction bits).

Example::

    raw = to_storage(A, func.params[0], 0, "gemm")     # contiguous container array
    out = from_storage(raw, Fixed(16, 8))               # float64 values
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...errors import AlloTypeError
from ...ir import nodes as N
from ...ir.fixed import from_raw, to_raw
from ...ir.types import Float, UInt, is_fixed
from ..convert import check_fixed_values, check_int_values, check_scalar_fixed, check_scalar_int, convert_input
from .types import storage_cpp_type


def storage_dtype(t) -> np.dtype:
    if isinstance(t, UInt) and t.bits == 1:
        return np.dtype(np.uint8)
    if is_fixed(t):
        return np.dtype(storage_cpp_type(t).replace("_t", ""))
    return t.np_dtype


def from_storage(raw: np.ndarray, t) -> np.ndarray:
    if is_fixed(t):
        return from_raw(raw, t)
    if isinstance(t, UInt) and t.bits == 1:
        return raw.astype(np.bool_)
    return raw.astype(t.np_dtype, copy=False)


def to_storage(value, p: N.Buffer, k: int, fname: str) -> np.ndarray:
    """Validate argument `k` against parameter `p` and return its raw container array."""
    t = p.dtype
    what = f"argument {k} ({p.name!r}) of {fname}()"
    if p.shape == ():
        return scalar_storage(value, t, what)
    if not isinstance(value, np.ndarray):
        raise AlloTypeError(f"{what}: expected a numpy array {t!r}[{', '.join(map(str, p.shape))}], "
                            f"got {type(value).__name__}")
    if tuple(value.shape) != tuple(p.shape):
        raise AlloTypeError(f"{what}: expected shape {tuple(p.shape)}, got {tuple(value.shape)}")
    if is_fixed(t):
        if value.dtype.kind not in "fiu":
            raise AlloTypeError(f"{what}: fixed-point {t!r} takes a float array, got dtype {value.dtype}")
        check_fixed_values(value, t, what)
        return np.ascontiguousarray(to_raw(value, t))
    if value.dtype != t.np_dtype:
        value = convert_input(value, t, what)  # exact conversions only, with a warning
    else:
        check_int_values(value, t, what)
    return np.ascontiguousarray(value.astype(storage_dtype(t), copy=False))


def scalar_storage(value, t, what) -> np.ndarray:
    """A scalar argument as a one-element container array (the LLVM module's conversions: values
    outside the type are refused, integral floats are accepted for ints, fixed point floors)."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, (numbers.Number, np.generic)) or isinstance(value, (complex, np.complexfloating)):
        raise AlloTypeError(f"{what}: expected a scalar of type {t!r}, got {type(value).__name__}")
    if is_fixed(t):
        raw = check_scalar_fixed(value, t, what)
        return np.asarray([raw], dtype=storage_dtype(t))
    if isinstance(t, Float):
        return np.asarray([float(value)], dtype=t.np_dtype)
    if isinstance(t, UInt) and t.bits == 1:
        return np.asarray([bool(value)], dtype=np.uint8)
    if isinstance(value, (float, np.floating)) and not (math.isfinite(float(value)) and float(value).is_integer()):
        raise AlloTypeError(f"{what}: expected an integer of type {t!r}, got {value!r}")
    return np.asarray([check_scalar_int(value, t, what)], dtype=storage_dtype(t))
