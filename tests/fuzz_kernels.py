"""Random small kernels and schedules for the differential fuzzer (tests/test_fuzz_differential.py).

A `Program` is Python kernel source (written to a file, as kernels must be) plus what is needed to
call it: random int widths 1..64 (signed and unsigned), Fixed/UFixed, float32; loops (1-D and 2-D),
if/else, selects, local scalars, reductions, calls to a helper kernel. The generator knows only the
type *kinds* (int < fixed < float: what an operand mix becomes), never widths or promotion rules,
so it does not change when the typing rules do: the fuzzer compares executions, not formulas.

Run outside pytest (N programs, LLVM + interpreter + csim):

    PYTHONPATH=. python tests/fuzz_kernels.py 200 [seed] [--no-csim]
"""
from __future__ import annotations

import importlib.util
import os
import random
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np

import allo
from allo.ir.types import Fixed, Float, Int, UFixed, UInt

WIDTHS = [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64]
_INT_OPS = ["+", "-", "*", "&", "|", "^", "<<", ">>", "//", "%", "min", "max"]
_FIXED_OPS = ["+", "-", "*", "min", "max"]
_FLOAT_OPS = ["+", "-", "*", "/", "min", "max"]
_CMPS = ["<", "<=", ">", ">=", "==", "!="]
_KIND_RANK = {"int": 0, "fixed": 1, "float": 2}
ODD_LITERALS = [-1, -2, -5, 127, 128, -129, 255, 256, 300, 1000, 40000, -40000, 2**31, 2**32 + 3, -(2**40)]


def kind(t) -> str:
    return "float" if isinstance(t, Float) else "fixed" if isinstance(t, (Fixed, UFixed)) else "int"


def type_src(t) -> str:
    if isinstance(t, Fixed):
        return f"Fixed({t.bits}, {t.frac})"
    if isinstance(t, UFixed):
        return f"UFixed({t.bits}, {t.frac})"
    if isinstance(t, Float):
        return "float32"
    return f"{'Int' if isinstance(t, Int) else 'UInt'}({t.bits})"


@dataclass
class Program:
    """One random kernel: its source, top function name, argument types/shapes and loop names."""

    source: str
    top: str
    args: list  # (name, allo type, shape or ())
    loops: list  # loop names of the top function, outermost first per nest
    nests: list  # [[outer, inner], ...] 2-D nests (reorder/fuse candidates)
    arrays: list  # array names usable with partition
    exact: bool  # no floats: schedules must keep results bit-identical
    path: str = ""
    module: object = field(default=None, repr=False)

    def load(self, directory: str):
        """Write the source to `directory` and import it; returns the top kernel function."""
        self.path = os.path.join(directory, f"{self.top}.py")
        with open(self.path, "w") as f:
            f.write(self.source)
        spec = importlib.util.spec_from_file_location(self.top, self.path)
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)
        return getattr(self.module, self.top)

    def inputs(self, rng: np.random.Generator) -> list:
        return [random_value(t, shape, rng) for _, t, shape in self.args]


def random_value(t, shape, rng):
    """Random numpy input of allo type `t` (full range for ints, representable fixed values)."""
    n = int(np.prod(shape)) if shape else 1
    if isinstance(t, Float):
        special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0], np.float32)
        v = np.where(rng.random(n) < 0.2, rng.choice(special, n), rng.standard_normal(n) * 8).astype(np.float32)
    elif isinstance(t, (Fixed, UFixed)):
        signed = isinstance(t, Fixed)
        lo, hi = (-(1 << (t.bits - 1)), 1 << (t.bits - 1)) if signed else (0, 1 << t.bits)
        # a third of the values at the ends of the range (a UFixed(64) raw >= 2**63 went through int64)
        edges = [lo, hi - 1, 0, 1 << (t.bits - 1) if not signed else -1]
        raws = [int(rng.choice(edges)) if rng.random() < 0.3 else lo + int(rng.random() * (hi - lo)) for _ in range(n)]
        top = np.nextafter(float(hi), 0) if hi > 2**53 else float(hi - 1)  # the largest integer float < hi
        raw = np.array([min(float(x), top) for x in raws], dtype=np.float64)
        v = raw / 2.0 ** t.frac
    else:
        signed = isinstance(t, Int)
        lo, hi = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if signed else (0, (1 << t.bits) - 1)
        picks = [int(rng.choice([lo, hi, 0, 1, -1 if signed else 2])) if rng.random() < 0.3
                 else int(rng.integers(lo, hi, endpoint=True, dtype=np.int64 if hi < 2**63 else np.uint64))
                 for _ in range(n)]
        picks = [min(max(p, lo), hi) for p in picks]
        v = np.array(picks, dtype=t.np_dtype)
    if not shape:
        return v[0].item() if isinstance(t, Float) else (float(v[0]) if kind(t) == "fixed" else v[0])
    return v.reshape(shape)


