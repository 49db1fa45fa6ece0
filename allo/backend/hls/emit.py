"""allo loop IR -> readable Vitis HLS C++.

Expressions render through tables (IR node type -> format function, op name -> C operator).
Each format function returns `Code(text, prec)` so parentheses appear only where C needs them
(or where GCC's -Wparentheses asks for them). Every result whose C type would differ from its
allo type (C integer promotion, half computed in float, odd widths, fixed point) is cast back,
so the C++ computes exactly what the IR means (see allo/ir/fixed.py and common notes).

Example::

    code = emit_module(module, target="vhls")
    code.kernel_cpp      # the C++ (includes, helpers, constants, sub-kernels, then the top)
    code.signatures[module.top].params   # how the host calls the top function
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ...errors import BackendError
from ...ir import nodes as N
from ...ir.types import ArrayType, Fixed, Float, Index, Int, UFixed, UInt, is_fixed
from .types import cpp_type, is_ap, is_native

# ----------------------------------------------------------------------------- precedence
ATOM, UNARY, MUL, ADD, SHIFT, REL, EQ, BAND, BXOR, BOR, LAND, LOR, COND = 16, 15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3


class Code(NamedTuple):
    text: str
    prec: int


def par(c: Code, need: int) -> str:
    """`c` as an operand that must bind at least as tightly as `need`."""
    return c.text if c.prec >= need else f"({c.text})"


def cast(ctype: str, c: Code) -> Code:
    return Code(f"({ctype}){par(c, UNARY)}", UNARY)


# op -> (C operator, precedence, precedence needed left, needed right). Bitwise, shift and
# logical operands get parentheses around any binary operator to keep -Wparentheses quiet.
_INFIX = {
    "add": ("+", ADD, ADD, MUL), "sub": ("-", ADD, ADD, MUL),
    "mul": ("*", MUL, MUL, UNARY), "div": ("/", MUL, MUL, UNARY), "mod": ("%", MUL, MUL, UNARY),
    "shl": ("<<", SHIFT, UNARY, UNARY), "shr": (">>", SHIFT, UNARY, UNARY),
    "and": ("&", BAND, UNARY, UNARY), "or": ("|", BOR, UNARY, UNARY), "xor": ("^", BXOR, UNARY, UNARY),
    "lt": ("<", REL, SHIFT, SHIFT), "le": ("<=", REL, SHIFT, SHIFT),
    "gt": (">", REL, SHIFT, SHIFT), "ge": (">=", REL, SHIFT, SHIFT),
    "eq": ("==", EQ, SHIFT, SHIFT), "ne": ("!=", EQ, SHIFT, SHIFT),
    "land": ("&&", LAND, EQ, EQ), "lor": ("||", LOR, EQ, EQ),
}
_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne", "land", "lor"}
_FIXED_OK = {"add", "sub", "mul", "div", "min", "max", "and", "or", "xor"}

# Math functions on float/double (std:: overloads keep float in float); half computes in float.
_MATH = {
    "exp": "std::exp({0})", "log": "std::log({0})", "log2": "std::log2({0})", "sqrt": "std::sqrt({0})",
    "tanh": "std::tanh({0})", "sin": "std::sin({0})", "cos": "std::cos({0})", "erf": "std::erf({0})",
    "abs": "std::abs({0})", "floor": "std::floor({0})", "ceil": "std::ceil({0})", "pow": "std::pow({0}, {1})",
    "rsqrt": "{one} / std::sqrt({0})", "sigmoid": "{one} / ({one} + std::exp(-{0}))",
}

# Helpers written into kernel.cpp only when used.
HELPERS = {
    "allo_div": """\
// Integer division that never traps: x / 0 gives 0 and MIN / -1 wraps (as allo's LLVM backend).
static inline int64_t allo_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  return a / b;
}""",
    "allo_divu": """\
static inline uint64_t allo_divu(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }""",
    "allo_modu": """\
static inline uint64_t allo_modu(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }""",
    "allo_floordiv": """\
// Floor division (numpy semantics for signed integers); x // 0 gives 0, MIN // -1 wraps.
static inline int64_t allo_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}""",
    "allo_mod": """\
// Modulo with the sign of the divisor (numpy semantics for signed integers); x % 0 gives 0.
static inline int64_t allo_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}""",
    "allo_shl": """\
// Shifts by amounts outside [0, bits) give 0 (left, unsigned right) or the sign fill (signed right).
static inline uint64_t allo_shl(uint64_t a, uint64_t n, int bits) { return n >= (uint64_t)bits ? 0 : a << n; }""",
    "allo_shr": """\
static inline int64_t allo_shr(int64_t a, uint64_t n, int bits) { return a >> (n >= (uint64_t)bits ? bits - 1 : (int)n); }""",
    "allo_shru": """\
static inline uint64_t allo_shru(uint64_t a, uint64_t n, int bits) { return n >= (uint64_t)bits ? 0 : a >> n; }""",
    "allo_fmod": """\
// Floating-point modulo with the sign of the divisor (numpy semantics).
template <class T> static inline T allo_fmod(T a, T b) {
  T r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}""",
    "allo_ipow": """\
// Integer power by squaring, wrapping at T's width; exponents <= 0 give 1.
template <class T> static inline T allo_ipow(T base, T e) {
  T r = 1;
  for (; e > 0; e = (T)(e >> 1), base = (T)(base * base))
    if (e & 1) r = (T)(r * base);
  return r;
}""",
    "allo_fmin": """\
// min of floats as arith.minimumf: NaN propagates, -0 < +0.
template <class T> static inline T allo_fmin(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}""",
    "allo_fmax": """\
// max of floats as arith.maximumf: NaN propagates, -0 < +0.
template <class T> static inline T allo_fmax(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}""",
    "allo_abs": """\
