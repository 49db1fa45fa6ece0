"""The XLS[cc] design around the emitted kernel: checks, the `TestBlock` class, RAM rewrites.

A top function with only scalars is combinational: the kernel itself, marked `#pragma hls_top`.
Otherwise the top is a method of `class TestBlock` (XLS[cc]'s block-from-class form):
- register mode (use_memory=False): every argument arrives on an input channel
  `__xls_channel<T, __xls_channel_dir_In> <name>_in` (arrays element by element, row-major) into
  the method's local `_<name>`, the method calls the kernel, and results leave on `out` (several: `out0`, `out1`, ...), arrays the
  kernel writes in place on `<name>_out`;
- memory mode (use_memory=True): array arguments and results are `__xls_memory<T, N> <name>`
  members the kernel reads and writes directly (1-D arrays only), and `rewrites_textproto` maps
  each abstract memory to the RAM kind of its `@ Memory(storage_type=...)`: RAM_1P and ROM_1P ->
  RAM_1RW (one port, channels `<name>_req`/`_resp`), RAM_2P (the default) and RAM_S2P -> RAM_1R1W
  (`<name>_read_request`/`_read_response`/`_write_request`/`_write_response`).

Example::

    block = Wrapped(func, sig, written={0}, use_memory=False)
    block.class_text()   # 'class TestBlock {\n public:\n  __xls_channel<int32_t, ...'
"""
from __future__ import annotations

import numpy as np

from ...errors import VendorError, located
from ...ir import nodes as N
from ...ir import visit as V
from ...ir.attrs import BIND_STORAGE
from ...ir.types import ArrayType, Float
from ..hls.emit import param_decl
from ..hls.types import cpp_type

# @ Memory(storage_type=...) -> XLS RAM kind
RAM_KINDS = {"RAM_1P": "RAM_1RW", "ROM_1P": "RAM_1RW", "RAM_2P": "RAM_1R1W", "RAM_S2P": "RAM_1R1W"}
SUPPORTED_STORAGE = ("RAM_1P", "RAM_2P", "ROM_1P")


def check_kernel(mod: N.Module) -> None:
    """Refuse floats (XLS synthesizes integers and fixed point), naming the kernel line."""
    for f in mod.funcs:
        for b in V.iter_buffers(f):
            if isinstance(b.dtype, Float):
                raise located(VendorError, f"XLS [CC] backend: {b.name!r} is {b.dtype!r}: floating-point types are "
                                           "not supported by XLS; use an integer or Fixed type", b.loc)
        for k, t in enumerate(f.result_types):
            if isinstance(getattr(t, "dtype", t), Float):
                raise located(VendorError, f"XLS [CC] backend: result {k} of {f.name}() is a float "
                                           f"({t!r}): floating-point types are not supported by XLS",
                              getattr(f, "loc", None))


def elem_type(p):
    return p.type.dtype if isinstance(p.type, ArrayType) else p.type


def shape(p) -> tuple:
    return tuple(p.type.shape) if isinstance(p.type, ArrayType) else ()


def _local(p) -> str:
    """The method's local for parameter `p` (never a member's name: members end in _in/_out or are out*)."""
    return f"_{p.name}"


