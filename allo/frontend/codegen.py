"""Stage 4 of the import: the generated DSL program (statements, helper kernels, weights) and its
source text.

A `Program` collects what the op handlers emit while lowering: library calls (`nn.linear[float32,
8, 32, 16, "1"]`; calls with equal template arguments share one instance, so a 12-layer model has
one `linear` per distinct shape), small generated helper kernels for data movement and elementwise
math (identical ones are defined once), and the weights: module globals `g_<name>` bound at the top
of `forward` (memref.global constants), or extra `forward` arguments that the built module passes
itself (`weights_as_args=True`, and by default every weight above `WEIGHT_ARG_LIMIT` elements: the
JIT and the HLS C++ would otherwise copy hundreds of MB of literals). `render()` returns the source
text; `load()` executes it under a linecache-registered file name so allo's source capture reads it.

Example::

    prog = Program()
    x = prog.add_input("data", (8, 16), float32)
    w = prog.add_weight("linear1_weight", np.zeros((32, 16), np.float32), float32)
    ...
    print(prog.render())
"""
from __future__ import annotations

import builtins as py
import keyword
import linecache
import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import FrontendError
from ..ir import types
from ..ir.types import MAX_BITS, Fixed, Int, UFixed, UInt
from ..library import lang as allo_names, nn  # what generated code spells `allo.grid`, `allo.exp`
from .layout import Buf, View, numel, plan_loops, rank1
from .precision import torch_dtype_to_allo  # noqa: F401 - re-exported for older imports

WEIGHT_ARG_LIMIT = 65536  # elements; larger weights are forward() arguments unless weights_as_args=False

RESERVED = {"allo", "nn", "forward", "INF", "NEG_INF", "NAN", "Y", "acc", "range", "min", "max", "float", "int",
            "abs", "pow", "len", "print", "bool", "index", "True", "False", "None"}
TYPE_NAMES = ["bool", "index", "float16", "float32", "float64", "bfloat16"]
# Generated code spells integer types as their repr (`int4`, `uint12`, `int24`): every such name
# resolves, at every width, whether or not allo.ir.types has an alias for it.
INT_TYPES = {repr(T(b)): T(b) for T in (Int, UInt) for b in range(2, MAX_BITS + 1)} | {"int1": Int(1), "uint1": UInt(1)}
RESERVED |= set(TYPE_NAMES)
_TYPE_NAME = re.compile(r"u?int\d+")


def type_str(dtype, shape) -> str:
    return f"{dtype!r}[{', '.join(str(d) for d in shape)}]"


def literal(v) -> str:
    """Python source for a scalar constant inside kernel code."""
    if isinstance(v, (py.bool, np.bool_)):
        return "1" if v else "0"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INF" if v > 0 else "NEG_INF"
    return repr(v)


@dataclass
class NnCall:
    """`var = nn.kernel[targs, "id"](args)`; the id is assigned when the program is rendered."""

    var: str
    kernel: str
    targs: tuple
    args: tuple
    inst_id: str | None = None

    def instance(self) -> str:
        targs = [repr(t) if not isinstance(t, str) else t for t in self.targs]
        if self.inst_id is not None:
            targs.append(f'"{self.inst_id}"')
        return f"nn.{self.kernel}[{', '.join(targs)}]"

    def render(self) -> str:
        return f"{self.var} = {self.instance()}({', '.join(self.args)})"

    def targs_key(self) -> tuple:
        return tuple(repr(t) for t in self.targs)


@dataclass
class HelperCall:
    """`out = helper(args)`; `regen(shape)` re-plans the helper to produce another shape."""

    out: Buf
    helper: str
    args: list
    regen: object = None

    def instance(self) -> str:
        return self.helper

    def render(self) -> str:
        return f"{self.out.name} = {self.helper}({', '.join(b.name for b in self.args)})"


@dataclass
class Layer:
    """One row of the per-layer summary (`allo compile` prints these)."""

    node: str
    op: str
    kernel: str
    in_shapes: list
    out_shape: tuple | None
    schedule: str = ""
    var: str = ""
    calls: list = field(default_factory=list)


