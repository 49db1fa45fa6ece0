"""A reference interpreter of allo's loop IR, exact in numpy scalar types (float32 stays float32).

It translates each `Func` to a Python function (loops become Python loops over numpy arrays) and
runs it. Used to prove that schedule rewrites keep results bit-identical.

Value model: index -> Python int; floats/ints/bool -> numpy scalars of the type's container
dtype (odd-width ints are wrapped at their width after each operation); ints wider than 64 bits
-> Python ints (object arrays); Fixed/UFixed -> Python int holding value * 2**frac (arrays of
them hold the raw container integers; the I/O boundary converts from/to float64 like the LLVM
module does).

Example::

    out = run(module, A, B)              # top function; numpy in, numpy out
    out = run(module, A, func="gemm")    # any function of the module
"""
from __future__ import annotations

import math

import numpy as np

from .errors import AlloError
from .ir import nodes as N
from .ir.attrs import DF_REGION, DF_STREAM, STATEFUL
from .ir.bits import BIT_FUNCS
from .ir.effects import params_maybe_written
from .ir.fixed import float_to_fixed_raw, float_to_int, from_raw, to_raw
from .ir.ops import LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from .ir.types import Fixed, Float, Index, Int, UFixed, UInt, container_bits, is_signed


# ----------------------------------------------------------------------------- type helpers
def _kind(t) -> str:
    if isinstance(t, Index):
        return "index"
    if isinstance(t, Float):
        return "float"
    if isinstance(t, (Fixed, UFixed)):
        return "fixed"
    if isinstance(t, UInt) and t.bits == 1:
        return "bool"
    if isinstance(t, (Int, UInt)):
        return "int"
    raise AlloError(f"interp: unsupported type {t!r}")


def storage_dtype(t) -> np.dtype:
    """numpy dtype of memory holding elements of type `t`."""
    if isinstance(t, (Int, UInt, Fixed, UFixed)) and container_bits(t.bits) > 64:
        return np.dtype(object)  # Python ints
    if isinstance(t, (Fixed, UFixed)):
        return np.dtype(f"{'int' if isinstance(t, Fixed) else 'uint'}{container_bits(t.bits)}")
    if isinstance(t, Float) and t.brain:
        return np.dtype(np.float32)  # bfloat16 is emulated in float32 (minimal support)
    return t.np_dtype


