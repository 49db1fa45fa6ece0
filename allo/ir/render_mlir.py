"""Render allo's loop IR (`allo.ir.nodes`) as MLIR text (affine/scf/memref/arith/math/func).

Two modes share one renderer:
- "view": what users see as `s.module` (seed style: `{name = "C"}` on allocs, `{from = "A"}` on
  loads, `{to = "C"}` on stores, `loop_name`/`op_name`/`pipeline_ii` on loops, `arg_names`).
- "llvm": what the CPU JIT compiles: allocations hoisted to the function entry (small ones on the
  stack), every owned allocation freed before returning, returned memrefs always fresh, `unroll`
  performed, HLS-only attributes dropped, and an entry wrapper `@__allo_entry_<top>` in
  destination-passing style (outputs are extra memref arguments, scalars come back in rank-0 memrefs).

Example::

    text = render_module(mod)                 # MLIR text of the whole module
    m = to_mlir_module(mod, mode="llvm")      # a parsed mlir.ir.Module
"""
from __future__ import annotations

import dataclasses
import math
import re
import struct
from collections import Counter

import numpy as np

from ..errors import BackendError
from . import nodes as N
from .fixed import to_raw, wrap_int
from .types import ArrayType, Fixed, Float, Index, Int, UInt, UFixed, container_bits

BIG_GLOBAL = 256  # globals with more elements are attached after parsing by to_mlir_module
STACK_BYTES = 4096  # llvm mode: locals up to this size live on the stack (memref.alloca)
MAX_FULL_UNROLL = 1024  # full unroll beyond this trip count falls back to a partial unroll
FALLBACK_UNROLL = 8
ENTRY_PREFIX = "__allo_entry_"
_HLS_ONLY = ("pipeline_ii", "unroll", "dataflow", "partition")
_UI32_ATTRS = ("pipeline_ii", "unroll")

index_t = Index()
i64_t = Int(64)


# ============================================================================ public API
def render_module(mod: N.Module, mode: str = "view") -> str:
    """MLIR text of `mod`; global data is written inline (hex blobs).

    Example::

        print(render_module(mod))             # func.func @gemm(%arg0: memref<32x32xf32>, ...
    """
    return _render(mod, mode, big_limit=None)[0]


def to_mlir_module(mod: N.Module, mode: str = "view", context=None):
    """Parse the rendering of `mod` into an `mlir.ir.Module` (in `context` or a new Context).
    Large global constants are attached after parsing as DenseElementsAttr (fast for weights).

    Example::

        m = to_mlir_module(mod)
        print(m.operation.get_asm(large_elements_limit=16))
    """
    text, big = _render(mod, mode, big_limit=BIG_GLOBAL)
    return parse_with_globals(text, big, context)


def parse_with_globals(text: str, big: dict, context=None):
    """Parse `text` and set the initial values of the globals named in `big` ({symbol: ndarray})."""
    from mlir import ir

    ctx = context if context is not None else ir.Context()
    with ctx, ir.Location.unknown():
        try:
            m = ir.Module.parse(text)
        except Exception as e:  # MLIRError: a renderer bug, show where
            raise BackendError(f"internal error: rendered MLIR does not parse:\n{e}\n--- text ---\n{_numbered(text)}") from None
        if big:
            for op in m.body.operations:
                if op.operation.name != "memref.global":
                    continue
                sym = ir.StringAttr(op.attributes["sym_name"]).value
                if sym in big:
                    arr = big[sym]
                    op.attributes["initial_value"] = ir.DenseElementsAttr.get(np.ascontiguousarray(arr))
    return m


def render_with_globals(mod: N.Module, mode: str = "llvm") -> tuple[str, dict]:
    """(text with placeholder initialisers for big globals, {symbol: storage ndarray}); the pair
    identifies the module exactly (the LLVM backend hashes both for its cache)."""
    return _render(mod, mode, big_limit=BIG_GLOBAL)


def _numbered(text, limit=400):
    lines = text.splitlines()
    out = [f"{k + 1:4d} {line}" for k, line in enumerate(lines[:limit])]
    return "\n".join(out + (["..."] if len(lines) > limit else []))


# ============================================================================ types
def _cat(t) -> str:
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


def _signed(t) -> bool:
    return isinstance(t, (Int, Index, Fixed, Float))


def _bits(t) -> int:
    return 64 if isinstance(t, Index) else t.bits


def _is_bool(t) -> bool:
    return isinstance(t, UInt) and t.bits == 1


def _abi_scalar(t) -> str:
    """Type of a scalar at the JIT boundary (what ctypes can pass)."""
    if isinstance(t, Float):
        return "i16" if t.bits == 16 else t.mlir
    if isinstance(t, Index):
        return "i64"
    return f"i{container_bits(t.bits)}"


def _scalar_storage(t) -> str:
    return "i64" if isinstance(t, Index) else t.storage_mlir


def _elem_bytes(t) -> int:
    return t.bits // 8 if isinstance(t, Float) else container_bits(_bits(t)) // 8


def storage_array(buf: N.Buffer) -> np.ndarray:
    """The data of a global buffer in its memory representation (container ints, raw fixed)."""
    t, d = buf.dtype, np.asarray(buf.data)
    if isinstance(t, (Fixed, UFixed)):
        out = to_raw(d, t)  # data holds values (like every numpy input), not raw integers
    elif _is_bool(t):
        out = d.astype(np.bool_).astype(np.int8)
    elif isinstance(t, (Int, UInt)):
        out = wrap_int(d, t.bits, isinstance(t, Int)).astype(t.np_dtype)
    elif isinstance(t, Float):
        out = d.astype(t.np_dtype)
    else:
        raise BackendError(f"global {buf.name!r}: unsupported element type {t!r}")
    if out.dtype.kind == "u":  # memrefs are signless: keep the bits, drop the signedness
        out = out.view(out.dtype.str.replace("u", "i"))
    if out.shape != tuple(buf.shape):
        try:
            out = out.reshape(buf.shape)
        except ValueError:
            raise BackendError(f"global {buf.name!r}: data of shape {d.shape} does not fit {buf.type!r}") from None
    return np.ascontiguousarray(out)


# ============================================================================ constants
def _float_hex(value, t: Float) -> str:
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


def _int_literal(value: int, bits: int) -> str:
    """Two's-complement literal of `value` wrapped to `bits` (MLIR wants signed in-range values)."""
    v = int(value) & ((1 << bits) - 1)
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return str(v)


