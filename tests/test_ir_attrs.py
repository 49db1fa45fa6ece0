"""The attribute declarations of allo/ir/attrs.py against the code and the IR.

(a) every attribute key an allo module reads or writes is a declared constant of allo.ir.attrs
    (no literal keys), every declared key is used, and the stages that use a key are declared;
(b) the renderer writes exactly the declared public keys into MLIR (view and LLVM modes);
(c) after every schedule primitive, the attributes on the IR are declared for their node kind
    and hold values of the declared type (partition kinds are `allo.Partition` members).
"""
import ast
import pathlib

import allo
import numpy as np
import pytest
from allo.dsl.memory import Memory
from allo.ir import attrs as A, nodes as N, visit as V
from allo.ir.types import Stateful, Stream, float32, int32
import allo.dataflow as df
from allo.render import render_module
from allo.transforms import guards

ALLO = pathlib.Path(allo.__file__).parent
STAGES = {"dsl": "dsl", "ir": "ir", "schedule": "schedule", "transforms": "transforms", "render": "render",
          "qor": "qor", "dse": "dse", "llvm": "llvm", "hls": "hls", "rtl": "rtl", "catapult": "catapult", "xls": "xls",
          "passes.py": "passes",
          "interp.py": "interp"}


# ----------------------------------------------------------------------------- (a) the source
def _stage(path: pathlib.Path) -> str:
    parts = path.relative_to(ALLO).parts
    return STAGES.get(parts[1] if parts[0] == "backend" else parts[0], parts[0])


def _holds_attrs(node, meta: bool) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "attrs" or (meta and node.attr == "meta")
    return isinstance(node, ast.Name) and node.id in ("attrs", "kattrs")


def _dict_keys(node):
    if isinstance(node, ast.Dict):
        return [k for k in node.keys if k is not None]
    if isinstance(node, ast.IfExp):
        return _dict_keys(node.body) + _dict_keys(node.orelse)
    return []


_POSITIONAL = {"For": 6, "Func": 4, "Module": 2, "CallStmt": 3}  # index of a node's attrs (meta) argument


def _key_exprs(tree, meta: bool):
    """Expressions used as attribute keys: subscripts, get/pop/setdefault, `in`, dict literals."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and _holds_attrs(n.value, meta):
            yield n.slice
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args \
                and n.func.attr in ("get", "pop", "setdefault") and _holds_attrs(n.func.value, meta):
            yield n.args[0]
        elif isinstance(n, ast.Compare) and isinstance(n.ops[0], (ast.In, ast.NotIn)) \
                and _holds_attrs(n.comparators[0], meta):
            yield n.left
        elif isinstance(n, ast.keyword) and n.arg in ("attrs", "meta"):
            yield from _dict_keys(n.value)
        elif isinstance(n, ast.Assign) and any(_holds_attrs(t, meta) for t in n.targets):
            yield from _dict_keys(n.value)
        elif isinstance(n, ast.Call):
            k = _POSITIONAL.get(getattr(n.func, "id", getattr(n.func, "attr", None)))
            if k is not None and len(n.args) > k:
                yield from _dict_keys(n.args[k])


def _attrs_imports(path, tree) -> set:
    """Names `path` imports from allo.ir.attrs."""
    def from_attrs(n):
        return n.module == "ir.attrs" or (n.module == "attrs" and n.level == 1 and path.parent.name == "ir")
    return {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and from_attrs(n) for a in n.names}


def source_uses():
    """{key: set of stages using it} over allo's modules, and the problems found."""
    uses, problems = {}, []
    for path in sorted(ALLO.rglob("*.py")):
        if path == ALLO / "ir" / "attrs.py":
            continue
        tree = ast.parse(path.read_text())
        meta = "frontend" not in path.parts  # torch.fx nodes have a `meta` of their own
        imported = _attrs_imports(path, tree)
        for k in _key_exprs(tree, meta):
            where = f"{path.relative_to(ALLO)}:{k.lineno}"
            if isinstance(k, ast.Constant):
                problems.append(f"{where}: literal key {k.value!r}; use the constant of allo.ir.attrs")
            elif isinstance(k, ast.Name) and k.id.isupper():
                key = getattr(A, k.id, None)
                if k.id not in imported or key not in A.ATTRS:
                    problems.append(f"{where}: {k.id} is not a key imported from allo.ir.attrs")
                else:
                    uses.setdefault(key, set()).add(_stage(path))
    return uses, problems


