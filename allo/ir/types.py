"""Kernel data types: immutable, hashable values.

Example::

    from allo.ir.types import int8, float32, Fixed
    float32[8, 16]            # ArrayType(float32, (8, 16)) -> memref<8x16xf32>
    Fixed(16, 8).mlir         # 'i16'  (fixed point is a scaled integer)
    Int(5).np_dtype           # numpy.int8 (next power-of-two container)
    int4, uint12, int128      # named widths, as upstream Allo's allo.ir.types

Widths go up to MAX_BITS (1024, the ap_int default limit). Values wider than 64 bits live inside
kernels (locals, intermediates of bit growth); kernel arguments and results need a numpy dtype,
so they are at most 64 bits wide.
"""
from __future__ import annotations

import builtins
import math
import typing
from dataclasses import dataclass, field

import numpy as np

from ..errors import AlloTypeError, caller_location, located
from .fixed import container_bits, int_wrap_array, quantize

MAX_BITS = 1024  # widest Int/UInt/Fixed (Xilinx AP_INT_MAX_W's default)


class AlloType:
    """Base class of scalar element types. `T[d0, d1]` makes an array type."""

    bits: int

    def __getitem__(self, shape) -> "ArrayType":
        if shape is Ellipsis:  # `float32[...]`: a 1-D array whose length the caller gives (memref<?xf32>)
            return ArrayType(self, (None,))
        if not isinstance(shape, tuple):
            shape = (shape,)
        if any(_is_type_param(d) for d in shape):
            # `def k[N](C: int32[N])`: Python evaluates the annotation when the function is defined,
            # before N has a value; the builder evaluates it again from the source with N bound.
            return TemplateArrayType(self, shape)
        dims = []
        for d in shape:
            if isinstance(d, (builtins.bool, np.bool_)) or not isinstance(d, (int, np.integer)) or int(d) <= 0:
                text = ", ".join(map(repr, shape))
                raise located(AlloTypeError, f"array dimension must be a positive integer, got {d!r} in "
                              f"{self}[{text}]", caller_location())
            dims.append(int(d))
        return ArrayType(self, tuple(dims))

    # --- properties every scalar type provides -------------------------------------------
    @property
    def mlir(self) -> str:  # type used for computation in MLIR
        raise NotImplementedError

    @property
    def storage_mlir(self) -> str:  # element type of memrefs holding this type
        return self.mlir

    @property
    def np_dtype(self):  # numpy dtype for I/O
        raise NotImplementedError

    @property
    def fracs(self) -> int:
        """Fractional bits (Allo's name): 0 for integers, `frac` for fixed point, the mantissa for floats."""
        return getattr(self, "frac", 0)

    def __call__(self, value):
        """Outside kernels, convert a Python value to this type's numpy representation."""
        if isinstance(self, (Fixed, UFixed)):
            return quantize(np.asarray(value, dtype=np.float64), self)
        if isinstance(self, Index):
            return int(value)
        if isinstance(self, (Int, UInt)):
            arr = np.asarray(value)
            if arr.dtype.kind == "f":
                arr = np.trunc(arr).astype(np.int64)
            out = int_wrap_array(arr, self)
            return out[()] if out.ndim == 0 else out
        return self.np_dtype.type(value)


@dataclass(frozen=True, repr=False)
class Int(AlloType):
    """Signed integer of any width 1..MAX_BITS (two's complement, wraps at its width)."""

    signed: typing.ClassVar[bool] = True

    bits: int

    def __post_init__(self):
        _check_bits(self.bits, "Int")

    def __repr__(self):
        return f"int{self.bits}"

    @property
    def mlir(self):
        return f"i{self.bits}"

    @property
    def storage_mlir(self):
        return f"i{container_bits(self.bits)}"

    @property
    def np_dtype(self):
        return np.dtype(f"int{_numpy_bits(self)}")


@dataclass(frozen=True, repr=False)
class UInt(AlloType):
    """Unsigned integer of any width 1..MAX_BITS. `UInt(1)` is `bool`."""

    signed: typing.ClassVar[bool] = False

    bits: int

    def __post_init__(self):
        _check_bits(self.bits, "UInt")

    def __repr__(self):
        return "bool" if self.bits == 1 else f"uint{self.bits}"

    @property
    def mlir(self):
        return f"i{self.bits}"

    @property
    def storage_mlir(self):
        return f"i{container_bits(self.bits)}"

    @property
    def np_dtype(self):
        if self.bits == 1:
            return np.dtype(np.bool_)
        return np.dtype(f"uint{_numpy_bits(self)}")