def _fixed_raw(value, t) -> int:
    """Raw integer of a fixed-point constant: floor(value * 2**frac) (wrapping is done by the literal)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value) << t.frac
    return math.floor(float(value) * 2.0 ** t.frac)


# ============================================================================ attributes
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def _quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attr_value(key, v):
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return f"{int(v)} : {'ui32' if key in _UI32_ATTRS else 'i32'}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v)!r} : f64"
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, tuple):
        return _quote(":".join(str(x) for x in v))
    if isinstance(v, list):
        return "[" + ", ".join(_attr_value(key, x) or "unit" for x in v) + "]"
    if isinstance(v, dict):
        return _attr_dict(v.items())
    return _quote(str(v))


def _attr_dict(items) -> str:
    """`{k = v, flag}` from (key, value) pairs; True -> unit attribute, False/None dropped."""
    parts = []
    for k, v in items:
        if v is None or v is False:
            continue
        key = k if _IDENT.match(k) else _quote(k)
        if v is True:
            parts.append(key)
        else:
            parts.append(f"{key} = {_attr_value(k, v)}")
    return "{" + ", ".join(parts) + "}" if parts else ""


# ============================================================================ affine analysis
# forms: ("c", n) | ("v", IterVar) | ("+", a, b) | ("*", a, n) | ("floordiv", a, n) | ("mod", a, n)
def _aff_add(a, b):
    if a[0] == "c" and b[0] == "c":
        return ("c", a[1] + b[1])
    if b == ("c", 0):
        return a
    if a == ("c", 0):
        return b
    return ("+", a, b)


def _aff_mul(a, n):
    if a[0] == "c":
        return ("c", a[1] * n)
    if n == 1:
        return a
    if n == 0:
        return ("c", 0)
    return ("*", a, n)


def affine_form(e, is_dim):
    """The affine form of index expression `e` over IterVars accepted by `is_dim`, else None."""
    if isinstance(e, N.Const):
        if isinstance(e.type, (Index, Int, UInt)) and not isinstance(e.value, (bool, np.bool_)):
            return ("c", int(e.value))
        return None
    if isinstance(e, N.IterVar):
        return ("v", e) if is_dim(e) else None
    if isinstance(e, N.Cast) and isinstance(e.type, Index):
        if isinstance(e.value.type, Index) or isinstance(e.value, N.Const):
            return affine_form(e.value, is_dim)
        return None
    if isinstance(e, N.BinOp) and isinstance(e.type, Index):
        a = affine_form(e.lhs, is_dim)
        b = affine_form(e.rhs, is_dim)
        if a is None or b is None:
            return None
        if e.op == "add":
            return _aff_add(a, b)
        if e.op == "sub":
            return _aff_add(a, _aff_mul(b, -1))
        if e.op == "mul":
            if b[0] == "c":
                return _aff_mul(a, b[1])
            if a[0] == "c":
                return _aff_mul(b, a[1])
            return None
        if e.op in ("floordiv", "mod") and b[0] == "c" and b[1] > 0:
            if a[0] == "c":
                return ("c", a[1] // b[1] if e.op == "floordiv" else a[1] % b[1])
            return (e.op, a, b[1]) if b[1] != 1 else (a if e.op == "floordiv" else ("c", 0))
    return None


def _aff_const(e):
    a = affine_form(e, lambda v: False)
    return a[1] if a is not None and a[0] == "c" else None


def _aff_vars(a, out):
    if a[0] == "v":
        if not any(a[1] is x for x in out):
            out.append(a[1])
    elif a[0] != "c":
        _aff_vars(a[1], out)
        if a[0] == "+":
            _aff_vars(a[2], out)
    return out


def _aff_str(a, name) -> str:
    kind = a[0]
    if kind == "c":
        return str(a[1])
    if kind == "v":
        return name(a[1])
    if kind == "+":
        return f"{_aff_str(a[1], name)} + {_aff_str(a[2], name)}"
    return f"({_aff_str(a[1], name)}) {'*' if kind == '*' else kind} {a[2]}"


# ============================================================================ IR helpers
def _subst_stmt(s, m):
    """Copy of statement `s` with IterVars replaced per mapping `m` (Buffers are shared)."""
    sub = lambda e: N.substitute(e, m) if isinstance(e, N.Expr) else e  # noqa: E731
    if isinstance(s, N.For):
        return dataclasses.replace(s, lb=sub(s.lb), ub=sub(s.ub), body=[_subst_stmt(x, m) for x in s.body])
    if isinstance(s, N.If):
        return dataclasses.replace(s, cond=sub(s.cond), then=[_subst_stmt(x, m) for x in s.then],
                                   orelse=[_subst_stmt(x, m) for x in s.orelse])
    if isinstance(s, N.While):
        return dataclasses.replace(s, cond=sub(s.cond), body=[_subst_stmt(x, m) for x in s.body])
    if isinstance(s, N.Alloc):
        return dataclasses.replace(s, init=sub(s.init))
    if isinstance(s, N.Store):
        return dataclasses.replace(s, indices=[sub(i) for i in s.indices], value=sub(s.value))
    if isinstance(s, N.CallStmt):
        return dataclasses.replace(s, args=[sub(a) for a in s.args])
    if isinstance(s, N.Return):
        return dataclasses.replace(s, values=[sub(v) for v in s.values])
    return s


def unroll_for(s: N.For):
    """Statements replacing loop `s` per its `unroll` attribute (0 = full), or None when the
    bounds are not constant (the loop then runs rolled; results are the same)."""
    factor = int(s.attrs.get("unroll") or 0)
    attrs = {k: v for k, v in s.attrs.items() if k != "unroll"}
    lb, ub = _aff_const(s.lb), _aff_const(s.ub)
    if lb is None or ub is None:
        return None
    values = range(lb, ub, s.step)
    trip = len(values)
    if trip == 0:
        return []
    if factor == 0 or factor >= trip:
        if trip <= MAX_FULL_UNROLL:
            out = []
            for v in values:
                out += [_subst_stmt(x, {s.var: N.Const(v, index_t)}) for x in s.body]
            return out
        factor = FALLBACK_UNROLL
    if factor <= 1:
        return [dataclasses.replace(s, attrs=attrs)]
    main = trip // factor * factor
    main_ub = lb + main * s.step
    body = []
    for k in range(factor):
        shifted = N.BinOp("add", s.var, N.Const(k * s.step, index_t), index_t) if k else s.var
        body += [_subst_stmt(x, {s.var: shifted}) if k else x for x in s.body]
    out = [dataclasses.replace(s, lb=N.Const(lb, index_t), ub=N.Const(main_ub, index_t), step=s.step * factor,
                               body=body, attrs=attrs)]
    if main < trip:
        out.append(dataclasses.replace(s, lb=N.Const(main_ub, index_t), ub=N.Const(ub, index_t), attrs=attrs))
    return out


def _stmt_bufs(s):
    """Buffers directly referenced by statement `s` (with repetition)."""
    out = []
    if isinstance(s, N.Alloc):
        out.append(s.buf)
        if isinstance(s.init, N.Buffer):
            out.append(s.init)
    elif isinstance(s, N.Store):
        out.append(s.buf)
    elif isinstance(s, N.CallStmt):
        out += [a for a in list(s.args) + list(s.results) if isinstance(a, N.Buffer)]
    elif isinstance(s, N.Return):
        out += [a for a in s.values if isinstance(a, N.Buffer)]
    for e in N.stmt_exprs(s):
        out += [x.buf for x in N.walk_expr(e) if isinstance(x, N.Load)]
    return out


def _ref_counts(body) -> Counter:
    return Counter(id(b) for s in N.walk_stmts(body) for b in _stmt_bufs(s))


def _children(s):
    if isinstance(s, (N.For, N.While)):
        return [s.body]
    if isinstance(s, N.If):
        return [s.then, s.orelse]
    return []


# ============================================================================ module renderer
def _render(mod: N.Module, mode: str, big_limit):
    if mode not in ("view", "llvm"):
        raise BackendError(f"unknown MLIR rendering mode {mode!r} (expected 'view' or 'llvm')")
    r = _ModuleRenderer(mod, mode, big_limit)
    return r.render(), r.big


class _ModuleRenderer:
    def __init__(self, mod, mode, big_limit):
        self.mod, self.mode, self.llvm = mod, mode, mode == "llvm"
        self.big_limit = big_limit
        self.funcs = {f.name: f for f in mod.funcs}
        self.global_lines = []
        self.big = {}
        self._global_syms = {}  # id(buffer) -> symbol
        self._sym_data = {}  # symbol -> id(data)

    def global_symbol(self, buf: N.Buffer) -> str:
        if id(buf) in self._global_syms:
            return self._global_syms[id(buf)]
        if buf.data is None:
            raise BackendError(f"global buffer {buf.name!r} has no data")
        base = buf.global_name or f"g_{buf.name}"
        sym, k = base, 0
        while sym in self._sym_data and self._sym_data[sym][0] is not buf.data:
            k += 1
            sym = f"{base}_{k}"
        if sym not in self._sym_data:
            arr = storage_array(buf)
            self._sym_data[sym] = (buf.data, arr)
            ty = buf.type.mlir
            if self.big_limit is not None and arr.size > self.big_limit:
                self.big[sym] = arr
                init = "dense<0.0>" if arr.dtype.kind == "f" else "dense<0>"
            else:
                init = f'dense<"0x{arr.tobytes().hex().upper()}">'
            self.global_lines.append(f'  memref.global "private" constant @{sym} : {ty} = {init}')
        self._global_syms[id(buf)] = sym
        return sym

    def render(self) -> str:
        if not self.mod.funcs:
            raise BackendError("module has no functions")
        bodies = [_FuncRenderer(self, f).render() for f in self.mod.funcs]
        if self.llvm:
            bodies.append(self.entry_wrapper())
        return "module {\n" + "".join(line + "\n" for line in self.global_lines) + "".join(bodies) + "}\n"

    def entry_wrapper(self) -> str:
        top = self.funcs.get(self.mod.top)
        if top is None:
            raise BackendError(f"top function {self.mod.top!r} not found in the module")
        params, call_args, pre = [], [], []
        for k, p in enumerate(top.params):
            if p.kind == "scalar_arg":
                t = p.dtype
                abi = _abi_scalar(t)
                params.append(f"%a{k}: {abi}")
                lines, v = _abi_to_compute(f"%a{k}", abi, t, f"%c{k}")
                pre.append(lines)
                call_args.append((v, t.mlir))
            else:
                params.append(f"%a{k}: {p.type.mlir}")
                call_args.append((f"%a{k}", p.type.mlir))
        outs = []
        for k, rt in enumerate(top.result_types):
            ty = rt.mlir if isinstance(rt, ArrayType) else f"memref<{_scalar_storage(rt)}>"
            params.append(f"%o{k}: {ty}")
            outs.append(ty)
        lines = [f"  func.func @{ENTRY_PREFIX}{top.name}({', '.join(params)}) attributes {{llvm.emit_c_interface}} {{"]
        lines += ["    " + x for chunk in pre for x in chunk]
        rtypes = [rt.mlir for rt in top.result_types]
        n = len(rtypes)
        lhs = "" if n == 0 else ("%r = " if n == 1 else f"%r:{n} = ")
        lines.append(f"    {lhs}func.call @{top.name}({', '.join(v for v, _ in call_args)}) : "
                     f"({', '.join(t for _, t in call_args)}) -> ({', '.join(rtypes)})")
        for k, rt in enumerate(top.result_types):
            r = "%r" if n == 1 else f"%r#{k}"
            if isinstance(rt, ArrayType):
                lines.append(f"    memref.copy {r}, %o{k} : {rt.mlir} to {rt.mlir}")
                lines.append(f"    memref.dealloc {r} : {rt.mlir}")
            else:
                conv, sv = _compute_to_storage(r, rt, f"%s{k}")
                lines += ["    " + x for x in conv]
                lines.append(f"    memref.store {sv}, %o{k}[] : {outs[k]}")
        lines += ["    return", "  }"]
        return "\n".join(lines) + "\n"


def _abi_to_compute(v, abi, t, out):
    """(lines, value): a scalar entry argument of ABI type `abi` as allo type t."""
    if isinstance(t, Float) and t.bits == 16:
        return [f"{out} = arith.bitcast {v} : i16 to {t.mlir}"], out
    if isinstance(t, Index):
        return [f"{out} = arith.index_cast {v} : i64 to index"], out
    if abi != t.mlir:
        return [f"{out} = arith.trunci {v} : {abi} to {t.mlir}"], out
    return [], v


def _compute_to_storage(v, t, out):
    """(lines, value): scalar result v of allo type t in its rank-0 output memref's element type."""
    st = _scalar_storage(t)
    if isinstance(t, Index):
        return [f"{out} = arith.index_cast {v} : index to i64"], out
    if st != t.mlir:
        return [f"{out} = arith.{'extsi' if _signed(t) else 'extui'} {v} : {t.mlir} to {st}"], out
    return [], v


