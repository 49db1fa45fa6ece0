"""allo scalar types -> C++ types for Vitis HLS (and for allo's own csim header).

Native C types wherever they are exact; `ap_int<N>`/`ap_uint<N>` for odd widths;
`ap_fixed<W, I>`/`ap_ufixed<W, I>` (I = W - frac) for fixed point; `half` for float16.

Example::

    cpp_type(int8)          # 'int8_t'
    cpp_type(Int(5))        # 'ap_int<5>'
    cpp_type(Fixed(16, 8))  # 'ap_fixed<16, 8>'
    cpp_type(Fixed(8, 4, rounding="rnd", overflow="sat"))  # 'ap_fixed<8, 4, AP_RND, AP_SAT>'
"""
from __future__ import annotations

import contextlib
import contextvars

from ...errors import BackendError
from ...ir.types import AlloType, Fixed, Float, Index, Int, UFixed, UInt, container_bits

_NATIVE_WIDTHS = (8, 16, 32, 64)
_PRINTER = contextvars.ContextVar("allo_hls_type_printer", default=None)


@contextlib.contextmanager
def type_printer(dialect):
    """While active, `cpp_type` prints types as `dialect.type_name(t, vitis_name)` (dialect.py)."""
    token = _PRINTER.set(dialect)
    try:
        yield
    finally:
        _PRINTER.reset(token)


def cpp_type(t: AlloType) -> str:
    """The C++ type that holds values of allo type `t` inside a kernel (in the active dialect)."""
    name = _vitis_type(t)
    printer = _PRINTER.get()
    return name if printer is None else printer.type_name(t, name)


def _vitis_type(t: AlloType) -> str:
    if isinstance(t, Float):
        if t.brain:
            raise BackendError("bfloat16 is not supported by the HLS backend")
        return {16: "half", 32: "float", 64: "double"}[t.bits]
    if isinstance(t, Index):
        return "int64_t"
    if isinstance(t, UInt) and t.bits == 1:
        return "bool"
    if isinstance(t, (Int, UInt)):
        sign = "" if isinstance(t, Int) else "u"
        if t.bits in _NATIVE_WIDTHS:
            return f"{sign}int{t.bits}_t"
        return f"ap_{sign}int<{t.bits}>"
    if isinstance(t, (Fixed, UFixed)):
        kind = "ap_fixed" if isinstance(t, Fixed) else "ap_ufixed"
        if t.has_modes:
            return f"{kind}<{t.bits}, {t.bits - t.frac}, AP_{t.rounding.upper()}, AP_{t.overflow.upper()}>"
        return f"{kind}<{t.bits}, {t.bits - t.frac}>"
    raise BackendError(f"type {t!r} has no C++ mapping")


def storage_cpp_type(t: AlloType) -> str:
    """The fixed-size C type of one element in host I/O files (numpy's container dtype)."""
    if isinstance(t, Float):
        return cpp_type(t)
    if isinstance(t, UInt) and t.bits == 1:
        return "uint8_t"
    signed = isinstance(t, (Int, Fixed, Index))
    return f"{'' if signed else 'u'}int{container_bits(t.bits)}_t"


def is_native(t: AlloType) -> bool:
    """True when C++ arithmetic on `t` needs no wrapping cast: int/long/unsigned/float/double."""
    if isinstance(t, Float):
        return t.bits in (32, 64)
    if isinstance(t, Index):
        return True
    if isinstance(t, (Int, UInt)):
        return t.bits in (32, 64)
    return False


def is_ap(t: AlloType) -> bool:
    """True for the ap_int/ap_uint/ap_fixed/ap_ufixed class types (class types in any dialect)."""
    return _vitis_type(t).startswith("ap_")