template <class T> static inline T allo_abs(T x) { return x < T(0) ? (T)(-x) : x; }""",
}

CPP_KEYWORDS = set("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t class
compl const constexpr const_cast continue decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new noexcept
not not_eq nullptr operator or or_eq private protected public register reinterpret_cast return short
signed sizeof static static_assert static_cast struct switch template this thread_local throw true
try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
main std half ap_int ap_uint ap_fixed ap_ufixed INFINITY NAN
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
""".split())
# Names the C library declares at file scope (cannot name file-scope constants or functions).
FILE_SCOPE_TAKEN = set("""
exp log log2 sqrt tanh sin cos tan erf abs fabs floor ceil pow fmod round trunc min max exit printf
abort free malloc memcpy memset strlen atoi rand time clock signal raise
""".split())


def sanitize(name: str) -> str:
    s = re.sub(r"[^0-9A-Za-z_]", "_", name) or "v"
    return "v_" + s if s[0].isdigit() else s


class Namer:
    """Hands out unique C++ identifiers: `name`, then `name_1`, `name_2`, ..."""

    def __init__(self, taken=()):
        self.taken = set(taken)

    def fresh(self, name: str, also_avoid=()) -> str:
        base = sanitize(name)
        cand, n = base, 0
        while cand in self.taken or cand in also_avoid or cand in CPP_KEYWORDS or cand.startswith("allo_"):
            n += 1
            cand = f"{base}_{n}"
        self.taken.add(cand)
        return cand


# ----------------------------------------------------------------------------- signatures
@dataclass
class Param:
    """One C++ parameter. role: "arg" (array), "scalar_arg" (by value), "out" (array result),
    "out_scalar" (scalar result by reference). `index` is the position in func.params for
    arguments and in the result list for results."""

    name: str
    type: object  # ArrayType for arrays, AlloType for scalars
    role: str
    index: int

    @property
    def is_array(self) -> bool:
        return isinstance(self.type, ArrayType) and self.type.rank > 0


@dataclass
class Signature:
    name: str
    params: list
    return_type: object = None  # AlloType when the single result is a scalar returned by value
    extern_c: bool = False

    def text(self) -> str:
        ret = cpp_type(self.return_type) if self.return_type is not None else "void"
        args = ", ".join(param_decl(p) for p in self.params)
        extern = 'extern "C" ' if self.extern_c else ""
        return f"{extern}{ret} {self.name}({args})"


def array_decl(ctype: str, name: str, shape) -> str:
    return f"{ctype} {name}" + "".join(f"[{d}]" for d in shape)


def param_decl(p: Param) -> str:
    if p.is_array:
        return array_decl(cpp_type(p.type.dtype), p.name, p.type.shape)
    t = p.type.dtype if isinstance(p.type, ArrayType) else p.type
    return f"{cpp_type(t)} {'&' if p.role == 'out_scalar' else ''}{p.name}"


def _is_array_type(t) -> bool:
    return isinstance(t, ArrayType) and t.rank > 0


def _scalar_type(t):
    return t.dtype if isinstance(t, ArrayType) else t


# ----------------------------------------------------------------------------- literals
def float_literal(v: float, t: Float) -> str:
    v = float(v)
    if t.bits == 16:
        v = float(np.float16(v))
    if np.isnan(v):
        text = "NAN"
    elif np.isinf(v):
        text = "INFINITY" if v > 0 else "-INFINITY"
    elif t.bits == 64:
        text = repr(v)
    else:
        text = str(np.float32(v)) + "f"
    if t.bits == 64 and not np.isfinite(v):
        text = f"(double){text}"
    return text


def int_literal(v: int, t) -> str:
    """A C integer literal whose C type can hold `v` (suffixes only beyond int)."""
    v = int(v)
    if isinstance(t, UInt) and t.bits == 1:
        return "true" if v else "false"
    if -(2**31) < v < 2**31:
        return str(v)
    if v == -(2**31):
        return "(-2147483647 - 1)"
    if v == -(2**63):
        return "(-9223372036854775807LL - 1)"
    if isinstance(t, UInt) and v < 2**32:
        return f"{v}u"
    return f"{v}ULL" if v >= 2**63 else f"{v}LL"


def const_text(value, t, typed: bool = False) -> Code:
    """A literal of allo type `t`. `typed` forces the exact C++ type (e.g. in `c ? x : 1`)."""
    if isinstance(t, Float):
        text = float_literal(value, t)
        if t.bits == 16:
            return Code(f"(half){text}", UNARY)
        return Code(text, UNARY if text.startswith(("-", "(")) else ATOM)
    if is_fixed(t):  # an int is exact at any width; a float is floored by the conversion
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return Code(f"({cpp_type(t)}){int_literal(int(value), Int(64))}", UNARY)
        return Code(f"({cpp_type(t)}){float(value)!r}", UNARY)
    if isinstance(value, float) and not float(value).is_integer():
        raise BackendError(f"integer constant of type {t!r} holds a non-integer {value!r}")
    text = int_literal(value, t)
    if is_ap(t) or (typed and not is_native(t) and not (isinstance(t, UInt) and t.bits == 1)):
        return Code(f"({cpp_type(t)}){text}", UNARY)
    return Code(text, UNARY if text.startswith(("-", "(")) else ATOM)


# ----------------------------------------------------------------------------- module
@dataclass
class ModuleCode:
    """Result of `emit_module`: the C++ text plus what the csim host needs."""

    kernel_cpp: str
    top: str  # C++ name of the top function
    signatures: dict  # IR function name -> Signature
    helpers: list = field(default_factory=list)