class Program:
    """The generated DSL program of one model; see the module docstring."""

    def __init__(self, weights_as_args=None):
        self.weights_as_args = weights_as_args  # True: all weights are arguments, False: none, None: large ones
        self.names = set(RESERVED)
        self.inputs = []  # Bufs of model inputs, then of the buffers the model mutates (state)
        self.n_user_inputs = 0
        self.weights = {}  # var name -> (Buf, numpy array)
        self.stmts = []  # NnCall or str lines of forward's body
        self.helpers = {}  # body text -> (name, full text)
        self.helper_order = []
        self.outputs = []  # Bufs returned by forward: model outputs, then state updates, then id checks
        self.model_outputs = []  # per flat model output: ("array", index into outputs, sizes) or ("value", v)
        self.state = []  # (StateVar, input Buf, output index) per buffer the model mutates
        self.id_checks = []  # (input index, View, low, high, message): checked on the caller's arrays
        self.check_outputs = []  # (output index, message): counts of bad ids computed in the kernel
        self.uses = {}  # id(Buf) -> number of references in emitted code
        self.bufs = {}  # name -> Buf
        self.inner_loops = {}  # helper name -> names of its innermost loops
        self.outer_loops = {}  # helper name -> [(loop names, extents)] of its top-level loop nests
        self.producers = {}  # id(Buf) -> HelperCall that computes it
        self.layers = []
        self.current = None  # the Layer being emitted

    # ---------------------------------------------------------------- names
    def fresh(self, hint: str) -> str:
        name = re.sub(r"\W", "_", str(hint)) or "t"
        if name[0].isdigit():
            name = "t_" + name
        if keyword.iskeyword(name) or name.startswith("__"):
            name = "v_" + name.strip("_")
        if _TYPE_NAME.fullmatch(name):  # a type name of the generated code
            name = "v_" + name
        base, n = name, 0
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    # ---------------------------------------------------------------- inputs and weights
    def new_buf(self, hint, shape, dtype, kind="local") -> Buf:
        buf = Buf(self.fresh(hint), tuple(shape) or (1,), dtype, kind)
        self.bufs[buf.name] = buf
        return buf

    def add_input(self, hint, shape, dtype) -> Buf:
        buf = self.new_buf(hint, shape, dtype, "input")
        self.inputs.append(buf)
        return buf

    def add_weight(self, hint, array: np.ndarray, dtype) -> Buf:
        array = np.ascontiguousarray(array)
        if array.ndim == 0:
            array = array.reshape(1)
        if array.dtype == np.bool_:
            array = array.astype(np.bool_)
        buf = self.new_buf(hint, array.shape, dtype, "const")
        self.weights[buf.name] = (buf, array)
        return buf

    def global_name(self, buf: Buf) -> str:
        return f"g_{buf.name}"

    def is_arg_weight(self, name: str) -> bool:
        """Whether weight `name` is a forward() argument (else a memref.global constant)."""
        if self.weights_as_args is not None:
            return bool(self.weights_as_args)
        return self.weights[name][1].size > WEIGHT_ARG_LIMIT

    def arg_weights(self) -> list:
        """[(name, array)] of the weights passed as forward() arguments, in argument order."""
        return [(name, arr) for name, (_, arr) in self.weights.items() if self.is_arg_weight(name)]

    def add_output(self, buf: Buf) -> int:
        """Return `buf` from forward; its index among the results."""
        self.use(buf)
        self.outputs.append(buf)
        return len(self.outputs) - 1

    # ---------------------------------------------------------------- statements
    def use(self, *bufs):
        """Mark arrays as referenced by emitted code (their shape is then fixed)."""
        for b in bufs:
            if isinstance(b, Buf):
                self.uses[id(b)] = self.uses.get(id(b), 0) + 1

    def can_reshape(self, buf: Buf, shape) -> bool:
        """Whether try_reshape(buf, shape) would succeed (no side effects)."""
        shape = tuple(shape)
        if tuple(buf.shape) == shape:
            return True
        if self.uses.get(id(buf)) or numel(shape) != numel(buf.shape):
            return False
        if buf.kind in ("const", "input"):
            return True
        stmt = self.producers.get(id(buf))
        return buf.kind == "local" and stmt is not None and stmt.regen is not None

    def try_reshape(self, buf: Buf, shape) -> bool:
        """Give a not-yet-used array another shape of the same size, at no cost: weights are
        reshaped, inputs take the new shape (the caller's arrays are reshaped), and generated
        loop kernels are re-planned to write that shape. False if the shape is already fixed."""
        shape = tuple(shape)
        if self.uses.get(id(buf)) or numel(shape) != numel(buf.shape):
            return False
        if buf.kind == "const":
            b, array = self.weights[buf.name]
            self.weights[buf.name] = (b, array.reshape(shape))
        elif buf.kind == "local":
            stmt = self.producers.get(id(buf))
            if stmt is None or stmt.regen is None:
                return False
            stmt.helper = stmt.regen(shape)
        elif buf.kind != "input":
            return False
        buf.shape = shape
        return True

    def nn_call(self, kernel: str, targs, args, out_shape, dtype, hint) -> Buf:
        """Emit `out = nn.kernel[targs](args)`; args are Bufs or literal strings."""
        out = self.new_buf(hint, out_shape, dtype)
        self.use(*[self.bufs.get(a, a) for a in args])
        call = NnCall(out.name, kernel, tuple(targs), tuple(a.name if isinstance(a, Buf) else a for a in args))
        self.stmts.append(call)
        if self.current is not None:
            self.current.calls.append(call)
        return out

    def define_helper(self, op: str, params, body_lines, out_shape, dtype) -> str:
        """Define (or reuse an identical) helper kernel `def <op>_kN(<params>) -> dtype[out_shape]`
        whose body fills `Y`; returns its name. `params` is [(param name, Buf)]. The innermost loop
        of each loop nest is recorded in `inner_loops` (the frontend pipelines them)."""
        sig = ", ".join(f"{p}: {type_str(b.dtype, b.shape)}" for p, b in params)
        ret = type_str(dtype, out_shape)
        body = [f"    Y: {ret}"] + ["    " + ln for ln in body_lines] + ["    return Y"]
        key = f"({sig}) -> {ret}:\n" + "\n".join(body)
        if key not in self.helpers:
            name = self.fresh(f"{op}_k{len(self.helpers)}")
            self.helpers[key] = (name, f"def {name}{key}\n")
            self.helper_order.append(key)
            self.inner_loops[name] = innermost_loops(body_lines)
            self.outer_loops[name] = outermost_loops(body_lines)
        return self.helpers[key][0]

    def helper_call(self, op: str, params, body_lines, out_shape, dtype, hint, regen=None) -> Buf:
        """Define a helper (see define_helper) and emit `out = helper(args)`."""
        name = self.define_helper(op, params, body_lines, out_shape, dtype)
        out = self.new_buf(hint, out_shape, dtype)
        stmt = HelperCall(out, name, [b for _, b in params], regen)
        self.use(*stmt.args)
        self.stmts.append(stmt)
        self.producers[id(out)] = stmt
        if self.current is not None:
            self.current.calls.append(stmt)
        return out

    # ---------------------------------------------------------------- loop helpers
    def loop_kernel(self, op, out_sizes, dtype, operands, expr_fn, hint, out_shape=None, splits=()) -> View:
        """A helper whose single loop nest computes `Y = expr_fn(*operand reads)` elementwise over
        `out_sizes`; operands are Views with sizes == out_sizes (broadcast via expand)."""
        sizes = tuple(out_sizes) or (1,)
        operands = [rank1(v) for v in operands]
        params, pnames = _params(operands)

        def make(shape):
            out_view = View.whole(Buf("Y", shape, dtype), sizes)
            extents, names, idx = plan_loops(sizes, [out_view] + operands, splits)
            reads = [f"{pnames[id(v.buf)]}[{', '.join(ix)}]" for v, ix in zip(operands, idx[1:])]
            stmt = f"Y[{', '.join(idx[0])}] = {expr_fn(*reads)}"
            return self.define_helper(op, params, loop_text(extents, names, [stmt]), shape, dtype)

        out_shape = tuple(out_shape or sizes)
        name = make(out_shape)
        out = self.new_buf(hint, out_shape, dtype)
        stmt = HelperCall(out, name, [b for _, b in params], make)
        self.use(*stmt.args)
        self.stmts.append(stmt)
        self.producers[id(out)] = stmt
        if self.current is not None:
            self.current.calls.append(stmt)
        return View.whole(out, tuple(out_sizes))

    def render(self, forward_name="forward") -> str:
        """The full source: `forward` first (like the seed), then the helper kernels."""
        self.assign_instance_ids()
        params = [f"{b.name}: {type_str(b.dtype, b.shape)}" for b in self.inputs]
        lines = []
        for name, (buf, _) in self.weights.items():
            if self.is_arg_weight(name):
                params.append(f"{name}: {type_str(buf.dtype, buf.shape)}")
            else:
                lines.append(f"    {name}: {type_str(buf.dtype, buf.shape)} = {self.global_name(buf)}")
        lines += ["    " + s.render() for s in self.stmts]
        rets = ", ".join(type_str(b.dtype, b.shape) for b in self.outputs)
        lines.append(f"    return ({', '.join(b.name for b in self.outputs)})")
        text = f"def {forward_name}({', '.join(params)}) -> ({rets}):\n" + "\n".join(lines) + "\n"
        used = {s.helper for s in self.stmts if isinstance(s, HelperCall)}
        for key in self.helper_order:
            if self.helpers[key][0] in used:
                text += "\n\n" + self.helpers[key][1]
        return text

    def assign_instance_ids(self):
        """Calls with equal template arguments share an instance; a kernel used with several
        distinct argument lists numbers them "1", "2", ... in order of first use."""
        distinct = {}
        for s in self.stmts:
            if isinstance(s, NnCall):
                keys = distinct.setdefault(s.kernel, [])
                if s.targs_key() not in keys:
                    keys.append(s.targs_key())
        for s in self.stmts:
            if isinstance(s, NnCall):
                keys = distinct[s.kernel]
                s.inst_id = str(keys.index(s.targs_key()) + 1) if len(keys) > 1 else None

    def namespace(self) -> dict:
        ns = {"__name__": "allo_frontend_generated", "allo": allo_names, "nn": nn,
              "INF": float("inf"), "NEG_INF": float("-inf"), "NAN": float("nan")}
        ns.update({t: getattr(types, t) for t in TYPE_NAMES})
        ns.update(INT_TYPES)
        ns.update(Fixed=Fixed, UFixed=UFixed, Int=Int, UInt=UInt)  # quantized imports
        for name, (buf, array) in self.weights.items():
            if not self.is_arg_weight(name):
                ns[self.global_name(buf)] = array
        return ns

    def load(self, text: str, filename: str, forward_name="forward"):
        """Execute the generated source (registered in linecache) and return its forward function."""
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        ns = self.namespace()
        exec(compile(text, filename, "exec"), ns)  # noqa: S102 - our own generated code
        return ns[forward_name]


