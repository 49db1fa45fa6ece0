"""allo loop IR -> readable Vitis HLS C++ (functions and statements; expressions in exprs.py).

Statements render through a table (IR node type -> method); loops get `l_<name>:` labels and
their pragmas as the first lines of the body; buffers and loop variables keep the kernel's names
(made unique and C++-safe). Sub-kernels come first (callees before callers), the top last.

Example::

    code = emit_module(module, target="vhls")
    code.kernel_cpp      # the C++ (includes, helpers, constants, sub-kernels, then the top)
    code.signatures[module.top].params   # how the host calls the top function
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ...errors import BackendError
from ...ir import effects as E
from ...ir import nodes as N
from ...ir import visit as V
from ...ir.attrs import BIND_STORAGE, OP_NAME, PARTITION, PARTITION_KINDS, STATEFUL, STREAM, STREAM_SPACE, USER_BANDS
from ...ir.types import ArrayType, Float, is_fixed
from ...qor.bundles import bundle_name
from .exprs import HELPERS, SHIFT, UNARY, ExprEmitter, float_literal, int_literal, par
from .block_streams import block_elems, port_decl, stream_ctype
from .dialect import VITIS, Dialect
from .interface import copy_helper, flat_index, port_name, split_subscripts
from .types import cpp_type, type_printer

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
    stream: bool = False  # an hls::stream<T> & parameter (s.to)
    elems: int = 1  # scalars per stream item (> 1: a stream of hls::vector blocks)
    pointer: bool = False  # `T *v<k>`: an m_axi port of the Vitis kernel interface (interface.py)

    @property
    def is_array(self) -> bool:
        return isinstance(self.type, ArrayType) and self.type.rank > 0 and not self.stream


@dataclass
class Signature:
    name: str
    params: list
    return_type: object = None  # AlloType when the single result is a scalar returned by value
    extern_c: bool = False
    ports: bool = False  # the Vitis kernel interface: v<k> names, pointers, copies (interface.py)

    def text(self) -> str:
        ret = cpp_type(self.return_type) if self.return_type is not None else "void"
        args = ", ".join(param_decl(p) for p in self.params)
        extern = 'extern "C" ' if self.extern_c else ""
        return f"{extern}{ret} {self.name}({args})"


def array_decl(ctype: str, name: str, shape) -> str:
    return f"{ctype} {name}" + "".join(f"[{'' if d is None else d}]" for d in shape)  # float32[...]: A[]


def param_decl(p: Param) -> str:
    if p.pointer:
        return f"{cpp_type(_scalar_type(p.type))} *{p.name}"
    if p.stream:
        return f"hls::stream< {stream_ctype(p.type.dtype, p.elems)} > &{p.name}"
    if p.is_array:
        return array_decl(cpp_type(p.type.dtype), p.name, p.type.shape)
    t = p.type.dtype if isinstance(p.type, ArrayType) else p.type
    return f"{cpp_type(t)} {'&' if p.role == 'out_scalar' else ''}{p.name}"


def _is_array_type(t) -> bool:
    return isinstance(t, ArrayType) and t.rank > 0


def _scalar_type(t):
    return t.dtype if isinstance(t, ArrayType) else t


# ----------------------------------------------------------------------------- module
@dataclass
class ModuleCode:
    """Result of `emit_module`: the C++ text plus what the csim host needs."""

    kernel_cpp: str
    top: str  # C++ name of the top function
    signatures: dict  # IR function name -> Signature
    helpers: list = field(default_factory=list)


def emit_module(mod: N.Module, target: str = "vhls", bundle=None, dialect: Dialect = VITIS,
                wrap_io: bool = True) -> ModuleCode:
    """Render every function of `mod` as C++ (sub-kernels first, callees before callers).
    `dialect` (dialect.py) spells the includes, types and pragmas of the HLS tool (Vitis by default).

    Example::

        emit_module(Module([gemm], "gemm")).kernel_cpp   # 'void gemm(float A[32][32], ...'
    """
    if target not in ("vhls", "vitis_hls"):
        raise BackendError(f"unknown HLS target {target!r}; expected 'vhls' or 'vitis_hls'")
    with type_printer(dialect):
        ctx = _ModuleContext(mod, target, bundle, dialect, wrap_io)
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
        for s in V.walk_stmts(funcs[name].body):
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
    def __init__(self, mod: N.Module, target: str, bundle=None, dialect: Dialect = VITIS, wrap_io: bool = True):
        self.mod = mod
        self.target = target
        self.dialect = dialect
        self.wrap_io = bool(wrap_io)  # the Vitis top copies its arrays into locals (interface.py)
        self.io_helpers = []  # load_buf<k>/store_res<k> texts, written before the top function
        self.bundle = bundle  # m_axi bundle: one name for every array, {argument: name}, or None (one each)
        self.order = call_order(mod)
        self.file_names = Namer(FILE_SCOPE_TAKEN)
        self.func_names = {f.name: self.file_names.fresh(f.name) for f in self.order}
        self.file_decls = set(self.func_names.values())  # what a local must not shadow
        self.globals = {}  # key -> (cpp name, Buffer)
        self.helpers = []
        for f in self.order:  # file-scope names first, so no local can shadow a constant it reads
            for b in V.iter_buffers(f):
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
                        "arg" if _is_array_type(p.type) else "scalar_arg", k, bool(p.attrs.get(STREAM)),
                        block_elems(p))
                  for k, p in enumerate(f.params)]
        if any(p.stream for p in params) and f.name == self.mod.top:
            raise BackendError(f"top function {f.name!r} cannot take stream parameters (stream a local array "
                               "between two kernels with s.to)")
        if any(p.stream for p in params) or any(b.attrs.get(STREAM) for b in V.iter_buffers(f)):
            self.need("allo_stream")
        if any(b.attrs.get(STREAM) and block_elems(b) > 1 for b in V.iter_buffers(f)):
            self.need("allo_block_stream")
        rts = list(f.result_types)
        ret = None
        if len(rts) == 1 and not _is_array_type(rts[0]):
            ret = _scalar_type(rts[0])
        else:
            for k, t in enumerate(rts):
                role = "out" if _is_array_type(t) else "out_scalar"
                params.append(Param(f"out{k}", t if role == "out" else _scalar_type(t), role, k))
        is_top = f.name == self.mod.top
        vitis = is_top and self.target == "vitis_hls"
        if vitis:  # a Vitis kernel returns void: a scalar result is an output pointer (interface.py)
            if ret is not None:
                params.append(Param("out0", ret, "out_scalar", 0))
                ret = None
            for p in params:
                p.pointer = p.is_array or p.role == "out_scalar"
        return Signature(self.func_names[f.name], params, ret, extern_c=vitis, ports=vitis)

    def run(self) -> ModuleCode:
        bodies = [FuncEmitter(self, f).emit() for f in self.order]
        parts = [self.dialect.prelude]
        parts += [HELPERS[h] for h in self.helpers]
        parts += [self._global_text(name, buf) for name, buf in self.globals.values()]
        parts += bodies[:-1] + self.io_helpers + bodies[-1:]  # the top is last
        top = self.signatures[self.mod.top].name
        return ModuleCode("\n\n".join(parts) + "\n", top, self.signatures, list(self.helpers))

    def _global_text(self, name: str, buf: N.Buffer) -> str:
        return f"static const {initialised_decl(buf, name, buf.data)}"


def initialised_decl(buf: N.Buffer, name: str, data) -> str:
    """`T name[..] = {...};` for `buf` holding `data` (values of its element type)."""
    data = np.asarray(data)
    t = buf.dtype
    if tuple(data.shape) != tuple(buf.shape):
        raise BackendError(f"global {buf.name!r}: data shape {data.shape} != declared {buf.shape}")
    fmt = (lambda v: float_literal(v, t)) if isinstance(t, Float) else (
        (lambda v: repr(float(v))) if is_fixed(t) else (lambda v: int_literal(int(v), t)))

    def nest(a):
        if a.ndim == 1:
            return "{" + ", ".join(fmt(v) for v in a.tolist()) + "}"
        return "{" + ",\n  ".join(nest(x) for x in a) + "}"

    if data.ndim == 0:
        return f"{cpp_type(t)} {name} = {fmt(data.item())};"
    return f"{array_decl(cpp_type(t), name, buf.shape)} = {nest(data)};"


# ----------------------------------------------------------------------------- functions
class FuncEmitter(ExprEmitter):
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
        self.iface = self.sig.ports  # the Vitis kernel interface (interface.py)
        self.flat = {}  # id(Buffer) -> shape: an m_axi pointer indexed linearly (wrap_io=False)
        self._plan_names()

    # --- naming ------------------------------------------------------------------------
    def _plan_names(self):
        f = self.func
        if self.iface:  # port names first: the kernel's own names then avoid them
            for k, sp in enumerate(self.sig.params):
                sp.name = self.names.fresh(port_name(k))
        for p, sp in zip(f.params, self.sig.params):
            if not self.iface:
                self.buf_names[id(p)] = sp.name = self.names.fresh(p.name)
                self.declared.add(id(p))
            elif sp.pointer and not self.ctx.wrap_io:
                self.buf_names[id(p)], self.flat[id(p)] = sp.name, tuple(p.shape)
                self.declared.add(id(p))
            else:  # a local of the kernel's name, filled from the port (_wrap_entry)
                self.buf_names[id(p)] = self.names.fresh(p.name)
        ret = f.body[-1] if f.body and isinstance(f.body[-1], N.Return) else None
        outs = [p for p in self.sig.params if p.role in ("out", "out_scalar")]
        if ret is not None and len(ret.values) != len(f.result_types):
            raise BackendError(f"{f.name}: returns {len(ret.values)} values but declares {len(f.result_types)}")
        for p in outs:
            v = ret.values[p.index] if ret is not None else None
            if self.iface:  # results are copied to their ports (ret)
                continue
            if (isinstance(v, N.Buffer) and v.kind in ("local", "result") and v.shape and STATEFUL not in v.attrs
                    and id(v) not in self.aliased and p.role == "out"):
                p.name = self.names.fresh(v.name)
                self.buf_names[id(v)] = p.name
                self.aliased[id(v)] = p
                self.declared.add(id(v))
            else:
                p.name = self.names.fresh(f"out{p.index}")
        for b in V.iter_buffers(f):
            if id(b) not in self.buf_names and b.kind != "global":  # a static is named after its function too
                self.buf_names[id(b)] = self.names.fresh(f"{f.name}_{b.name}" if STATEFUL in b.attrs else b.name)
        allocs = []
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.Alloc):
                allocs.append(s)  # its initialiser reads only if the local itself is used (below)
                continue
            for role, b in V.buffer_refs(s):
                if role in (V.LOAD, V.PASS, V.RETURN):
                    self.read.add(id(b))
                if role in (V.STORE, V.PASS, V.RESULT):
                    self.stored.add(id(b))
        for s in reversed(allocs):  # inner declarations first: an unused local does not read its initialiser
            if id(s.buf) in self.read or id(s.buf) in self.stored or id(s.buf) in self.aliased:
                self.read.update(id(b) for role, b in V.buffer_refs(s) if role in (V.COPY, V.LOAD))

        self.hoisted = _hoisted_buffers(f.body) - self.declared

    def _declare_hoisted(self):
        """Buffers declared in a nested block but used outside it are declared at the top."""
        for b in V.iter_buffers(self.func):
            if id(b) in self.hoisted and id(b) not in self.declared:
                self.declare(b)

    def _declare_block_ports(self):
        """One writer/reader per stream of blocks this function puts into/gets from directly."""
        self.block_ports = {}
        for s in V.walk_stmts(self.func.body):
            for role, b in V.buffer_refs(s):
                kind = {V.STORE: "writer", V.LOAD: "reader"}.get(role)
                if kind and b.attrs.get(STREAM) and block_elems(b) > 1 and (id(b), kind) not in self.block_ports:
                    name = self.names.fresh(f"{self.bname(b)}_{kind[0]}")
                    self.block_ports[(id(b), kind)] = name
                    self.line(port_decl(kind, b.dtype, block_elems(b), name))

    def block_port(self, buf: N.Buffer, kind: str):
        """The writer/reader moving `buf`'s blocks element by element (None: a scalar stream)."""
        return self.block_ports.get((id(buf), kind))

    def declare(self, buf: N.Buffer):
        name, ctype = self.bname(buf), cpp_type(buf.dtype)
        if buf.attrs.get(STREAM_SPACE):  # an array of FIFOs (space-time s.to)
            dims = "".join(f"[{int(buf.shape[d])}]" for d in buf.attrs[STREAM_SPACE])
            self.line(f"hls::stream< {cpp_type(buf.dtype)} > {name}{dims};")
            for text in self.ctx.dialect.stream_pragmas(name, int(buf.attrs[STREAM])):
                self.line(text)
            self.declared.add(id(buf))
            return
        if buf.attrs.get(STREAM) and buf.shape:
            self.line(f"hls::stream< {stream_ctype(buf.dtype, block_elems(buf))} > {name};")
            for text in self.ctx.dialect.stream_pragmas(name, int(buf.attrs[STREAM])):
                self.line(text)
            self.declared.add(id(buf))
            return
        if buf.shape:
            self.line(array_decl(ctype, name, buf.shape) + ";")
            self.partition(buf)
        else:
            self.line(f"{ctype} {name} = 0;")
        if id(buf) not in self.read:
            self.line(f"(void){name};")  # written but never read: keep -Wunused-but-set-variable quiet
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
        if self.iface:
            self._wrap_entry()
        self._declare_hoisted()
        self._declare_block_ports()
        body = f.body[:-1] if f.body and isinstance(f.body[-1], N.Return) else f.body
        for s in body:
            self.stmt(s)
        if self.iface and self.ctx.wrap_io:
            self._wrap_exit()
        if f.body and isinstance(f.body[-1], N.Return):
            self.ret(f.body[-1])
        elif f.result_types:
            raise BackendError(f"{f.name}: declares results but has no final return statement")
        return head + " {\n" + "\n".join(self.lines) + ("\n" if self.lines else "") + "}"

    def _function_pragmas(self):
        f, sig = self.func, self.sig
        for text in self.ctx.dialect.function_pragmas(f.attrs):
            self.line(text)
        if sig.extern_c:
            for k, p in enumerate(q for q in sig.params if q.pointer or q.is_array):
                self.line(f"#pragma HLS interface m_axi port={p.name} offset=slave bundle={self._bundle(p, k)}")
            for p in sig.params:
                if not (p.pointer or p.is_array):
                    self.line(f"#pragma HLS interface s_axilite port={p.name} bundle=control")
            self.line("#pragma HLS interface s_axilite port=return bundle=control")
        if self.iface:
            return  # the arguments' locals are declared (and partitioned) by _wrap_entry
        for p in f.params:
            self.partition(p)
        for bid, p in self.aliased.items():
            buf = next(b for b in V.iter_buffers(f) if id(b) == bid)
            self.partition(buf)

    def _wrap_entry(self):
        """The Vitis interface's side of the body: scalar ports into locals of the kernel's names;
        with wrap_io, array ports copied into local arrays (load_buf<k>), where partitions apply."""
        for k, (p, sp) in enumerate(zip(self.func.params, self.sig.params)):
            name = self.bname(p)
            if id(p) in self.flat:
                if p.attrs.get(PARTITION) or p.attrs.get(BIND_STORAGE):
                    raise BackendError(f"{self.func.name}: top-level array {p.name!r} is partitioned or bound to a "
                                       "memory, but with wrap_io=False it is an m_axi pointer, which cannot be: "
                                       "build with wrap_io=True (the default) to copy it into an on-chip array")
                continue
            if not sp.pointer:
                self.line(f"{cpp_type(sp.type)} {name} = {sp.name};")
                if id(p) not in self.read:
                    self.line(f"(void){name};")
            else:
                self.line(array_decl(cpp_type(p.dtype), name, p.shape) + ";")
                self.partition(p)
                self.ctx.io_helpers.append(copy_helper("load", k, cpp_type(p.dtype), p.shape))
                self.line(f"load_buf{k}({sp.name}, {name});")
            self.declared.add(id(p))

    def _wrap_exit(self):
        """wrap_io: the array arguments the body may write go back to their ports (store_res<k>)."""
        written = E.params_maybe_written(self.func)
        for k, (p, sp) in enumerate(zip(self.func.params, self.sig.params)):
            if sp.pointer and id(p) in written:
                self.ctx.io_helpers.append(copy_helper("store", k, cpp_type(p.dtype), p.shape))
                self.line(f"store_res{k}({self.bname(p)}, {sp.name});")

    def subscript(self, buf: N.Buffer, indices) -> str:
        """`A[i][j]`, or `v0[(i) * 4 + (j)]` for a port indexed directly (wrap_io=False)."""
        name = self.bname(buf)
        if id(buf) in self.flat and indices:
            return f"{name}[{flat_index(indices, self.flat[id(buf)])}]"
        return name + "".join(f"[{i}]" for i in indices)

    def _bundle(self, p: Param, k: int) -> str:
        arg = self.func.params[p.index].name if p.role == "arg" else f"out{p.index}"
        return bundle_name(self.ctx.bundle, arg, k)

    def partition(self, buf: N.Buffer):
        if not buf.shape:
            return
        name = self.bname(buf)
        for kind, dim, factor in buf.attrs.get(PARTITION, []):
            if kind not in PARTITION_KINDS:
                raise BackendError(f"unknown partition kind {kind!r} on {buf.name!r}")
            for text in self.ctx.dialect.partition(name, kind, dim, factor):
                self.line(text)
        bind = buf.attrs.get(BIND_STORAGE)
        if bind:
            for text in self.ctx.dialect.bind_storage(name, bind):
                self.line(text)

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
        band = s.attrs.get(OP_NAME)  # a band named with allo.grid(..., name=) prefixes its label
        label = self.labels.fresh(f"l_{band}_{s.name}" if band in self.func.attrs.get(USER_BANDS, ()) else "l_" + s.name)
        var = self.fresh_var(s.var.name)
        lb, ub = self.expr(s.lb).text, par(self.expr(s.ub), SHIFT)
        self.var_names[id(s.var)] = var
        if s.step > 0 and self.nonneg(s.lb):
            self.nonneg_vars.add(id(s.var))
        step = f"{var}++" if s.step == 1 else f"{var} += {s.step}"
        dialect = self.ctx.dialect
        before, head, inside = dialect.loop_lines(label, f"for (int {var} = {lb}; {var} < {ub}; {step}) {{",
                                                  dialect.loop_pragmas(s.attrs))
        for text in before:
            self.line(text)
        self.line(head)
        self.active_vars.append(var)
        self.depth += 1
        for text in inside:
            self.line(text)
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
        # upstream Allo's form of a while loop: the exit test as the body's first statement
        self.line("while (true) {")
        self.depth += 1
        self.line(f"if (!{par(self.as_bool(s.cond), UNARY)}) break;")
        self.depth -= 1
        self.block(s.body)
        self.line("}")

    def s_alloc(self, s: N.Alloc):
        buf = s.buf
        used = id(buf) in self.read or id(buf) in self.aliased or id(buf) in self.stored
        if not used:
            return  # never referenced: declaring it would trip -Wunused-variable
        name = self.bname(buf)
        if STATEFUL in buf.attrs:  # `T @ Stateful`: one variable for all calls, initialised once
            self.line(f"static {initialised_decl(buf, name, buf.attrs[STATEFUL])}")
            if buf.shape:
                self.partition(buf)
            self.declared.add(id(buf))
            return
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
        if isinstance(s.init, N.Expr) and buf.attrs.get(STREAM):  # the caller's initialisation writes the FIFO
            value = self.value_as(s.init, buf.dtype)
            self.fill(buf.shape, lambda idx: f"{name}.write({value.text});")
        elif isinstance(s.init, N.Expr):
            value = self.value_as(s.init, buf.dtype)
            self.fill(buf.shape, lambda idx: f"{name}{idx} = {value.text};")
        elif isinstance(s.init, N.Buffer):
            if tuple(s.init.shape) != tuple(buf.shape):
                raise BackendError(f"{buf.name!r} initialised from {s.init.name!r} of another shape")
            self.fill(buf.shape, lambda idx: f"{name}{idx} = {self.subscript(s.init, split_subscripts(idx))};")

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
        if s.buf.attrs.get(STREAM_SPACE):  # an array of FIFOs: the space indices pick one
            pick = "".join(f"[{self.expr(s.indices[d]).text}]" for d in s.buf.attrs[STREAM_SPACE])
            self.line(f"{self.bname(s.buf)}{pick}.write({self.value_as(s.value, s.buf.dtype).text});")
            return
        if s.buf.attrs.get(STREAM):  # a FIFO (s.to): written in row-major order
            port, value = self.block_port(s.buf, "writer"), self.value_as(s.value, s.buf.dtype).text
            self.line(f"{port}.put({self.bname(s.buf)}, {value});" if port else f"{self.bname(s.buf)}.write({value});")
            return
        target = self.subscript(s.buf, [self.expr(i).text for i in s.indices])
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
                if id(a) in self.flat and p.is_array and len(p.type.shape) != 1:
                    raise BackendError(f"{self.func.name}: with wrap_io=False the top-level array {a.name!r} is an "
                                       f"m_axi pointer (one-dimensional), but {s.callee}() takes a "
                                       f"{len(p.type.shape)}-dimensional array: build with wrap_io=True (the default)")
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
                star = "*" if p.pointer else ""
                self.line(f"{star}{p.name} = {self.value_as(self._as_expr(v), p.type).text};")
            elif self.iface:
                self._port_result(p, v)
            elif id(v) not in self.aliased or self.aliased[id(v)] is not p:
                src = self.bname(v)
                self.fill(p.type.shape, lambda idx, src=src, dst=p.name: f"{dst}{idx} = {src}{idx};")

    def _port_result(self, p: Param, v):
        """An array result of the Vitis top into its port: store_res<k> (wrap_io) or a copy loop."""
        k = self.sig.params.index(p)
        if self.ctx.wrap_io and id(v) not in self.flat:
            self.ctx.io_helpers.append(copy_helper("store", k, cpp_type(p.type.dtype), p.type.shape))
            self.line(f"store_res{k}({self.bname(v)}, {p.name});")
            return
        shape = p.type.shape
        self.fill(shape, lambda idx: f"{p.name}[{flat_index(split_subscripts(idx), shape)}] = "
                                     f"{self.subscript(v, split_subscripts(idx))};")

    @staticmethod
    def _as_expr(v):
        return N.Load(v, []) if isinstance(v, N.Buffer) else v



def _declared_here(s) -> list:
    return [id(b) for role, b in V.buffer_refs(s) if role in (V.DECLARE, V.RESULT)]


def _hoisted_buffers(body) -> set:
    """Buffers declared inside a nested block but referenced outside it (or declared twice):
    C++ scoping needs their declaration at the top of the function."""
    total, decls = E.ref_counts(body), Counter()
    for s in V.walk_stmts(body):
        decls.update(_declared_here(s))
    out = {b for b, n in decls.items() if n > 1}

    def visit(block, nested) -> Counter:
        refs = Counter()
        for s in block:
            refs.update(id(b) for _, b in V.buffer_refs(s))
            for inner in V.blocks(s):
                refs.update(visit(inner, True))
        if nested:
            for s in block:
                out.update(b for b in _declared_here(s) if refs[b] != total[b])
        return refs

    visit(body, False)
    return out


_STMTS = {
    N.For: FuncEmitter.s_for, N.If: FuncEmitter.s_if, N.While: FuncEmitter.s_while,
    N.Alloc: FuncEmitter.s_alloc, N.Store: FuncEmitter.s_store, N.CallStmt: FuncEmitter.s_call,
}

__all__ = ["emit_module", "ModuleCode", "Signature", "Param", "call_order"]