def emit_module(mod: N.Module, target: str = "vhls") -> ModuleCode:
    """Render every function of `mod` as C++ (sub-kernels first, callees before callers).

    Example::

        emit_module(Module([gemm], "gemm")).kernel_cpp   # 'void gemm(float A[32][32], ...'
    """
    if target not in ("vhls", "vitis_hls"):
        raise BackendError(f"unknown HLS target {target!r}; expected 'vhls' or 'vitis_hls'")
    ctx = _ModuleContext(mod, target)
    return ctx.run()


def call_order(mod: N.Module) -> list:
    """Functions ordered callees first (stable in module order), the top last."""
    funcs = {f.name: f for f in mod.funcs}
    if mod.top not in funcs:
        raise BackendError(f"top function {mod.top!r} is not in the module ({', '.join(funcs)})")
    order, state = [], {}

    def visit(name, chain):
        if state.get(name) == "done":
            return
        if state.get(name) == "active":
            raise BackendError(f"recursive calls are not supported: {' -> '.join(chain + [name])}")
        if name not in funcs:
            raise BackendError(f"call to unknown function {name!r} (from {chain[-1] if chain else '?'})")
        state[name] = "active"
        for s in N.walk_stmts(funcs[name].body):
            if isinstance(s, N.CallStmt):
                visit(s.callee, chain + [name])
        state[name] = "done"
        order.append(funcs[name])

    for f in mod.funcs:
        if f.name != mod.top:
            visit(f.name, [])
    visit(mod.top, [])
    return order


class _ModuleContext:
    def __init__(self, mod: N.Module, target: str):
        self.mod = mod
        self.target = target
        self.order = call_order(mod)
        self.file_names = Namer(FILE_SCOPE_TAKEN)
        self.func_names = {f.name: self.file_names.fresh(f.name) for f in self.order}
        self.file_decls = set(self.func_names.values())  # what a local must not shadow
        self.globals = {}  # key -> (cpp name, Buffer)
        self.helpers = []
        for f in self.order:  # file-scope names first, so no local can shadow a constant it reads
            for b in N.iter_buffers(f):
                if b.kind == "global":
                    self.global_name(b)
        self.signatures = {f.name: self._signature(f) for f in self.order}

    def global_name(self, buf: N.Buffer) -> str:
        key = buf.global_name or f"id{id(buf.data)}"
        if key not in self.globals:
            if buf.data is None:
                raise BackendError(f"global buffer {buf.name!r} has no data")
            self.globals[key] = (self.file_names.fresh(buf.global_name or buf.name), buf)
            self.file_decls.add(self.globals[key][0])
        return self.globals[key][0]

    def need(self, helper: str) -> str:
        if helper not in self.helpers:
            self.helpers.append(helper)
        return helper

    def _signature(self, f: N.Func) -> Signature:
        """Argument params in order, then one output param per result (a single scalar result
        is returned by value instead). Output names are settled by the FuncEmitter."""
        params = [Param(p.name, p.type if _is_array_type(p.type) else p.dtype,
                        "arg" if _is_array_type(p.type) else "scalar_arg", k)
                  for k, p in enumerate(f.params)]
        rts = list(f.result_types)
        ret = None
        if len(rts) == 1 and not _is_array_type(rts[0]):
            ret = _scalar_type(rts[0])
        else:
            for k, t in enumerate(rts):
                role = "out" if _is_array_type(t) else "out_scalar"
                params.append(Param(f"out{k}", t if role == "out" else _scalar_type(t), role, k))
        is_top = f.name == self.mod.top
        return Signature(self.func_names[f.name], params, ret, extern_c=is_top and self.target == "vitis_hls")

    def run(self) -> ModuleCode:
        bodies = [FuncEmitter(self, f).emit() for f in self.order]
        parts = [_PRELUDE]
        parts += [HELPERS[h] for h in self.helpers]
        parts += [self._global_text(name, buf) for name, buf in self.globals.values()]
        parts += bodies
        top = self.signatures[self.mod.top].name
        return ModuleCode("\n\n".join(parts) + "\n", top, self.signatures, list(self.helpers))

    def _global_text(self, name: str, buf: N.Buffer) -> str:
        data = np.asarray(buf.data)
        t = buf.dtype
        if tuple(data.shape) != tuple(buf.shape):
            raise BackendError(f"global {buf.name!r}: data shape {data.shape} != declared {buf.shape}")
        fmt = (lambda v: float_literal(v, t)) if isinstance(t, Float) else (
            (lambda v: repr(float(v))) if is_fixed(t) else (lambda v: int_literal(int(v), t)))
        if isinstance(t, Float) and t.bits == 16:
            fmt = lambda v: float_literal(v, t)  # noqa: E731 - half converts from float constants

        def nest(a):
            if a.ndim == 1:
                return "{" + ", ".join(fmt(v) for v in a.tolist()) + "}"
            return "{" + ",\n  ".join(nest(x) for x in a) + "}"

        if data.ndim == 0:
            return f"static const {cpp_type(t)} {name} = {fmt(data.item())};"
        return f"static const {array_decl(cpp_type(t), name, buf.shape)} = {nest(data)};"


_PRELUDE = """\
// Generated by allo: Vitis HLS C++.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "allo_ap.h"  // ap_int/ap_fixed: Xilinx headers when present, else allo's csim subset"""


