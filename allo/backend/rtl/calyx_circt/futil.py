"""The calyx dialect (as lower-scf-to-calyx makes it) printed in Calyx's native language (`.futil`),
for the Calyx compiler (`fud2 main.futil --to verilog`, or the `calyx` binary): what CIRCT's
export-calyx would print, which the pip wheel lacks.

- the top becomes `component main` (Calyx's entry point); go/done/clk/reset are implicit;
- each memory argument (the `ext_mem<k>_*` ports) becomes an `@external comb_mem_d1(width, size,
  addr bits)` cell named `ext_mem<k>`, so fud2 / the Calyx data format feed it by that name;
- cells map to the std primitives of the Calyx library (`PRIMITIVES`: name, parameters, port
  renames: CIRCT's std_divs_pipe is native std_sdiv_pipe with `out_quotient`);
- comb ops in groups (comb.and / or / xor with true) become guard expressions (`a & !b`);
- control: seq / par / while ... with / if ... with / enables, one to one.

Example::

    text = emit_futil(module, {0: 8, 1: 8})      # memory sizes by ext_mem index
"""
from __future__ import annotations

from circt import ir

from .ir_util import Component, body, components, group_ref, ops_of, symbol

IMPORTS = ('import "primitives/core.futil";\nimport "primitives/memories/comb.futil";\n'
           'import "primitives/binary_operators.futil";\n')

# CIRCT cell -> (native primitive, parameters from the port widths {port: width} , port renames)
_BIN = lambda name: (name, lambda w: [w["left"]], {})  # noqa: E731
PRIMITIVES = {
    "register": ("std_reg", lambda w: [w["in"]], {}),
    "std_wire": ("std_wire", lambda w: [w["in"]], {}),
    "std_slice": ("std_slice", lambda w: [w["in"], w["out"]], {}),
    "std_pad": ("std_pad", lambda w: [w["in"], w["out"]], {}),
    "std_signext": ("std_signext", lambda w: [w["in"], w["out"]], {}),
    "std_not": ("std_not", lambda w: [w["in"]], {}),
    "std_mux": ("std_mux", lambda w: [w["tru"]], {}),
    "std_mult_pipe": ("std_mult_pipe", lambda w: [w["left"]], {}),
    "std_divu_pipe": ("std_div_pipe", lambda w: [w["left"]], {"out": "out_quotient"}),
    "std_remu_pipe": ("std_div_pipe", lambda w: [w["left"]], {"out": "out_remainder"}),
    "std_divs_pipe": ("std_sdiv_pipe", lambda w: [w["left"]], {"out": "out_quotient"}),
    "std_rems_pipe": ("std_sdiv_pipe", lambda w: [w["left"]], {"out": "out_remainder"}),
    **{k: _BIN(k) for k in ("std_add", "std_sub", "std_and", "std_or", "std_xor", "std_lsh", "std_rsh", "std_srsh",
                            "std_eq", "std_neq", "std_lt", "std_gt", "std_le", "std_ge", "std_slt", "std_sgt",
                            "std_sle", "std_sge", "std_seq", "std_sneq")},
}


class FutilError(ValueError):
    pass


def _width(t) -> int:
    return ir.IntegerType(t).width


class _Names:
    """Native names of calyx dialect values: ports, cell ports, constants, guard expressions."""

    def __init__(self, comp: Component):
        self.map = {}
        attrs = ir.ArrayAttr(comp.op.attributes["portAttributes"])
        self.ext = {}  # ext_mem index -> {tag: (value, width)}
        for k, (name, arg) in enumerate(zip(comp.port_names, comp.block.arguments)):
            d = ir.DictAttr(attrs[k])
            if "mem" in d:
                mem = ir.DictAttr(d["mem"])
                idx = ir.IntegerAttr(mem["id"]).value
                tag = ir.StringAttr(mem["tag"]).value
                if tag == "addr":
                    tag = f"addr{ir.IntegerAttr(mem['addr_idx']).value}"
                self.ext.setdefault(idx, {})[tag] = (arg, _width(arg.type))
                self.map[arg] = f"ext_mem{idx}.{tag}"
            else:
                self.map[arg] = name
        self.renames = {}
        for cell in comp.cells():
            ren = PRIMITIVES.get(cell.kind, (None, None, {}))[2]
            for p, r in zip(cell.port_names, cell.op.results):
                self.map[r] = f"{cell.name}.{ren.get(p, p)}"

    def const(self, op) -> str:
        v = ir.IntegerAttr(op.attributes["value"]).value
        w = _width(op.results[0].type)
        return f"{w}'d{v & ((1 << w) - 1)}"

    def expr(self, v, local: dict) -> str:
        if v in self.map:
            return self.map[v]
        if v in local:
            return local[v]
        if ir.OpResult.isinstance(v) and ir.OpResult(v).owner.name == "hw.constant":
            return self.const(ir.OpResult(v).owner)
        raise FutilError(f"no native Calyx name for {v.get_name()}")


def _guard(op, names: _Names, local: dict) -> str:
    """A comb op of a group as a guard expression."""
    a = [names.expr(x, local) for x in op.operands]
    if op.name == "comb.xor" and len(a) == 2 and a[1] == "1'd1":
        return f"!{_paren(a[0])}"
    if op.name in ("comb.and", "comb.or"):
        return f" {'&' if op.name == 'comb.and' else '|'} ".join(_paren(x) for x in a)
    raise FutilError(f"{op.name} has no Calyx guard form")


def _paren(x: str) -> str:
    return f"({x})" if " " in x else x


