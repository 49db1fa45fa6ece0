"""numpy <-> MLIR memref descriptors for the JIT entry wrapper (destination-passing style).

The entry `@__allo_entry_<top>` takes the top function's arguments (arrays as memrefs, scalars by
value in their ABI type) followed by one output memref per result (rank 0 for scalar results).
A `CallPlan` validates numpy arguments against the kernel signature, packs them into the packed
calling convention (`void**`) with pre-built ctypes objects, and converts outputs back.

Example::

    plan = CallPlan(func)
    packed, ctx = plan.pack([A, B])      # raises AlloTypeError before anything runs
    fn(packed)                           # the JIT'd packed entry
    result = plan.unpack(ctx)
"""
from __future__ import annotations

import ctypes
import functools
import math
import numbers
import threading

import numpy as np

from ..errors import AlloTypeError
from ..ir import nodes as N
from ..ir.effects import params_maybe_written
from ..ir.fixed import from_raw, to_raw
from ..ir.types import ArrayType, Fixed, Float, Index, Int, UFixed, UInt, container_bits
from .convert import (check_convertible, check_fixed_values, check_int_values, check_scalar_fixed, check_scalar_int,
                      convert_input)


@functools.lru_cache(maxsize=None)
def descriptor_class(rank: int):
    """The ctypes struct of a ranked memref descriptor (element pointers are untyped)."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRefDescriptor{rank}D", (ctypes.Structure,), {"_fields_": fields})


def _strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return tuple(reversed(out))


def new_descriptor(shape):
    cls = descriptor_class(len(shape))
    d = cls()
    if shape:
        d.sizes[:] = list(shape)
        d.strides[:] = list(_strides(shape))
    return d


def storage_dtype(t) -> np.dtype:
    """numpy dtype of the memory holding allo type t (what the memref element bits mean)."""
    if isinstance(t, UInt) and t.bits == 1:
        return np.dtype(np.int8)
    if isinstance(t, Fixed):
        return np.dtype(f"int{container_bits(t.bits)}")
    if isinstance(t, UFixed):
        return np.dtype(f"uint{container_bits(t.bits)}")
    return np.dtype(t.np_dtype)


_SCALAR_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i8": ctypes.c_int8, "i16": ctypes.c_int16,
                  "i32": ctypes.c_int32, "i64": ctypes.c_int64}


def _abi_ctype(t):
    if isinstance(t, Float):
        return ctypes.c_int16 if t.bits == 16 else _SCALAR_CTYPES[t.mlir]
    if isinstance(t, Index):
        return ctypes.c_int64
    return _SCALAR_CTYPES[f"i{container_bits(t.bits)}"]


def _describe(x) -> str:
    if isinstance(x, np.ndarray):
        return f"numpy array of shape {x.shape} and dtype {x.dtype}"
    return f"{type(x).__name__} {x!r}" if isinstance(x, (numbers.Number, np.generic)) else type(x).__name__


def check_writable(x: np.ndarray, where: str) -> None:
    """Refuse a read-only array for a parameter the kernel writes (before anything runs)."""
    if not x.flags.writeable:
        raise AlloTypeError(f"{where}: the kernel writes this array, but it is read-only (e.g. setflags(write=False), "
                            "np.frombuffer of bytes, a read-only memmap); pass a writable copy such as np.array(x)")


# ============================================================================ argument specs
class ArraySpec:
    """An array parameter: type check, conversion to storage, write-back after the call."""

    def __init__(self, fname, k, p: N.Buffer, written: bool):
        self.where = f"{fname}: argument {k} ({p.name!r})"
        self.t, self.shape, self.written = p.dtype, tuple(p.shape), written
        self.fixed = isinstance(self.t, (Fixed, UFixed))
        self.bool = isinstance(self.t, UInt) and self.t.bits == 1
        self.np_dtype = None if self.fixed else np.dtype(self.t.np_dtype)

    def expected(self) -> str:
        what = "float" if self.fixed else str(self.np_dtype)
        return f"a {what} numpy array of shape {self.shape} (allo {self.t!r}{list(self.shape)})"

    def check(self, x):
        if not isinstance(x, np.ndarray):
            raise AlloTypeError(f"{self.where}: expected {self.expected()}, got {_describe(x)}")
        if x.shape != self.shape:
            raise AlloTypeError(f"{self.where}: expected shape {self.shape}, got {x.shape} (expected {self.expected()})")
        if self.fixed:
            if x.dtype.kind not in "fiu":
                raise AlloTypeError(f"{self.where}: expected {self.expected()}, got dtype {x.dtype}")
            check_fixed_values(x, self.t, self.where)
        elif x.dtype != self.np_dtype:
            check_convertible(x, self.t, self.where)  # converted in prepare (with a warning)
        else:
            check_int_values(x, self.t, self.where)
        if self.written:
            check_writable(x, self.where)

    def prepare(self, x):
        """(storage array passed to the kernel, write-back function or None)."""
        if not self.fixed and x.dtype != self.np_dtype:
            c = convert_input(x, self.t, self.where)
            wb = (lambda: np.copyto(x, c, casting="unsafe")) if self.written else None
            return (c.view(np.int8) if self.bool else c), wb
        if self.fixed:
            raw = to_raw(x, self.t)
            if self.written:
                return raw, lambda: np.copyto(x, from_raw(raw, self.t), casting="unsafe")
            return raw, None
        if x.flags.c_contiguous:
            return (x.view(np.int8) if self.bool else x), None
        c = np.ascontiguousarray(x)
        wb = (lambda: np.copyto(x, c)) if self.written else None
        return (c.view(np.int8) if self.bool else c), wb


class _ScalarSpec:
    def __init__(self, fname, k, p: N.Buffer):
        self.where = f"{fname}: argument {k} ({p.name!r})"
        self.t = p.dtype
        self.ctype = _abi_ctype(self.t)

    def convert(self, x) -> int | float:
        """The ABI value of Python/numpy scalar x (AlloTypeError when it is not a scalar of a fitting kind)."""
        t = self.t
        if isinstance(x, np.ndarray) and x.shape == ():
            x = x[()]
        if not isinstance(x, (numbers.Number, np.generic)) or isinstance(x, (complex, np.complexfloating)):
            raise AlloTypeError(f"{self.where}: expected a scalar of type {t!r}, got {_describe(x)}")
        if isinstance(t, Float):
            v = float(x)
            if t.brain:
                return _bfloat16_bits(v)
            if t.bits == 16:
                return int(np.array(v, np.float16).view(np.int16))
            return v
        if isinstance(t, (Fixed, UFixed)):
            return _signed_container(check_scalar_fixed(x, t, self.where), container_bits(t.bits))
        if isinstance(t, UInt) and t.bits == 1:
            return int(bool(x))
        if isinstance(x, (float, np.floating)):
            if not math.isfinite(float(x)) or float(x) != int(x):
                raise AlloTypeError(f"{self.where}: expected an integer of type {t!r}, got {_describe(x)}")
        return _signed_container(check_scalar_int(x, t, self.where), 64 if isinstance(t, Index) else container_bits(t.bits))


def _bfloat16_bits(v: float) -> int:
    """The bfloat16 nearest to v (ties to even), as the signed 16-bit word the ABI passes."""
    b = int(np.array(v, np.float32).view(np.uint32))
    if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
        return _signed_container((b >> 16) | 0x40, 16)  # a quiet NaN stays a NaN
    b += 0x7FFF + ((b >> 16) & 1)
    return _signed_container((b >> 16) & 0xFFFF, 16)


def _signed_container(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


class _OutSpec:
    """An output buffer of the entry wrapper (array result, or rank-0 for a scalar result)."""

    def __init__(self, rt):
        self.array = isinstance(rt, ArrayType)
        self.t = rt.dtype if self.array else rt
        self.shape = tuple(rt.shape) if self.array else ()
        self.dtype = storage_dtype(self.t)

    def convert(self, raw):
        t = self.t
        if isinstance(t, (Fixed, UFixed)):
            v = from_raw(raw, t)
        elif isinstance(t, UInt) and t.bits == 1:
            v = raw.view(np.bool_)
        else:
            v = raw
        return v if self.array else v[()]


# ============================================================================ the plan
def returned_params(func: N.Func) -> dict:
    """{result index: parameter index} for results that are array parameters (`return A`)."""
    ret = func.body[-1] if func.body and isinstance(func.body[-1], N.Return) else None
    index = {id(p): k for k, p in enumerate(func.params) if p.kind == "arg"}
    return {j: index[id(v)] for j, v in enumerate(ret.values if ret else []) if id(v) in index}


def check_io_widths(func: N.Func):
    """Arguments and results cross numpy, whose integers stop at 64 bits: refuse wider ones."""
    items = [(f"argument {p.name!r}", p.dtype) for p in func.params]
    items += [(f"result {k}", getattr(t, "dtype", t)) for k, t in enumerate(func.result_types)]
    for what, t in items:
        if isinstance(t, (Int, UInt, Fixed, UFixed)) and t.bits > 64:
            raise AlloTypeError(f"{func.name}: {what} is {t!r}, wider than 64 bits: kernel arguments and results "
                                "must fit numpy's 64-bit integers. Keep wide values inside the kernel (locals and "
                                "intermediates may be up to 1024 bits) and pass them in 64-bit pieces, e.g. x[0:64]")


class CallPlan:
    """Everything needed to call one JIT'd entry: specs, pre-built descriptors, the packed array."""

    def __init__(self, func: N.Func, hidden: int = 0, written: set | None = None):
        """`hidden`: trailing parameters the module passes itself (not counted in `check`);
        `written`: indices of the parameters the function writes (default: from its body)."""
        check_io_widths(func)
        self.fname = func.name
        if written is None:
            written = params_maybe_written(func)
        else:
            written = {id(func.params[k]) for k in written}
        self.params = list(func.params)
        self.n_visible = len(self.params) - hidden
        self.ins = []
        for k, p in enumerate(func.params):
            if p.kind == "scalar_arg":
                self.ins.append(_ScalarSpec(func.name, k, p))
            else:
                self.ins.append(ArraySpec(func.name, k, p, id(p) in written))
        self.outs = [_OutSpec(rt) for rt in func.result_types]
        self.n_results = len(func.result_types)
        self.returned_args = returned_params(func)
        self.single_array = self.n_results == 1 and self.outs[0].array
        # pre-built ctypes objects, reused by every call (calls are serialised by `lock`)
        self.lock = threading.Lock()
        self._slots = []  # per packed slot: ("desc", descriptor) or ("scalar", ctypes value)
        self._keep = []
        for spec in self.ins:
            if isinstance(spec, ArraySpec):
                d = new_descriptor(spec.shape)
                holder = ctypes.c_void_p(ctypes.addressof(d))
                self._keep += [d, holder]
                self._slots.append((d, ctypes.addressof(holder)))
            else:
                v = spec.ctype()
                self._keep.append(v)
                self._slots.append((v, ctypes.addressof(v)))
        for spec in self.outs:
            d = new_descriptor(spec.shape)
            holder = ctypes.c_void_p(ctypes.addressof(d))
            self._keep += [d, holder]
            self._slots.append((d, ctypes.addressof(holder)))
        n = len(self._slots)
        self.packed = (ctypes.c_void_p * max(n, 1))(*[addr for _, addr in self._slots])

    def check(self, args):
        """Validate every argument (count, kind, shape, dtype) before anything runs."""
        if len(args) != self.n_visible:
            names = ", ".join(p.name for p in self.params[:self.n_visible])
            raise AlloTypeError(f"{self.fname}: expected {self.n_visible} arguments ({names}), got {len(args)}")
        for spec, a in zip(self.ins, args):
            if isinstance(spec, ArraySpec):
                spec.check(a)

    def pack(self, args):
        """Fill the pre-built descriptors; returns (keep-alive list, write-backs, output arrays).
        Must be called with `lock` held."""
        keep, writebacks, outs = [], [], []
        slots = self._slots
        for k, (spec, a) in enumerate(zip(self.ins, args)):
            obj = slots[k][0]
            if isinstance(spec, ArraySpec):
                arr, wb = spec.prepare(a)
                keep.append(arr)
                if wb is not None:
                    writebacks.append(wb)
                ptr = arr.ctypes.data
                obj.allocated = ptr
                obj.aligned = ptr
            else:
                obj.value = spec.convert(a)
        base = len(self.ins)
        for j, spec in enumerate(self.outs):
            raw = np.empty(spec.shape, dtype=spec.dtype)
            outs.append(raw)
            d = slots[base + j][0]
            ptr = raw.ctypes.data
            d.allocated = ptr
            d.aligned = ptr
        return keep, writebacks, outs

    def unpack(self, outs, args=None):
        """The Python result: None, one array/scalar, or a tuple. A returned argument is the
        caller's own array (`return A` gives back A, updated in place)."""
        if self.n_results == 0:
            return None
        vals = [spec.convert(raw) for spec, raw in zip(self.outs, outs)]
        if args is not None:
            for j, k in self.returned_args.items():
                if isinstance(args[k], np.ndarray):
                    vals[j] = args[k]
        return vals[0] if self.n_results == 1 else tuple(vals)


__all__ = ["CallPlan", "check_writable", "returned_params", "descriptor_class", "new_descriptor", "storage_dtype"]
