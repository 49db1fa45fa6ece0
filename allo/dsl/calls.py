"""Call dispatch for kernel bodies: builtins, allo functions, type casts and kernel calls.

Handlers are registered in a table keyed by the Python object being called (`@builtin(...)`).

Example::

    y = allo.exp(x)           # MathCall("exp")
    z = float32(i)            # Cast
    r = other_kernel(A, B)    # CallStmt to func.func @other_kernel
"""
from __future__ import annotations

import ast
import builtins as py
import math

import numpy as np

from ..errors import AlloError, AlloSyntaxError, AlloTypeError
from ..ir import emit
from ..ir.attrs import DEFAULTS
from ..ir.nodes import Buffer, CallStmt, Const, Expr, Load, describe
from ..ir.ops import BinOpKind, MathFn
from ..ir.types import AlloType, ArrayType, Index, Int, UInt, float32, index, int32
from . import builtins as whole_array, names
from .builtins import REQUIRED, bind_args
from .kernel import KernelDef, KernelInstance
from .regions import write_back_views

HANDLERS = {}  # the called Python object (a function, ufunc or type) -> its handler
MATH_NAMES = {MathFn.EXP, MathFn.LOG, MathFn.LOG2, MathFn.SQRT, MathFn.TANH, MathFn.SIN, MathFn.COS, MathFn.ERF,
              MathFn.ABS, MathFn.FLOOR, MathFn.CEIL, MathFn.RSQRT}


def builtin(*objs):
    """Register a handler for calls of the given Python objects."""

    def deco(fn):
        for o in objs:
            HANDLERS[o] = fn
        return fn

    return deco


def handler_for(fn):
    """The registered handler of called object `fn`, or None."""
    try:
        return HANDLERS.get(fn)
    except TypeError:  # unhashable values (lists, arrays) are never builtins
        return None