def _params(operands):
    params, pnames = [], {}
    for v in operands:
        if id(v.buf) not in pnames:
            pnames[id(v.buf)] = f"X{len(params)}" if len(operands) > 1 else "X"
            params.append((pnames[id(v.buf)], v.buf))
    return params, pnames


def loop_text(extents, names, body, kind="grid", indent=""):
    """`for i0, i1 in allo.grid(4, 8):` around `body` lines (no loop for an empty band)."""
    if not extents:
        return [indent + ln for ln in body]
    head = f"{indent}for {', '.join(names)} in allo.{kind}({', '.join(str(e) for e in extents)}):"
    return [head] + [indent + "    " + ln for ln in body]


def innermost_loops(lines):
    """Loop variables of the innermost `for` of every loop nest in helper body `lines`."""
    out, last = [], None
    for ln in lines:
        text = ln.strip()
        if text.startswith("for "):
            last = (len(ln) - len(ln.lstrip()), text[4:text.index(" in ")].split(",")[-1].strip())
        elif last is not None and not text.startswith("for "):
            if not out or out[-1] != last[1]:
                out.append(last[1])
            last = None
    return out


def outermost_loops(lines):
    """[(loop variable names, extents)] of every top-level `for ... in allo.grid(...)` in `lines`
    (sequential `range` loops are left out: they carry state)."""
    out = []
    for ln in lines:
        m = re.match(r"for (.+) in allo\.grid\((.+)\):$", ln)
        if m:
            names = [v.strip() for v in m.group(1).split(",")]
            try:
                extents = [int(e) for e in m.group(2).split(",")]
            except ValueError:
                continue
            out.append((names, extents))
    return out


def split_loops(extents, names, outer_size):
    """Split a planned loop band where the product of the outer extents reaches `outer_size`."""
    acc, k = 1, 0
    while k < len(extents) and acc < outer_size:
        acc *= extents[k]
        k += 1
    if acc != outer_size:
        raise FrontendError("internal: loop band does not split at the reduction boundary")
    return k


def rename_loops(index_strs, old, new):
    mapping = dict(zip(old, new))
    pat = re.compile(r"\b(" + "|".join(re.escape(o) for o in old) + r")\b") if old else None
    out = []
    for ix in index_strs:
        out.append(tuple(pat.sub(lambda m: mapping[m.group(1)], e) if pat else e for e in ix))
    return out


__all__ = ["Program", "Layer", "NnCall", "literal", "type_str", "torch_dtype_to_allo", "loop_text", "numel"]
