"""Operand sweeps and CPU references for the float units (the unit tests and
benchmarks/bench_float_units.py): every case is an IR node printed by the static ExprEmitter over
bench inputs `a`, `b` (float32 bits) and `x` (a 64-bit integer), and a numpy / allo reference.

Example::

    cases = unit_cases()
    a, b, x = operands(20000, seed=1)
    bad = check(cases, a, b, x)            # {case name: mismatches}, all 0 when the units are right
"""
from __future__ import annotations

import numpy as np

from .....ir import nodes as N
from .....ir.fixed import float_to_fixed_raw, float_to_int
from .....ir.ops import BinOpKind, MathFn, UnaryOpKind
from .....ir.types import Fixed, Float, Int, UFixed, UInt
from . import MODULES

F32 = Float(32)
BOOL = UInt(1)
SPECIAL_BITS = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff, 0x00400000,
                0x00800000, 0x80800000, 0x00800001, 0x7f7fffff, 0xff7fffff, 0x7f7ffffe, 0x7f800000, 0xff800000,
                0x7fc00000, 0xffc00000, 0x7f800001, 0x7fbfffff, 0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff,
                0x40000000, 0x3f000000, 0x33800000, 0x34000000, 0x33000000, 0x4b000000, 0x4b000001, 0x4f000000,
                0xdf000000, 0x5f000000, 0x5f800000, 0x1f800000, 0x20000000, 0x0c000000, 0x40490fdb, 0x3eaaaaab,
                0x4effffff, 0xcf000000, 0x477fe000, 0x3fc00000, 0x40400000]
INT_TYPES = [Int(8), UInt(8), Int(16), UInt(16), Int(32), UInt(32), Int(64), UInt(64), Int(12)]
FIXED_TYPES = [Fixed(16, 8), UFixed(12, 4), Fixed(32, 16), Fixed(8, 7), UFixed(24, 20), Fixed(64, 20),
               UFixed(64, 3), Fixed(60, 30), Fixed(40, 0)]


