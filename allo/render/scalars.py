"""Scalar types as the MLIR renderer sees them: operation category, width, memory and ABI types,
and MLIR literals of constants.

Example::

    _cat(Fixed(8, 4))             # "sfx"
    _abi_scalar(Int(5))           # "i8" (what ctypes passes to the JIT entry)
    _float_hex(1.0, Float(32))    # "0x3F800000"
"""
from __future__ import annotations

import math
import struct

import numpy as np

from ..errors import BackendError
from ..ir.types import Fixed, Float, Index, Int, UFixed, UInt, container_bits

index_t = Index()
i64_t = Int(64)


# ============================================================================ types
def cat(t) -> str:
    """Operation category of a scalar type: f (float), s/u (signed/unsigned int), sfx/ufx (fixed)."""
    if isinstance(t, Float):
        return "f"
    if isinstance(t, Fixed):
        return "sfx"
    if isinstance(t, UFixed):
        return "ufx"
    if isinstance(t, UInt):
        return "u"
    if isinstance(t, (Int, Index)):
        return "s"
    raise BackendError(f"unsupported scalar type {t!r}")


def type_bits(t) -> int:
    return 64 if isinstance(t, Index) else t.bits


def abi_scalar(t) -> str:
    """Type of a scalar at the JIT boundary (what ctypes can pass)."""
    if isinstance(t, Float):
        return "i16" if t.bits == 16 else t.mlir
    if isinstance(t, Index):
        return "i64"
    return f"i{container_bits(t.bits)}"


def scalar_storage(t) -> str:
    return "i64" if isinstance(t, Index) else t.storage_mlir


def elem_bytes(t) -> int:
    return t.bits // 8 if isinstance(t, Float) else container_bits(type_bits(t)) // 8



# ============================================================================ constants
def float_hex(value, t: Float) -> str:
    v = float(value)
    if t.brain:
        bits = int(np.array(v, np.float32).view(np.uint32))
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return f"0x{bits:04X}"
    if t.bits == 16:
        return f"0x{int(np.array(v, np.float16).view(np.uint16)):04X}"
    if t.bits == 32:
        return "0x" + struct.pack(">f", float(np.float32(v))).hex().upper()
    return "0x" + struct.pack(">d", v).hex().upper()


def int_literal(value: int, bits: int) -> str:
    """Two's-complement literal of `value` wrapped to `bits` (MLIR wants signed in-range values)."""
    v = int(value) & ((1 << bits) - 1)
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return str(v)


def fixed_raw(value, t) -> int:
    """Raw integer of a fixed-point constant: floor(value * 2**frac) (wrapping is done by the literal)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value) << t.frac
    return math.floor(float(value) * 2.0 ** t.frac)