@dataclass(frozen=True, repr=False)
class Float(AlloType):
    """IEEE float: float16, float32, float64 (and bfloat16, computed but not numpy-backed)."""

    signed: typing.ClassVar[bool] = True

    bits: int
    brain: bool = False

    def __post_init__(self):
        if self.bits not in (16, 32, 64) or (self.brain and self.bits != 16):
            raise AlloTypeError(f"unsupported float width {self.bits}")

    def __repr__(self):
        return "bfloat16" if self.brain else f"float{self.bits}"

    @property
    def fracs(self) -> int:
        """Mantissa bits (Allo's name): 10, 23, 52 (7 for bfloat16)."""
        return 7 if self.brain else {16: 10, 32: 23, 64: 52}[self.bits]

    @property
    def exponent(self) -> int:
        """Exponent bits: 5, 8, 11 (8 for bfloat16)."""
        return 8 if self.brain else {16: 5, 32: 8, 64: 11}[self.bits]

    @property
    def mlir(self):
        return "bf16" if self.brain else f"f{self.bits}"

    @property
    def np_dtype(self):
        if self.brain:
            return _bfloat16_dtype()
        return np.dtype(f"float{self.bits}")


def _bfloat16_dtype() -> np.dtype:
    """numpy's bfloat16 comes from the ml_dtypes package (what jax and upstream Allo's tests use);
    allo does not depend on it, so a bfloat16 kernel boundary needs it installed."""
    try:
        import ml_dtypes
    except ImportError:
        raise AlloTypeError("bfloat16 at the kernel boundary needs numpy's bfloat16 from the ml_dtypes package "
                            "(pip install ml_dtypes); otherwise pass float32 and convert inside the kernel") from None
    return np.dtype(ml_dtypes.bfloat16)


@dataclass(frozen=True, repr=False)
class Index(AlloType):
    """MLIR `index` (loop induction variables)."""

    signed: typing.ClassVar[bool] = True

    bits: int = 64

    def __repr__(self):
        return "index"

    @property
    def mlir(self):
        return "index"

    @property
    def np_dtype(self):
        return np.dtype(np.int64)


ROUNDING_MODES = ("trn", "trn_zero", "rnd", "rnd_zero", "rnd_min_inf", "rnd_inf", "rnd_conv")
OVERFLOW_MODES = ("wrap", "sat", "sat_zero", "sat_sym")
_ROUNDING_ALIASES = {"floor": "trn", "truncate": "trn", "toward_zero": "trn_zero", "half_up": "rnd",
                     "round_half_up": "rnd", "convergent": "rnd_conv", "half_even": "rnd_conv",
                     "round_half_even": "rnd_conv"}
_OVERFLOW_ALIASES = {"saturate": "sat"}


class _FixedModes:
    """The quantization / overflow modes of Fixed and UFixed (ap_fixed's Q and O parameters)."""

    def _check_modes(self, name):
        _check_bits(self.bits, name)
        if not 0 <= self.frac <= self.bits:
            raise AlloTypeError(f"{name}({self.bits}, {self.frac}): frac must be in 0..bits")
        r = _ROUNDING_ALIASES.get(str(self.rounding).lower(), str(self.rounding).lower())
        o = _OVERFLOW_ALIASES.get(str(self.overflow).lower(), str(self.overflow).lower())
        if r not in ROUNDING_MODES:
            raise AlloTypeError(f"{name}({self.bits}, {self.frac}): unknown rounding={self.rounding!r}; use one of "
                                f"{', '.join(ROUNDING_MODES)} (ap_fixed's AP_TRN ... AP_RND_CONV)")
        if o not in OVERFLOW_MODES:
            raise AlloTypeError(f"{name}({self.bits}, {self.frac}): unknown overflow={self.overflow!r}; use one of "
                                f"{', '.join(OVERFLOW_MODES)} (ap_fixed's AP_WRAP, AP_SAT, AP_SAT_ZERO, AP_SAT_SYM)")
        object.__setattr__(self, "rounding", r)
        object.__setattr__(self, "overflow", o)

    @property
    def has_modes(self) -> bool:
        """True when conversions into this type round or saturate (not ap_fixed's AP_TRN, AP_WRAP)."""
        return self.rounding != "trn" or self.overflow != "wrap"

    @property
    def plain(self):
        """The same format with the default modes (truncation, wrap)."""
        return type(self)(self.bits, self.frac)

    def _repr(self, name):
        extra = "".join(f", {k}={v!r}" for k, v, d in (("rounding", self.rounding, "trn"),
                                                         ("overflow", self.overflow, "wrap")) if v != d)
        return f"{name}({self.bits}, {self.frac}{extra})"