class CallDispatcher:
    def __init__(self, fb):
        self.fb = fb

    # ------------------------------------------------------------ loops
    def loop_ranges(self, node):
        """(kind, [(lb, ub, step)...], band name or None, loop hints) for range/allo.grid/allo.reduction
        iterators; the hints are allo.grid's `pipeline=`/`unroll=` as {attr: [value or None per loop]}."""
        if not isinstance(node, ast.Call):
            raise self.fb.error(AlloSyntaxError, "loops must iterate over range(...), allo.grid(...) or allo.reduction(...)", node)
        fn = self.fb.visit(node.func)
        args = []
        for a in node.args:  # allo.grid(*SHAPE) spreads a compile-time shape tuple
            if isinstance(a, ast.Starred):
                v = self.fb.visit(a.value)
                if not isinstance(v, (tuple, list)):
                    raise self.fb.error(AlloSyntaxError, f"*{ast.unparse(a.value)} must be a tuple of extents", node)
                args += [self.fb.scalar(x) for x in v]
            else:
                args.append(self.fb.scalar(self.fb.visit(a)))
        if fn is py.range:
            name, _ = self.band_keyword(node, "range")  # upstream Allo: range(N, name="L") names the loop's band
            if not 1 <= len(args) <= 3:
                raise self.fb.error(AlloSyntaxError, "range takes 1 to 3 arguments", node)
            lb, ub, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
            if isinstance(step, Const):
                step = step.value
            if isinstance(step, Expr):  # read at run time: dsl.builder normalises the loop (run_time_step)
                return "range", [(self.bound(lb, node), self.bound(ub, node), self.bound(step, node))], name, {}
            if not emit.is_number(step) or isinstance(step, float) or step == 0:
                raise self.fb.error(AlloTypeError, "range step must be a non-zero integer (a constant, or an "
                                    "integer read at run time)", node)
            return "range", [(self.bound(lb, node), self.bound(ub, node), int(step))], name, {}
        if fn is names.grid or fn is names.reduction:
            kind = "grid" if fn is names.grid else "reduction"
            name, hints = self.band_keyword(node, kind)
            if not args:
                raise self.fb.error(AlloSyntaxError, f"allo.{kind} needs at least one extent", node)
            hints = {attr: self.loop_hint(attr, value, len(args), node) for attr, value in hints.items()}
            return kind, [(Const(0, index), self.bound(a, node), 1) for a in args], name, hints
        raise self.fb.error(AlloSyntaxError, "loops must iterate over range(...), allo.grid(...) or allo.reduction(...)", node)

    def band_keyword(self, node, kind):
        """(the `name=` of range/allo.grid/allo.reduction (a band name), {"pipeline"/"unroll": value}):
        allo.grid also takes upstream Allo's `pipeline=`/`unroll=`; any other keyword is refused."""
        name, hints = None, {}
        allowed = ("name", "pipeline", "unroll") if kind in ("grid", "reduction") else ("name",)
        kind = "range" if kind == "range" else f"allo.{kind}"
        for kw in node.keywords:
            if kw.arg not in allowed:
                what = f"**{ast.unparse(kw.value)}" if kw.arg is None else f"keyword {kw.arg!r}"
                only = ("its keywords are name= (the band name), pipeline= and unroll=" if len(allowed) > 1
                        else "its only keyword is name= (the band name)")
                raise self.fb.error(AlloSyntaxError, f"{kind}() does not take {what}; {only}", node)
            if kw.arg != "name":
                hints[kw.arg] = self.fb.visit(kw.value)
                continue
            name = self.fb.visit(kw.value)
            if not isinstance(name, str) or not name.isidentifier():
                raise self.fb.error(AlloSyntaxError, f"{kind}(name=...) must be a string that is a valid "
                                    f"identifier, got {name!r}", node)
        return name, hints

    def loop_hint(self, attr, value, n_loops, node):
        """Per-loop values of allo.grid's `pipeline=`/`unroll=` (None: leave the loop alone).

        A scalar applies to the innermost loop, a list gives one entry per loop (outermost first).
        pipeline: True -> II 1, an int >= 1 -> that II; unroll: True -> fully (factor 0), an int >= 1 ->
        that factor; False/0 leaves the loop alone (as upstream Allo)."""
        entries = list(value) if isinstance(value, (list, tuple)) else [None] * (n_loops - 1) + [value]
        if len(entries) != n_loops:
            raise self.fb.error(AlloSyntaxError, f"allo.grid({attr}=[...]) needs one entry per loop ({n_loops}), "
                                f"got {len(entries)}", node)
        out = []
        for e in entries:
            if e is None or e is False or (isinstance(e, int) and e == 0):
                out.append(None)
            elif e is True:
                out.append(1 if attr == "pipeline" else 0)
            elif isinstance(e, int) and e >= 0:
                out.append(int(e))
            else:
                raise self.fb.error(AlloSyntaxError, f"allo.grid({attr}=...) takes True/False, a non-negative "
                                    f"integer or a list of them (one per loop), got {e!r}", node)
        return out

    def bound(self, v, node):
        if emit.is_number(v):
            if isinstance(v, float):
                raise self.fb.error(AlloTypeError, f"loop bound must be an integer, got {v!r}", node)
            return Const(int(v), index)
        if isinstance(v, Expr):
            if not isinstance(v.type, (Int, UInt, Index)):
                raise self.fb.error(AlloTypeError, f"loop bound must be an integer, got {v.type!r}", node)
            return emit.cast(v, index, self.fb.loc(node))
        raise self.fb.error(AlloTypeError, "loop bound must be an integer", node)

    # ------------------------------------------------------------ calls
    def call(self, node):
        fb = self.fb
        fn = fb.visit(node.func)
        loc = fb.loc(node)
        kwargs = {k.arg: fb.visit(k.value) for k in node.keywords}
        if any(k is None for k in kwargs):
            raise fb.error(AlloSyntaxError, "**kwargs are not supported in kernel calls", node)
        args = [fb.visit(a) for a in node.args]
        if isinstance(fn, (AlloType,)):
            if kwargs or len(args) != 1:
                raise fb.error(AlloTypeError, f"a cast {fn!r}(x) takes exactly one argument", node)
            v = args[0]
            if isinstance(v, Buffer) and v.shape:
                return fb.arrays.elementwise(lambda a: emit.cast(emit.to_expr(a, None, loc), fn, loc), [v], loc)
            return fb.converted(emit.to_expr(fb.scalar(v), fn, loc), fn, loc)
        if isinstance(fn, KernelInstance):
            return self.kernel_call(fn.kernel, fn.targs, fn.inst_id, args, kwargs, node)
        if isinstance(fn, KernelDef):
            if fn.template_params:
                raise fb.error(AlloError, f"template kernel {fn.name!r} needs template arguments: "
                               f"{fn.name}[{', '.join(fn.template_params)}](...)", node)
            return self.kernel_call(fn, (), None, args, kwargs, node)
        if isinstance(fn, type) and issubclass(fn, AlloType) and not kwargs and all(emit.is_number(a) for a in args):
            # a type built at compile time, e.g. the template argument in `add[Fixed(16, 8), 4](A, B)`
            return fn(*[emit.py_number(a) for a in args])
        handler = handler_for(fn)
        if handler is not None:
            return handler(self, args, kwargs, node)
        owner = getattr(fn, "__self__", None)  # a method of a compile-time object (`pipe.put(x)`)
        if hasattr(owner, "allo_method") and not isinstance(owner, type):
            return owner.allo_method(fn.__name__, self, args, kwargs, node)
        if callable(fn) and hasattr(fn, "__code__") and not hasattr(fn, "__self__") and getattr(fn, "__module__", "") \
                and not str(getattr(fn, "__module__", "")).startswith(("numpy", "allo.", "math")):
            # a plain annotated Python function used as a sub-kernel
            return self.kernel_call(plain_kernel(fn), (), None, args, kwargs, node)
        name = getattr(fn, "__name__", repr(fn))
        raise fb.error(AlloSyntaxError, f"call of {name!r} is not supported in kernels", node)

    def kernel_call(self, kernel, targs, inst_id, args, kwargs, node):
        fb = self.fb
        loc = fb.loc(node)
        if kwargs:
            raise fb.error(AlloSyntaxError, "keyword arguments are not supported in kernel calls; pass them by position", node)
        inherited = inst_id is None and fb.mb.caller_id() is not None
        callee = fb.mb.instantiate(kernel, targs, fb.mb.caller_id() if inherited else inst_id, loc, inherited)
        args = fill_defaults(callee, args)
        if len(args) != len(callee.params):
            raise fb.error(AlloTypeError, f"kernel {callee.name!r} takes {len(callee.params)} argument(s), got {len(args)}", node)
        call_args = []
        for p, a in zip(callee.params, args):
            if p.kind == "arg":
                if not isinstance(a, Buffer) or not a.shape:
                    raise fb.error(AlloTypeError, f"argument {p.name!r} of {callee.name!r} must be an array {p.type!r}", node)
                if tuple(a.shape) != tuple(p.shape):
                    raise fb.error(AlloTypeError, f"argument {p.name!r} of {callee.name!r} expects shape {list(p.shape)}, "
                                   f"got {a.name!r} with shape {list(a.shape)}", node)
                if a.dtype != p.dtype:
                    raise fb.error(AlloTypeError, f"argument {p.name!r} of {callee.name!r} expects {p.type!r}, "
                                   f"got {a.name!r} of type {a.type!r}; cast it first", node)
                call_args.append(a)
            else:
                call_args.append(emit.cast(emit.to_expr(fb.scalar(a), p.dtype, loc), p.dtype, loc))
        results = []
        for t in callee.result_types:
            if isinstance(t, ArrayType):
                buf = Buffer(fb.fresh_buffer_name(callee.name), t, "result", loc=loc)
            else:
                buf = Buffer(fb.fresh_buffer_name(callee.name + "_res"), ArrayType(t, ()), "result", loc=loc)
            results.append(buf)
        call = CallStmt(callee.name, call_args, results, {}, loc)
        fb.mb.calls_to.setdefault(callee.name, []).append(call)
        for r in results:
            fb.result_calls[id(r)] = call
        fb.emit(call)
        write_back_views(fb, callee, call_args, loc)  # a region argument (A[2]) the callee wrote
        outs = [r if r.shape else Load(r, [], loc=loc) for r in results]
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)


