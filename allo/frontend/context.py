"""The lowering context the op handlers work with (stage 3, see lower.py): torch values as Views,
arrays of a required shape, library calls, generated elementwise / reduction / copy kernels, and
checked index operands.

Element types come from the TypePlan (precision.py), never from torch directly, so per-layer
precision plugs in there.

Example (inside a handler)::

    x = ctx.arr(a["input"], (M, K))             # DSL array name holding input as [M, K]
    out = ctx.nn("linear", [T, M, N, K], [x, w, b], out_sizes, (M, N))
    y = ctx.ew("add", lambda p, q: f"{p} + {q}", [out, bias])
"""
from __future__ import annotations

import numpy as np

from ..errors import FrontendError
from ..ir.types import int64
from .codegen import Program, literal, loop_text, rename_loops, split_loops
from .graph import Const
from .layout import Buf, View, contiguous_strides, numel, plan_loops, rank1 as _rank1, view_window
from .precision import TypePlan


class Lowering:
    """Holds the Program and the current node; see the module docstring."""

    def __init__(self, prog: Program, types: TypePlan):
        self.prog = prog
        self.types = types
        self.node = None  # TNode being lowered
        self.hint = "t"  # variable name for the node's result
        self._consts = {}  # id(Const) -> View
        self._copies = {}  # view key + shape -> View

    # ---------------------------------------------------------------- values
    def dtype(self, torch_dtype=None):
        """The element type of the current node's result (or of `torch_dtype`), from the TypePlan."""
        return self.types.value_type(self.node, torch_dtype)

    def view(self, x) -> View:
        """A torch value (View or Const) as a View; constants become weights on first use."""
        if isinstance(x, View):
            return x
        if isinstance(x, Const):
            if id(x) not in self._consts:
                import torch

                t = x.tensor
                if not isinstance(t, torch.Tensor):
                    raise FrontendError(f"constant {x.name!r} is not a tensor")
                array = t.detach().contiguous().cpu()
                array = array.float().numpy() if array.dtype == torch.bfloat16 else array.numpy()
                buf = self.prog.add_weight(x.name, array, self.types.weight_type(x))
                self._consts[id(x)] = (x, View.whole(buf, tuple(t.shape)))
            return self._consts[id(x)][1]
        raise FrontendError(f"{self.where()}: expected a tensor, got {type(x).__name__} {x!r}")

    def scalar(self, x):
        """A Python number for scalars and one-element constant tensors, else None."""
        if isinstance(x, (bool, int, float, np.number)):
            return x
        if isinstance(x, Const) and hasattr(x.tensor, "numel") and x.tensor.numel() == 1 and x.tensor.dim() == 0:
            return x.tensor.item()
        return None

    def sizes(self, x) -> tuple:
        if isinstance(x, View):
            return x.sizes
        if isinstance(x, Const):
            return tuple(x.tensor.shape)
        return ()

    def where(self) -> str:
        return self.node.where() if self.node is not None else "model"

    def error(self, message) -> FrontendError:
        return FrontendError(f"{self.node.key} at {self.where()}: {message}")

    # ---------------------------------------------------------------- arrays
    def arr(self, x, shape=None) -> str:
        """Name of a DSL array of exactly `shape` (default: the logical sizes) holding x row-major.
        Free when x is a whole array of that shape; otherwise a generated copy kernel."""
        return self.laid_out(x, shape).name

    def laid_out(self, x, shape=None) -> Buf:
        """The Buf behind `arr` (see there)."""
        v = self.view(x)
        shape = tuple(shape if shape is not None else v.sizes) or (1,)
        if numel(shape) != numel(v.sizes):
            raise FrontendError(f"internal: {list(v.sizes)} cannot be laid out as {list(shape)}")
        if v.is_whole() and (tuple(v.buf.shape) == shape or self.prog.try_reshape(v.buf, shape)):
            return v.buf
        key = (id(v.buf), v.sizes, v.strides, v.offset, shape)
        if key not in self._copies:
            self._copies[key] = self.prog.loop_kernel("copy", v.sizes, v.dtype, [v], lambda r: r,
                                                      self.hint + "_in" if self.hint else "copy", out_shape=shape)
        return self._copies[key].buf

    def rows(self, x, last=None):
        """(array name, (M, N)) of x as a 2-D array whose rows run over the last dim."""
        v = self.view(x)
        n = last if last is not None else (v.sizes[-1] if v.sizes else 1)
        shape = (numel(v.sizes) // n, n)
        if v.is_whole() and len(v.buf.shape) == 2 and v.buf.shape[1] == n:
            return v.buf.name, tuple(v.buf.shape)
        return self.arr(v, shape), shape

    # ---------------------------------------------------------------- emission
    def nn(self, kernel, targs, args, out_sizes, out_shape=None, dtype=None) -> View:
        """Call library kernel `nn.<kernel>[targs]` on array names/literals; the result as a View."""
        dtype = dtype or self.dtype()
        out_shape = tuple(out_shape or out_sizes)
        buf = self.prog.nn_call(kernel, targs, args, out_shape, dtype, self.hint)
        return View.whole(buf, tuple(out_sizes))

    def ew(self, op, expr_fn, operands, out_sizes=None, dtype=None, cast=True) -> View:
        """Elementwise: `expr_fn(*operand strings)` over the broadcast of operands (Views, Consts or
        numbers). Tensor operands of another dtype are cast to the result type when `cast`."""
        dtype = dtype or self.dtype()
        out_sizes = tuple(out_sizes if out_sizes is not None else self.node.shape)
        views, slots, casts = [], [], []
        for pos, x in enumerate(operands):
            s = self.scalar(x)
            if s is not None and not isinstance(x, View):
                slots.append(("lit", literal(s)))
                continue
            v = self.view(x)
            try:
                v = v.expand(out_sizes) if v.sizes != out_sizes else v
            except FrontendError:
                raise self.error(f"cannot broadcast {list(v.sizes)} to {list(out_sizes)}") from None
            slots.append(("view", len(views)))
            casts.append(cast is True or (not isinstance(cast, bool) and pos in cast))
            views.append(v)
        if not views:
            raise self.error("elementwise op without tensor operands")
        out_shape = None
        for v in views:
            if v.is_whole() and v.sizes == out_sizes:
                out_shape = tuple(v.buf.shape)
                break
        def castfmt(s, i):
            return f"{dtype!r}({s})" if casts[i] and views[i].dtype != dtype else s

        def expr(*reads):
            parts = [val if kind == "lit" else castfmt(reads[val], val) for kind, val in slots]
            return expr_fn(*parts)

        return self.prog.loop_kernel(op, out_sizes, dtype, views, expr, self.hint, out_shape)

    def reduce(self, op, x, dims, keepdim, init, combine, finish=None, dtype=None) -> View:
        """Reduce x over `dims`: `acc = init; acc = combine(acc, x); Y = finish(acc, count)`."""
        v = self.view(x)
        dtype = dtype or self.dtype()
        rank = v.rank
        dims = sorted({d % rank for d in dims}) if rank else []
        kept = [d for d in range(rank) if d not in dims]
        pv = v.permute(kept + dims)
        ksizes = tuple(v.sizes[d] for d in kept)
        rsizes = tuple(v.sizes[d] for d in dims)
        count = numel(rsizes)
        out_sizes = tuple(1 if d in dims else v.sizes[d] for d in range(rank)) if keepdim else ksizes
        out_buf = Buf("Y", tuple(ksizes) or (1,), dtype)
        out_view = View(out_buf, ksizes + rsizes, contiguous_strides(ksizes) + (0,) * len(rsizes), 0)
        extents, names, idx = plan_loops(ksizes + rsizes, [out_view, _rank1(pv)], splits=[(numel(ksizes), count)])
        k = split_loops(extents, names, numel(ksizes))
        new = [f"i{j}" for j in range(k)] + [f"r{j}" for j in range(len(extents) - k)]
        idx = rename_loops(idx, names, new)
        params = [("X", pv.buf)]
        read = f"X[{', '.join(idx[1])}]"
        if pv.dtype != dtype:
            read = f"{dtype!r}({read})"
        inner = loop_text(extents[k:], new[k:], [f"acc = {combine('acc', read)}"], kind="reduction")
        result = finish("acc", count) if finish else "acc"
        body = [f"acc: {dtype!r} = {init}"] + inner + [f"Y[{', '.join(idx[0])}] = {result}"]
        lines = loop_text(extents[:k], new[:k], body)
        buf = self.prog.helper_call(op, params, lines, out_buf.shape, dtype, self.hint)
        return View.whole(buf, out_sizes)

    def concat(self, xs, dim, out_sizes) -> View:
        """torch.cat: one loop nest per input writing its slice of the result."""
        dtype = self.dtype()
        views = [self.view(x) for x in xs]
        rank = len(out_sizes)
        dim = dim % rank
        out_buf = Buf("Y", tuple(out_sizes), dtype)
        params, pnames = [], {}
        for v in views:
            if id(v.buf) not in pnames:
                pnames[id(v.buf)] = f"X{len(params)}"
                params.append((pnames[id(v.buf)], v.buf))
        lines, offset = [], 0
        for n, v in enumerate(views):
            if numel(v.sizes) == 0:
                continue
            dst = View.whole(out_buf).slice(dim, offset, offset + v.sizes[dim])
            extents, names, idx = plan_loops(v.sizes, [dst, _rank1(v)], prefix=chr(ord("a") + n % 26))
            lines += loop_text(extents, names, [f"Y[{', '.join(idx[0])}] = {pnames[id(v.buf)]}[{', '.join(idx[1])}]"])
            offset += v.sizes[dim]
        buf = self.prog.helper_call("cat", params, lines, out_buf.shape, dtype, self.hint)
        return View.whole(buf)

    def output_buf(self, v: View) -> Buf:
        """The array a model output is returned from (a copy unless it is a fresh whole array)."""
        if v.is_whole() and v.buf.kind == "local" and all(v.buf is not b for b in self.prog.outputs):
            return v.buf
        return self.prog.loop_kernel("copy", v.sizes, v.dtype, [v], lambda r: r, self.hint).buf

    # ---------------------------------------------------------------- index operands
    def checked_ids(self, ids, n, negative=False, what="index") -> View:
        """`ids` as a View safe to index a dimension of size n: constants are checked now, views of a
        model input are checked on the caller's arrays before each call, and computed ids are
        clamped in the kernel while a count of bad ids is returned for the module to raise on.
        Valid ids are 0..n-1 (also -n..-1 when `negative`)."""
        low = -n if negative else 0
        message = f"{what} out of range (valid: {low}..{n - 1}) at {self.where()}"
        v = self.view(ids)
        if v.buf.kind == "const":
            window = view_window(self.prog.weights[v.buf.name][1], v)
            if window.size and (int(window.min()) < low or int(window.max()) >= n):
                bad = int(window[(window < low) | (window >= n)].reshape(-1)[0])
                raise self.error(f"{what} {bad} out of range (valid: {low}..{n - 1})")
            return v
        if v.buf.kind == "input" and v.buf in self.prog.inputs[:self.prog.n_user_inputs]:
            self.prog.id_checks.append((self.prog.inputs.index(v.buf), v, low, n, message))
            return v
        return self._clamped_ids(v, low, n, message)

    def _clamped_ids(self, v: View, low, n, message) -> View:
        hint = self.hint
        self.hint = f"{hint}_ids"
        try:
            count = self.reduce("count_bad_ids", v, list(range(v.rank)), False, "0",
                                lambda s, x: f"{s} + (1 if ({x} < {low} or {x} >= {n}) else 0)", dtype=self._int64())
            index = self.prog.add_output(self.output_buf(count))
            self.prog.check_outputs.append((index, message))
            return self.ew("clamp_ids", lambda x: f"min(max({x}, {low}), {n - 1})", [v], out_sizes=v.sizes,
                           dtype=v.dtype)
        finally:
            self.hint = hint

    @staticmethod
    def _int64():
        return int64