@dataclass(frozen=True, repr=False)
class Fixed(_FixedModes, AlloType):
    """Signed fixed point ap_fixed<bits, bits-frac, Q, O>: by default truncation toward -inf and
    wrap on overflow; `rounding=` ("trn", "trn_zero", "rnd", "rnd_zero", "rnd_min_inf", "rnd_inf",
    "rnd_conv") and `overflow=` ("wrap", "sat", "sat_zero", "sat_sym") as ap_fixed's modes, applied
    when a value is converted into the type.

    Example: `Fixed(8, 4, rounding="rnd", overflow="sat")` is `ap_fixed<8, 4, AP_RND, AP_SAT>`."""

    signed: typing.ClassVar[bool] = True

    bits: int
    frac: int
    rounding: str = "trn"
    overflow: str = "wrap"

    def __post_init__(self):
        self._check_modes("Fixed")

    def __repr__(self):
        return self._repr("Fixed")

    @property
    def mlir(self):
        return f"i{self.bits}"

    @property
    def storage_mlir(self):
        return f"i{container_bits(self.bits)}"

    @property
    def np_dtype(self):
        return np.dtype(np.float64)


@dataclass(frozen=True, repr=False)
class UFixed(_FixedModes, AlloType):
    """Unsigned fixed point ap_ufixed<bits, bits-frac, Q, O> (modes as for `Fixed`)."""

    signed: typing.ClassVar[bool] = False

    bits: int
    frac: int
    rounding: str = "trn"
    overflow: str = "wrap"

    def __post_init__(self):
        self._check_modes("UFixed")

    def __repr__(self):
        return self._repr("UFixed")

    @property
    def mlir(self):
        return f"i{self.bits}"

    @property
    def storage_mlir(self):
        return f"i{container_bits(self.bits)}"

    @property
    def np_dtype(self):
        return np.dtype(np.float64)


@dataclass(frozen=True)
class ArrayType:
    """An array of `dtype` with a static `shape`; `float32[8, 16]` -> memref<8x16xf32>.
    `memory` is the storage binding of an annotation `float32[8, 16] @ Memory(resource="URAM")`
    (not part of the type's identity)."""

    dtype: AlloType
    shape: tuple
    memory: object = field(default=None, compare=False)

    def __repr__(self):
        if self.dynamic:
            return f"{self.dtype!r}[...]"
        return f"{self.dtype!r}[{', '.join(map(str, self.shape))}]"

    @property
    def dynamic(self) -> bool:
        """`float32[...]`: the extent (None in `shape`) is known only when the kernel is called."""
        return None in self.shape

    @property
    def mlir(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"memref<{dims}x{self.dtype.storage_mlir}>" if dims else f"memref<{self.dtype.storage_mlir}>"

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape)


def _is_type_param(v) -> builtins.bool:
    return isinstance(v, typing.TypeVar) or type(v).__name__ in ("TypeVarTuple", "ParamSpec")


@dataclass(frozen=True)
class TemplateArrayType:
    """`int32[N]` with N a PEP 695 type parameter, as Python evaluates it at definition time.
    Only a placeholder: kernels are built from their source with N bound to a number."""

    dtype: AlloType
    shape: tuple

    def __repr__(self):
        return f"{self.dtype!r}[{', '.join(getattr(d, '__name__', str(d)) for d in self.shape)}]"


def _check_bits(bits, what):
    if isinstance(bits, builtins.bool) or not isinstance(bits, (int, np.integer)) or not 1 <= int(bits) <= MAX_BITS:
        raise AlloTypeError(f"{what} width must be an integer in 1..{MAX_BITS}, got {bits!r}")


def _numpy_bits(t) -> int:
    bits = container_bits(t.bits)
    if bits > 64:
        raise AlloTypeError(f"{t!r} is wider than 64 bits and has no numpy dtype: use it inside kernels only "
                            "(kernel arguments and results are at most 64 bits wide)")
    return bits


def is_int(t) -> bool:
    return isinstance(t, (Int, UInt, Index))


def is_signed(t) -> bool:
    return isinstance(t, (Int, Fixed, Index, Float))


def is_fixed(t) -> bool:
    return isinstance(t, (Fixed, UFixed))


def is_float(t) -> bool:
    return isinstance(t, Float)


def is_bool(t) -> builtins.bool:
    return isinstance(t, UInt) and t.bits == 1


_FLOAT_LOWEST = {16: -65504.0, 32: -3.4028234663852886e38, 64: -1.7976931348623157e308}


