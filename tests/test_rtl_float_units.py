"""The float32 units (allo/backend/rtl/static/float/*.sv) alone, through Verilator: one bench
module whose outputs are the units called as the static ExprEmitter prints them, run on operand
vectors mixing random bit patterns with every special class (zeros, subnormals, the largest
finite, inf, NaN, ties, overflow / underflow boundaries), against the CPU (numpy float32) and
allo's own cast rules (allo.ir.fixed). NaN == any NaN. Reduced sweep by default; ALLO_RTL_FULL=1
(or benchmarks/bench_float_units.py) runs a million vectors.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from allo.backend.rtl.static.float import MODULES, UNITS, FloatUnits, module_source, needs, unit_source
from allo.backend.rtl.static.exprs import ExprEmitter
from allo.backend.rtl.static.float import bench, checks
from tests.rtl_util import FULL, needs_rtl

N = 1_000_000 if FULL else 30_000
CASES = {**checks.unit_cases(), **checks.predicate_cases()}


@pytest.fixture(scope="module")
def sweep():
    outs, text, mods = checks.bench_outputs(checks.unit_cases(), checks.predicate_cases(), ExprEmitter())
    exe = bench.build_bench(outs, text, modules=mods)
    a, b, x = checks.operands(N, seed=2024)
    got = bench.run_bench(exe, list(outs), a, b, x)
    return got, checks.check(got, CASES, a, b, x), (a, b, x)


@needs_rtl
@pytest.mark.parametrize("name", list(CASES))
def test_unit_equals_cpu(sweep, name):
    got, bad, _ = sweep
    assert bad[name] == 0, f"{name}: {bad[name]} of {N} vectors differ from the CPU / allo reference"


def _classes(u):
    u = u & np.uint64(0xffffffff)
    e, f = (u >> np.uint64(23)) & np.uint64(0xff), u & np.uint64(0x7fffff)
    return {"zero": (e == 0) & (f == 0), "subnormal": (e == 0) & (f != 0), "inf": (e == 255) & (f == 0),
            "nan": (e == 255) & (f != 0), "normal": (e != 0) & (e != 255)}


@needs_rtl
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div"])
def test_sweep_reaches_every_result_class(sweep, name):
    got, _, _ = sweep
    for cls, mask in _classes(got[name]).items():
        assert mask.sum() >= 20, f"{name}: only {int(mask.sum())} {cls} results in the sweep"


@needs_rtl
def test_sweep_contains_rounding_ties(sweep):
    """Exact sums that fall half way between two float32 values (RNE decides them)."""
    _, _, (a, b, _) = sweep
    with np.errstate(all="ignore"):
        fa, fb = a.view(np.float32).astype(np.float64), b.view(np.float32).astype(np.float64)
        exact = fa + fb  # exact in float64 when the exponents are close
        r = exact.astype(np.float32).astype(np.float64)
        nxt = np.nextafter(r.astype(np.float32), np.float32(np.inf)).astype(np.float64)
        tie = np.isfinite(exact) & (np.abs(fa) < 1e30) & (np.abs(nxt - exact) == np.abs(exact - r)) & (exact != r)
    assert tie.sum() >= 50, int(tie.sum())


def test_every_unit_file_has_its_header_and_dependencies():
    for name in {**UNITS, **MODULES}:
        text = unit_source(name)
        head = re.split(r"^(?:function|module) ", text, maxsplit=1, flags=re.M)[0]
        for word in ("Format", "Latency", "Rounding"):
            assert word in head, f"{name}.sv: header without {word!r}"
        fn = UNITS.get(name)
        if fn is not None:
            assert re.search(rf"function automatic logic (\[\d+:0\] )?{fn}\(", text), name
        mod = MODULES.get(name)
        if mod is not None:
            assert re.search(rf"^module {mod}\(", module_source(name), re.M), name
        for dep in needs(name):
            assert dep in UNITS or dep in MODULES, f"{name}.sv needs unknown unit {dep!r}"
    lib = FloatUnits()
    assert lib.use("f32_div") == "allo_f32_div"
    assert lib.names() == ["f32_common", "f32_div"]
    assert lib.text().count("function automatic logic [6:0] allo_clz64") == 1


def test_module_units_are_defined_once_with_their_functions_inside():
    """exp twice and log2 once: two instances of allo_f32_exp_m, each unit module defined once (the
    arithmetic wrappers and f32_log's reduction with them), the functions they call inside them."""
    lib = FloatUnits()
    ys = [lib.instance("f32_exp", ["a"]), lib.instance("f32_exp", ["b"]), lib.instance("f32_log2", ["a"])]
    assert len(set(ys)) == 3 and lib.text() == ""
    inst = lib.instances()
    assert inst.count("allo_f32_exp_m ") == 2 and f"allo_f32_log2_m {ys[2]}_i(a, {ys[2]});" in inst
    mods = lib.modules()
    defined = re.findall(r"^module (\w+)", mods, re.M)
    assert len(defined) == len(set(defined)), defined
    assert {"allo_f32_add_m", "allo_f32_mul_m", "allo_f32_poly_m", "allo_f32_exp_m", "allo_f32_log_reduce_m",
            "allo_f32_log2_m"} <= set(defined)
    assert defined.index("allo_f32_add_m") < defined.index("allo_f32_exp_m")
    for body in mods.split("endmodule")[:-1]:  # every function a module calls is defined in it
        called = {f for f in re.findall(r"\b(allo_(?:f32_\w+|clz64))\(", body) if not f.endswith("_m")}
        have = set(re.findall(r"function automatic logic (?:\[\d+:0\] )?(\w+)\(", body))
        assert called <= have, (body.split("(")[0], called - have)
    assert "//@functions" not in mods
    with pytest.raises(KeyError, match="module unit"):
        lib.use("f32_exp")


def test_units_ship_with_the_package():
    import tomllib
    from pathlib import Path
    data = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "**/*.sv" in data["tool"]["setuptools"]["package-data"]["allo"]
