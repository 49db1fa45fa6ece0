"""Bit growth (allo.ir.promote): + - * (and // % on integers) and multiply-accumulates over random
widths 1..64, signedness and fixed-point formats give exactly the value of a Python Fraction
reference of the rules, on LLVM, in the reference interpreter and in C simulation with allo_ap.h
and with the real Xilinx headers.

Each example generates one kernel with several random cases. Results wider than 64 bits are read
back in 64-bit chunks (`raw >> 64k`, wrapped to int64), so every bit of the exact value is checked.
`ALLO_FUZZ_EXAMPLES=N` runs N examples of each property instead of the small CI default.
"""
from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import allo
from allo.ir.fixed import to_raw
from allo.interp import run as interp_run
from allo.ir.promote import literal_type, result_type
from allo.ir.types import Fixed, Int, UFixed, UInt, int8, int16, int32, uint8

FUZZ = int(os.environ.get("ALLO_FUZZ_EXAMPLES", "0"))
N = 5  # elements per case


def _settings(default):
    # no shrinking: every example compiles a kernel, and the failing cases are printed as they are
    return settings(max_examples=FUZZ or default, deadline=None, derandomize=not FUZZ,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ----------------------------------------------------------------------------- the rules, independently
def shape(t):
    """(integer bits incl. sign, fraction bits, signed)."""
    f = getattr(t, "frac", 0)
    return t.bits - f, f, isinstance(t, (Int, Fixed))


def make(i, f, s, fixed):
    if fixed:
        return (Fixed if s else UFixed)(i + f, f)
    return (Int if s else UInt)(i)


def rule(op, a, b):
    (ia, fa, sa), (ib, fb, sb) = shape(a), shape(b)
    fixed = hasattr(a, "frac") or hasattr(b, "frac")
    s = sa or sb
    if op == "mul":
        return make(ia + ib, fa + fb, s, fixed)
    if op == "floordiv":  # |a // b| <= |a|, plus a bit for MIN // -1 when b is signed
        return make(ia + sb, 0, s, False)
    if op == "mod":  # the sign of b and |a % b| < |b|: b's type
        return b
    ja, jb = ia + (s and not sa), ib + (s and not sb)  # the unsigned side gains a sign bit
    return make(max(ja, jb) + 1, max(fa, fb), s or op == "sub", fixed)


def value_range(t):
    i, f, s = shape(t)
    w = i + f
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if s else (0, (1 << w) - 1)


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def store(value: Fraction, t) -> int:
    """Raw bits of `value` stored into type t: floor to t's fraction bits, then wrap."""
    _, f, s = shape(t)
    return wrap((value * 2 ** f).__floor__(), t.bits, s)


def chunks(raw: int, bits: int) -> list:
    return [wrap(raw >> (64 * k), 64, True) for k in range(-(-bits // 64))]


# ----------------------------------------------------------------------------- generated kernels
scalar_types = st.integers(1, 64).flatmap(lambda w: st.one_of(
    st.sampled_from([Int(w), UInt(w)]),
    st.integers(0, w).flatmap(lambda f: st.sampled_from([Fixed(w, f), UFixed(w, f)]))))


@st.composite
def cases(draw, n):
    out = []
    for _ in range(n):
        a, b = draw(scalar_types), draw(scalar_types)
        fixed = hasattr(a, "frac") or hasattr(b, "frac")
        w = draw(st.integers(2, 64))
        acc = draw(st.sampled_from([Fixed(w, draw(st.integers(0, w))), UFixed(w, draw(st.integers(0, w)))]
                                   if fixed else [Int(w), UInt(w)]))
        out.append((a, b, acc))
    return out


REFERENCE = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
             "floordiv": lambda x, y: x // y if y else 0, "mod": lambda x, y: x % y if y else 0}


def ops_of(a, b):
    """The operations checked for a case: + - * always, // and % (numpy's, x // 0 = 0) on integers."""
    ops = [("add", "+"), ("sub", "-"), ("mul", "*")]
    if not hasattr(a, "frac") and not hasattr(b, "frac"):
        ops += [("floordiv", "//"), ("mod", "%")]
    return ops


def tname(t) -> str:
    return repr(t) if hasattr(t, "frac") else f"{type(t).__name__}({t.bits})"


def chunk_code(var: str, t) -> list:
    """int64 expressions reading `raw(var) >> 64k` of a variable of type t."""
    i, f, _ = shape(t)
    out = []
    for k in range(-(-t.bits // 64)):
        e = f - 64 * k
        if e >= 0:
            out.append(f"int64({var} * {2 ** e})" if e else f"int64({var})")
        elif not hasattr(t, "frac"):
            out.append(f"int64({var} >> {64 * k})")
        else:
            out.append(f"int64(Int({i + 2})({var}) >> {-e})")
    return out


def generate(cs, tmp_path: Path):
    """A kernel over the cases: for each, chunks of a+b, a-b, a*b per element, and a MAC."""
    params, outs, body, loop = [], [], [], []
    for c, (a, b, acc) in enumerate(cs):
        params += [f"A{c}: {tname(a)}[{N}]", f"B{c}: {tname(b)}[{N}]"]
        for op, sym in ops_of(a, b):
            r = rule(op, a, b)
            loop.append(f"        r{c}{op}: {tname(r)} = A{c}[i] {sym} B{c}[i]")
            for k, code in enumerate(chunk_code(f"r{c}{op}", r)):
                outs.append(f"O{c}{op}{k}")
                loop.append(f"        O{c}{op}{k}[i] = {code}")
        body.append(f"    acc{c}: {tname(acc)} = 0")
        post = [f"        acc{c} += A{c}[i] * B{c}[i]"]
        loop += post
        outs.append(f"M{c}")
        body.append(f"    M{c}: int64[1] = 0")
    lines = ["import allo", "from allo.ir.types import *", "",
             f"def kern({', '.join(params)}) -> ({', '.join(['int64[%d]' % N] * (len(outs) - len(cs)) + ['int64[1]'] * len(cs))}):"]
    lines += [f"    {o}: int64[{N}] = 0" for o in outs if not o.startswith("M")]
    lines += body
    lines.append(f"    for i in range({N}):")
    lines += loop
    lines += [f"    M{c}[0] = {chunk_code(f'acc{c}', acc)[0]}" for c, (_, _, acc) in enumerate(cs)]
    order = [o for o in outs if not o.startswith("M")] + [f"M{c}" for c in range(len(cs))]
    lines.append(f"    return {', '.join(order)}")
    path = tmp_path / "growth_kernel.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(f"growth_{abs(hash(str(cs)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kern


def inputs(cs, rnd):
    """numpy arguments and the raw values the kernel sees (fixed point goes through floats)."""
    args, raws = [], []
    for a, b, _ in cs:
        for t in (a, b):
            lo, hi = value_range(t)
            r = [lo, hi] + [rnd.randint(lo, hi) for _ in range(N - 2)]  # the extremes grow the most
            if hasattr(t, "frac"):
                x = np.array([v / 2.0 ** t.frac for v in r])
                r = [int(v) for v in to_raw(x, t)]
                args.append(x)
            else:
                args.append(np.array(r, dtype=object).astype(t.np_dtype))
            raws.append(r)
    return args, raws


def expected(cs, raws):
    """Chunks of every case's a+b, a-b, a*b, then every case's accumulator (the kernel's order)."""
    want, macs = [], []
    for c, (a, b, acc) in enumerate(cs):
        fa, fb = getattr(a, "frac", 0), getattr(b, "frac", 0)
        xs = [Fraction(v, 2 ** fa) for v in raws[2 * c]]
        ys = [Fraction(v, 2 ** fb) for v in raws[2 * c + 1]]
        for op, _ in ops_of(a, b):
            r, fn = rule(op, a, b), REFERENCE[op]
            cols = [chunks(store(fn(x, y), r), r.bits) for x, y in zip(xs, ys)]
            want += [[col[k] for col in cols] for k in range(len(cols[0]))]
        total = Fraction(0)
        for x, y in zip(xs, ys):  # each += stores into the accumulator: floor and wrap per step
            total = Fraction(store(total + x * y, acc), 2 ** getattr(acc, "frac", 0))
        macs.append([store(total, acc)])
    return want + macs


def check(got, want, what):
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert [int(v) for v in np.asarray(g).ravel()] == w, f"{what}: output {k}"


# ----------------------------------------------------------------------------- properties
def test_rules_and_literals_match_the_table():
    assert result_type("mul", int8, int8) == Int(16)
    assert result_type("add", UInt(17), UInt(17)) == UInt(18)
    assert result_type("sub", uint8, uint8) == Int(9)
    assert result_type("add", int8, uint8) == Int(10)
    assert result_type("mul", Fixed(16, 8), Fixed(16, 8)) == Fixed(32, 16)
    assert result_type("add", Fixed(16, 8), int8) == Fixed(17, 8)
    assert result_type("mul", Fixed(8, 3), Fixed(8, 3)) == Fixed(16, 6)
    assert result_type("floordiv", uint8, Int(2)) == Int(9)
    assert result_type("mod", int32, uint8) == uint8
    assert literal_type(300, int8) == UInt(9) and literal_type(-1, uint8) == Int(1)
    assert literal_type(100, int8) == int8 and literal_type(40000, int16) == UInt(16)


@_settings(4)
@given(cs=cases(4), seed=st.integers(0, 2 ** 31))
def test_growth_is_exact_on_llvm_and_the_interpreter(cs, seed, tmp_path_factory):
    for a, b, _ in cs:
        for op, _ in ops_of(a, b):
            assert result_type(op, a, b) == rule(op, a, b), (op, a, b)
    kern = generate(cs, tmp_path_factory.mktemp("growth"))
    args, raws = inputs(cs, random.Random(seed))
    want = expected(cs, raws)
    s = allo.customize(kern)
    check(s.build()(*args), want, f"LLVM {cs}")
    check(interp_run(s.ir, *args), want, f"interp {cs}")


@_settings(1)
@given(cs=cases(7), seed=st.integers(0, 2 ** 31))
def test_growth_is_exact_in_csim_with_allo_and_xilinx_headers(cs, seed, tmp_path_factory, xilinx_ap_types):
    d = tmp_path_factory.mktemp("growth_csim")
    kern = generate(cs, d)
    args, raws = inputs(cs, random.Random(seed))
    want = expected(cs, raws)
    mod = allo.customize(kern).build(target="vhls", mode="csim", project=str(d / "prj"))
    check(mod(*args), want, f"csim allo_ap.h {cs}")
    check(run_with_xilinx_headers(mod, args, xilinx_ap_types), want, f"csim Xilinx {cs}")


def run_with_xilinx_headers(mod, args, include):
    """Compile `mod`'s project against the Xilinx ap_types and call it like `mod`."""
    exe = Path(mod.project) / "csim_xilinx"
    r = subprocess.run(["g++", "-std=c++14", "-O1", "-w", "-fwrapv", "-isystem", str(include), "-I", ".",
                        "kernel.cpp", "host.cpp", "-o", str(exe)], cwd=mod.project, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    mod._binary = lambda: exe  # same inputs, outputs and conversions as the module itself
    try:
        return mod(*args)
    finally:
        del mod._binary


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