# ----------------------------------------------------------------------------- functions
class FuncEmitter:
    """Renders one Func. Buffers and IterVars are named by identity (`id(obj)`)."""

    def __init__(self, ctx: _ModuleContext, func: N.Func):
        self.ctx = ctx
        self.func = func
        self.sig = ctx.signatures[func.name]
        self.lines = []
        self.depth = 1
        self.names = Namer(ctx.file_decls)
        self.buf_names = {}  # id(Buffer) -> C++ name
        self.declared = set()  # ids of buffers already declared (params count)
        self.var_names = {}  # id(IterVar) -> C++ name
        self.nonneg_vars = set()  # ids of IterVars that never go below 0
        self.active_vars = []
        self.labels = Namer()
        self.aliased = {}  # id(Buffer) -> Param it is written through
        self.read = set()  # ids of buffers some expression, call or return reads
        self.stored = set()  # ids of buffers some store or call writes
        self._plan_names()

    # --- naming ------------------------------------------------------------------------
    def _plan_names(self):
        f = self.func
        for p, sp in zip(f.params, self.sig.params):
            self.buf_names[id(p)] = sp.name = self.names.fresh(p.name)
            self.declared.add(id(p))
        ret = f.body[-1] if f.body and isinstance(f.body[-1], N.Return) else None
        outs = [p for p in self.sig.params if p.role in ("out", "out_scalar")]
        if ret is not None and len(ret.values) != len(f.result_types):
            raise BackendError(f"{f.name}: returns {len(ret.values)} values but declares {len(f.result_types)}")
        for p in outs:
            v = ret.values[p.index] if ret is not None else None
            if (isinstance(v, N.Buffer) and v.kind in ("local", "result") and v.shape
                    and id(v) not in self.aliased and p.role == "out"):
                p.name = self.names.fresh(v.name)
                self.buf_names[id(v)] = p.name
                self.aliased[id(v)] = p
                self.declared.add(id(v))
            else:
                p.name = self.names.fresh(f"out{p.index}")
        for b in N.iter_buffers(f):
            if id(b) not in self.buf_names and b.kind != "global":
                self.buf_names[id(b)] = self.names.fresh(b.name)
        for s in N.walk_stmts(f.body):
            for e in N.stmt_exprs(s):
                for sub in N.walk_expr(e):
                    if isinstance(sub, N.Load):
                        self.read.add(id(sub.buf))
            if isinstance(s, N.Store):
                self.stored.add(id(s.buf))
            if isinstance(s, N.CallStmt):
                self.read.update(id(a) for a in s.args if isinstance(a, N.Buffer))
                self.stored.update(id(a) for a in s.args + s.results if isinstance(a, N.Buffer))
            if isinstance(s, N.Return):
                self.read.update(id(a) for a in s.values if isinstance(a, N.Buffer))

        self.hoisted = _hoisted_buffers(f.body) - self.declared

    def _declare_hoisted(self):
        """Buffers declared in a nested block but used outside it are declared at the top."""
        for b in N.iter_buffers(self.func):
            if id(b) in self.hoisted and id(b) not in self.declared:
                self.declare(b)

    def declare(self, buf: N.Buffer):
        name, ctype = self.bname(buf), cpp_type(buf.dtype)
        if buf.shape:
            self.line(array_decl(ctype, name, buf.shape) + ";")
            self.partition(buf)
        else:
            self.line(f"{ctype} {name} = 0;")
        self.declared.add(id(buf))

    def bname(self, buf: N.Buffer) -> str:
        if buf.kind == "global":
            return self.ctx.global_name(buf)
        if id(buf) not in self.buf_names:
            self.buf_names[id(buf)] = self.names.fresh(buf.name)
        return self.buf_names[id(buf)]

    def fresh_var(self, name: str) -> str:
        avoid = set(self.buf_names.values()) | set(self.active_vars)
        base, cand, n = sanitize(name), sanitize(name), 0
        while cand in avoid or cand in self.names.taken or cand in CPP_KEYWORDS:
            n += 1
            cand = f"{base}_{n}"
        return cand

    # --- output ------------------------------------------------------------------------
    def line(self, text: str):
        self.lines.append("  " * self.depth + text)

    def emit(self) -> str:
        f = self.func
        head = self.sig.text()
        self._function_pragmas()
        self._declare_hoisted()
        body = f.body[:-1] if f.body and isinstance(f.body[-1], N.Return) else f.body
        for s in body:
            self.stmt(s)
        if f.body and isinstance(f.body[-1], N.Return):
            self.ret(f.body[-1])
        elif f.result_types:
            raise BackendError(f"{f.name}: declares results but has no final return statement")
        return head + " {\n" + "\n".join(self.lines) + ("\n" if self.lines else "") + "}"

    def _function_pragmas(self):
        f, sig = self.func, self.sig
        if f.attrs.get("dataflow"):
            self.line("#pragma HLS dataflow")
        if sig.extern_c:
            for k, p in enumerate(q for q in sig.params if q.is_array):
                self.line(f"#pragma HLS interface m_axi port={p.name} offset=slave bundle=gmem{k}")
            for p in sig.params:
                if not p.is_array:
                    self.line(f"#pragma HLS interface s_axilite port={p.name} bundle=control")
            self.line("#pragma HLS interface s_axilite port=return bundle=control")
        for p in f.params:
            self.partition(p)
        for bid, p in self.aliased.items():
            buf = next(b for b in N.iter_buffers(f) if id(b) == bid)
            self.partition(buf)

    def partition(self, buf: N.Buffer):
        if not buf.shape:
            return
        name = self.bname(buf)
        for kind, dim, factor in buf.attrs.get("partition", []):
            if kind not in ("complete", "block", "cyclic"):
                raise BackendError(f"unknown partition kind {kind!r} on {buf.name!r}")
            if kind == "complete":
                self.line(f"#pragma HLS array_partition variable={name} complete dim={dim}")
            else:
                self.line(f"#pragma HLS array_partition variable={name} {kind} factor={factor} dim={dim}")

    # --- statements ----------------------------------------------------------------------
    def stmt(self, s):
        handler = _STMTS.get(type(s))
        if handler is None:
            raise BackendError(f"HLS backend: unsupported statement {type(s).__name__}")
        handler(self, s)

    def block(self, body):
        self.depth += 1
        for s in body:
            self.stmt(s)
        self.depth -= 1

    def s_for(self, s: N.For):
        label = self.labels.fresh("l_" + s.name)
        var = self.fresh_var(s.var.name)
        lb, ub = self.expr(s.lb).text, par(self.expr(s.ub), SHIFT)
        self.var_names[id(s.var)] = var
        if s.step > 0 and self.nonneg(s.lb):
            self.nonneg_vars.add(id(s.var))
        step = f"{var}++" if s.step == 1 else f"{var} += {s.step}"
        self.line(f"{label}: for (int {var} = {lb}; {var} < {ub}; {step}) {{")
        self.active_vars.append(var)
        self.depth += 1
        if "pipeline_ii" in s.attrs:
            self.line(f"#pragma HLS pipeline II={int(s.attrs['pipeline_ii'])}")
        if "unroll" in s.attrs:
            factor = int(s.attrs["unroll"])
            self.line("#pragma HLS unroll" if factor == 0 else f"#pragma HLS unroll factor={factor}")
        if s.attrs.get("dataflow"):
            self.line("#pragma HLS dataflow")
        self.depth -= 1
        self.block(s.body)
        self.active_vars.pop()
        self.line("}")

    def s_if(self, s: N.If, prefix: str = ""):
        self.line(f"{prefix}if ({self.as_bool(s.cond).text}) {{")
        self.block(s.then)
        orelse = s.orelse
        if len(orelse) == 1 and isinstance(orelse[0], N.If):
            self.s_if(orelse[0], prefix="} else ")
            return
        if orelse:
            self.line("} else {")
            self.block(orelse)
        self.line("}")

    def s_while(self, s: N.While):
        self.line(f"while ({self.as_bool(s.cond).text}) {{")
        self.block(s.body)
        self.line("}")

    def s_alloc(self, s: N.Alloc):
        buf = s.buf
        used = id(buf) in self.read or id(buf) in self.aliased or id(buf) in self.stored
        if not used:
            return  # never referenced: declaring it would trip -Wunused-variable
        name = self.bname(buf)
        if not buf.shape:
            if isinstance(s.init, N.Buffer):
                init = self.bname(s.init)
            else:
                init = self.value_as(s.init, buf.dtype).text if isinstance(s.init, N.Expr) else None
            if id(buf) in self.declared:
                if init is not None:
                    self.line(f"{name} = {init};")
                return
            self.line(f"{cpp_type(buf.dtype)} {name} = {'0' if init is None else init};")
            if id(buf) not in self.read:
                self.line(f"(void){name};")
            self.declared.add(id(buf))
            return
        if id(buf) not in self.declared:
            self.declare(buf)
        if isinstance(s.init, N.Expr):
            value = self.value_as(s.init, buf.dtype)
            self.fill(buf.shape, lambda idx: f"{name}{idx} = {value.text};")
        elif isinstance(s.init, N.Buffer):
            src = self.bname(s.init)
            if tuple(s.init.shape) != tuple(buf.shape):
                raise BackendError(f"{buf.name!r} initialised from {s.init.name!r} of another shape")
            self.fill(buf.shape, lambda idx: f"{name}{idx} = {src}{idx};")

    def fill(self, shape, body_fn):
        """A plain loop nest over `shape` (initialisation and copies; no label, no pragma)."""
        vars_ = []
        for d in shape:
            v = self.fresh_var(f"i{len(vars_)}")
            self.active_vars.append(v)
            vars_.append(v)
            self.line(f"for (int {v} = 0; {v} < {d}; {v}++) {{")
            self.depth += 1
        self.line(body_fn("".join(f"[{v}]" for v in vars_)))
        for _ in shape:
            self.depth -= 1
            self.line("}")
            self.active_vars.pop()

    def s_store(self, s: N.Store):
        if s.buf.kind == "global":
            raise BackendError(f"cannot store into global constant {s.buf.name!r}")
        target = self.bname(s.buf) + "".join(f"[{self.expr(i).text}]" for i in s.indices)
        self.line(f"{target} = {self.value_as(s.value, s.buf.dtype).text};")

    def s_call(self, s: N.CallStmt):
        sig = self.ctx.signatures.get(s.callee)
        if sig is None:
            raise BackendError(f"call to unknown function {s.callee!r}")
        nargs = sum(1 for p in sig.params if p.role in ("arg", "scalar_arg"))
        if len(s.args) != nargs:
            raise BackendError(f"call to {s.callee!r} passes {len(s.args)} arguments, expected {nargs}")
        args = []
        for a, p in zip(s.args, sig.params):
            if isinstance(a, N.Buffer) and a.shape:
                name = self.bname(a)
                if a.kind == "global":  # callee parameters are not const; the callee only reads it
                    dims = "".join(f"[{d}]" for d in a.shape[1:])
                    ptr = f"{cpp_type(a.dtype)} (*){dims}" if dims else f"{cpp_type(a.dtype)} *"
                    name = f"const_cast<{ptr}>({name})"
                args.append(name)
            elif isinstance(a, N.Buffer):
                args.append(self.bname(a))
            else:
                args.append(self.value_as(a, p.type).text)
        for r in s.results:
            if isinstance(r, N.Buffer) and id(r) not in self.declared:
                self.declare(r)
        call = f"{sig.name}({', '.join(args + [self.bname(r) for r in s.results])})"
        if sig.return_type is not None:
            call = f"{sig.name}({', '.join(args)})"
            if len(s.results) != 1:
                raise BackendError(f"call to {s.callee!r} must receive exactly one scalar result")
            self.line(f"{self.bname(s.results[0])} = {call};")
        else:
            self.line(call + ";")

    def ret(self, s: N.Return):
        outs = [p for p in self.sig.params if p.role in ("out", "out_scalar")]
        if self.sig.return_type is not None:
            self.line(f"return {self.value_as(self._as_expr(s.values[0]), self.sig.return_type).text};")
            return
        for p in outs:
            v = s.values[p.index]
            if p.role == "out_scalar":
                self.line(f"{p.name} = {self.value_as(self._as_expr(v), p.type).text};")
            elif id(v) not in self.aliased or self.aliased[id(v)] is not p:
                src = self.bname(v)
                self.fill(p.type.shape, lambda idx, src=src, dst=p.name: f"{dst}{idx} = {src}{idx};")

    @staticmethod
    def _as_expr(v):
        return N.Load(v, []) if isinstance(v, N.Buffer) else v

    # --- expressions ---------------------------------------------------------------------
    def expr(self, e) -> Code:
        fmt = _EXPRS.get(type(e))
        if fmt is None:
            raise BackendError(f"HLS backend: unsupported expression {type(e).__name__}")
        return fmt(self, e)

    def value_as(self, e, t) -> Code:
        """`e` converted to allo type `t` by allo's cast rules (C's own conversions differ)."""
        return self.expr(e) if e.type == t else self.expr(N.Cast(e, t))

    def as_bool(self, e) -> Code:
        return self.value_as(e, BOOL)

    def operand(self, e, t) -> Code:
        """`e` as an operand of an operation computed in type `t` (half computes in float)."""
        c = self.value_as(e, t)
        return cast("float", c) if _is_half(t) else c

    def finish(self, c: Code, t, op: str = "") -> Code:
        """Bring a C arithmetic result back to allo type `t` (integer promotion, half, ap types)."""
        if is_native(t):
            return c
        if _is_bool(t):
            if op in ("and", "or", "xor"):
                return cast("bool", c)
            return cast("bool", Code(f"{par(c, UNARY)} & 1", BAND))
        return cast(cpp_type(t), c)

    def e_const(self, e: N.Const) -> Code:
        return const_text(e.value, e.type)

    def e_var(self, e: N.IterVar) -> Code:
        if id(e) not in self.var_names:
            raise BackendError(f"loop variable {e.name!r} used outside its loop in {self.func.name!r}")
        return Code(self.var_names[id(e)], ATOM)

    def e_load(self, e: N.Load) -> Code:
        name = self.bname(e.buf)
        if len(e.indices) != len(e.buf.shape):
            raise BackendError(f"load of {e.buf.name!r} with {len(e.indices)} indices, rank {len(e.buf.shape)}")
        return Code(name + "".join(f"[{self.expr(i).text}]" for i in e.indices), ATOM)

    def e_binop(self, e: N.BinOp) -> Code:
        op = e.op
        if op in ("land", "lor"):
            sym, prec, nl, nr = _INFIX[op]
            return Code(f"{par(self.as_bool(e.lhs), nl)} {sym} {par(self.as_bool(e.rhs), nr)}", prec)
        if op in _INFIX and op in _COMPARE:  # operands compared in the left operand's type
            t = e.lhs.type
            sym, prec, nl, nr = _INFIX[op]
            return Code(f"{par(self.operand(e.lhs, t), nl)} {sym} {par(self.operand(e.rhs, t), nr)}", prec)
        t = e.type
        if is_fixed(t) and op not in _FIXED_OK:
            raise BackendError(f"operator {op!r} is not supported on fixed-point type {t!r}")
        if isinstance(t, Float) and op in _NOT_FLOAT:
            raise BackendError(f"operator {op!r} is not defined on {t!r}")
        special = _BINOP_SPECIAL.get(op)
        if special is not None:
            return special(self, e, self.operand(e.lhs, t), self.operand(e.rhs, t), t)
        if op not in _INFIX:
            raise BackendError(f"HLS backend: unsupported binary operator {op!r}")
        sym, prec, nl, nr = _INFIX[op]
        a, b = self.operand(e.lhs, t), self.operand(e.rhs, t)
        return self.finish(Code(f"{par(a, nl)} {sym} {par(b, nr)}", prec), t, op)

    def helper(self, name: str, args, t, returns: str) -> Code:
        """A call of helper `name` (returning C type `returns`) brought back to allo type `t`."""
        c = Code(f"{self.ctx.need(name)}({', '.join(a.text for a in args)})", ATOM)
        return self.finish(c, t) if cpp_type(t) == returns or not is_native(t) else cast(cpp_type(t), c)

    def b_div(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float) or is_fixed(t) or self._plain_divisor(e.rhs, t):
            return self.finish(Code(f"{par(a, MUL)} / {par(b, UNARY)}", MUL), t)
        if _is_unsigned(t):
            return self.helper("allo_divu", [a, b], t, "uint64_t")
        return self.helper("allo_div", [a, b], t, "int64_t")

    def b_floordiv(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):
            return self.finish(Code(f"std::floor({a.text} / {par(b, UNARY)})", ATOM), t)
        if self._plain_divisor(e.rhs, t) and (_is_unsigned(t) or self.nonneg(e.lhs) and self.nonneg(e.rhs)):
            return self.finish(Code(f"{par(a, MUL)} / {par(b, UNARY)}", MUL), t)
        if _is_unsigned(t):
            return self.helper("allo_divu", [a, b], t, "uint64_t")
        return self.helper("allo_floordiv", [a, b], t, "int64_t")

    def b_mod(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):
            return self.finish(Code(f"{self.ctx.need('allo_fmod')}({a.text}, {b.text})", ATOM), t)
        if self._plain_divisor(e.rhs, t) and (_is_unsigned(t) or self.nonneg(e.lhs) and self.nonneg(e.rhs)):
            return self.finish(Code(f"{par(a, MUL)} % {par(b, UNARY)}", MUL), t)
        if _is_unsigned(t):
            return self.helper("allo_modu", [a, b], t, "uint64_t")
        return self.helper("allo_mod", [a, b], t, "int64_t")

    def b_shift(self, e, a: Code, b: Code, t) -> Code:
        bits = t.bits
        if isinstance(e.rhs, N.Const) and 0 <= int(e.rhs.value) < bits:
            sym = "<<" if e.op == "shl" else ">>"
            return self.finish(Code(f"{par(a, UNARY)} {sym} {par(b, UNARY)}", SHIFT), t, e.op)
        if e.op == "shl":
            return self.helper("allo_shl", [a, b, Code(str(bits), ATOM)], t, "uint64_t")
        name, ret = ("allo_shru", "uint64_t") if _is_unsigned(t) else ("allo_shr", "int64_t")
        return self.helper(name, [a, b, Code(str(bits), ATOM)], t, ret)

    @staticmethod
    def _plain_divisor(e, t) -> bool:
        """A constant divisor that can neither be 0 nor overflow (MIN / -1): C's `/` is exact."""
        return isinstance(e, N.Const) and int(e.value) != 0 and (int(e.value) != -1 or _is_unsigned(t))

    def nonneg(self, e) -> bool:
        """Provably >= 0 (loop counters from non-negative bounds, their sums and products)."""
        if _is_unsigned(e.type):
            return True
        if isinstance(e, N.Const):
            return e.value >= 0
        if isinstance(e, N.IterVar):
            return id(e) in self.nonneg_vars
        if isinstance(e, N.BinOp) and e.op in ("add", "mul", "floordiv", "mod", "min", "max"):
            return self.nonneg(e.lhs) and self.nonneg(e.rhs)
        return False

    def b_pow(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):
            return self.finish(Code(f"std::pow({a.text}, {b.text})", ATOM), t)
        return Code(f"{self.ctx.need('allo_ipow')}<{cpp_type(t)}>({a.text}, {b.text})", ATOM)

    def b_minmax(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):  # NaN-propagating, -0 < +0 (arith.minimumf / maximumf)
            fn = self.ctx.need("allo_fmin" if e.op == "min" else "allo_fmax")
            return self.finish(Code(f"{fn}({a.text}, {b.text})", ATOM), t)
        return Code(f"std::{e.op}<{cpp_type(t)}>({a.text}, {b.text})", ATOM)

    def e_unary(self, e: N.UnaryOp) -> Code:
        t = e.type
        if e.op == "not":
            return Code(f"!{par(self.as_bool(e.operand), UNARY)}", UNARY)
        if e.op == "neg":
            if _is_bool(t):
                return self.value_as(e.operand, t)  # -x == x in one bit
            return self.finish(Code(f"-{par(self.operand(e.operand, t), UNARY)}", UNARY), t)
        if e.op == "invert":
            if isinstance(t, Float):
                raise BackendError(f"operator '~' is not defined on {t!r}")
            if _is_bool(t):
                return Code(f"!{par(self.value_as(e.operand, t), UNARY)}", UNARY)
            return self.finish(Code(f"~{par(self.operand(e.operand, t), UNARY)}", UNARY), t)
        raise BackendError(f"HLS backend: unsupported unary operator {e.op!r}")

    def e_select(self, e: N.Select) -> Code:
        cond = self.as_bool(e.cond)
        a, b = self._typed(e.a, e.type), self._typed(e.b, e.type)
        return Code(f"{par(cond, LOR)} ? {par(a, LOR)} : {par(b, COND)}", COND)

    def _typed(self, e, t) -> Code:
        if isinstance(e, N.Const):
            return const_text(e.value, t, typed=True)
        return self.value_as(e, t)

    def e_math(self, e: N.MathCall) -> Code:
        t, fn = e.type, e.fn
        if fn not in _MATH:
            raise BackendError(f"HLS backend: unsupported math function {fn!r}")
        if fn == "abs" and not isinstance(t, Float):
            x = self.value_as(e.args[0], t)
            if _is_unsigned(t):
                return x
            return Code(f"{self.ctx.need('allo_abs')}({x.text})", ATOM)
        if fn == "pow" and not isinstance(t, Float):
            return self.b_pow(e, self.value_as(e.args[0], t), self.value_as(e.args[1], t), t)
        if not isinstance(t, Float):  # computed in double, then converted (as on LLVM)
            return self.expr(N.Cast(N.MathCall(fn, e.args, F64), t))
        args = [self.operand(a, t) for a in e.args]
        if fn == "sigmoid":  # its format negates the operand
            args[0] = Code(par(args[0], UNARY), ATOM)
        one = "1.0" if t.bits == 64 else "1.0f"
        text = _MATH[fn].format(*[a.text for a in args], one=one)
        return self.finish(Code(text, MUL if fn in ("rsqrt", "sigmoid") else ATOM), t)

    def e_cast(self, e: N.Cast) -> Code:
        src, dst = e.value.type, e.type
        if src == dst:
            return self.expr(e.value)
        rule = _CASTS.get((_kind(src), _kind(dst)))
        if rule is None:
            raise BackendError(f"HLS backend: no cast from {src!r} to {dst!r}")
        return rule(self.expr(e.value), src, dst)