def _wrap_int(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def _odd(t) -> bool:
    """An integer type narrower than its container (int1 included; bool is UInt(1))."""
    return isinstance(t, (Int, UInt)) and t.bits not in (8, 16, 32, 64) and not (isinstance(t, UInt) and t.bits == 1)


def _npwrap(x, t):
    """Wrap a numpy integer scalar to the declared width of odd-width type `t`."""
    return storage_dtype(t).type(_wrap_int(int(x), t.bits, is_signed(t)))


def _cdiv(a, b):
    """C integer division (truncates toward zero); x / 0 gives 0 (undefined in C)."""
    a_, b_ = int(a), int(b)
    if b_ == 0:
        return type(a)(0) if not isinstance(a, int) else 0
    q = abs(a_) // abs(b_)
    q = -q if (a_ < 0) != (b_ < 0) else q
    return type(a)(_wrap_like(q, a)) if not isinstance(a, int) else q


def _wrap_like(q, a):
    dt = np.asarray(a).dtype
    return _wrap_int(q, dt.itemsize * 8, dt.kind == "i")


def _fdiv(a, b):
    if int(b) == 0:
        return type(a)(0) if not isinstance(a, int) else 0
    return a // b


def _fmod(a, b):
    if int(b) == 0:
        return type(a)(0) if not isinstance(a, int) else 0
    return a % b


def _ipow(a, b):
    """a ** b wrapping at a's width; b < 0 gives the C truncation of 1 / a**-b (1, +-1 or 0)."""
    dt = np.asarray(a).dtype
    base, e = int(a), int(b)
    if e >= 0:
        r = pow(base, e, 1 << (dt.itemsize * 8))
    else:
        r = 1 if base == 1 else ((-1 if e & 1 else 1) if base == -1 else 0)
    return dt.type(_wrap_int(r, dt.itemsize * 8, dt.kind == "i"))


def _shl(a, b):
    dt = np.asarray(a).dtype
    n = int(b)
    return dt.type(0) if n >= dt.itemsize * 8 or n < 0 else dt.type(_wrap_int(int(a) << n, dt.itemsize * 8, dt.kind == "i"))


def _shr(a, b):
    dt = np.asarray(a).dtype
    n = int(b)
    if n >= dt.itemsize * 8 or n < 0:
        return dt.type(-1 if dt.kind == "i" and int(a) < 0 else 0)
    return dt.type(int(a) >> n)


def _fixed_to_f64(raw, scale):
    """A fixed value's raw integer -> float64 as LLVM's sitofp to f64 (inf beyond its range) times 2**-frac."""
    try:
        return np.float64(float(int(raw)) * scale)
    except OverflowError:
        return np.float64(np.inf if int(raw) > 0 else -np.inf)


def _wide(t) -> bool:
    return isinstance(t, (Int, UInt)) and t.bits > 64


def _wshl(a, n, bits, signed):
    n = int(n)
    return 0 if n >= bits or n < 0 else _wrap_int(int(a) << n, bits, signed)


def _wshr(a, n, bits, signed):
    n, a = int(n), int(a)
    if n >= bits or n < 0:
        return -1 if signed and a < 0 else 0
    return a >> n


def _wpow(a, b, bits, signed):
    return _wrap_int(pow(int(a), int(b), 1 << bits), bits, signed) if int(b) >= 0 else 0


def _fptoi(x, bits, signed, dt):
    return dt.type(float_to_int(x, bits, signed))


def _to_fixed(x, t):
    return float_to_fixed_raw(x, t.bits, t.frac, isinstance(t, Fixed))


def _unsigned_bits(x, t) -> int:
    return int(x) & ((1 << t.bits) - 1)


def _from_unsigned(v: int, t):
    """Raw bits v of integer type t in the interpreter's value model."""
    if isinstance(t, UInt) and t.bits == 1:
        return np.bool_(v & 1)
    return storage_dtype(t).type(_wrap_int(v, t.bits, isinstance(t, Int)))


def _bit_get(x, i, t, rt):
    i = int(i)
    return np.bool_(0 <= i < t.bits and (_unsigned_bits(x, t) >> i) & 1)


def _bit_slice(x, lo, hi, t, rt):
    return _from_unsigned(_unsigned_bits(x, t) >> int(lo), rt)


def _bit_reverse(x, t, rt):
    v = _unsigned_bits(x, t)
    return _from_unsigned(sum(((v >> k) & 1) << (t.bits - 1 - k) for k in range(t.bits)), rt)


def _bitcast(x, t, rt):
    return np.array(x, dtype=storage_dtype(t)).view(storage_dtype(rt))[()]


def _bit_set(x, i, b, t, rt):
    i = int(i)
    if not 0 <= i < t.bits:
        return x
    v = (_unsigned_bits(x, t) & ~(1 << i)) | (int(bool(b)) << i)
    return _from_unsigned(v, rt)


def _bit_setslice(x, lo, hi, v, t, rt):
    lo, hi = int(lo), int(hi)
    mask = ((1 << (hi - lo)) - 1) << lo
    return _from_unsigned((_unsigned_bits(x, t) & ~mask) | ((int(v) << lo) & mask), rt)


HELPERS = {
    "np": np, "math": math, "_cdiv": _cdiv, "_fdiv": _fdiv, "_fmod": _fmod, "_ipow": _ipow,
    "_shl": _shl, "_shr": _shr, "_wrap_int": _wrap_int, "_npwrap": _npwrap, "_fptoi": _fptoi,
    "_to_fixed": _to_fixed, "_fixed_to_f64": _fixed_to_f64, "_wshl": _wshl, "_wshr": _wshr, "_wpow": _wpow,
    "_bit_get": _bit_get, "_bit_slice": _bit_slice, "_bit_reverse": _bit_reverse, "_bitcast": _bitcast,
    "_bit_set": _bit_set, "_bit_setslice": _bit_setslice,
}

# Binary operators by operand kind: format strings over {a}, {b}.
FLOAT_OPS = {
    BinOpKind.ADD: "({a} + {b})", BinOpKind.SUB: "({a} - {b})", BinOpKind.MUL: "({a} * {b})",
    BinOpKind.DIV: "({a} / {b})", BinOpKind.FLOORDIV: "np.floor_divide({a}, {b})",
    BinOpKind.MOD: "np.remainder({a}, {b})", BinOpKind.POW: "np.power({a}, {b})",
    BinOpKind.MIN: "np.minimum({a}, {b})", BinOpKind.MAX: "np.maximum({a}, {b})",
}
INT_OPS = {
    BinOpKind.ADD: "({a} + {b})", BinOpKind.SUB: "({a} - {b})", BinOpKind.MUL: "({a} * {b})",
    BinOpKind.DIV: "_cdiv({a}, {b})", BinOpKind.FLOORDIV: "_fdiv({a}, {b})", BinOpKind.MOD: "_fmod({a}, {b})",
    BinOpKind.POW: "_ipow({a}, {b})", BinOpKind.MIN: "min({a}, {b})", BinOpKind.MAX: "max({a}, {b})",
    BinOpKind.AND: "({a} & {b})", BinOpKind.OR: "({a} | {b})", BinOpKind.XOR: "({a} ^ {b})",
    BinOpKind.SHL: "_shl({a}, {b})", BinOpKind.SHR: "_shr({a}, {b})",
}
INDEX_OPS = {
    BinOpKind.ADD: "({a} + {b})", BinOpKind.SUB: "({a} - {b})", BinOpKind.MUL: "({a} * {b})",
    BinOpKind.DIV: "_cdiv({a}, {b})", BinOpKind.FLOORDIV: "_fdiv({a}, {b})", BinOpKind.MOD: "_fmod({a}, {b})",
    BinOpKind.MIN: "min({a}, {b})", BinOpKind.MAX: "max({a}, {b})", BinOpKind.AND: "({a} & {b})",
    BinOpKind.OR: "({a} | {b})", BinOpKind.XOR: "({a} ^ {b})", BinOpKind.SHL: "({a} << {b})",
    BinOpKind.SHR: "({a} >> {b})",
}
CMP_OPS = {BinOpKind.LT: "<", BinOpKind.LE: "<=", BinOpKind.GT: ">", BinOpKind.GE: ">=", BinOpKind.EQ: "==",
           BinOpKind.NE: "!="}
BOOL_OPS = {
    BinOpKind.AND: "np.bool_({a} & {b})", BinOpKind.OR: "np.bool_({a} | {b})", BinOpKind.XOR: "np.bool_({a} ^ {b})",
    BinOpKind.ADD: "np.bool_({a} ^ {b})", BinOpKind.SUB: "np.bool_({a} ^ {b})", BinOpKind.MUL: "np.bool_({a} & {b})",
    BinOpKind.DIV: "np.bool_({a} & {b})", BinOpKind.FLOORDIV: "np.bool_({a} & {b})", BinOpKind.MOD: "np.bool_(False)",
    BinOpKind.LAND: "np.bool_(bool({a}) and bool({b}))", BinOpKind.LOR: "np.bool_(bool({a}) or bool({b}))",
    BinOpKind.MIN: "np.bool_({a} & {b})", BinOpKind.MAX: "np.bool_({a} | {b})",
    # one bit: any shift but 0 leaves the width (0, also for negative amounts); x ** 0 is 1, x ** n is x
    BinOpKind.SHL: "np.bool_(bool({a}) and int({b}) == 0)", BinOpKind.SHR: "np.bool_(bool({a}) and int({b}) == 0)",
    BinOpKind.POW: "np.bool_(bool({a}) or int({b}) == 0)",
}
MATH = {MathFn.EXP: "np.exp", MathFn.LOG: "np.log", MathFn.LOG2: "np.log2", MathFn.SQRT: "np.sqrt",
        MathFn.TANH: "np.tanh", MathFn.SIN: "np.sin", MathFn.COS: "np.cos", MathFn.FLOOR: "np.floor",
        MathFn.CEIL: "np.ceil", MathFn.ABS: "np.abs"}


# ----------------------------------------------------------------------------- code generation
class _FuncGen:
    def __init__(self, func: N.Func, ns: dict, coroutines: frozenset = frozenset()):
        self.func, self.ns = func, ns
        self.names = {}
        self.lines = []
        self.coroutines = coroutines  # dataflow mode: functions run as generators (see compile_module)
        self.region = coroutines and DF_REGION in func.attrs

    def name(self, obj, prefix) -> str:
        key = id(obj)
        if key not in self.names:
            self.names[key] = f"{prefix}{len(self.names)}"
        return self.names[key]

    def constant(self, value) -> str:
        key = f"k{len(self.ns)}"
        self.ns[key] = value
        return key

    def buf(self, b: N.Buffer) -> str:
        if b.kind == "global":
            key = f"G_{id(b)}"
            if key not in self.ns:
                data = np.asarray(b.data)
                self.ns[key] = to_raw(data, b.dtype) if isinstance(b.dtype, (Fixed, UFixed)) \
                    else data.astype(storage_dtype(b.dtype))
            return key
        return self.name(b, "b")

    # --- expressions
    def expr(self, e) -> str:
        return getattr(self, "e_" + type(e).__name__)(e)

    def e_Const(self, e):
        return self.constant(const_value(e.value, e.type))

    def e_IterVar(self, e):
        return self.name(e, "v")

    def e_Load(self, e):
        if self.coroutines and DF_STREAM in e.buf.attrs:
            return f"(yield from _df_get({self.buf(e.buf)}))"
        code = f"{self.buf(e.buf)}[{self.index(e.indices)}]"
        return f"int({code})" if _kind(e.type) == "fixed" else code

    def index(self, indices) -> str:
        if not indices:
            return "()"
        return ", ".join(f"int({self.expr(i)})" if _kind(i.type) != "index" else self.expr(i) for i in indices) + ","

    def e_BinOp(self, e):
        a, b, t = self.expr(e.lhs), self.expr(e.rhs), e.lhs.type
        k = _kind(t)
        if e.op in CMP_OPS:
            return f"({a} {CMP_OPS[e.op]} {b})"
        if e.op in LOGIC_OPS or k == "bool":
            return BOOL_OPS[e.op].format(a=a, b=b)
        if k == "float":
            return FLOAT_OPS[e.op].format(a=a, b=b)
        if k == "index":
            return INDEX_OPS[e.op].format(a=a, b=b)
        if k == "fixed":
            return self.fixed_binop(e, a, b)
        if _wide(t) and e.op in (BinOpKind.SHL, BinOpKind.SHR, BinOpKind.POW):
            return f"_w{e.op}({a}, {b}, {t.bits}, {isinstance(t, Int)})"
        if e.op in (BinOpKind.SHL, BinOpKind.SHR) and e.rhs.type != t:
            b = f"{self.constant(storage_dtype(t).type)}({b})"
        code = INT_OPS[e.op].format(a=a, b=b)
        return f"_npwrap({code}, {self.constant(e.type)})" if _odd(e.type) else code

    def fixed_binop(self, e, a, b):
        t = e.type
        w = f"{t.bits}, {isinstance(t, Fixed)}"
        table = {
            BinOpKind.ADD: f"_wrap_int({a} + {b}, {w})", BinOpKind.SUB: f"_wrap_int({a} - {b}, {w})",
            BinOpKind.MUL: f"_wrap_int(({a} * {b}) >> {t.frac}, {w})",
            BinOpKind.DIV: f"_wrap_int(_cdiv({a} << {t.frac}, {b}), {w})",
            BinOpKind.MIN: f"min({a}, {b})", BinOpKind.MAX: f"max({a}, {b})",
            BinOpKind.SHL: f"_wshl({a}, {b}, {w})", BinOpKind.SHR: f"_wshr({a}, {b}, {w})",  # raw bits
        }
        if e.op not in table:
            raise AlloError(f"interp: fixed-point operator {e.op!r} is not supported")
        return table[e.op]

    def e_UnaryOp(self, e):
        a, k = self.expr(e.operand), _kind(e.type)
        if e.op == UnaryOpKind.NOT:
            return f"np.logical_not({a})"
        if k == "fixed":
            return f"_wrap_int(-{a}, {e.type.bits}, {isinstance(e.type, Fixed)})" if e.op == UnaryOpKind.NEG else \
                f"_wrap_int(~{a}, {e.type.bits}, {isinstance(e.type, Fixed)})"
        if k == "bool":  # one bit: -x == x (mod 2), ~x flips it
            return a if e.op == UnaryOpKind.NEG else f"np.logical_not({a})"
        code = f"(-{a})" if e.op == UnaryOpKind.NEG else f"(~{a})"
        return f"_npwrap({code}, {self.constant(e.type)})" if _odd(e.type) else code

    def e_Cast(self, e):
        return self.cast(self.expr(e.value), e.value.type, e.type)

    def cast(self, a, src, dst) -> str:
        if src == dst:
            return a
        ks, kd = _kind(src), _kind(dst)
        if kd == "index":
            return f"int({a})" if ks != "fixed" else f"({a} >> {src.frac})"
        if kd == "bool":
            return f"np.bool_({a} != 0)"
        if kd == "float":
            dt = self.constant(storage_dtype(dst).type)
            if ks == "fixed":  # as the LLVM build: raw -> f64, times 2**-frac, then rounded to dst
                return f"{dt}(_fixed_to_f64({a}, {2.0 ** -src.frac!r}))"
            return f"{dt}({a})"
        if kd == "int":
            dt = self.constant(storage_dtype(dst))
            signed = isinstance(dst, Int)
            if ks == "float":
                return f"_fptoi({a}, {dst.bits}, {signed}, {dt})"
            if ks == "fixed":
                return f"{dt}.type(_wrap_int({a} >> {src.frac}, {dst.bits}, {signed}))"
            return f"{dt}.type(_wrap_int(int({a}), {dst.bits}, {signed}))"
        # kd == "fixed"
        w = f"{dst.bits}, {isinstance(dst, Fixed)}"
        if ks == "float":
            return f"_to_fixed({a}, {self.constant(dst)})"
        if ks == "fixed":
            shift = dst.frac - src.frac
            moved = f"({a} << {shift})" if shift >= 0 else f"({a} >> {-shift})"
            return f"_wrap_int({moved}, {w})"
        return f"_wrap_int(int({a}) << {dst.frac}, {w})"

    def e_MathCall(self, e):
        args = [self.expr(a) for a in e.args]
        if e.fn in BIT_FUNCS:
            x = e.args[0].type
            return f"_{e.fn}({', '.join(args)}, {self.constant(x)}, {self.constant(e.type)})"
        if _kind(e.type) != "float":
            if e.fn == MathFn.ABS:
                code = f"abs({args[0]})"
                return f"_npwrap({code}, {self.constant(e.type)})" if _odd(e.type) else code
            raise AlloError(f"interp: math function {e.fn!r} on {e.type!r} is not supported")
        dt = self.constant(storage_dtype(e.type).type)
        if e.fn in MATH:
            return f"{MATH[e.fn]}({args[0]})"
        if e.fn == MathFn.POW:
            return f"np.power({args[0]}, {args[1]})"
        if e.fn == MathFn.RSQRT:
            return f"({dt}(1) / np.sqrt({args[0]}))"
        if e.fn == MathFn.SIGMOID:
            return f"({dt}(1) / ({dt}(1) + np.exp(-{args[0]})))"
        if e.fn == MathFn.ERF:
            return f"{dt}(math.erf(float({args[0]})))"
        raise AlloError(f"interp: unknown math function {e.fn!r}")

    def e_Select(self, e):
        return f"({self.expr(e.a)} if {self.expr(e.cond)} else {self.expr(e.b)})"

    # --- statements
    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def block(self, body, depth):
        if not body:
            self.emit(depth, "pass")
        for s in body:
            getattr(self, "s_" + type(s).__name__)(s, depth)

    def s_For(self, s, depth):
        self.emit(depth, f"for {self.name(s.var, 'v')} in range(int({self.expr(s.lb)}), int({self.expr(s.ub)}), {s.step}):")
        self.block(s.body, depth + 1)

    def s_If(self, s, depth):
        self.emit(depth, f"if {self.expr(s.cond)}:")
        self.block(s.then, depth + 1)
        if s.orelse:
            self.emit(depth, "else:")
            self.block(s.orelse, depth + 1)

    def s_While(self, s, depth):
        self.emit(depth, f"while {self.expr(s.cond)}:")
        self.block(s.body, depth + 1)

    def s_Alloc(self, s, depth):
        if self.coroutines and DF_STREAM in s.buf.attrs:
            self.emit(depth, f"{self.buf(s.buf)} = _df_fifo({self.constant(s.buf.attrs[DF_STREAM])})")
            return
        b, dt = self.buf(s.buf), self.constant(storage_dtype(s.buf.dtype))
        shape = tuple(s.buf.shape)
        if STATEFUL in s.buf.attrs:  # one array per compiled module, kept between calls
            init = self.constant(_to_storage(s.buf.attrs[STATEFUL], s.buf.dtype))
            key = self.constant(id(s.buf))
            self.emit(depth, f"if {key} not in _STATE: _STATE[{key}] = np.array({init}, {dt})")
            self.emit(depth, f"{b} = _STATE[{key}]")
            return
        if s.init is None:
            self.emit(depth, f"{b} = np.zeros({shape}, {dt})")
        elif isinstance(s.init, N.Buffer):
            self.emit(depth, f"{b} = np.array({self.buf(s.init)}, {dt})")
        else:
            value = self.cast(self.expr(s.init), s.init.type, s.buf.dtype)
            self.emit(depth, f"{b} = np.full({shape}, {value}, {dt})")

    def s_Store(self, s, depth):
        value = self.expr(s.value)
        if s.value.type != s.buf.dtype:
            value = self.cast(value, s.value.type, s.buf.dtype)
        if self.coroutines and DF_STREAM in s.buf.attrs:
            self.emit(depth, f"yield from _df_put({self.buf(s.buf)}, {value})")
            return
        self.emit(depth, f"{self.buf(s.buf)}[{self.index(s.indices)}] = {value}")

    def s_CallStmt(self, s, depth):
        args = []
        for a in s.args:
            if isinstance(a, N.Buffer):
                args.append(self.buf(a))
            else:
                args.append(f"np.array({self.expr(a)}, {self.constant(storage_dtype(a.type))})")
        if self.region:  # a kernel instance of a dataflow region: a concurrent task
            self.emit(depth, f"_df_tasks.append(_df_spawn(F_{s.callee}({', '.join(args)}), {s.callee!r}))")
            return
        call = f"F_{s.callee}({', '.join(args)})"
        self.emit(depth, f"_r = yield from {call}" if s.callee in self.coroutines else f"_r = {call}")
        for k, r in enumerate(s.results):
            if r.kind == "result":
                self.emit(depth, f"{self.buf(r)} = _r[{k}]")
            else:
                self.emit(depth, f"{self.buf(r)}[()] = _r[{k}]")

    def s_Return(self, s, depth):
        vals = [self.buf(v) if isinstance(v, N.Buffer) else self.expr(v) for v in s.values]
        self.emit(depth, f"return ({', '.join(vals)}{',' if vals else ''})")

    def source(self) -> str:
        params = [self.buf(p) for p in self.func.params]
        self.emit(0, f"def F_{self.func.name}({', '.join(params)}):")
        if self.func.name in self.coroutines:
            self.emit(1, "if False: yield  # a generator: the dataflow simulator steps it")
        if self.region:
            self.emit(1, "_df_tasks = []")
        self.block(self.func.body, 1)
        if self.region:
            self.emit(1, "yield from _df_join(_df_tasks)")
        self.emit(1, "return ()")
        return "\n".join(self.lines)


def const_value(value, t):
    """A literal in the interpreter's value model for type `t`."""
    k = _kind(t)
    if k == "index":
        return int(value)
    if k == "fixed":
        return _to_fixed(value, t)
    if k == "bool":
        return np.bool_(bool(value))
    if k == "int":
        return storage_dtype(t).type(_wrap_int(int(value), t.bits, isinstance(t, Int)))
    return storage_dtype(t).type(value)


def compile_module(module: N.Module, dataflow: dict | None = None) -> dict:
    """{func name: Python callable} taking/returning storage arrays (0-d arrays for scalars).

    With `dataflow` (the helpers `_df_fifo`, `_df_put`, `_df_get`, `_df_spawn`, `_df_join` of a
    scheduler, allo.dataflow.simulator), stream buffers are FIFOs and every function that touches
    one, directly or through calls, is a generator that yields when a FIFO blocks it; a region
    function spawns its instances as tasks and waits for them."""
    ns = dict(HELPERS)
    ns["_STATE"] = {}  # Stateful locals of this compiled module: {id(buffer): array}
    coroutines = frozenset()
    if dataflow is not None:
        ns.update(dataflow)
        coroutines = _coroutines(module)
    sources = [_FuncGen(f, ns, coroutines).source() for f in module.funcs]
    code = "\n\n".join(sources)
    exec(compile(code, f"<allo-interp {module.top}>", "exec"), ns)
    return {f.name: ns[f"F_{f.name}"] for f in module.funcs}


def _coroutines(module: N.Module) -> frozenset:
    """Functions that use a stream, are a region, or call such a function."""
    calls = {f.name: {s.callee for s in _walk(f.body) if isinstance(s, N.CallStmt)} for f in module.funcs}
    out = {f.name for f in module.funcs if DF_REGION in f.attrs or any(DF_STREAM in p.attrs for p in f.params)}
    changed = True
    while changed:
        changed = False
        for f, callees in calls.items():
            if f not in out and callees & out:
                out.add(f)
                changed = True
    return frozenset(out)


def _walk(body):
    for s in body:
        yield s
        for b in (getattr(s, "body", None), getattr(s, "then", None), getattr(s, "orelse", None)):
            if isinstance(b, list):
                yield from _walk(b)


def to_storage(x, t):
    """A numpy input in the interpreter's value model for element type `t` (a fresh array)."""
    return _to_storage(x, t)


def from_storage(x, t):
    """The inverse of `to_storage` (fixed-point raw integers -> floats)."""
    return _from_storage(x, t)


def _byte_struct(x, t) -> bool:
    """Is `x` upstream Allo's host container of a wide integer (allo.utils.get_np_struct_type:
    a structured array of unsigned bytes, least significant first) for type `t`?"""
    if not (isinstance(x, np.ndarray) and x.dtype.names and isinstance(t, (Int, UInt)) and t.bits > 64):
        return False
    if any(x.dtype.fields[n][0] != np.uint8 for n in x.dtype.names):
        return False
    if x.dtype.itemsize * 8 != t.bits:
        raise AlloError(f"a {x.dtype.itemsize * 8}-bit packed array (get_np_struct_type) passed for {t!r}: "
                        f"use get_np_struct_type({t.bits})")
    return True


def _to_storage(x, t):
    if _byte_struct(x, t):
        raw = np.ascontiguousarray(x).view(np.uint8).reshape(x.shape + (x.dtype.itemsize,))
        out = np.empty(x.shape, dtype=object)
        for idx in np.ndindex(x.shape):
            out[idx] = _wrap_int(int.from_bytes(raw[idx].tobytes(), "little"), t.bits, is_signed(t))
        return out
    if isinstance(t, (Fixed, UFixed)):
        return np.array(to_raw(np.asarray(x, dtype=np.float64), t))
    return np.array(x, dtype=storage_dtype(t))


def write_back(a: np.ndarray, x, t) -> None:
    """Copy the interpreter's values `x` of element type `t` into the caller's array `a`."""
    if _byte_struct(a, t):
        raw = a.view(np.uint8).reshape(a.shape + (a.dtype.itemsize,))
        for idx in np.ndindex(a.shape):
            v = int(x[idx]) & ((1 << t.bits) - 1)
            raw[idx] = np.frombuffer(v.to_bytes(a.dtype.itemsize, "little"), np.uint8)
        return
    np.copyto(a, _from_storage(x, t), casting="unsafe")


def _from_storage(x, t):
    if isinstance(t, (Fixed, UFixed)):
        return from_raw(np.asarray(x), t)
    return x


def run(module: N.Module | N.Func, *args, func: str | None = None):
    """Run function `func` (default: the top) on numpy inputs; returns like the LLVM module:
    one array, a scalar, a tuple, or None (then array arguments are updated in place).

    Example: `run(mod, A, B)` -> numpy array."""
    if isinstance(module, N.Func):
        module = N.Module([module], module.name)
    f = module.func(func or module.top)
    if len(args) != len(f.params):
        raise AlloError(f"interp: {f.name} takes {len(f.params)} arguments, got {len(args)}")
    fns = compile_module(module)
    inputs = [_to_storage(a, p.dtype) for a, p in zip(args, f.params)]
    with np.errstate(all="ignore"):
        outs = fns[f.name](*inputs)
    written = params_maybe_written(f)  # only those: a read-only fixed-point input keeps its values
    for a, p, x in zip(args, f.params, inputs):
        if isinstance(a, np.ndarray) and p.kind == "arg" and id(p) in written:
            write_back(a, x, p.dtype)
    if not outs:
        return None
    results = []
    for v, t in zip(outs, f.result_types):
        dt = getattr(t, "dtype", t)
        if isinstance(v, np.ndarray):
            results.append(_from_storage(v, dt).copy())
        else:
            results.append(_from_storage(v, dt) if isinstance(dt, (Fixed, UFixed)) else v)
    return results[0] if len(results) == 1 else tuple(results)