class Wrapped:
    """The TestBlock of one top function (its Signature `sig` after emission: C++ names)."""

    def __init__(self, func: N.Func, sig, written=(), use_memory: bool = False):
        self.func, self.sig, self.use_memory = func, sig, use_memory
        self.written = {k for k in written if func.params[k].shape}
        self.combinational = not any(shape(p) for p in sig.params)
        self.memories = [p for p in sig.params if shape(p)] if use_memory else []
        for p in self.memories:
            if len(shape(p)) != 1:
                raise located(VendorError, f"XLS [CC] backend: use_memory=True maps arrays to __xls_memory, which "
                                           f"is flat: {self._what(p)} has shape {shape(p)}; reshape it to 1-D or "
                                           "build with use_memory=False", getattr(func, "loc", None))
        if self.memories:
            self._check_not_passed()
        results = [p for p in sig.params if p.role in ("out", "out_scalar")]
        n_results = len(results) + (sig.return_type is not None)
        self.out_names = ["out"] if n_results == 1 else [f"out{k}" for k in range(n_results)]

    def _what(self, p) -> str:
        return f"argument {p.name!r}" if p.role in ("arg", "scalar_arg") else f"result {p.index}"

    def _check_not_passed(self):
        params = {id(self.func.params[p.index]) for p in self.memories if p.role == "arg"}
        for s in V.walk_stmts(self.func.body):
            if isinstance(s, N.CallStmt) and any(id(a) in params for a in s.args if isinstance(a, N.Buffer)):
                raise located(VendorError, f"XLS [CC] backend: use_memory=True: {self.func.name}() passes a memory "
                                           f"argument to {s.callee}(); memories cannot be passed to sub-functions "
                                           "(build with use_memory=False)", s.loc or getattr(self.func, "loc", None))

    # --- text ---------------------------------------------------------------------------
    def memory_signature(self) -> str:
        """The top's C++ head with memory references for its arrays (memory mode)."""
        args = []
        for p in self.sig.params:
            if p in self.memories:
                args.append(f"__xls_memory<{cpp_type(elem_type(p))}, {shape(p)[0]}> &{p.name}")
            else:
                args.append(param_decl(p))
        ret = cpp_type(self.sig.return_type) if self.sig.return_type is not None else "void"
        return f"{ret} {self.sig.name}({', '.join(args)})"

    def class_text(self) -> str:
        members, body = [], []
        results = iter(self.out_names)
        outs = []
        for p in self.sig.params:
            t = cpp_type(elem_type(p))
            if p in self.memories:
                members.append(f"__xls_memory<{t}, {shape(p)[0]}> {p.name};")
                if p.role == "out":
                    next(results)  # the result is the memory itself (no channel)
                continue
            if p.role in ("arg", "scalar_arg"):
                members.append(f"__xls_channel<{t}, __xls_channel_dir_In> {p.name}_in;")
                body += self._declare(p, t)
                body += self._move(p, f"{_local(p)}{{idx}} = {p.name}_in.read();")
                if p.index in self.written:
                    outs.append((p, f"{p.name}_out", t))
            else:
                outs.append((p, next(results), t))
                body += self._declare(p, t)
        call = f"::{self.sig.name}({', '.join(p.name if p in self.memories else _local(p) for p in self.sig.params)});"
        if self.sig.return_type is not None:
            t = cpp_type(self.sig.return_type)
            name = next(results)
            members.append(f"__xls_channel<{t}, __xls_channel_dir_Out> {name};")
            call = f"{name}.write({call[:-1]});"
        body.append(call)
        for p, chan, t in outs:
            members.append(f"__xls_channel<{t}, __xls_channel_dir_Out> {chan};")
            body += self._move(p, f"{chan}.write({_local(p)}{{idx}});")
        lines = ["class TestBlock {", " public:"] + [f"  {m}" for m in members] + ["", "  #pragma hls_top",
                                                                                  f"  void {self.sig.name}() {{"]
        lines += [f"    {b}" for b in body] + ["  }", "};"]
        return "\n".join(lines) + "\n"

    @staticmethod
    def _declare(p, t) -> list:
        dims = "".join(f"[{d}]" for d in shape(p))
        return [f"{t} {_local(p)}{dims};" if dims else f"{t} {_local(p)} = 0;"]

    @staticmethod
    def _move(p, stmt: str) -> list:
        """A row-major loop nest over `p` running `stmt` (with `{idx}` the subscripts); pipelined."""
        dims = shape(p)
        if not dims:
            return [stmt.format(idx="")]
        out = []
        for k, d in enumerate(dims):
            if k == len(dims) - 1:
                out.append("  " * k + "#pragma hls_pipeline_init_interval 1")
            out.append("  " * k + f"for (int _i{k} = 0; _i{k} < {d}; ++_i{k}) {{")
        out.append("  " * len(dims) + stmt.format(idx="".join(f"[_i{k}]" for k in range(len(dims)))))
        out += ["  " * k + "}" for k in reversed(range(len(dims)))]
        return out

    def textproto(self) -> str:
        """XLS's RAM rewrites (ram_rewrite.proto) for the memories; "" without memories."""
        if not self.memories:
            return ""
        lines = ["# Automatically Generated by Allo (Allo XLS [CC] Backend)",
                 "# proto-file: xls/codegen/ram_rewrite.proto", "# proto-message: xls.RamRewritesProto", ""]
        for p in self.memories:
            kind = self._ram_kind(p)
            depth = int(np.prod(shape(p)))
            n = p.name
            if kind == "RAM_1RW":
                rr, rs, wr, ws = f"{n}_req", f"{n}_resp", f"{n}_req", f"{n}_resp"
            else:
                rr, rs, wr, ws = f"{n}_read_request", f"{n}_read_response", f"{n}_write_request", f"{n}_write_response"
            lines += ["rewrites {",
                      f"  from_config {{ kind: RAM_ABSTRACT depth: {depth} }}",
                      f"  to_config {{ kind: {kind} depth: {depth} }}",
                      f'  from_channels_logical_to_physical: {{ key: "abstract_read_req" value: "{rr}" }}',
                      f'  from_channels_logical_to_physical: {{ key: "abstract_read_resp" value: "{rs}" }}',
                      f'  from_channels_logical_to_physical: {{ key: "abstract_write_req" value: "{wr}" }}',
                      f'  from_channels_logical_to_physical: {{ key: "write_completion" value: "{ws}" }}',
                      f'  to_name_prefix: "{n}_"', "}", ""]
        return "\n".join(lines)

    def _ram_kind(self, p) -> str:
        buf = self.func.params[p.index] if p.role == "arg" else None
        bind = (buf.attrs.get(BIND_STORAGE) if buf is not None else None) or {}
        st = bind.get("storage_type") or "RAM_2P"
        if st not in RAM_KINDS:
            raise located(VendorError, f"XLS [CC] backend: memory {p.name!r} has storage_type {st!r}, which XLS "
                                       f"memories do not have (XLS has RAM_1RW and RAM_1R1W); supported storage_type "
                                       f"values: {', '.join(SUPPORTED_STORAGE)} (RAM_2P when not given)",
                          buf.loc if buf is not None else None)
        return RAM_KINDS[st]


__all__ = ["Wrapped", "check_kernel", "RAM_KINDS", "SUPPORTED_STORAGE"]