def _direct_refs(s) -> list:
    """ids of the buffers statement `s` itself mentions (not those of nested statements)."""
    ids = [id(sub.buf) for e in N.stmt_exprs(s) for sub in N.walk_expr(e) if isinstance(sub, N.Load)]
    if isinstance(s, (N.Store, N.Alloc)):
        ids.append(id(s.buf))
    if isinstance(s, N.Alloc) and isinstance(s.init, N.Buffer):
        ids.append(id(s.init))
    if isinstance(s, N.CallStmt):
        ids += [id(a) for a in list(s.args) + list(s.results) if isinstance(a, N.Buffer)]
    if isinstance(s, N.Return):
        ids += [id(a) for a in s.values if isinstance(a, N.Buffer)]
    return ids


def _declared_here(s) -> list:
    if isinstance(s, N.Alloc):
        return [id(s.buf)]
    if isinstance(s, N.CallStmt):
        return [id(r) for r in s.results if isinstance(r, N.Buffer)]
    return []


def _blocks(s) -> list:
    if isinstance(s, (N.For, N.While)):
        return [s.body]
    if isinstance(s, N.If):
        return [s.then, s.orelse]
    return []


def _hoisted_buffers(body) -> set:
    """Buffers declared inside a nested block but referenced outside it (or declared twice):
    C++ scoping needs their declaration at the top of the function."""
    total, decls = Counter(), Counter()
    for s in N.walk_stmts(body):
        total.update(_direct_refs(s))
        decls.update(_declared_here(s))
    out = {b for b, n in decls.items() if n > 1}

    def visit(block, nested) -> Counter:
        refs = Counter()
        for s in block:
            refs.update(_direct_refs(s))
            for inner in _blocks(s):
                refs.update(visit(inner, True))
        if nested:
            for s in block:
                out.update(b for b in _declared_here(s) if refs[b] != total[b])
        return refs

    visit(body, False)
    return out