# ----------------------------------------------------------------------------- generation
class Generator:
    """Builds one Program from a `random.Random`."""

    def __init__(self, rng: random.Random, name: str):
        self.r, self.name = rng, name
        self.aliases = {}  # type source -> module-level alias (T0 = Int(5)), usable as T0[4] and T0(x)
        self.floats = False
        self.gather = []  # (array, kind, extent of dim 0, remaining index text) for X[(e) % extent, ...]

    def tname(self, t) -> str:
        src = type_src(t)
        if src not in self.aliases:
            self.aliases[src] = f"T{len(self.aliases)}"
        return self.aliases[src]

    # --- types
    def scalar_type(self, allow_float=True):
        r = self.r.random()
        if r < 0.55:
            bits = self.r.choice(WIDTHS)
            return Int(bits) if self.r.random() < 0.6 or bits == 1 else UInt(bits)
        if r < 0.85 or not allow_float:
            bits = self.r.choice([2, 4, 8, 12, 16, 24, 32, 48, 53, 63, 64])
            frac = self.r.randint(0, bits)
            return Fixed(bits, frac) if self.r.random() < 0.6 else UFixed(bits, frac)
        return Float(32)

    # --- expressions: (source text, kind)
    def leaf(self, env):
        name, k = self.r.choice(env)
        return name, k

    def literal(self, k):
        if k == "float":
            return repr(self.r.choice([0.5, 1.0, 2.0, -1.5, 3.25])), "float"
        if k == "fixed":
            return repr(self.r.choice([0.0, 0.5, 1.0, 0.25])), "fixed"
        if self.r.random() < 0.12:  # a literal that need not fit the other operand's type (typed exactly)
            return str(self.r.choice(ODD_LITERALS)), "int"
        lo, hi = self.lit_range
        return str(self.r.randint(lo, hi)), "int"

    def expr(self, env, depth, want=None):
        """A random expression over `env` leaves; `want` restricts the kind family ("int" only)."""
        pool = [(n, k) for n, k in env if want is None or k == want]
        if self.gather and depth > 0 and self.r.random() < 0.08:  # a data-dependent index
            ints = [(n, k) for n, k in env if k == "int"]
            if ints:
                name, k, extent, rest = self.r.choice(self.gather)
                if want is None or k == want:
                    e, _ = self.expr(ints, depth - 1, "int")
                    return f"{name}[({e}) % {extent}{rest}]", k
        if depth <= 0 or not pool or self.r.random() < 0.25:
            if pool and self.r.random() < 0.85:
                return self.r.choice(pool)
            return self.literal(want or self.r.choice([k for _, k in env] or ["int"]))
        choice = self.r.random()
        a, ka = self.expr(env, depth - 1, want)
        if choice < 0.55:
            b, kb = self.expr(env, depth - 1, want if want else None)
            k = max(ka, kb, key=_KIND_RANK.get)
            ops = _INT_OPS if k == "int" else _FIXED_OPS if k == "fixed" else _FLOAT_OPS
            op = self.r.choice(ops)
            if op in ("min", "max"):
                return f"{op}({a}, {b})", k
            if op in ("<<", ">>"):
                b = str(self.r.randint(0, 9)) if self.r.random() < 0.7 else b
            return f"({a} {op} {b})", k
        if choice < 0.7:
            c, _ = self.cond(env, depth - 1)
            b, kb = self.expr(env, depth - 1, want)
            return f"({a} if {c} else {b})", max(ka, kb, key=_KIND_RANK.get)
        if choice < 0.8:
            if ka == "int" and self.r.random() < 0.5:
                return f"(~{a})", ka
            return f"(-{a})", ka
        if choice < 0.9 and ka != "float":  # a cast (never float -> int/fixed: out of range is UB in C++)
            t = self.scalar_type(allow_float=self.floats)
            while want is not None and kind(t) != want:
                t = self.scalar_type(allow_float=self.floats)
            return f"{self.tname(t)}({a})", kind(t)
        if ka != "float":
            return f"({a} ** {self.r.choice([0, 1, 2, 3])})", ka
        return a, ka

    def cond(self, env, depth):
        a, ka = self.expr(env, depth)
        fam = [(n, k) for n, k in env if (k == "float") == (ka == "float")]
        b, _ = self.expr(fam or env, depth) if self.r.random() < 0.7 else self.literal(ka)
        return f"({a} {self.r.choice(_CMPS)} {b})", "bool"

    # --- the program
    def program(self) -> Program:
        r = self.r
        floats = self.floats = r.random() < 0.2
        types = [self.scalar_type(allow_float=floats) for _ in range(r.randint(1, 3))]
        if floats and not any(isinstance(t, Float) for t in types):
            types.append(Float(32))
        out_t = Float(32) if floats else r.choice(types + [self.scalar_type(allow_float=False)])
        ints = [t for t in types + [out_t] if kind(t) == "int"]
        lo = max([-8] + [-(1 << (t.bits - 1)) if isinstance(t, Int) else 0 for t in ints])
        hi = min([8] + [(1 << (t.bits - 1)) - 1 if isinstance(t, Int) else (1 << t.bits) - 1 for t in ints])
        self.lit_range = (lo, max(lo, hi))
        two_d = r.random() < 0.5
        M, N = r.randint(2, 6), r.randint(2, 8)
        shape = (M, N) if two_d else (N,)
        args = [("A", types[0], shape), ("B", types[-1], shape)]
        if r.random() < 0.5:
            args.append(("s", r.choice(types), ()))
        helper = r.random() < 0.3
        gather = [(n, kind(t), sh[0], ", j" if two_d else "") for n, t, sh in args if sh]
        lines = []
        shp = ", ".join(map(str, shape))
        if helper:
            ht = types[0]
            hidx = "i, j" if two_d else "i"
            loop = f"for i, j in allo.grid({M}, {N}):" if two_d else f"for i in range({N}):"
            hexpr, _ = self.expr([("X[" + hidx + "]", kind(ht))], 2)
            ht = self.tname(ht)
            lines += [f"def h_{self.name}(X: {ht}[{shp}]) -> {ht}[{shp}]:", f"    Y: {ht}[{shp}] = 0", f"    {loop}",
                      f"        Y[{hidx}] = {hexpr}", "    return Y", ""]
        self.gather = gather  # the main kernel may index its arrays with data
        sig = ", ".join(f"{n}: {self.tname(t)}" + (f"[{', '.join(map(str, s))}]" if s else "") for n, t, s in args)
        lines.append(f"def {self.name}({sig}) -> {self.tname(out_t)}[{shp}]:")
        lines.append(f"    C: {self.tname(out_t)}[{shp}] = 0")
        idx = "i, j" if two_d else "i"
        env = [(f"{n}[{idx}]" if s else n, kind(t)) for n, t, s in args]
        env += self.bit_reads(args, idx)
        if helper:
            lines.append(f"    D = h_{self.name}(A)")
            env.append((f"D[{idx}]", kind(types[0])))
        loops, nests = [], []
        style = r.choice(["map", "map", "reduce", "scalar"])
        if style == "reduce" and two_d:  # C[i, 0] accumulates over j: a reduction nest
            acc_t = out_t
            lines += [f"    for i in range({M}):", f"        for j in range({N}):",
                      f"            C[i, 0] += {self.body_expr(env, out_t)}"]
            loops, nests = ["i", "j"], [["i", "j"]]
            del acc_t
        elif style == "scalar":
            t = r.choice(types)
            head = [f"    for i, j in allo.grid({M}, {N}):"] if two_d else [f"    for i in range({N}):"]
            ind = "        "
            e1, _ = self.expr(env, 2)
            lines += head + [f"{ind}t: {self.tname(t)} = {e1}"]
            if kind(t) == "int" and r.random() < 0.9:  # a bit-field store (1-bit slices stored v != 0)
                lo = r.randrange(t.bits)
                hi = lo + 1 if r.random() < 0.5 else r.randint(lo + 1, t.bits)
                e2, _ = self.expr([(n, k) for n, k in env if k == "int"] or [("1", "int")], 2, "int")
                lines += [f"{ind}t[{lo}:{hi}] = {e2}"]
            env2 = env + [("t", kind(t))]
            lines += [f"{ind}C[{idx}] = {self.body_expr(env2, out_t)}"]
            loops = ["i", "j"] if two_d else ["i"]
            nests = [["i", "j"]] if two_d else []
        else:
            head = [f"    for i in range({M}):", f"        for j in range({N}):"] if two_d else \
                [f"    for i in range({N}):"]
            ind = "            " if two_d else "        "
            lines += head
            if r.random() < 0.5:
                c, _ = self.cond(env, 2)
                lines += [f"{ind}if {c}:", f"{ind}    C[{idx}] = {self.body_expr(env, out_t)}",
                          f"{ind}else:", f"{ind}    C[{idx}] = {self.body_expr(env, out_t)}"]
            else:
                lines += [f"{ind}C[{idx}] = {self.body_expr(env, out_t)}"]
            loops = ["i", "j"] if two_d else ["i"]
            nests = [["i", "j"]] if two_d else []
        lines += ["    return C", ""]
        head = ["import allo", "from allo.ir.types import Int, UInt, Fixed, UFixed, float32", ""]
        head += [f"{alias} = {src}" for src, alias in self.aliases.items()] + ["", ""]
        return Program("\n".join(head + lines), self.name, args, loops, nests, ["A", "B", "C"], exact=not floats)

    def bit_reads(self, args, idx) -> list:
        """Bits of integer arguments as extra leaves: `A[i][k]` (a bit) and `A[i][lo:hi]` (a field)."""
        leaves = []
        for n, t, shape in args:
            if kind(t) != "int" or self.r.random() < 0.6:
                continue
            x = f"{n}[{idx}]" if shape else n
            if self.r.random() < 0.5:
                leaves.append((f"{x}[{self.r.randrange(t.bits)}]", "int"))
            else:
                lo = self.r.randrange(t.bits)
                leaves.append((f"{x}[{lo}:{self.r.randint(lo + 1, t.bits)}]", "int"))
        return leaves

    def body_expr(self, env, out_t):
        e, k = self.expr(env, self.r.randint(1, 3))
        if _KIND_RANK[k] > _KIND_RANK[kind(out_t)]:  # never store a float into an int/fixed
            return f"{self.tname(out_t)}(0)" if k == "float" else e
        return e