def test_every_key_in_the_source_is_a_declared_constant():
    uses, problems = source_uses()
    assert not problems, "\n".join(problems)
    stored = {k for k, a in A.ATTRS.items() if a.nodes}
    assert stored - set(uses) == set(), "declared keys nobody reads or writes"
    for key, stages in uses.items():  # the declared writers and readers are the stages using the key
        a = A.ATTRS[key]
        assert stages == set(a.writers) | set(a.readers), (key, stages)


def test_declarations_are_consistent():
    for key, a in A.ATTRS.items():
        assert a.render in (A.MLIR, A.VIEW, A.NEVER) and a.nodes or a.derived, key
        assert (key.startswith("_") or a.nodes == ("Module",)) == (a.render == A.NEVER), key
        assert set(a.nodes) | set(a.derived) <= {"For", "Buffer", "Func", "CallStmt", "Module", "Load", "Store"}, key
    assert A.rendered(A.OP_NAME, llvm=True) and not A.rendered(A.UNROLL, llvm=True) and A.rendered(A.UNROLL, False)
    assert not A.rendered(A.DEFAULTS, llvm=False)
    assert A.rendered("foo", llvm=True) and not A.rendered("_foo", llvm=False)  # undeclared: the convention
    assert allo.Partition.Cyclic == "cyclic" and A.Partition("block") is allo.Partition.Block
    assert A.PARTITION_KINDS == ("complete", "block", "cyclic")


# ----------------------------------------------------------------------------- kernels covering every key
def gemm(A: float32[16, 16] @ Memory(resource="URAM"), B: float32[16, 16]) -> float32[16, 16]:
    C: float32[16, 16] @ Memory(resource="LUTRAM") = 0.0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    T: float32[16, 16] = (C + A) * B
    return T