BOOL, F64 = UInt(1), Float(64)
_NOT_FLOAT = {"and", "or", "xor", "shl", "shr"}


def _is_bool(t) -> bool:
    return isinstance(t, UInt) and t.bits == 1


def _is_half(t) -> bool:
    return isinstance(t, Float) and t.bits == 16


def _is_unsigned(t) -> bool:
    return isinstance(t, (UInt, UFixed))


# ----------------------------------------------------------------------------- casts
# Rules keyed by (source kind, target kind); each gets the rendered value and both types.
def _kind(t) -> str:
    if isinstance(t, Float):
        return "half" if t.bits == 16 else "float"
    if is_fixed(t):
        return "fixed"
    return "bool" if _is_bool(t) else "int"


def _c_plain(c, src, dst):
    return cast(cpp_type(dst), c)


def _c_from_half(rule):
    return lambda c, src, dst: rule(cast("float", c), Float(32), dst)


def _c_to_bool(c, src, dst):
    zero = f"({cpp_type(src)})0" if is_fixed(src) else "0"
    return Code(f"{par(c, SHIFT)} != {zero}", EQ)


def _c_fixed_to_int(c, src, dst):
    # floor(value) exactly: drop the fraction into a W-F integer-bit fixed type (AP_TRN floors),
    # where the Xilinx to_int64() would round toward zero.
    i = max(src.bits - src.frac, 1)
    kind, conv = ("ap_fixed", "to_int64") if isinstance(src, Fixed) else ("ap_ufixed", "to_uint64")
    return cast(cpp_type(dst), Code(f"{kind}<{i}, {i}>({c.text}).{conv}()", ATOM))


