"""`s.build(target="calyx")`: the kernel as Calyx IR (CIRCT's calyx dialect) through
`lower-scf-to-calyx`.

The kernel goes through the same preparation as the RTL flow (calls inlined, arrays flattened,
array results as output memories) plus if-conversion (allo.backend.rtl.ifconv), is lowered by
allo's MLIR to scf.while loops, and CIRCT turns
it into one `calyx.component` with cells (registers, adders, memories, ...), groups of guarded
assignments and a control program (seq/par/while/if/enable). The Calyx-to-Verilog passes
(remove-comb-groups, compile-control, go/done insertion) are not in the pip `circt` 1.62 wheel,
so this target stops at Calyx IR; `target="rtl"` is the simulated Verilog route.

Example::

    cx = s.build(target="calyx")
    print(cx.calyx)                  # calyx.component @gemm(...) { ... calyx.control { ... } }
    cx.summary()["gemm"]["cells"]    # {"register": 7, "std_add": 3, "seq_mem": 1, ...}
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ...errors import AlloError, BackendError
from ...ir import nodes as N
from .ifconv import if_convert
from .lower import lower_for_circt
from .module import circt_cached
from .prepare import prepare_for_hw

_COMPONENT = re.compile(r"^\s*calyx\.component @(\w+)\(")
_CELL = re.compile(r"=\s*calyx\.(\w+) @(\w+)")
_GROUP = re.compile(r"^\s*calyx\.(group|comb_group|static_group) @(\w+)")
_CONTROL_OP = re.compile(r"^\s*calyx\.(seq|par|while|if|enable|static_seq|static_par|repeat|invoke)\b(?:.*@(\w+))?")
_NON_CELLS = {"assign", "group_done", "group_go", "control", "wires", "component", "seq", "par", "while", "if",
              "enable", "group", "comb_group"}


class CalyxModule:
    """Calyx IR of a kernel. Attributes: `calyx` (text), `mlir` (the scf-level MLIR handed to CIRCT),
    `top_func_name`; `summary()` lists per component its cells, groups and control statements."""

    def __init__(self, mod: N.Module):
        self.top_func_name = mod.top
        self.hw = prepare_for_hw(mod, "Calyx")
        if_convert(self.hw.func)  # lower-scf-to-calyx in CIRCT 1.62 has no scf.if
        generic, self.mlir, _ = lower_for_circt(self.hw, "calyx")
        reply = circt_cached({"form": "calyx", "top": self.hw.func.name, "mlir": generic})
        self.calyx = reply["calyx"]

    def summary(self) -> dict:
        """{component: {"cells": {kind: count}, "cell_names": {name: kind}, "groups": [names],
        "control": {statement: count}, "enables": [group names in control order]}}."""
        return parse_calyx(self.calyx)

    def write(self, path) -> Path:
        """Write `<top>.calyx.mlir` and the scf-level `<top>.mlir` into directory `path`."""
        d = Path(path)
        try:
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{self.hw.func.name}.calyx.mlir").write_text(self.calyx)
            (d / f"{self.hw.func.name}.mlir").write_text(self.mlir)
        except OSError as e:
            raise BackendError(f"cannot write the Calyx design to {d}: {e}") from None
        return d.resolve()

    def __str__(self):
        return self.calyx

    def __repr__(self):
        return f"<allo CalyxModule {self.top_func_name}>"


def parse_calyx(text: str) -> dict:
    """Structure of calyx dialect text (see CalyxModule.summary)."""
    out, comp, in_control = {}, None, False
    for line in text.splitlines():
        m = _COMPONENT.match(line)
        if m:
            comp = out.setdefault(m.group(1), {"cells": Counter(), "cell_names": {}, "groups": [],
                                               "control": Counter(), "enables": []})
            in_control = False
            continue
        if comp is None:
            continue
        if re.match(r"^\s*calyx\.control\s*\{", line):
            in_control = True
            continue
        if in_control:
            m = _CONTROL_OP.match(line)
            if m:
                comp["control"][m.group(1)] += 1
                if m.group(1) == "enable":
                    comp["enables"].append(m.group(2))
            continue
        m = _GROUP.match(line)
        if m:
            comp["groups"].append(m.group(2))
            continue
        m = _CELL.search(line)
        if m and m.group(1) not in _NON_CELLS:
            comp["cells"][m.group(1)] += 1
            comp["cell_names"][m.group(2)] = m.group(1)
    for c in out.values():
        c["cells"], c["control"] = dict(c["cells"]), dict(c["control"])
    return out


def build_calyx(mod: N.Module, **unknown) -> CalyxModule:
    """Lower an allo IR module to Calyx IR (see CalyxModule).

    Example::

        cx = build_calyx(ir_module); print(cx.calyx)
    """
    if unknown:
        raise BackendError(f"build(target='calyx'): unknown option(s) {sorted(unknown)}; it takes none")
    try:
        return CalyxModule(mod)
    except AlloError:
        raise
    except Exception as e:
        raise BackendError(f"Calyx build of {mod.top!r} failed: {type(e).__name__}: {e}") from e


__all__ = ["CalyxModule", "build_calyx", "parse_calyx"]