def generate(seed: int, name: str | None = None) -> Program:
    """The program for `seed` (deterministic)."""
    return Generator(random.Random(seed), name or f"fz{seed}").program()


# ----------------------------------------------------------------------------- schedules
def random_schedule(s, prog: Program, r: random.Random, steps: int = 3, illegal: float = 0.1):
    """Apply up to `steps` random primitives to Schedule `s`. Each call either applies or raises
    ScheduleError; a refused call must leave the schedule unchanged: the same printed MLIR and the
    same step log (checked here). A fraction `illegal` of the calls are ones that must be refused.
    Returns the (primitive, args, applied) log."""
    log = []
    for _ in range(steps):
        must_fail = r.random() < illegal
        prim, args = _illegal_call(s, r) if must_fail else _random_call(s, prog, r)
        before = (str(s.module), str(s))
        try:
            getattr(s, prim)(*args)
            log.append((prim, args, True))
        except allo.ScheduleError:
            after = (str(s.module), str(s))
            assert after == before, f"refused {prim}{args} changed the schedule"
            log.append((prim, args, False))
            continue
        assert not must_fail, f"{prim}{args} is illegal but was applied"
    return log


def _illegal_call(s, r):
    """A primitive call that must raise ScheduleError: unknown names, bad factors and dimensions."""
    lp = r.choice(_current_loops(s))
    return r.choice([("split", ("nope", 2)), ("split", (lp, 0)), ("split", (lp, -3)), ("split", (lp, 1.5)),
                     ("split", (lp, 2**40)), ("unroll", (lp, -1)), ("unroll", (lp, "x")), ("unroll", (lp, 2**63)),
                     ("pipeline", (lp, 0)), ("pipeline", (lp, -2)), ("pipeline", (lp, 2**63)), ("reorder", (lp, lp)),
                     ("reorder", (lp, "nope")), ("fuse", (lp, lp)), ("parallel", ("nope",)),
                     ("partition", ("C", "zigzag")), ("partition", ("nope", "complete")),
                     ("partition", ("A", "cyclic", 9, 2)), ("partition", ("A", "block", -1, 2)),
                     ("partition", ("A", "cyclic", 0, 0))])


