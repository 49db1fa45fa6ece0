"""`x: T @ Stateful = init`: kernel locals whose value persists across calls (upstream Allo's
`allo.ir.types.Stateful`).

The builder declares an ordinary local buffer (schedules see it like any other local) marked with
`STATEFUL` = its initial contents; the backends give it static storage: a mutable
`memref.global` in the MLIR/LLVM build, a C++ `static` in the HLS code, a per-module value in the
interpreter. The initial value is set once, when the module is built.

Example::

    def moving_sum(x: int32) -> int32:
        total: int32 @ Stateful = 0
        total = total + x
        return total          # mod(5) -> 5, mod(10) -> 15 on one built module
"""
from __future__ import annotations

import numpy as np

from ..errors import AlloSyntaxError, AlloTypeError
from ..ir import emit
from ..ir.attrs import STATEFUL
from ..ir.nodes import Alloc, Buffer
from ..ir.types import ArrayType, Fixed, Float, Int, UFixed, UInt, is_bool
from .forms import bind_storage


def declare_stateful(fb, node, name: str, t) -> None:
    """Visit `name: T @ Stateful [= init]` (`t` is the StatefulType) for the function builder `fb`."""
    inner = t.inner
    if fb.scope != ():
        raise fb.error(AlloSyntaxError, f"Stateful variable {name!r} must be declared at the top level of the "
                       "kernel body, not inside a loop, branch or with block (it is one variable for all calls)", node)
    if isinstance(fb.locals.get(name), Buffer):
        raise fb.error(AlloSyntaxError, f"{name!r} is already a variable of this kernel; a Stateful variable "
                       "needs a name of its own", node)
    shape = tuple(inner.shape) if isinstance(inner, ArrayType) else ()
    dtype = inner.dtype if isinstance(inner, ArrayType) else inner
    value = fb.visit(node.value) if node.value is not None else 0
    if isinstance(value, (tuple, list)):
        value = fb.literal_array(value, node)
    buf = Buffer(fb.fresh_buffer_name(name), ArrayType(dtype, shape), "local", loc=fb.loc(node))
    bind_storage(buf, inner)
    buf.attrs[STATEFUL] = initial_contents(fb, node, name, dtype, shape, value)
    fb.locals[name] = buf
    fb.decl_scope[id(buf)] = fb.scope
    fb.emit(Alloc(buf, None, fb.loc(node)))


def initial_contents(fb, node, name, dtype, shape, value) -> np.ndarray:
    """The initial value as an array of `shape` (values, not raw bits: the renderers convert)."""
    if isinstance(value, Buffer) and value.kind == "global":
        value = np.asarray(value.data)
    if isinstance(value, np.ndarray):
        if value.shape != shape:
            raise fb.error(AlloTypeError, f"Stateful variable {name!r} of shape {list(shape)} is initialised with "
                           f"an array of shape {list(value.shape)}", node)
        values = value.ravel().tolist()
    elif emit.is_number(value):
        values = [emit.py_number(value)]
    else:
        raise fb.error(AlloTypeError, f"the initial value of Stateful variable {name!r} must be a compile-time "
                       "constant (a number, a constant array or a list literal); it is set once, when the module "
                       "is built", node)
    for v in values:
        _check_fits(fb, node, name, dtype, v)
    kind = np.float64 if isinstance(dtype, (Float, Fixed, UFixed)) else np.int64
    if isinstance(dtype, (Int, UInt)) and dtype.bits > 63:
        kind = object
    if len(values) == 1:
        return np.full(shape, values[0], dtype=kind)
    return np.array(values, dtype=kind).reshape(shape)


def _check_fits(fb, node, name, dtype, v):
    if isinstance(dtype, (Float, Fixed, UFixed)):
        return
    if isinstance(v, float) and not float(v).is_integer():
        raise fb.error(AlloTypeError, f"Stateful variable {name!r} of type {dtype!r} cannot start at {v!r}", node)
    v = int(v)
    if is_bool(dtype):
        lo, hi = 0, 1
    elif isinstance(dtype, Int):
        lo, hi = -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1
    elif isinstance(dtype, UInt):
        lo, hi = 0, (1 << dtype.bits) - 1
    else:
        raise fb.error(AlloTypeError, f"Stateful variable {name!r}: unsupported type {dtype!r}", node)
    if not lo <= v <= hi:
        raise fb.error(AlloTypeError, f"Stateful variable {name!r}: initial value {v} is outside {dtype!r} "
                       f"(range [{lo}, {hi}])", node)