def _c_fixed_to_float(c, src, dst):
    d = Code(f"{par(c, ATOM)}.to_double()", ATOM)
    return d if dst.bits == 64 else cast(cpp_type(dst), d)


def _c_float_to_int(c, src, dst):
    # fptosi to 64 bits, then wrap to the target width (fptoui for uint64), as on LLVM
    if isinstance(dst, UInt) and dst.bits == 64:
        return cast("uint64_t", c)
    wide = cast("int64_t", c)
    return wide if isinstance(dst, (Int, Index)) and dst.bits == 64 else cast(cpp_type(dst), wide)


def _c_int_to_half(c, src, dst):
    return cast("half", cast("float", c))


_CASTS = {
    ("float", "float"): _c_plain, ("half", "float"): _c_plain, ("float", "half"): _c_plain,
    ("int", "float"): _c_plain, ("bool", "float"): _c_plain,
    ("int", "half"): _c_int_to_half, ("bool", "half"): _c_int_to_half,
    ("float", "int"): _c_float_to_int, ("half", "int"): _c_from_half(_c_float_to_int),
    ("int", "int"): _c_plain, ("bool", "int"): _c_plain,
    ("int", "fixed"): _c_plain, ("bool", "fixed"): _c_plain, ("fixed", "fixed"): _c_plain,
    ("float", "fixed"): _c_plain, ("half", "fixed"): _c_from_half(_c_plain),
    ("fixed", "int"): _c_fixed_to_int,
    ("fixed", "float"): _c_fixed_to_float, ("fixed", "half"): _c_fixed_to_float,
    ("float", "bool"): _c_to_bool, ("half", "bool"): _c_to_bool, ("int", "bool"): _c_to_bool,
    ("fixed", "bool"): _c_to_bool,
}

_BINOP_SPECIAL = {
    "div": FuncEmitter.b_div, "floordiv": FuncEmitter.b_floordiv, "mod": FuncEmitter.b_mod,
    "pow": FuncEmitter.b_pow, "shl": FuncEmitter.b_shift, "shr": FuncEmitter.b_shift,
    "min": FuncEmitter.b_minmax, "max": FuncEmitter.b_minmax,
}

_EXPRS = {
    N.Const: FuncEmitter.e_const, N.IterVar: FuncEmitter.e_var, N.Load: FuncEmitter.e_load,
    N.BinOp: FuncEmitter.e_binop, N.UnaryOp: FuncEmitter.e_unary, N.Cast: FuncEmitter.e_cast,
    N.MathCall: FuncEmitter.e_math, N.Select: FuncEmitter.e_select,
}

_STMTS = {
    N.For: FuncEmitter.s_for, N.If: FuncEmitter.s_if, N.While: FuncEmitter.s_while,
    N.Alloc: FuncEmitter.s_alloc, N.Store: FuncEmitter.s_store, N.CallStmt: FuncEmitter.s_call,
}

__all__ = ["emit_module", "ModuleCode", "Signature", "Param", "call_order", "HELPERS"]