def _random_call(s, prog, r):
    """A random primitive call on the current loops and arrays: legal or refused, never anything else."""
    loops = _current_loops(s)
    choice = r.random()
    lp = r.choice(loops)
    if choice < 0.3:
        return "split", (lp, r.randint(1, 9))
    if choice < 0.55 and len(loops) >= 2:
        a, b = r.sample(loops, 2)
        return "reorder", (a, b)
    if choice < 0.65 and len(loops) >= 2:
        return "fuse", tuple(loops[:2])
    if choice < 0.75:
        return "unroll", (lp, r.choice([0, 2, 3]))
    if choice < 0.85:
        return "pipeline", (lp, r.randint(1, 3))
    if choice < 0.88:
        return "partition", (r.choice(["A", "B", "C"]), r.choice(["complete", "cyclic", "block"]), r.randint(0, 1),
                             r.randint(1, 4))
    if choice < 0.94:  # memory primitives, also after parallel (a shared reuse buffer ran in parallel)
        return r.choice([("reuse_at", (r.choice(["A", "B"]), lp)), ("buffer_at", ("C", lp))])
    return "parallel", (lp,)


def _current_loops(s):
    """Unambiguous names of the top function's loops right now."""
    from allo.ir import nodes as N
    from allo.ir import visit as V

    func = s.ir.func(s.top_func_name)
    names = [st.name for st in V.walk_stmts(func.body) if isinstance(st, N.For)]
    return [n for n in names if names.count(n) == 1] or ["i"]