def fill_defaults(func, args) -> list:
    """`args` completed with the defaults of `func`'s trailing scalar parameters (`eps=1e-5`)."""
    args = list(args)
    defaults = func.attrs.get(DEFAULTS) or {}
    while len(args) < len(func.params) and len(args) in defaults:
        args.append(defaults[len(args)])
    return args


def plain_kernel(fn):
    """The kernel of a plain annotated function (one per function, so calls of it share an instance)."""
    cached = getattr(fn, "__allo_kernel__", None)
    if cached is None:
        cached = KernelDef(fn)
        try:
            fn.__allo_kernel__ = cached
        except AttributeError:  # pragma: no cover
            pass
    return cached


# ---------------------------------------------------------------- builtin handlers
def _one_scalar_or_array(d, args, node, fn_scalar, band=None):
    if len(args) != 1:
        raise d.fb.error(AlloTypeError, "expected one argument", node)
    v = args[0]
    loc = d.fb.loc(node)
    if isinstance(v, Buffer) and v.shape:
        return d.fb.arrays.elementwise(lambda a: fn_scalar(a, loc), [v], loc, band=band)
    return fn_scalar(d.fb.scalar(v), loc)


def _math(name):
    def handler(d, args, kwargs, node):
        params = (("x", REQUIRED), ("y", REQUIRED)) if name == MathFn.POW else (("x", REQUIRED),)
        args, band = bind_args(d.fb, node, name, params, args, kwargs)
        if name == MathFn.POW:
            if len(args) != 2:
                raise d.fb.error(AlloTypeError, "pow takes two arguments", node)
            a, b = (d.fb.value(x) for x in args)
            loc = d.fb.loc(node)
            if isinstance(a, Buffer) or isinstance(b, Buffer):
                return d.fb.arrays.elementwise(lambda x, y: emit.power(x, y, loc), [a, b], loc, band=band)
            return emit.power(a, b, loc)

        def scalar_fn(a, loc):
            if emit.is_number(a):
                a = emit.to_expr(float(a) if name != MathFn.ABS else a, None, loc)
            return emit.math_call(name, [a], loc)

        return _one_scalar_or_array(d, args, node, scalar_fn, band)

    return handler