def _f(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def _u(f):
    return np.asarray(f, dtype=np.float32).view(np.uint32).astype(np.uint64)


def _leaf(t):
    return N.Load(None, [], t)


def _slice(t) -> str:
    return "x" if t.bits == 64 else f"x[{t.bits - 1}:0]"


def _raw_of_x(x, t):
    """The integer (or fixed raw) value of type t held in the low bits of x, as Python ints."""
    out = []
    for v in x.tolist():
        v &= (1 << t.bits) - 1
        if t.signed and v >> (t.bits - 1):
            v -= 1 << t.bits
        out.append(v)
    return out


def unit_cases() -> dict:
    """{name: (IR node, SV operand strings, output bits, float output?, reference(a, b, x) -> uint64)}."""
    A, B = _leaf(F32), _leaf(F32)
    cases = {}

    def binop(name, op, fn):
        cases[name] = (N.BinOp(op, A, B, F32), ["a", "b"], 32, True, lambda a, b, x: _u(fn(_f(a), _f(b))))

    binop("add", BinOpKind.ADD, np.add)
    binop("sub", BinOpKind.SUB, np.subtract)
    binop("mul", BinOpKind.MUL, np.multiply)
    binop("div", BinOpKind.DIV, np.divide)
    binop("min", BinOpKind.MIN, lambda p, q: _minmax(p, q, False))
    binop("max", BinOpKind.MAX, lambda p, q: _minmax(p, q, True))
    binop("floordiv", BinOpKind.FLOORDIV, lambda p, q: np.floor(np.divide(p, q)))
    binop("mod", BinOpKind.MOD, _floor_mod)
    cases["sqrt"] = (N.MathCall(MathFn.SQRT, [A], F32), ["a"], 32, True, lambda a, b, x: _u(np.sqrt(_f(a))))
    cases["floor"] = (N.MathCall(MathFn.FLOOR, [A], F32), ["a"], 32, True, lambda a, b, x: _u(np.floor(_f(a))))
    cases["ceil"] = (N.MathCall(MathFn.CEIL, [A], F32), ["a"], 32, True, lambda a, b, x: _u(np.ceil(_f(a))))
    cases["neg"] = (N.UnaryOp(UnaryOpKind.NEG, A, F32), ["a"], 32, True, lambda a, b, x: _u(-_f(a)))
    cases["abs"] = (N.MathCall(MathFn.ABS, [A], F32), ["a"], 32, True, lambda a, b, x: _u(np.abs(_f(a))))
    for op, fn in [(BinOpKind.LT, np.less), (BinOpKind.LE, np.less_equal), (BinOpKind.GT, np.greater),
                   (BinOpKind.GE, np.greater_equal), (BinOpKind.EQ, np.equal), (BinOpKind.NE, np.not_equal)]:
        cases[f"cmp_{op.value}"] = (N.BinOp(op, A, B, BOOL), ["a", "b"], 1, False,
                                    lambda a, b, x, fn=fn: fn(_f(a), _f(b)).astype(np.uint64))
    cases["to_bool"] = (N.Cast(A, BOOL), ["a"], 1, False, lambda a, b, x: (_f(a) != 0).astype(np.uint64))
    for t in INT_TYPES:
        cases[f"to_{t!r}"] = (N.Cast(A, t), ["a"], t.bits, False,
                              lambda a, b, x, t=t: _ints([float_to_int(v, t.bits, t.signed) for v in _f(a).tolist()],
                                                         t.bits))
        cases[f"from_{t!r}"] = (N.Cast(_leaf(t), F32), [_slice(t)], 32, True,
                                lambda a, b, x, t=t: _u(np.array(_raw_of_x(x, t), dtype=np.int64 if t.signed
                                                                 else np.uint64).astype(np.float32)))
    for t in FIXED_TYPES:
        name = repr(t).replace("<", "_").replace(">", "").replace(", ", "_").replace("(", "_").replace(")", "")
        cases[f"to_{name}"] = (N.Cast(A, t), ["a"], t.bits, False,
                               lambda a, b, x, t=t: _ints([float_to_fixed_raw(v, t.bits, t.frac, t.signed)
                                                           for v in _f(a).tolist()], t.bits))
        cases[f"from_{name}"] = (N.Cast(_leaf(t), F32), [_slice(t)], 32, True,
                                 lambda a, b, x, t=t: _u((np.array(_raw_of_x(x, t), dtype=np.int64 if t.signed
                                                                   else np.uint64).astype(np.float64)
                                                          * 2.0 ** -t.frac).astype(np.float32)))
    return cases


def _minmax(p, q, mx):
    """LLVM minimumf / maximumf: NaN if either is NaN, -0 < +0."""
    with np.errstate(invalid="ignore"):
        lt = (p < q) | ((p == q) & np.signbit(p) & ~np.signbit(q))
    r = np.where(lt ^ mx, p, q)
    return np.where(np.isnan(p) | np.isnan(q), np.float32(np.nan), r).astype(np.float32)


def _floor_mod(p, q):
    """The LLVM build's a % b on floats: r = fmod(a, b), plus b when r != 0 and the signs differ."""
    r = np.fmod(p, q)
    fix = (r != 0) & ((r < 0) ^ (q < 0))
    return np.where(fix, (r + q).astype(np.float32), r).astype(np.float32)


def _ints(vals, bits):
    return np.array([v & ((1 << bits) - 1) for v in vals], dtype=np.uint64)


def predicate_cases() -> dict:
    """Units called directly: all 16 LLVM fcmp predicates of f32_cmp.sv, and C fmodf (f32_fmod.sv,
    reached from kernels only through %)."""
    out = {}
    for p in range(16):
        def ref(a, b, x, p=p):
            fa, fb = _f(a), _f(b)
            with np.errstate(invalid="ignore"):
                un, eq, lt = np.isnan(fa) | np.isnan(fb), fa == fb, fa < fb
            r = np.where(un, (p >> 3) & 1, np.where(eq, p & 1, np.where(lt, (p >> 2) & 1, (p >> 1) & 1)))
            return r.astype(np.uint64)
        out[f"pred{p}"] = (f"allo_f32_cmp(a, b, 4'd{p})", 1, False, ref)
    out["fmod"] = ("allo_f32_fmod(a, b)", 32, True, lambda a, b, x: _u(np.fmod(_f(a), _f(b))))  # C fmodf
    return out


def operands(n: int, seed: int = 0):
    """(a, b, x): n operand triples mixing every special class (zeros, subnormals, the largest finite,
    inf, NaN, ties, overflow / underflow boundaries) with random bit patterns."""
    rng = np.random.default_rng(seed)
    sp = np.array(SPECIAL_BITS, dtype=np.uint32)
    ga, gb = np.meshgrid(sp, sp)
    parts_a, parts_b = [ga.ravel()], [gb.ravel()]
    m = max(0, n - sp.size ** 2)
    k = m // 5
    parts_a.append(rng.integers(0, 2 ** 32, k, dtype=np.uint64).astype(np.uint32))  # random bit patterns
    parts_b.append(rng.integers(0, 2 ** 32, k, dtype=np.uint64).astype(np.uint32))
    ea = rng.integers(0, 256, k)  # close exponents: cancellation, alignment, ties in add
    eb = np.clip(ea + rng.integers(-26, 27, k), 0, 255)
    parts_a.append(_bits(rng, ea, 23))
    parts_b.append(_bits(rng, eb, 23))
    ea = rng.integers(0, 256, k)  # short significands: exact results and ties in add, mul, div
    eb = np.clip(ea + rng.integers(-30, 31, k), 0, 255)
    parts_a.append(_bits(rng, ea, 4))
    parts_b.append(_bits(rng, eb, 4))
    ea = rng.integers(0, 256, k)  # products / quotients at the overflow and underflow boundaries
    tgt = rng.choice(np.array([-24, -23, -1, 0, 1, 2, 253, 254, 255, 256]), k) + 127
    parts_a.append(_bits(rng, ea, 23))
    parts_b.append(_bits(rng, np.clip(tgt - ea + 127 * rng.integers(0, 2, k), 0, 255), rng.integers(0, 24, k)))
    rest = m - 4 * k
    sa = rng.integers(0, 2 ** 32, rest, dtype=np.uint64).astype(np.uint32)
    parts_a.append(np.where(rng.random(rest) < 0.5, sa, sa & np.uint32(0x807fffff)))  # subnormals
    parts_b.append(rng.integers(0, 2 ** 32, rest, dtype=np.uint64).astype(np.uint32))
    a, b = np.concatenate(parts_a)[:n], np.concatenate(parts_b)[:n]
    x = _ints_x(rng, len(a))
    return a, b, x


def _bits(rng, e, keep):
    """float32 bits with biased exponents e, random signs and `keep` random leading fraction bits."""
    keep = np.broadcast_to(np.asarray(keep), e.shape)
    frac = rng.integers(0, 2 ** 23, e.shape, dtype=np.uint64)
    frac = (frac >> (23 - keep).astype(np.uint64)) << (23 - keep).astype(np.uint64)
    sign = rng.integers(0, 2, e.shape, dtype=np.uint64) << np.uint64(31)
    return (sign | (e.astype(np.uint64) << np.uint64(23)) | frac).astype(np.uint32)


def _ints_x(rng, n):
    """64-bit integers: random bit lengths (so every width sees small and large values), powers of two
    and their neighbours (ties of int -> float32), the extremes of every width."""
    length = rng.integers(0, 65, n).astype(np.uint64)
    r = rng.integers(0, 2 ** 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    x = np.where(length >= 64, r, r & ((np.uint64(1) << np.minimum(length, 63)) - np.uint64(1)))
    neg = rng.random(n) < 0.3
    x = np.where(neg, np.uint64(0) - x, x)
    sp = []
    for p in range(65):
        for d in (-1, 0, 1, 3):
            sp.append(((1 << p) + d) % (1 << 64))
            sp.append((-(1 << p) - d) % (1 << 64))
    for w in (8, 16, 32, 64):
        sp += [(1 << (w - 1)) - 1, 1 << (w - 1), (1 << w) - 1]
    sp += [(1 << 24) + 1, (1 << 25) + 2, (1 << 25) + 6, 0x0000_0000_0100_0003, 0x8000_0080_0000_0000,
           0x0020_0000_0000_0801, 0x0020_0000_0000_0800 + 0x400, 0x0000_0100_0000_8000]
    sp = np.array(sp[:n], dtype=np.uint64)
    x[:len(sp)] = sp
    return x


def check(bench_outputs: dict, cases: dict, a, b, x) -> dict:
    """{case: number of vectors where the unit differs from the reference (NaN == any NaN)}."""
    bad = {}
    for name, case in cases.items():
        bits, is_float, ref = case[-3], case[-2], case[-1]
        got = bench_outputs[name] & np.uint64((1 << bits) - 1)
        with np.errstate(all="ignore"):
            want = np.asarray(ref(a, b, x), dtype=np.uint64) & np.uint64((1 << bits) - 1)
        ok = got == want
        if is_float:
            ok |= _isnan(got) & _isnan(want)
        bad[name] = int((~ok).sum())
    return bad


def _isnan(u):
    u = u & np.uint64(0xffffffff)
    return (((u >> np.uint64(23)) & np.uint64(0xff)) == np.uint64(0xff)) & ((u & np.uint64(0x7fffff)) != 0)


def bench_outputs(cases: dict, predicates: dict, emitter):
    """({output name: (SV expression, bits)}, SV text inside the bench module, unit modules after
    it) of the cases, printed by `emitter` (a static ExprEmitter); a predicate case's call of a
    module unit (fmod) becomes an instance of it."""
    em = emitter
    outs = {name: (em.emit(node, args), bits) for name, (node, args, bits, _, _) in cases.items()}
    for name, (expr, bits, _, _) in (predicates or {}).items():
        unit, rest = expr.split("(", 1)
        unit = unit.removeprefix("allo_")
        if unit in MODULES:
            expr = em.funits.instance(unit, rest[:-1].split(", "))
        else:
            em.funits.use(unit)
        outs[name] = (expr, bits)
    return outs, em.functions() + em.instances(), em.modules()


# pipelined unit cases -> the latencies (LAT) the II = 1 bench instantiates: 0 (combinational), fewer
# registers than stages (merged), as many, more (padded), and the table's at 3.33 ns
PIPE_LATS = {"add": (0, 1, 3, 6, 7, 9), "sub": (2, 7), "mul": (0, 1, 2, 3, 4, 5, 7), "div": (1, 16, 45, 47),
             "floordiv": (16,), "sqrt": (1, 16, 31, 33)}


def pipelined_outputs(cases: dict, emitter, lats: dict = None):
    """({output name: (SV expression, bits)}, SV text inside the bench, unit modules after it,
    {output name: (case, LAT, is it the early value)}) of the pipelined units of `cases` at every
    latency of `lats` (PIPE_LATS), printed by `emitter`.emit_pipelined on clock clk, enable en."""
    outs, meta = {}, {}
    for name, lat_list in (lats or PIPE_LATS).items():
        node, args, bits = cases[name][0], cases[name][1], cases[name][2]
        for lat in lat_list:
            y, early = emitter.emit_pipelined(node, args, lat, "en", "clk")
            if early is None:
                raise AssertionError(f"{name} has no pipelined unit")
            outs[f"{name}_l{lat}"] = (y, bits)
            meta[f"{name}_l{lat}"] = (name, lat, False)
            if lat:
                outs[f"{name}_l{lat}_e"] = (early, bits)
                meta[f"{name}_l{lat}_e"] = (name, lat - 1, True)
    return outs, emitter.functions() + emitter.instances(), emitter.modules(), meta


def check_clocked(got: dict, issued, meta: dict, cases: dict, a, b, x) -> dict:
    """{output: mismatches} of a clocked run (bench.run_clocked): after a cycle that leaves `c`
    vectors issued, an output of latency L (an early value: L - 1) holds the result of vector
    c - L (mod n: the drain re-issues the first ones); every cycle with c >= L is checked."""
    n = len(a)
    want = {}
    bad = {}
    for out, (name, lat, _) in meta.items():
        case = cases[name]
        if name not in want:
            with np.errstate(all="ignore"):
                want[name] = np.asarray(case[-1](a, b, x), dtype=np.uint64)
        bits, is_float = case[2], case[3]
        k = issued - lat
        ok_rows = k >= 0
        g = got[out][ok_rows] & np.uint64((1 << bits) - 1)
        w = want[name][k[ok_rows] % n] & np.uint64((1 << bits) - 1)
        ok = g == w
        if is_float:
            ok |= _isnan(g) & _isnan(w)
        bad[out] = int((~ok).sum()) + (0 if ok_rows.sum() >= n else n)  # every vector seen
    return bad


__all__ = ["unit_cases", "predicate_cases", "operands", "check", "bench_outputs", "SPECIAL_BITS", "PIPE_LATS",
           "pipelined_outputs", "check_clocked"]
