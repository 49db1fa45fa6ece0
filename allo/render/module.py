"""Module level of the MLIR renderer: global constants, the functions, and (mode "llvm") the JIT
entry wrapper `@__allo_entry_<top>` in destination-passing style.

Example::

    r = ModuleRenderer(mod, "llvm", big_limit=256)
    text, big = r.render(), r.big     # big: {symbol: ndarray} of globals left out of the text
"""
from __future__ import annotations

import numpy as np

from ..errors import BackendError
from ..ir import nodes as N
from ..ir.attrs import STATEFUL
from ..ir.fixed import to_raw, wrap_int
from ..ir.types import ArrayType, Fixed, Float, Index, Int, UFixed, UInt, is_bool, is_signed
from .func import FuncRenderer
from .scalars import abi_scalar, scalar_storage

ENTRY_PREFIX = "__allo_entry_"


def storage_array(buf: N.Buffer, data=None) -> np.ndarray:
    """The data of a global buffer (or `data` for it) in its memory representation (container
    ints, raw fixed)."""
    t, d = buf.dtype, np.asarray(buf.data if data is None else data)
    if isinstance(t, (Fixed, UFixed)):
        out = to_raw(d, t)  # data holds values (like every numpy input), not raw integers
    elif is_bool(t):
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


class ModuleRenderer:
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

    def stateful_symbol(self, buf: N.Buffer, func_name: str) -> str:
        """The mutable `memref.global` holding `T @ Stateful` local `buf` of function `func_name`:
        one per buffer, named `<func>_<name>`, initialised with the declared initial value."""
        if id(buf) in self._global_syms:
            return self._global_syms[id(buf)]
        base = f"{func_name}_{buf.name}"
        sym, k = base, 0
        while sym in self._sym_data:
            k += 1
            sym = f"{base}_{k}"
        arr = storage_array(buf, buf.attrs[STATEFUL])
        self._sym_data[sym] = (None, arr)
        self.global_lines.append(f'  memref.global "private" @{sym} : {buf.type.mlir} = '
                                 f'dense<"0x{arr.tobytes().hex().upper()}">')
        self._global_syms[id(buf)] = sym
        return sym

    def render(self) -> str:
        if not self.mod.funcs:
            raise BackendError("module has no functions")
        bodies = [FuncRenderer(self, f).render() for f in self.mod.funcs]
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
                abi = abi_scalar(t)
                params.append(f"%a{k}: {abi}")
                lines, v = abi_to_compute(f"%a{k}", abi, t, f"%c{k}")
                pre.append(lines)
                call_args.append((v, t.mlir))
            else:
                params.append(f"%a{k}: {p.type.mlir}")
                call_args.append((f"%a{k}", p.type.mlir))
        outs = []
        for k, rt in enumerate(top.result_types):
            ty = rt.mlir if isinstance(rt, ArrayType) else f"memref<{scalar_storage(rt)}>"
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
                conv, sv = compute_to_storage(r, rt, f"%s{k}")
                lines += ["    " + x for x in conv]
                lines.append(f"    memref.store {sv}, %o{k}[] : {outs[k]}")
        lines += ["    return", "  }"]
        return "\n".join(lines) + "\n"


def abi_to_compute(v, abi, t, out):
    """(lines, value): a scalar entry argument of ABI type `abi` as allo type t."""
    if isinstance(t, Float) and t.bits == 16:
        return [f"{out} = arith.bitcast {v} : i16 to {t.mlir}"], out
    if isinstance(t, Index):
        return [f"{out} = arith.index_cast {v} : i64 to index"], out
    if abi != t.mlir:
        return [f"{out} = arith.trunci {v} : {abi} to {t.mlir}"], out
    return [], v


def compute_to_storage(v, t, out):
    """(lines, value): scalar result v of allo type t in its rank-0 output memref's element type."""
    st = scalar_storage(t)
    if isinstance(t, Index):
        return [f"{out} = arith.index_cast {v} : index to i64"], out
    if st != t.mlir:
        return [f"{out} = arith.{'extsi' if is_signed(t) else 'extui'} {v} : {t.mlir} to {st}"], out
    return [], v
