"""Streams of `allo.dataflow` regions in kernel bodies: `pipe.put(x)`, `x = fifo_A[i, j + 1].get()`.

A region's `fifo_A: Stream[T, depth][P0, P1]` is a `StreamGrid`, a compile-time object kernels
see by name; indexing it with compile-time numbers (pid arithmetic) names one FIFO, a `StreamRef`.
In the kernel instance that uses a FIFO, it is a parameter `Buffer` (1-D, element type the item's
scalar type) carrying `STREAM` (the depth) and `DF_STREAM` (its source spelling): `put` stores into
it, `get` loads from it, one statement per scalar, in order. The backends give these accesses FIFO
semantics (the CPU: a write and a read counter, `transforms.streams`; HLS: `hls::stream`; the
simulator: blocking FIFOs). An array item (`Stream[int16[4, 4], 2]`) travels as its elements in
row-major order.

Example (what `pipe.put(out)` and `d = pipe.get()` build in an instance)::

    Store(pipe, [0], out)              # pipe: Buffer attrs {stream: 4, _df_stream: {...}}
    Alloc(d_get, Load(pipe, [0]))
"""
from __future__ import annotations

import itertools

from ..errors import AlloSyntaxError, AlloTypeError
from ..ir import emit
from ..ir.attrs import DF_STREAM, STREAM, TEMP
from ..ir.nodes import Alloc, Buffer, Const, Expr, For, If, Load, Store, While
from ..ir.types import ArrayType, StreamType, index
from ..ir.visit import stmt_exprs, walk_expr


class StreamGrid:
    """A region's stream declaration `name: Stream[T, depth][grid]` (a single FIFO when the grid is
    empty). Kernels index it (`fifo_A[i, j + 1]`) with compile-time numbers."""

    def __init__(self, name: str, stype: StreamType, loc=None):
        self.name, self.type, self.loc = name, stype, loc

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if not self.type.grid:
            raise AlloTypeError(f"stream {self.name!r} is a single FIFO ({self.type!r}); use {self.name}.put(...) "
                                f"and {self.name}.get() without an index")
        if len(key) != len(self.type.grid):
            raise AlloTypeError(f"stream grid {self.name!r} has {len(self.type.grid)} dimension(s) "
                                f"{list(self.type.grid)}, indexed with {len(key)}")
        idx = []
        for k, d in zip(key, self.type.grid):
            if isinstance(k, (Expr, Buffer)) or not emit.is_number(k) or isinstance(k, float):
                raise AlloTypeError(f"the index of stream grid {self.name!r} must be known at compile time "
                                    f"(df.get_pid() values, meta_for variables, constants); got a run-time value")
            k = int(k)
            if not 0 <= k < d:
                raise AlloTypeError(f"stream {self.name}[{', '.join(map(str, key))}] is outside the grid "
                                    f"{list(self.type.grid)} of {self.name!r}")
            idx.append(k)
        return StreamRef(self, tuple(idx))

    def put(self, value):  # the names kernel code calls (the builder translates them)
        raise AlloSyntaxError(f"{self.name}.put() only works inside a df.kernel body")

    def get(self):
        raise AlloSyntaxError(f"{self.name}.get() only works inside a df.kernel body")

    def allo_method(self, method, dispatcher, args, kwargs, node):
        if self.type.grid:
            raise dispatcher.fb.error(AlloTypeError, f"{self.name!r} is a grid of streams {list(self.type.grid)}; "
                                      f"pick one with {self.name}[...].{method}()", node)
        return StreamRef(self, ()).allo_method(method, dispatcher, args, kwargs, node)

    def refs(self):
        """Every FIFO of the grid."""
        return [StreamRef(self, idx) for idx in itertools.product(*(range(d) for d in self.type.grid))]

    def __repr__(self):
        return f"<stream {self.name}: {self.type!r}>"


class StreamRef:
    """One FIFO of a region: grid `grid` at position `idx`."""

    def __init__(self, grid: StreamGrid, idx: tuple):
        self.grid, self.idx = grid, idx

    @property
    def key(self):
        return (id(self.grid), self.idx)

    @property
    def display(self) -> str:
        """The FIFO as the source spells it: `fifo_A[1, 2]`, `pipe`."""
        return f"{self.grid.name}[{', '.join(map(str, self.idx))}]" if self.idx else self.grid.name

    @property
    def flat_name(self) -> str:
        return "_".join([self.grid.name, *map(str, self.idx)])

    def put(self, value):  # the names kernel code calls (the builder translates them)
        raise AlloSyntaxError(f"{self.display}.put() only works inside a df.kernel body")

    def get(self):
        raise AlloSyntaxError(f"{self.display}.get() only works inside a df.kernel body")

    def allo_method(self, method, dispatcher, args, kwargs, node):
        fb = dispatcher.fb
        if kwargs:
            raise fb.error(AlloSyntaxError, f"{self.display}.{method}() takes no keyword arguments", node)
        if not hasattr(fb, "stream_param"):
            raise fb.error(AlloSyntaxError, f"stream {self.display!r} can only be used directly in a df.kernel body "
                           f"(not in a helper function it calls)", node)
        if method == "put":
            if len(args) != 1:
                raise fb.error(AlloTypeError, f"{self.display}.put(value) takes one value, got {len(args)}", node)
            return put(fb, self, args[0], node)
        if method == "get":
            if args:
                raise fb.error(AlloTypeError, f"{self.display}.get() takes no arguments", node)
            return get(fb, self, node)
        raise fb.error(AlloSyntaxError, f"streams have the methods put(value) and get(), not {method!r}", node)

    def __repr__(self):
        return f"<stream {self.display}>"