def lowest(t):
    """The most negative finite value of scalar type `t` (a Python number): the start value of a
    running maximum. Example: `lowest(float32)` is -3.4028234663852886e38, `lowest(int8)` -128."""
    if isinstance(t, Float):
        return -3.3895313892515355e38 if t.brain else _FLOAT_LOWEST[t.bits]
    if isinstance(t, Int):
        return -(2 ** (t.bits - 1))
    if isinstance(t, UInt):
        return 0
    if isinstance(t, Fixed):
        return -(2 ** (t.bits - 1)) / 2 ** t.frac
    if isinstance(t, UFixed):
        return 0.0
    raise TypeError(f"lowest: unsupported element type {t!r}")


class ConstType:
    """`ConstExpr[int32]`: the annotation of a compile-time constant of type int32 (a kernel
    local whose value the builder computes; it becomes a literal wherever it is used)."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"ConstExpr[{self.dtype!r}]"

    def convert(self, value):
        """`value` as a Python number of this type (ints wrap at their width, floats stay floats)."""
        t = self.dtype
        if isinstance(t, (Float, Fixed, UFixed)):
            return float(value)
        v = int(value)
        if isinstance(t, (Int, UInt)):
            v &= (1 << t.bits) - 1
            if isinstance(t, Int) and v >> (t.bits - 1):
                v -= 1 << t.bits
        return v


class _ConstExprMarker:
    """`ConstExpr[T]` in a local annotation declares a compile-time constant of type T.

    Example::

        def k(A: int32[10]) -> int32[10]:
            half: ConstExpr[int32] = 10 // 2      # loops over range(half) have constant bounds
    """

    def __getitem__(self, dtype):
        if not isinstance(dtype, AlloType):
            raise AlloTypeError(f"ConstExpr[...] takes a scalar type such as int32, got {dtype!r}")
        return ConstType(dtype)

    def __repr__(self):
        return "ConstExpr"


ConstExpr = _ConstExprMarker()


class StatefulType:
    """`int32 @ Stateful` / `float32[4] @ Stateful`: the annotation of a kernel local that keeps
    its value from one call of the kernel to the next (a `static` variable in the HLS C++, a
    mutable `memref.global` in the LLVM build). `inner` is the scalar or array type."""

    def __init__(self, inner):
        self.inner = inner

    def __repr__(self):
        return f"{self.inner!r} @ Stateful"


class _StatefulMarker:
    """`T @ Stateful` declares a local whose value persists across calls of the kernel; its
    initial value (a compile-time constant, 0 when omitted) is set once, when the module is built.

    Example::

        def counter() -> int32:
            count: int32 @ Stateful = 0
            count = count + 1
            return count          # 1, 2, 3, ... on successive calls of one built module
    """

    def __rmatmul__(self, inner):
        if not isinstance(inner, (AlloType, ArrayType)):
            raise AlloTypeError(f"`@ Stateful` annotates a scalar or array type such as int32 or "
                                f"float32[4], got {inner!r}")
        return StatefulType(inner)

    def __repr__(self):
        return "Stateful"


Stateful = _StatefulMarker()


class Struct:
    """`Struct({"x": int32, "y": float32})`: a record of named scalar fields (upstream Allo's
    `allo.ir.types.Struct`). A kernel declares locals of it (`p: S = {"x": a, "y": b}`) and reads
    and writes fields as `p["x"]`; each field is a scalar local of its own (allo/dsl/structs.py), so
    every backend sees only scalars. Structs are not kernel arguments, results or array elements.

    Example::

        S = Struct({"x": int32, "y": float32})
        S.fields["y"]       # float32
    """

    def __init__(self, fields):
        if not isinstance(fields, dict) or not fields:
            raise AlloTypeError(f"Struct takes a non-empty dict {{field name: scalar type}}, got {fields!r}")
        for k, t in fields.items():
            if not isinstance(k, str) or not k.isidentifier():
                raise AlloTypeError(f"Struct field names must be identifiers, got {k!r}")
            if not isinstance(t, AlloType) or isinstance(t, Index):
                raise AlloTypeError(f"Struct field {k!r} must have a scalar type such as int32 or float32, got {t!r}")
        self.fields = dict(fields)

    @property
    def bits(self) -> int:
        return sum(t.bits for t in self.fields.values())

    def __eq__(self, other):
        return isinstance(other, Struct) and list(self.fields.items()) == list(other.fields.items())

    def __hash__(self):
        return hash(tuple(self.fields.items()))

    def __getitem__(self, shape):
        raise AlloTypeError(f"{self!r}: arrays of structs are not supported; declare one array per field")

    def __repr__(self):
        return "Struct({" + ", ".join(f"{k!r}: {t!r}" for k, t in self.fields.items()) + "})"


class StreamType:
    """`Stream[T, depth]`: a FIFO of `depth` items of type `T` (a scalar or an array type), and
    `Stream[T, depth][P0, P1]` a grid of such FIFOs (declared in an `allo.dataflow` region).

    Example::

        Stream[float32, 4]            # one FIFO of 4 floats
        Stream[int16[4, 4], 2][3]     # three FIFOs, each holding two 4x4 blocks
    """

    def __init__(self, dtype, depth: int = 2, grid: tuple = ()):
        if not isinstance(dtype, (AlloType, ArrayType)):
            raise AlloTypeError(f"Stream[T, depth]: T must be an allo type such as float32 or int16[4, 4], got {dtype!r}")
        if isinstance(depth, builtins.bool) or not isinstance(depth, int) or depth < 1:
            raise AlloTypeError(f"Stream[T, depth]: depth must be a positive integer, got {depth!r}")
        for d in grid:
            if isinstance(d, builtins.bool) or not isinstance(d, int) or d < 1:
                raise AlloTypeError(f"a stream grid Stream[...][{', '.join(map(repr, grid))}] needs positive "
                                    f"integer extents")
        self.dtype, self.depth, self.grid = dtype, depth, tuple(grid)

    def __getitem__(self, grid):
        if self.grid:
            raise AlloTypeError(f"{self!r} is already a grid of streams")
        grid = grid if isinstance(grid, tuple) else (grid,)
        return StreamType(self.dtype, self.depth, tuple(int(g) if hasattr(g, "__index__") else g for g in grid))

    @property
    def item_type(self) -> AlloType:
        """The scalar type of the elements the FIFO carries (an array item's element type)."""
        return self.dtype.dtype if isinstance(self.dtype, ArrayType) else self.dtype

    @property
    def item_elems(self) -> int:
        """Scalars per item (1 for scalar items, the array size for array items)."""
        n = 1
        for d in getattr(self.dtype, "shape", ()):
            n *= int(d)
        return n

    def __eq__(self, other):
        return isinstance(other, StreamType) and (self.dtype, self.depth, self.grid) == (other.dtype, other.depth, other.grid)

    def __hash__(self):
        return hash(("Stream", repr(self.dtype), self.depth, self.grid))

    def __repr__(self):
        g = f"[{', '.join(map(str, self.grid))}]" if self.grid else ""
        return f"Stream[{self.dtype!r}, {self.depth}]{g}"


class _StreamMarker:
    """`Stream[T, depth]` (depth 2 when left out, as upstream Allo) builds a `StreamType`."""

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        if not 1 <= len(args) <= 2:
            raise AlloTypeError(f"Stream[T, depth] takes a type and a depth, got {len(args)} arguments")
        depth = args[1] if len(args) == 2 else 2
        return StreamType(args[0], int(depth) if hasattr(depth, "__index__") and not isinstance(depth, builtins.bool)
                          else depth)

    def __repr__(self):
        return "Stream"


Stream = _StreamMarker()

int1, int8, int16, int32, int64 = Int(1), Int(8), Int(16), Int(32), Int(64)
uint1, uint8, uint16, uint32, uint64 = UInt(1), UInt(8), UInt(16), UInt(32), UInt(64)
int2, int3, int4, int5, int6, int7 = (Int(b) for b in range(2, 8))
int9, int10, int11, int12, int13, int14, int15 = (Int(b) for b in range(9, 16))
uint2, uint3, uint4, uint5, uint6, uint7 = (UInt(b) for b in range(2, 8))
uint9, uint10, uint11, uint12, uint13, uint14, uint15 = (UInt(b) for b in range(9, 16))
int128, int256, int512 = Int(128), Int(256), Int(512)
uint128, uint256, uint512 = UInt(128), UInt(256), UInt(512)
bool = UInt(1)  # noqa: A001 - the DSL's name for UInt(1)
index = Index()
float16, float32, float64 = Float(16), Float(32), Float(64)
bfloat16 = Float(16, brain=True)

INT_NAMES = tuple(f"int{b}" for b in (*range(1, 17), 32, 64, 128, 256, 512))
UINT_NAMES = tuple(f"uint{b}" for b in (*range(1, 17), 32, 64, 128, 256, 512))

__all__ = [
    "AlloType", "Int", "UInt", "Float", "Index", "Fixed", "UFixed", "ArrayType", "MAX_BITS",
    *INT_NAMES, *UINT_NAMES, "bool", "index", "float16", "float32", "float64", "bfloat16", "ConstExpr",
    "Stateful", "StatefulType", "Stream", "StreamType", "Struct",
]