# ----------------------------------------------------------------------------- the differential check
def same_bits(a, b) -> bool:
    """Exact equality of results (NaN equals NaN, -0.0 differs from 0.0)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(same_bits, a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        nan = np.isnan(a64) & np.isnan(b64)
        return bool(np.all(nan | ((a64 == b64) & (np.signbit(a64) == np.signbit(b64)))))
    as_int = lambda x: x.astype(np.int64) if x.dtype.kind == "b" else x  # noqa: E731
    return bool(np.array_equal(as_int(a), as_int(b)))


def check(prog: Program, seed: int, directory: str, csim: bool = True, rtl: bool = False) -> str:
    """Build and run one program on every backend; returns "ok", "rejected" (the compiler refused
    the random kernel with an AlloError) or raises AssertionError describing a mismatch."""
    from allo.interp import run

    fn = prog.load(directory)
    try:
        base = allo.customize(fn)
    except allo.AlloError:
        return "rejected"
    s = allo.customize(fn)
    r = random.Random(seed)
    log = random_schedule(s, prog, r)
    rng = np.random.default_rng(seed)
    args = prog.inputs(rng)
    where = f"program {prog.path} (seed {seed}), schedule {log}"
    want = run(base.ir, *[_copy(a) for a in args])
    got = run(s.ir, *[_copy(a) for a in args])
    if prog.exact:
        assert same_bits(want, got), f"schedule changed the results of {where}:\n{want}\nvs\n{got}"
    llvm = s.build()(*[_copy(a) for a in args])
    assert same_bits(llvm, got), f"LLVM != interpreter for {where}:\nLLVM {llvm}\ninterp {got}"
    variant = {0: {"bounds_check": True}, 1: {"optimize": False}}.get(seed % 3)
    if variant:  # the run-time checks and the CPU optimiser must not change results either
        other = s.build(**variant)(*[_copy(a) for a in args])
        assert same_bits(other, got), f"LLVM {variant} != interpreter for {where}:\n{other}\ninterp {got}"
    if csim:
        hls = s.build(target="vhls", mode="csim", timeout=120)(*[_copy(a) for a in args])
        assert same_bits(hls, got), f"csim != interpreter for {where}:\ncsim {hls}\ninterp {got}"
    if rtl:
        try:
            hw = s.build(target="rtl")
        except allo.AlloError:  # outside the RTL flow's subset (floats, fixed point, ...)
            return "rtl-unsupported"
        out = hw(*[_copy(a) for a in args])
        assert same_bits(out, got), f"RTL != interpreter for {where}:\nRTL {out}\ninterp {got}"
    return "ok"


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 50
    first = int(argv[2]) if len(argv) > 2 and argv[2].isdigit() else 0
    csim = "--no-csim" not in argv
    counts = {"ok": 0, "rejected": 0, "failed": 0}
    with tempfile.TemporaryDirectory(prefix="allo_fuzz_") as d:
        for seed in range(first, first + n):
            prog = generate(seed)
            try:
                counts[check(prog, seed, d, csim)] += 1
            except Exception as e:  # noqa: BLE001 - report and keep fuzzing
                counts["failed"] += 1
                keep = os.path.join(tempfile.gettempdir(), f"allo_fuzz_fail_{seed}.py")
                with open(keep, "w") as f:
                    f.write(prog.source)
                print(f"seed {seed}: {type(e).__name__}: {str(e)[:2000]}\n  source kept in {keep}", flush=True)
    print(counts)


if __name__ == "__main__":
    main(sys.argv)