def _minmax(op):
    def handler(d, args, kwargs, node):
        if len(args) == 1 and isinstance(args[0], Buffer) and args[0].shape:
            raise d.fb.error(AlloTypeError, f"{op}(array) reductions are not supported; write a loop", node)
        if len(args) < 2:
            raise d.fb.error(AlloTypeError, f"{op} needs at least two arguments", node)
        vals = [d.fb.value(a) for a in args]
        loc = d.fb.loc(node)
        if any(isinstance(v, Buffer) for v in vals):
            result = vals[0]
            for v in vals[1:]:
                result = d.fb.arrays.elementwise(lambda x, y: emit.binary(op, x, y, loc), [result, v], loc)
            return result
        result = vals[0]
        for v in vals[1:]:
            result = emit.binary(op, result, v, loc)
        return result

    return handler


def _py_cast(kind):
    def handler(d, args, kwargs, node):
        t = float32 if kind == "float" else int32
        v = d.fb.scalar(args[0])
        if emit.is_number(v):
            return float(v) if kind == "float" else int(v)
        return emit.cast(v, t, d.fb.loc(node))

    return handler


def _len(d, args, kwargs, node):
    if len(args) != 1:
        raise d.fb.error(AlloTypeError, "len takes one argument", node)
    v = args[0]
    if isinstance(v, Buffer):
        if not v.shape:
            raise d.fb.error(AlloTypeError, f"len() of scalar {v.name!r}", node)
        if v.shape[0] is None:
            raise d.fb.error(AlloTypeError, f"len({v.name}): {v.name!r} is {v.type!r}, its length is known only at run "
                             "time; pass it as a scalar parameter (size: int32) and loop to it", node)
        return v.shape[0]
    if isinstance(v, (tuple, list, str)):
        return len(v)
    raise d.fb.error(AlloTypeError, f"len() of {describe(v)} is not supported in kernels", node)


def _transpose(d, args, kwargs, node):
    (x, axes), band = bind_args(d.fb, node, "transpose", (("x", REQUIRED), ("axes", None)), args, kwargs)
    if not isinstance(x, Buffer):
        raise d.fb.error(AlloTypeError, "transpose needs an array", node)
    return d.fb.arrays.transpose(x, axes, d.fb.loc(node), band=band)


def _composed(name):
    """log10 and tan, built from the math functions MLIR lowers everywhere."""
    def scalar(a, loc):
        a = emit.to_expr(float(a) if emit.is_number(a) else a, None, loc)
        if name == "log10":
            return emit.binary(BinOpKind.DIV, emit.math_call(MathFn.LOG, [a], loc), math.log(10.0), loc)
        sin, cos = emit.math_call(MathFn.SIN, [a], loc), emit.math_call(MathFn.COS, [a], loc)
        return emit.binary(BinOpKind.DIV, sin, cos, loc)

    def handler(d, args, kwargs, node):
        args, band = bind_args(d.fb, node, name, (("x", REQUIRED),), args, kwargs)
        return _one_scalar_or_array(d, args, node, scalar, band)

    return handler


def _register_builtins():
    """The handlers of the builtins kernel bodies call: allo's names (`allo.dsl.names`), their
    Python/math/numpy counterparts, casts, len and the whole-array operations."""
    for name in MATH_NAMES | {MathFn.POW}:
        handler = _math(name)
        targets = [getattr(names, name, None), getattr(math, name, None), getattr(np, name, None)]
        builtin(*[t for t in targets if t is not None])(handler)
    builtin(py.abs)(_math(MathFn.ABS))
    builtin(py.pow)(_math(MathFn.POW))
    builtin(py.min, np.minimum, names.min)(_minmax(BinOpKind.MIN))
    builtin(py.max, np.maximum, names.max)(_minmax(BinOpKind.MAX))
    builtin(py.len)(_len)
    builtin(py.float)(_py_cast("float"))
    builtin(py.int)(_py_cast("int"))
    builtin(names.transpose, np.transpose)(_transpose)
    whole_array.register(builtin, names)
    builtin(np.matmul)(whole_array.array_handler("matmul"))
    builtin(names.power)(_math(MathFn.POW))
    builtin(names.log10)(_composed("log10"))
    builtin(names.tan)(_composed("tan"))


_register_builtins()