# ============================================================================ function renderer
_FLOAT_OPS = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf",
              "min": "arith.minimumf", "max": "arith.maximumf", "pow": "math.powf"}
_INT_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli", "and": "arith.andi",
            "or": "arith.ori", "xor": "arith.xori", "shl": "arith.shli"}
_SINT_OPS = {"div": "arith.divsi", "floordiv": "arith.floordivsi", "min": "arith.minsi",
             "max": "arith.maxsi", "shr": "arith.shrsi"}
_UINT_OPS = {"div": "arith.divui", "floordiv": "arith.divui", "mod": "arith.remui", "min": "arith.minui",
             "max": "arith.maxui", "shr": "arith.shrui"}
_FIXED_OK = ("add", "sub", "and", "or", "xor", "shl", "shr", "min", "max")
# comparison -> (float predicate, signed predicate, unsigned predicate)
_CMP = {"lt": ("olt", "slt", "ult"), "le": ("ole", "sle", "ule"), "gt": ("ogt", "sgt", "ugt"),
        "ge": ("oge", "sge", "uge"), "eq": ("oeq", "eq", "eq"), "ne": ("une", "ne", "ne")}
_MATH = {"exp": "math.exp", "log": "math.log", "log2": "math.log2", "sqrt": "math.sqrt", "rsqrt": "math.rsqrt",
         "tanh": "math.tanh", "sin": "math.sin", "cos": "math.cos", "erf": "math.erf", "floor": "math.floor",
         "ceil": "math.ceil"}