def _assigns(block, names: _Names, group: str | None, ind: str) -> list:
    local, out = {}, []
    for op in ops_of(block):
        if op.name.startswith("comb."):
            local[op.results[0]] = _guard(op, names, local)
        elif op.name == "hw.constant":
            local[op.results[0]] = names.const(op)
        elif op.name in ("calyx.assign", "calyx.group_done"):
            ops = list(op.operands)
            if op.name == "calyx.assign":
                dest, src, guard = ops[0], ops[1], (ops[2] if len(ops) > 2 else None)
                lhs = names.expr(dest, local)
            else:
                src, guard = ops[0], (ops[1] if len(ops) > 1 else None)
                lhs = f"{group}[done]"
            rhs = names.expr(src, local)
            g = f"{names.expr(guard, local)} ? " if guard is not None else ""
            out.append(f"{ind}{lhs} = {g}{rhs};")
        else:
            raise FutilError(f"unexpected {op.name} in the wires of the component")
    return out


def _control(op, names: _Names, ind: str) -> list:
    kind = op.name.split(".", 1)[1]
    if kind == "enable":
        return [f"{ind}{group_ref(op)};"]
    if kind in ("seq", "par"):
        inner = [ln for c in ops_of(body(op)) for ln in _control(c, names, ind + "  ")]
        return [f"{ind}{kind} {{"] + inner + [f"{ind}}}"]
    if kind in ("while", "if"):
        cond = names.expr(op.operands[0], {})
        ref = group_ref(op)
        head = f"{ind}{kind} {cond}" + (f" with {ref}" if ref else "") + " {"
        then = [ln for c in ops_of(op.regions[0].blocks[0]) for ln in _control(c, names, ind + "  ")]
        out = [head] + then
        if kind == "if" and len(op.regions) > 1 and len(op.regions[1].blocks):
            out.append(f"{ind}}} else {{")
            out += [ln for c in ops_of(op.regions[1].blocks[0]) for ln in _control(c, names, ind + "  ")]
        return out + [f"{ind}}}"]
    raise FutilError(f"control statement calyx.{kind} has no native form here")


def emit_component(comp: Component, mem_sizes: dict, entry: bool) -> str:
    names = _Names(comp)
    hidden = {"clk", "reset", "go", "done"}
    def plain(ports):  # the component's own ports (memory ports belong to the @external cells)
        return [f"{n}: {_width(a.type)}" for n, a in ports if n not in hidden and not names.map[a].startswith("ext_")]

    ins, outs = plain(comp.inputs()), plain(comp.outputs())
    title = "main" if entry else comp.name
    lines = [f"component {title}({', '.join(ins)}) -> ({', '.join(outs)}) {{", "  cells {"]
    for idx, ports in sorted(names.ext.items()):
        width = ports.get("read_data", ports.get("write_data"))[1]
        addr = ports.get("addr0", (None, 1))[1]
        size = mem_sizes.get(idx, mem_sizes.get(str(idx), 1 << addr))
        lines.append(f"    @external(1) ext_mem{idx} = comb_mem_d1({width}, {size}, {addr});")
    for cell in comp.cells():
        if cell.kind not in PRIMITIVES:
            raise FutilError(f"cell kind calyx.{cell.kind} (@{cell.name}) has no native primitive mapping")
        prim, params, _ = PRIMITIVES[cell.kind]
        widths = {p: _width(r.type) for p, r in zip(cell.port_names, cell.op.results)}
        lines.append(f"    {cell.name} = {prim}({', '.join(str(x) for x in params(widths))});")
    lines += ["  }", "  wires {"]
    wires = body(comp.wires())
    for op in ops_of(wires):
        if op.name in ("calyx.group", "calyx.comb_group"):
            kw = "comb group" if op.name == "calyx.comb_group" else "group"
            lines.append(f"    {kw} {symbol(op)} {{")
            lines += _assigns(body(op), names, symbol(op), "      ")
            lines.append("    }")
    cont = [op for op in ops_of(wires) if op.name not in ("calyx.group", "calyx.comb_group")]
    lines += _assigns_list(cont, names, "    ")
    lines += ["  }", "  control {"]
    for c in ops_of(body(comp.control())):
        lines += _control(c, names, "    ")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def _assigns_list(ops: list, names: _Names, ind: str) -> list:
    local, out = {}, []
    for op in ops:
        if op.name.startswith("comb."):
            local[op.results[0]] = _guard(op, names, local)
        elif op.name == "hw.constant":
            local[op.results[0]] = names.const(op)
        elif op.name == "calyx.assign":
            ops_ = list(op.operands)
            g = f"{names.expr(ops_[2], local)} ? " if len(ops_) > 2 else ""
            out.append(f"{ind}{names.expr(ops_[0], local)} = {g}{names.expr(ops_[1], local)};")
        else:
            raise FutilError(f"unexpected {op.name} among the continuous assignments")
    return out


def emit_futil(module, mem_sizes: dict | None = None) -> str:
    """The native Calyx program of `module` (the entry component becomes `main`)."""
    entry = None
    if "calyx.entrypoint" in module.operation.attributes:
        entry = ir.StringAttr(module.operation.attributes["calyx.entrypoint"]).value
    comps = components(module)
    text = [f"// Generated by allo from the calyx dialect (CIRCT 1.62 lower-scf-to-calyx); top: {entry}\n", IMPORTS]
    for comp in comps:
        text.append("\n" + emit_component(comp, mem_sizes or {}, comp.name == entry or len(comps) == 1))
    return "".join(text)


__all__ = ["emit_futil", "emit_component", "PRIMITIVES", "IMPORTS", "FutilError"]