def blur(A: int32[10, 10]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    for y, x in allo.grid(8, 8):
        B[y, x] = A[y, x] + A[y + 1, x + 1] + A[y + 2, x + 2]
    return B


def pc(A: int32[8, 8]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    C: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        B[i, j] = A[i, j] + 1
    for ii, jj in allo.grid(8, 8):
        C[ii, jj] = B[ii, jj] * 2
    return C


SCALE = np.arange(32, dtype=np.int32).reshape(4, 8)


def pe(A: int32[4, 8], B: int32[4, 8]):
    w: int32[4, 8] = SCALE  # the constant takes the local's name
    for p, i in allo.grid(4, 8, name="PE"):
        B[p, i] = A[p, i] * w[p, i]


def add1(A: int32[8], n: int32 = 1) -> int32[8]:
    B: int32[8] = 0
    for i in range(8):
        B[i] = A[i] + n
    return B


def calls(A: int32[8]) -> int32[8]:
    B = add1(A)
    return B


def mm1(A: float32[6, 5], B: float32[5, 4], C: float32[6, 4]):
    for i in range(6):
        row: float32[4] = 0.0
        for k in range(5):
            for j in range(4):
                row[j] += A[i, k] * B[k, j]
        for j1 in range(4):
            C[i, j1] = row[j1]


def mm2(X: float32[6, 4], D: float32[4, 4], E: float32[6, 4]):
    for i, j in allo.grid(6, 4):
        for k in allo.reduction(4):
            E[i, j] += X[i, k] * D[k, j]


def chain(A: float32[6, 5], B: float32[5, 4], D: float32[4, 4]) -> float32[6, 4]:
    tmp: float32[6, 4]
    out: float32[6, 4] = 0
    mm1(A, B, tmp)
    mm2(tmp, D, out)
    return out


def _gemm(s):
    s.split("i", 4)
    s.parallel("i.outer")
    s.reorder("k", "j")
    s.pipeline("j", rewind=True)
    s.unroll("k", 2)
    s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=4)
    s.partition(s.C, allo.Partition.Complete, dim=1)
    s.partition(s.T, allo.Partition.Block, dim=2, factor=2)
    s.fuse("i0", "i1")


def _pc(s):
    s.compute_at("j", "jj")
    s.buffer_at(s.C, "ii")
    s.reshape(s.B, (64,))


def _calls(s):
    s.inline("add1")
    s.dataflow("calls")
    s.config_op("mul", "fabric")


def _chain(s):
    s1, s2 = allo.customize(mm1), allo.customize(mm2)
    s1.pipeline("k")
    s1.dataflow("i")
    s2.reorder("k", "j")
    s2.pipeline("k")
    s.compose(s1)
    s.compose(s2)
    s.to(s.tmp, "mm2", depth=8)


def fifos(A: int32[2, 4], C: int32[2, 4]):  # an array of FIFOs (space-time s.to): _stream_space
    F: int32[2, 4]
    for k in range(4):
        for m in range(2):
            F[m, k] = A[m, k]
    for k2 in range(4):
        for m2 in range(2):
            C[m2, k2] = F[m2, k2]


def poll(n: int32) -> int32:
    x: int32 = 0
    while x < n:
        x = x + 1
    for j in range(0, 10, n):  # _run_time_step
        x = x + j
    return x


def counter(n: int32) -> int32:  # _stateful
    total: int32 @ Stateful = 0
    total = total + n
    return total


@df.region()
def region(A: int32[4], B: int32[4]):  # a dataflow region: _df_region, _df_stream
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(a: int32[4]):
        for i in range(4):
            pipe.put(a[i])

    @df.kernel(mapping=[1], args=[B])
    def consumer(b: int32[4]):
        for i in range(4):
            b[i] = pipe.get()


SCHEDULES = [(region, lambda s: None), (gemm, _gemm), (blur, lambda s: s.reuse_at(s.reuse_at(s.A, "y"), "x")), (pc, _pc),
             (pe, lambda s: s.unfold("PE", [0])), (calls, _calls), (counter, lambda s: None),
             (fifos, lambda s: s.to(s.F, [0], axis=0)), (chain, _chain), (poll, lambda s: None)]


@pytest.fixture(scope="module")
def schedules():
    out = []
    for kernel, schedule in SCHEDULES:
        s = allo.customize(kernel)
        schedule(s)
        out.append(s)
    guards.require_bounds_check(out[-2].ir.func("chain"))
    guards.instrument(out[-1].ir, aborts=True)  # what an LLVM build does to a kernel with a while loop
    return out


# ----------------------------------------------------------------------------- (b) the rendering
def attr_keys(text: str) -> set:
    """The top-level keys of every attribute dictionary in MLIR text (a `{` not ending a line)."""
    keys, i = set(), 0
    while (i := text.find("{", i)) >= 0:
        if text[i + 1:i + 2] in ("\n", ""):
            i += 1
            continue
        depth, j, quote, start = 0, i, False, i + 1
        while True:
            ch = text[j]
            if quote:
                quote = ch != '"' or text[j - 1] == "\\"
            elif ch == '"':
                quote = True
            elif ch in "{[(<":
                depth += 1
            elif ch in "}])>":
                depth -= 1
            if not quote and (depth == 0 or (ch == "," and depth == 1)):
                keys.add(text[start:j].split(" = ")[0].strip().strip('"'))
                start = j + 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    return {k for k in keys if k and "." not in k}  # dotted names are MLIR's own (llvm.emit_c_interface)


def test_renderer_writes_exactly_the_declared_public_keys(schedules):
    view = set().union(*(attr_keys(str(s.module)) for s in schedules))
    llvm = set().union(*(attr_keys(render_module(s.ir, "llvm")) for s in schedules))
    assert view == {k for k, a in A.ATTRS.items() if a.render != A.NEVER}
    assert llvm == {k for k, a in A.ATTRS.items() if a.render == A.MLIR}


# ----------------------------------------------------------------------------- (c) the IR
def _ir_keys(mod: N.Module):
    """(node kind, key, value) of every attribute on `mod`."""
    for key, value in mod.meta.items():
        yield "Module", key, value
    for f in mod.funcs:
        yield from (("Func", k, v) for k, v in f.attrs.items())
        for b in V.iter_buffers(f):
            yield from (("Buffer", k, v) for k, v in b.attrs.items())
        for st in V.walk_stmts(f.body):
            if isinstance(st, (N.For, N.CallStmt)):
                yield from ((type(st).__name__, k, v) for k, v in st.attrs.items())


def test_ir_attributes_are_declared_for_their_node_kind(schedules):
    seen = set()
    for s in schedules:
        for kind, key, value in _ir_keys(s.ir):
            a = A.ATTRS.get(key)
            assert a is not None and kind in a.nodes, (kind, key)
            assert isinstance(value, a.type), (key, value)
            if key == A.PARTITION:
                assert all(type(p[0]) is A.Partition and isinstance(p[1], int) for p in value), value
            seen.add(key)
    assert seen == {k for k, a in A.ATTRS.items() if a.nodes}  # the kernels exercise every key