def new_stream_buffer(ref: StreamRef, kind: str, loc=None) -> Buffer:
    """The Buffer standing for FIFO `ref` (a parameter of an instance, a local of the region);
    its length is set once the region knows how many elements pass (`set_bound`)."""
    t = ref.grid.type
    buf = Buffer(ref.flat_name, ArrayType(t.item_type, (1,)), kind, loc=loc)
    buf.attrs[STREAM] = t.depth
    buf.attrs[DF_STREAM] = {"name": ref.display, "item": t.item_elems, "depth": t.depth, "bound": None}
    return buf


def set_bound(buf: Buffer, bound):
    """Give stream buffer `buf` room for `bound` elements (None: not known at compile time)."""
    buf.attrs[DF_STREAM]["bound"] = bound
    buf.type = ArrayType(buf.dtype, (max(1, bound or 1),))


def _slot():
    return [Const(0, index)]


def put(fb, ref: StreamRef, value, node):
    loc = fb.loc(node)
    buf = fb.stream_param(ref, "put", node)
    item = ref.grid.type.dtype
    if isinstance(item, ArrayType):
        if not isinstance(value, Buffer) or tuple(value.shape) != tuple(item.shape):
            raise fb.error(AlloTypeError, f"{ref.display} carries {item!r} blocks; put() needs an array of shape "
                           f"{list(item.shape)}, got {_what(value)}", node)
        fb.arrays.loop_nest(item.shape, lambda ivs: [Store(buf, _slot(), _cast(Load(value, list(ivs), loc=loc),
                                                                                 item.dtype, loc), loc)], loc, "s")
        return None
    if isinstance(value, Buffer) and value.shape:
        raise fb.error(AlloTypeError, f"{ref.display} carries scalars of type {item!r}; put() got array "
                       f"{value.name!r}", node)
    fb.emit(Store(buf, _slot(), _cast(fb.scalar(value), item, loc), loc))
    return None


def get(fb, ref: StreamRef, node):
    loc = fb.loc(node)
    buf = fb.stream_param(ref, "get", node)
    item = ref.grid.type.dtype
    if isinstance(item, ArrayType):
        out = fb.arrays.new_temp(item.dtype, item.shape, loc, f"{ref.grid.name}_blk")
        fb.arrays.loop_nest(item.shape, lambda ivs: [Store(out, list(ivs), Load(buf, _slot(), loc=loc), loc)],
                            loc, "s")
        out.attrs[TEMP] = True
        return out
    tmp = Buffer(fb.fresh_buffer_name(f"{ref.grid.name}_val"), ArrayType(item, ()), "local", loc=loc)
    fb.emit(Alloc(tmp, Load(buf, _slot(), loc=loc), loc))
    return Load(tmp, [], loc=loc)


def _cast(v, t, loc):
    return emit.cast(emit.to_expr(v, t, loc), t, loc)


def _what(v):
    if isinstance(v, Buffer):
        return f"{'array' if v.shape else 'scalar'} {v.name!r}"
    return "a scalar"


# ----------------------------------------------------------------------------- counting
def count_accesses(body, buf):
    """(puts, gets) of stream buffer `buf` in statements `body`, in scalars, each a pair
    (exact count or None when a branch or a run-time bound makes it unknown, upper bound or None
    when unbounded)."""
    puts, gets = [0, 0], [0, 0]  # [exact, upper]; exact None once unknown

    def walk(stmts, mult, exact):
        for s in stmts:
            n_loads = sum(1 for e in stmt_exprs(s) for x in walk_expr(e) if isinstance(x, Load) and x.buf is buf)
            n_stores = 1 if isinstance(s, Store) and s.buf is buf else 0
            for acc, n in ((puts, n_stores), (gets, n_loads)):
                if n:
                    _add(acc, n, mult, exact)
            if isinstance(s, For):
                trips = _trips(s)
                walk(s.body, None if mult is None or trips is None else mult * trips, exact and trips is not None)
            elif isinstance(s, If):
                walk(s.then, mult, False)
                walk(s.orelse, mult, False)
            elif isinstance(s, While):
                walk(s.body, None, False)

    walk(body, 1, True)
    return tuple(puts), tuple(gets)


def _add(acc, n, mult, exact):
    acc[1] = None if acc[1] is None or mult is None else acc[1] + n * mult
    acc[0] = acc[0] + n * mult if acc[0] is not None and exact and mult is not None else None


def _trips(loop):
    lb, ub = loop.lb, loop.ub
    if isinstance(lb, Const) and isinstance(ub, Const):
        return max(0, -(-(int(ub.value) - int(lb.value)) // loop.step))
    return None


__all__ = ["StreamGrid", "StreamRef", "new_stream_buffer", "set_bound", "count_accesses"]