class _FuncRenderer:
    def __init__(self, mr: _ModuleRenderer, f: N.Func):
        self.mr, self.f, self.llvm = mr, f, mr.llvm
        self.lines = []
        self.ind = 2
        self.n = 0
        self.env = {}  # IterVar -> (ssa, is_affine_dim)
        self.mem = {}  # id(Buffer) -> memref ssa (or scalar ssa for scalar_arg)
        self.hoisted = set()  # ids of buffers allocated in the prologue
        self.owned = {}  # llvm: id(Buffer) -> (ssa, memref type) of heap memory this function must free
        self.loc = None  # location of the statement being rendered

    # ------------------------------------------------------------------ plumbing
    def val(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def emit(self, text, loc=None):
        loc = loc if loc is not None else None
        suffix = ""
        if loc is not None and hasattr(loc, "mlir"):
            suffix = " " + loc.mlir()
        self.lines.append("  " * self.ind + text + suffix)

    def op(self, text, loc=None) -> str:
        """Emit `%v = text` (with the current statement's loc) and return %v."""
        v = self.val()
        self.emit(f"{v} = {text}", loc if loc is not None else self.loc)
        return v

    def const(self, value, t) -> str:
        if isinstance(t, str):  # raw MLIR integer type like "i128" or "index"
            return self.op(f"arith.constant {int(value)} : {t}")
        if isinstance(t, Index):
            return self.op(f"arith.constant {int(value)} : index")
        if isinstance(t, Float):
            return self.op(f"arith.constant {_float_hex(value, t)} : {t.mlir}")
        if _is_bool(t):
            return self.op(f"arith.constant {'true' if value else 'false'}")
        if isinstance(t, (Fixed, UFixed)):
            return self.op(f"arith.constant {_int_literal(_fixed_raw(value, t), t.bits)} : {t.mlir}")
        if isinstance(t, (Int, UInt)):
            return self.op(f"arith.constant {_int_literal(int(value), t.bits)} : {t.mlir}")
        raise BackendError(f"cannot make a constant of type {t!r}")

    def iconst(self, value, ty: str) -> str:
        if ty == "i1":
            return self.op(f"arith.constant {'true' if value else 'false'}")
        bits = int(ty[1:]) if ty != "index" else 64
        return self.op(f"arith.constant {_int_literal(value, bits)} : {ty}")

    def error(self, msg):
        from ..errors import located

        return located(BackendError, f"in function {self.f.name!r}: {msg}", self.loc)

    # ------------------------------------------------------------------ function
    def render(self) -> str:
        f = self.f
        args, arg_names, itypes = [], [], ""
        for k, p in enumerate(f.params):
            if p.kind == "scalar_arg":
                ty = p.dtype.mlir
            else:
                ty = p.type.mlir
            args.append(f"%arg{k}: {ty}")
            arg_names.append(p.name)
            self.mem[id(p)] = f"%arg{k}"
            itypes += "u" if _cat(p.dtype) in ("u", "ufx") else "_"
        rtypes = [rt.mlir for rt in f.result_types]
        otypes = "".join("u" if _cat(rt.dtype if isinstance(rt, ArrayType) else rt) in ("u", "ufx") else "_"
                         for rt in f.result_types)
        ret = ""
        if len(rtypes) == 1:
            ret = f" -> {rtypes[0]}"
        elif rtypes:
            ret = f" -> ({', '.join(rtypes)})"
        attrs = [("arg_names", arg_names)]
        if not self.llvm:
            attrs += [("itypes", itypes), ("otypes", otypes)]
            part = {p.name: p.attrs["partition"] for p in f.params if p.attrs.get("partition")}
            if part:
                attrs.append(("partition", part))
            attrs += [(k, v) for k, v in f.attrs.items()]
        head = f"  func.func @{f.name}({', '.join(args)}){ret} attributes {_attr_dict(attrs)} {{"
        self.prologue()
        self.block(f.body)
        if not (f.body and isinstance(f.body[-1], N.Return)):
            if f.result_types:
                raise self.error("function has results but does not end with a return")
            self.loc = None
            self.free_owned(set())
            self.emit("return")
        loc = f" {f.loc.mlir()}" if f.loc is not None and hasattr(f.loc, "mlir") else ""
        return head + "\n" + "\n".join(self.lines) + "\n  }" + loc + "\n"

    def prologue(self):
        f = self.f
        bufs = N.iter_buffers(f)
        for b in bufs:
            if b.kind == "global":
                sym = self.mr.global_symbol(b)
                self.mem[id(b)] = self.op(f"memref.get_global @{sym} : {b.type.mlir}")
        returned = set()
        if f.body and isinstance(f.body[-1], N.Return):
            returned = {id(v) for v in f.body[-1].values if isinstance(v, N.Buffer)}
        self.returned = returned
        hoist = self.hoist_list(bufs)
        for b in hoist:
            self.alloc(b, returned)

    def hoist_list(self, bufs):
        """Buffers to allocate at function entry (in order of first mention)."""
        allocated = {id(s.buf) for s in N.walk_stmts(self.f.body) if isinstance(s, N.Alloc)}
        want = set()
        # locals never declared by an Alloc (e.g. scalars receiving call results)
        for b in bufs:
            if b.kind == "local" and id(b) not in allocated:
                want.add(id(b))
        # results of calls in nested regions are copied into a buffer that outlives the region
        total = _ref_counts(self.f.body) if not self.llvm else None

        def visit(body, depth):
            if depth > 0 and not self.llvm:
                local = _ref_counts(body)
            for s in body:
                if isinstance(s, N.CallStmt) and depth > 0:
                    want.update(id(r) for r in s.results)
                if isinstance(s, N.Alloc):
                    if self.llvm or (depth > 0 and local[id(s.buf)] != total[id(s.buf)]):
                        want.add(id(s.buf))
                for child in _children(s):
                    visit(child, depth + 1)

        visit(self.f.body, 0)
        # scalar results of calls are stored into their receiving (rank-0) buffers
        for s in N.walk_stmts(self.f.body):
            if isinstance(s, N.CallStmt):
                callee = self.mr.funcs.get(s.callee)
                if callee is not None:
                    for r, rt in zip(s.results, callee.result_types):
                        if not isinstance(rt, ArrayType):
                            want.add(id(r))
        return [b for b in bufs if id(b) in want]

    def alloc(self, b: N.Buffer, returned):
        attrs = [("name", b.name)]
        if not self.llvm:
            attrs += [(k, v) for k, v in b.attrs.items() if not k.startswith("_")]
        on_stack = self.llvm and id(b) not in returned and (b.type.rank == 0 or b.type.size * _elem_bytes(b.dtype) <= STACK_BYTES)
        kind = "memref.alloca" if on_stack else "memref.alloc"
        v = self.op(f"{kind}() {_attr_dict(attrs)} : {b.type.mlir}", b.loc if b.loc is not None else self.loc)
        self.mem[id(b)] = v
        self.hoisted.add(id(b))
        if self.llvm and not on_stack:
            self.owned[id(b)] = (v, b.type.mlir)
        return v

    def free_owned(self, keep):
        if not self.llvm:
            return
        for bid, (v, ty) in self.owned.items():
            if bid not in keep:
                self.emit(f"memref.dealloc {v} : {ty}")

    # ------------------------------------------------------------------ statements
    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        prev = self.loc
        self.loc = s.loc if getattr(s, "loc", None) is not None else prev
        try:
            handler = self._STMTS.get(type(s))
            if handler is None:
                raise self.error(f"unsupported statement {type(s).__name__}")
            handler(self, s)
        finally:
            self.loc = prev

    def s_for(self, s: N.For):
        if self.llvm and "unroll" in s.attrs:
            stmts = unroll_for(s)
            if stmts is not None:
                self.block(stmts)
                return
        is_dim = self._is_dim
        lb, ub = affine_form(s.lb, is_dim), affine_form(s.ub, is_dim)
        if not isinstance(s.step, (int, np.integer)) or s.step <= 0:
            raise self.error(f"loop {s.name!r}: step must be a positive integer, got {s.step!r}")
        iv = f"%i{self.n + 1}"
        self.n += 1
        if lb is not None and ub is not None:
            self.emit(f"affine.for {iv} = {self._bound(lb)} to {self._bound(ub)} step {int(s.step)} {{")
            affine = True
        else:
            lo, hi = self.index_value(s.lb), self.index_value(s.ub)
            st = self.iconst(int(s.step), "index")
            self.emit(f"scf.for {iv} = {lo} to {hi} step {st} {{")
            affine = False
        old = self.env.get(s.var)
        self.env[s.var] = (iv, affine)
        self.ind += 1
        self.block(s.body)
        self.ind -= 1
        if old is None:
            del self.env[s.var]
        else:
            self.env[s.var] = old
        attrs = [("loop_name", s.name)]
        for k, v in s.attrs.items():
            if self.llvm and k in _HLS_ONLY:
                continue
            attrs.append((k, v))
        self.emit(f"}} {_attr_dict(attrs)}", self.loc)

    def _is_dim(self, v):
        b = self.env.get(v)
        return b is not None and b[1]

    def _bound(self, a) -> str:
        if a[0] == "c":
            return str(a[1])
        dims = _aff_vars(a, [])
        names = {id(v): f"d{k}" for k, v in enumerate(dims)}
        expr = _aff_str(a, lambda v: names[id(v)])
        operands = ", ".join(self.env[v][0] for v in dims)
        return f"affine_map<({', '.join(names[id(v)] for v in dims)}) -> ({expr})>({operands})"

    def s_if(self, s: N.If):
        c = self.as_bool(s.cond)
        self.emit(f"scf.if {c} {{")
        self.ind += 1
        self.block(s.then)
        self.ind -= 1
        if s.orelse:
            self.emit("} else {")
            self.ind += 1
            self.block(s.orelse)
            self.ind -= 1
        self.emit("}", self.loc)

    def s_while(self, s: N.While):
        self.emit("scf.while : () -> () {")
        self.ind += 1
        c = self.as_bool(s.cond)
        self.emit(f"scf.condition({c})")
        self.ind -= 1
        self.emit("} do {")
        self.ind += 1
        self.block(s.body)
        self.emit("scf.yield")
        self.ind -= 1
        self.emit("}", self.loc)

    def s_alloc(self, s: N.Alloc):
        b = s.buf
        if id(b) in self.hoisted:
            m = self.mem[id(b)]
        else:
            attrs = [("name", b.name)] + ([(k, v) for k, v in b.attrs.items() if not k.startswith("_")] if not self.llvm else [])
            m = self.op(f"memref.alloc() {_attr_dict(attrs)} : {b.type.mlir}")
            self.mem[id(b)] = m
        if s.init is None:
            return
        if isinstance(s.init, N.Buffer):
            src = self.memref(s.init)
            if s.init.type.mlir != b.type.mlir:
                raise self.error(f"cannot initialise {b.name!r} ({b.type!r}) from {s.init.name!r} ({s.init.type!r})")
            self.emit(f"memref.copy {src}, {m} : {b.type.mlir} to {b.type.mlir}", self.loc)
            return
        v = self.to_storage(self.expr_as(s.init, b.dtype), b.dtype)
        ivs = []
        for d in b.shape:
            iv = f"%i{self.n + 1}"
            self.n += 1
            self.emit(f"affine.for {iv} = 0 to {d} {{")
            self.ind += 1
            ivs.append(iv)
        self.emit(f"affine.store {v}, {m}[{', '.join(ivs)}] {_attr_dict([('to', b.name)])} : {b.type.mlir}", self.loc)
        for _ in b.shape:
            self.ind -= 1
            self.emit("}")

    def s_store(self, s: N.Store):
        b = s.buf
        if b.kind == "scalar_arg":
            raise self.error(f"cannot assign to scalar parameter {b.name!r} (parameters are read-only)")
        if len(s.indices) != b.type.rank:
            raise self.error(f"store to {b.name!r} has {len(s.indices)} indices for rank {b.type.rank}")
        v = self.to_storage(self.expr_as(s.value, b.dtype), b.dtype)
        m = self.memref(b)
        idx, affine = self.indices(s.indices)
        kind = "affine.store" if affine else "memref.store"
        self.emit(f"{kind} {v}, {m}[{idx}] {_attr_dict([('to', b.name)])} : {b.type.mlir}", self.loc)

    def s_call(self, s: N.CallStmt):
        callee = self.mr.funcs.get(s.callee)
        if callee is None:
            raise self.error(f"call to unknown function {s.callee!r}")
        if len(s.args) != len(callee.params):
            raise self.error(f"call to {s.callee!r} passes {len(s.args)} arguments, it takes {len(callee.params)}")
        vals, types = [], []
        for p, a in zip(callee.params, s.args):
            if p.kind == "scalar_arg":
                vals.append(self.scalar_of(a, p.dtype))
                types.append(p.dtype.mlir)
            else:
                if not isinstance(a, N.Buffer):
                    raise self.error(f"call to {s.callee!r}: argument {p.name!r} must be an array")
                if a.type.mlir != p.type.mlir:
                    raise self.error(f"call to {s.callee!r}: argument {p.name!r} expects {p.type!r}, got {a.type!r}")
                vals.append(self.memref(a))
                types.append(p.type.mlir)
        rtypes = [rt.mlir for rt in callee.result_types]
        n = len(rtypes)
        r = self.val()
        lhs = "" if n == 0 else (f"{r} = " if n == 1 else f"{r}:{n} = ")
        attrs = _attr_dict(list(s.attrs.items()))
        attrs = f" {attrs}" if attrs else ""
        self.emit(f"{lhs}func.call @{callee.name}({', '.join(vals)}){attrs} : ({', '.join(types)}) -> ({', '.join(rtypes)})", self.loc)
        if len(s.results) != n:
            raise self.error(f"call to {s.callee!r} binds {len(s.results)} results, it returns {n}")
        for k, (rb, rt) in enumerate(zip(s.results, callee.result_types)):
            rv = r if n == 1 else f"{r}#{k}"
            if isinstance(rt, ArrayType):
                if id(rb) in self.hoisted:
                    self.emit(f"memref.copy {rv}, {self.mem[id(rb)]} : {rt.mlir} to {rt.mlir}")
                    if self.llvm:
                        self.emit(f"memref.dealloc {rv} : {rt.mlir}")
                else:
                    if self.llvm and id(rb) in self.owned:  # a re-bound result: free the previous value
                        prev, ty = self.owned.pop(id(rb))
                        self.emit(f"memref.dealloc {prev} : {ty}")
                    self.mem[id(rb)] = rv
                    if self.llvm:
                        self.owned[id(rb)] = (rv, rt.mlir)
            else:
                self.store_scalar(rb, rv, rt)

    def store_scalar(self, b: N.Buffer, v, t):
        if b.type.rank != 0:
            raise self.error(f"scalar result bound to array {b.name!r}")
        v = self.to_storage(self.cast(v, t, b.dtype), b.dtype)
        self.emit(f"affine.store {v}, {self.memref(b)}[] {_attr_dict([('to', b.name)])} : {b.type.mlir}", self.loc)

    def s_return(self, s: N.Return):
        f = self.f
        if len(s.values) != len(f.result_types):
            raise self.error(f"return of {len(s.values)} values, the function declares {len(f.result_types)}")
        vals, keep = [], set()
        for v, rt in zip(s.values, f.result_types):
            if isinstance(rt, ArrayType):
                if not isinstance(v, N.Buffer):
                    raise self.error("an array result must be a buffer")
                m = self.memref(v)
                if self.llvm and (id(v) not in self.owned or id(v) in keep):
                    fresh = self.op(f"memref.alloc() {_attr_dict([('name', v.name)])} : {rt.mlir}")
                    self.emit(f"memref.copy {m}, {fresh} : {rt.mlir} to {rt.mlir}")
                    m = fresh
                else:
                    keep.add(id(v))
                vals.append(m)
            else:
                vals.append(self.scalar_of(v, rt))
        self.free_owned(keep)
        if vals:
            types = ", ".join(rt.mlir for rt in f.result_types)
            self.emit(f"return {', '.join(vals)} : {types}", self.loc)
        else:
            self.emit("return", self.loc)

    _STMTS = {N.For: s_for, N.If: s_if, N.While: s_while, N.Alloc: s_alloc, N.Store: s_store,
              N.CallStmt: s_call, N.Return: s_return}

    # ------------------------------------------------------------------ memory access
    def memref(self, b: N.Buffer) -> str:
        m = self.mem.get(id(b))
        if m is None:
            raise self.error(f"buffer {b.name!r} ({b.kind}) is used before it is allocated")
        if b.kind == "scalar_arg":
            raise self.error(f"scalar parameter {b.name!r} used as an array")
        return m

    def indices(self, idx) -> tuple[str, bool]:
        forms = [affine_form(i, self._is_dim) for i in idx]
        if all(a is not None for a in forms):
            return ", ".join(_aff_str(a, lambda v: self.env[v][0]) for a in forms), True
        return ", ".join(self.index_value(i) for i in idx), False

    def load(self, e: N.Load) -> str:
        b = e.buf
        if b.kind == "scalar_arg":
            return self.cast(self.mem[id(b)], b.dtype, e.type)
        if len(e.indices) != b.type.rank:
            raise self.error(f"load from {b.name!r} has {len(e.indices)} indices for rank {b.type.rank}")
        m = self.memref(b)
        idx, affine = self.indices(e.indices)
        kind = "affine.load" if affine else "memref.load"
        v = self.op(f"{kind} {m}[{idx}] {_attr_dict([('from', b.name)])} : {b.type.mlir}", e.loc or self.loc)
        t = b.dtype
        if t.storage_mlir != t.mlir:
            v = self.op(f"arith.trunci {v} : {t.storage_mlir} to {t.mlir}")
        return self.cast(v, t, e.type)

    def to_storage(self, v, t) -> str:
        if t.storage_mlir == t.mlir:
            return v
        ext = "arith.extsi" if _signed(t) else "arith.extui"
        return self.op(f"{ext} {v} : {t.mlir} to {t.storage_mlir}")

    def scalar_of(self, a, t) -> str:
        """A scalar value of type t from an Expr or a rank-0 / scalar Buffer."""
        if isinstance(a, N.Expr):
            return self.expr_as(a, t)
        if isinstance(a, N.Buffer):
            if a.kind == "scalar_arg":
                return self.cast(self.mem[id(a)], a.dtype, t)
            if a.type.rank == 0:
                return self.load(N.Load(a, [], t))
        raise self.error(f"expected a scalar, got {a!r}")

    def index_value(self, e) -> str:
        """An `index` SSA value for expression e."""
        return self.expr_as(e, index_t)

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        handler = self._EXPRS.get(type(e))
        if handler is None:
            raise self.error(f"unsupported expression {type(e).__name__}")
        if getattr(e, "loc", None) is not None:
            prev, self.loc = self.loc, e.loc
            try:
                return handler(self, e)
            finally:
                self.loc = prev
        return handler(self, e)

    def expr_as(self, e, t) -> str:
        return self.cast(self.expr(e), e.type, t)

    def as_bool(self, e) -> str:
        return self.expr_as(e, UInt(1))

    def e_const(self, e: N.Const):
        return self.const(e.value, e.type)

    def e_itervar(self, e: N.IterVar):
        b = self.env.get(e)
        if b is None:
            raise self.error(f"loop variable {e.name!r} used outside its loop")
        return b[0]

    def e_load(self, e: N.Load):
        return self.load(e)

    def e_binop(self, e: N.BinOp):
        op = e.op
        if op in ("land", "lor"):
            a, b = self.as_bool(e.lhs), self.as_bool(e.rhs)
            return self.op(f"arith.{'andi' if op == 'land' else 'ori'} {a}, {b} : i1")
        if op in _CMP:
            t = e.lhs.type
            a, b = self.expr(e.lhs), self.expr_as(e.rhs, t)
            return self.compare(op, a, b, t)
        t = e.type
        a, b = self.expr_as(e.lhs, t), self.expr_as(e.rhs, t)
        return self.arith(op, a, b, t)

    def compare(self, op, a, b, t) -> str:
        fp, sp, up = _CMP[op]
        c = _cat(t)
        if c == "f":
            return self.op(f"arith.cmpf {fp}, {a}, {b} : {t.mlir}")
        return self.op(f"arith.cmpi {sp if c in ('s', 'sfx') else up}, {a}, {b} : {t.mlir}")

    def arith(self, op, a, b, t) -> str:
        c, ty = _cat(t), t.mlir
        if c == "f":
            if op in _FLOAT_OPS:
                return self.op(f"{_FLOAT_OPS[op]} {a}, {b} : {ty}")
            if op == "floordiv":
                q = self.op(f"arith.divf {a}, {b} : {ty}")
                return self.op(f"math.floor {q} : {ty}")
            if op == "mod":
                r = self.op(f"arith.remf {a}, {b} : {ty}")
                zero = self.const(0.0, t)
                fix = self.sign_fix(r, b, zero, lambda p, x, y: self.op(f"arith.cmpf {p}, {x}, {y} : {ty}"), "o")
                rb = self.op(f"arith.addf {r}, {b} : {ty}")
                return self.op(f"arith.select {fix}, {rb}, {r} : {ty}")
            raise self.error(f"operator {op!r} is not defined on {t!r}")
        if c in ("sfx", "ufx"):
            if op == "mul":
                return self.fixed_muldiv(a, b, t, "mul")
            if op == "div":
                return self.fixed_muldiv(a, b, t, "div")
            if op not in _FIXED_OK:
                raise self.error(f"operator {op!r} is not supported on fixed-point type {t!r}")
        signed = c in ("s", "sfx")
        if op in ("shl", "shr"):
            return self.shift(op, a, b, ty, _bits(t), signed)
        if op in _INT_OPS:
            return self.op(f"{_INT_OPS[op]} {a}, {b} : {ty}")
        if op == "pow":
            return self.int_pow(a, b, t)
        if op in ("div", "floordiv", "mod"):
            return self.int_div(op, a, b, ty, signed)
        table = _SINT_OPS if signed else _UINT_OPS
        if op in table:
            return self.op(f"{table[op]} {a}, {b} : {ty}")
        raise self.error(f"operator {op!r} is not defined on {t!r}")

    def int_div(self, op, a, b, ty, signed) -> str:
        """Integer div (C truncation) / floordiv / mod (numpy floor) that never traps: x / 0 and
        x % 0 give 0, and MIN / -1 wraps (x86 raises SIGFPE for both; the interpreter gives these)."""
        zero, one = self.iconst(0, ty), self.iconst(1, ty)
        is0 = self.op(f"arith.cmpi eq, {b}, {zero} : {ty}")
        bad, m1 = is0, None
        if signed:
            m1 = self.op(f"arith.cmpi eq, {b}, {self.iconst(-1, ty)} : {ty}")
            bad = self.op(f"arith.ori {is0}, {m1} : i1")
        bs = self.op(f"arith.select {bad}, {one}, {b} : {ty}")
        if op == "mod":
            if not signed:
                return self.op(f"arith.remui {a}, {bs} : {ty}")
            r = self.op(f"arith.remsi {a}, {bs} : {ty}")
            fix = self.sign_fix(r, bs, zero, lambda p, x, y: self.op(f"arith.cmpi {p}, {x}, {y} : {ty}"), "s")
            rb = self.op(f"arith.addi {r}, {bs} : {ty}")
            return self.op(f"arith.select {fix}, {rb}, {r} : {ty}")
        table = _SINT_OPS if signed else _UINT_OPS
        q = self.op(f"{table[op]} {a}, {bs} : {ty}")
        if signed:
            neg = self.op(f"arith.subi {zero}, {a} : {ty}")
            q = self.op(f"arith.select {m1}, {neg}, {q} : {ty}")
        return self.op(f"arith.select {is0}, {zero}, {q} : {ty}")

    def shift(self, op, a, b, ty, bits, signed) -> str:
        """Shifts by amounts outside [0, bits) give 0 (shl, unsigned shr) or the sign fill (signed
        shr) instead of LLVM poison."""
        oob = self.op(f"arith.cmpi uge, {b}, {self.iconst(bits, ty)} : {ty}")
        if op == "shr" and signed:
            n = self.op(f"arith.select {oob}, {self.iconst(bits - 1, ty)}, {b} : {ty}")
            return self.op(f"arith.shrsi {a}, {n} : {ty}")
        v = self.op(f"arith.{'shli' if op == 'shl' else 'shrui'} {a}, {b} : {ty}")
        return self.op(f"arith.select {oob}, {self.iconst(0, ty)}, {v} : {ty}")

    def sign_fix(self, r, b, zero, cmp, p):
        """i1: remainder r is nonzero and its sign differs from divisor b (numpy floor mod fix-up)."""
        ne = cmp("une" if p == "o" else "ne", r, zero)
        rneg = cmp("olt" if p == "o" else "slt", r, zero)
        bneg = cmp("olt" if p == "o" else "slt", b, zero)
        diff = self.op(f"arith.xori {rneg}, {bneg} : i1")
        return self.op(f"arith.andi {ne}, {diff} : i1")

    def fixed_muldiv(self, a, b, t, op):
        w, f = t.bits, t.frac
        wide = f"i{2 * w}"
        ext = "arith.extsi" if isinstance(t, Fixed) else "arith.extui"
        xa = self.op(f"{ext} {a} : {t.mlir} to {wide}")
        xb = self.op(f"{ext} {b} : {t.mlir} to {wide}")
        signed = isinstance(t, Fixed)
        if op == "mul":
            p = self.op(f"arith.muli {xa}, {xb} : {wide}")
            if f:
                p = self.op(f"arith.{'shrsi' if signed else 'shrui'} {p}, {self.iconst(f, wide)} : {wide}")
        else:
            if f:
                xa = self.op(f"arith.shli {xa}, {self.iconst(f, wide)} : {wide}")
            p = self.int_div("div", xa, xb, wide, signed)
        return self.op(f"arith.trunci {p} : {wide} to {t.mlir}")

    def int_pow(self, a, b, t):
        """base ** exp by squaring (exp <= 0 gives 1)."""
        ty = t.mlir
        one, zero = self.iconst(1, ty), self.iconst(0, ty)
        res = self.val()
        r, bb, ee = self.val(), self.val(), self.val()
        gt = "sgt" if _signed(t) else "ne"
        self.emit(f"{res}:3 = scf.while ({r} = {one}, {bb} = {a}, {ee} = {b}) : ({ty}, {ty}, {ty}) -> ({ty}, {ty}, {ty}) {{")
        self.ind += 1
        c = self.op(f"arith.cmpi {gt}, {ee}, {zero} : {ty}")
        self.emit(f"scf.condition({c}) {r}, {bb}, {ee} : {ty}, {ty}, {ty}")
        self.ind -= 1
        r2, b2, e2 = self.val(), self.val(), self.val()
        self.emit("} do {")
        self.emit(f"^bb0({r2}: {ty}, {b2}: {ty}, {e2}: {ty}):")
        self.ind += 1
        bit = self.op(f"arith.andi {e2}, {one} : {ty}")
        odd = self.op(f"arith.cmpi ne, {bit}, {zero} : {ty}")
        m = self.op(f"arith.muli {r2}, {b2} : {ty}")
        r3 = self.op(f"arith.select {odd}, {m}, {r2} : {ty}")
        b3 = self.op(f"arith.muli {b2}, {b2} : {ty}")
        e3 = self.op(f"arith.shrui {e2}, {one} : {ty}")
        self.emit(f"scf.yield {r3}, {b3}, {e3} : {ty}, {ty}, {ty}")
        self.ind -= 1
        self.emit("}")
        return f"{res}#0"

    def e_unary(self, e: N.UnaryOp):
        t = e.type
        if e.op == "not":
            x = self.as_bool(e.operand)
            return self.op(f"arith.xori {x}, {self.iconst(1, 'i1')} : i1")
        x = self.expr_as(e.operand, t)
        if e.op == "neg":
            if isinstance(t, Float):
                return self.op(f"arith.negf {x} : {t.mlir}")
            return self.op(f"arith.subi {self.iconst(0, t.mlir)}, {x} : {t.mlir}")
        if e.op == "invert":
            if isinstance(t, Float):
                raise self.error(f"bitwise invert (~) is not defined on {t!r}")
            return self.op(f"arith.xori {x}, {self.iconst(-1, t.mlir)} : {t.mlir}")
        raise self.error(f"unsupported unary operator {e.op!r}")

    def e_cast(self, e: N.Cast):
        return self.expr_as(e.value, e.type)

    def e_select(self, e: N.Select):
        c = self.as_bool(e.cond)
        a, b = self.expr_as(e.a, e.type), self.expr_as(e.b, e.type)
        return self.op(f"arith.select {c}, {a}, {b} : {e.type.mlir}")

    def e_math(self, e: N.MathCall):
        t, fn = e.type, e.fn
        if fn == "abs":
            x = self.expr_as(e.args[0], t)
            c = _cat(t)
            if c == "f":
                return self.op(f"math.absf {x} : {t.mlir}")
            if c in ("s", "sfx"):
                return self.op(f"math.absi {x} : {t.mlir}")
            return x
        if fn == "pow" and not isinstance(t, Float):
            return self.int_pow(self.expr_as(e.args[0], t), self.expr_as(e.args[1], t), t)
        # 16-bit floats and non-float results compute in f32/f64 (libm has no f16 entry points)
        ct = t if isinstance(t, Float) and t.bits >= 32 else (Float(32) if isinstance(t, Float) else Float(64))
        args = [self.expr_as(a, ct) for a in e.args]
        ty = ct.mlir
        if fn == "sigmoid":
            neg = self.op(f"arith.negf {args[0]} : {ty}")
            ex = self.op(f"math.exp {neg} : {ty}")
            one = self.const(1.0, ct)
            den = self.op(f"arith.addf {one}, {ex} : {ty}")
            v = self.op(f"arith.divf {one}, {den} : {ty}")
        elif fn == "pow":
            v = self.op(f"math.powf {args[0]}, {args[1]} : {ty}")
        elif fn in _MATH:
            v = self.op(f"{_MATH[fn]} {args[0]} : {ty}")
        else:
            raise self.error(f"unsupported math function {fn!r}")
        return self.cast(v, ct, t)

    _EXPRS = {N.Const: e_const, N.IterVar: e_itervar, N.Load: e_load, N.BinOp: e_binop, N.UnaryOp: e_unary,
              N.Cast: e_cast, N.Select: e_select, N.MathCall: e_math}

    # ------------------------------------------------------------------ casts
    def resize(self, v, sbits, dbits, signed) -> str:
        if sbits == dbits:
            return v
        if dbits > sbits:
            return self.op(f"arith.{'extsi' if signed else 'extui'} {v} : i{sbits} to i{dbits}")
        return self.op(f"arith.trunci {v} : i{sbits} to i{dbits}")

    def cast(self, v, s, d) -> str:
        """Convert SSA value v of allo type s to allo type d (allo's cast rules, see common notes)."""
        if s == d:
            return v
        cs, cd = _cat(s), _cat(d)
        if _is_bool(d):
            if cs == "f":
                return self.compare("ne", v, self.const(0.0, s), s)
            return self.op(f"arith.cmpi ne, {v}, {self.iconst(0, s.mlir)} : {s.mlir}")
        if isinstance(s, Index):
            v = self.op(f"arith.index_cast {v} : index to i64")
            s, cs = i64_t, "s"
            if s == d:
                return v
        if isinstance(d, Index):
            v = self.cast(v, s, i64_t)
            return self.op(f"arith.index_cast {v} : i64 to index")
        if cs == "f" and cd == "f":
            if s.bits == d.bits:  # f16 <-> bf16
                v = self.op(f"arith.extf {v} : {s.mlir} to f32")
                return self.op(f"arith.truncf {v} : f32 to {d.mlir}")
            kind = "extf" if d.bits > s.bits else "truncf"
            return self.op(f"arith.{kind} {v} : {s.mlir} to {d.mlir}")
        if cs == "f" and cd in ("s", "u"):
            i = self.op(f"arith.{'fptoui' if cd == 'u' and d.bits == 64 else 'fptosi'} {v} : {s.mlir} to i64")
            return self.resize(i, 64, d.bits, True)
        if cs in ("s", "u") and cd == "f":
            return self.op(f"arith.{'sitofp' if cs == 's' else 'uitofp'} {v} : {s.mlir} to {d.mlir}")
        if cs in ("s", "u") and cd in ("s", "u"):
            return self.resize(v, s.bits, d.bits, cs == "s")
        if cs in ("sfx", "ufx") and cd == "f":
            f = self.op(f"arith.{'sitofp' if cs == 'sfx' else 'uitofp'} {v} : {s.mlir} to f64")
            if s.frac:
                f = self.op(f"arith.mulf {f}, {self.const(2.0 ** -s.frac, Float(64))} : f64")
            return self.cast(f, Float(64), d)
        if cs == "f" and cd in ("sfx", "ufx"):
            x = self.cast(v, s, Float(64))
            if d.frac:
                x = self.op(f"arith.mulf {x}, {self.const(2.0 ** d.frac, Float(64))} : f64")
            x = self.op(f"math.floor {x} : f64")
            i = self.op(f"arith.fptosi {x} : f64 to i64")
            return self.resize(i, 64, d.bits, True)
        if cs in ("s", "u") and cd in ("sfx", "ufx"):
            r = self.resize(v, s.bits, d.bits, cs == "s")
            if d.frac >= d.bits:
                return self.iconst(0, d.mlir)
            if d.frac:
                r = self.op(f"arith.shli {r}, {self.iconst(d.frac, d.mlir)} : {d.mlir}")
            return r
        if cs in ("sfx", "ufx") and cd in ("s", "u"):
            r = self.shift_right(v, s.bits, s.frac, cs == "sfx")
            return self.resize(r, s.bits, d.bits, cs == "sfx")
        if cs in ("sfx", "ufx") and cd in ("sfx", "ufx"):
            signed = cs == "sfx"
            if d.frac >= s.frac:
                r = self.resize(v, s.bits, d.bits, signed)
                k = d.frac - s.frac
                if k >= d.bits:
                    return self.iconst(0, d.mlir)
                if k:
                    r = self.op(f"arith.shli {r}, {self.iconst(k, d.mlir)} : {d.mlir}")
                return r
            r = self.shift_right(v, s.bits, s.frac - d.frac, signed)
            return self.resize(r, s.bits, d.bits, signed)
        raise self.error(f"cannot cast {s!r} to {d!r}")

    def shift_right(self, v, bits, k, signed) -> str:
        """floor(v / 2**k) at width `bits` (shifts >= width saturate to the sign)."""
        if k == 0:
            return v
        ty = f"i{bits}"
        if k >= bits:
            if not signed:
                return self.iconst(0, ty)
            k = bits - 1
        return self.op(f"arith.{'shrsi' if signed else 'shrui'} {v}, {self.iconst(k, ty)} : {ty}")


__all__ = ["render_module", "to_mlir_module", "render_with_globals", "parse_with_globals", "affine_form",
           "unroll_for", "storage_array", "ENTRY_PREFIX"]
