"""The op kinds of allo/ir/ops.py: str-valued enums the nodes normalise to, used by name in allo."""
import ast
import copy
import pathlib
import pickle

import allo
import pytest
from allo.ir import nodes as N
from allo.ir.ops import (ARITH_OPS, BIT_FUNCS, BIT_OPS, CMP_OPS, LOGIC_OPS, MATH_FUNCS, BinOpKind, MathFn,
                         UnaryOpKind)
from allo.ir.types import Index, float32

ALLO = pathlib.Path(allo.__file__).parent
KINDS = {k.value for enum in (BinOpKind, UnaryOpKind, MathFn) for k in enum}


def test_a_kind_is_its_string():
    k = BinOpKind.FLOORDIV
    assert k == "floordiv" and hash(k) == hash("floordiv") and {"floordiv": 1}[k] == 1
    assert (str(k), f"{k}", repr(k), str((k, 1))) == ("floordiv", "floordiv", "'floordiv'", "('floordiv', 1)")
    assert pickle.loads(pickle.dumps(k)) is k and copy.deepcopy(k) is k
    assert BinOpKind("lt") is BinOpKind.LT and MathFn("bit_get").group == "bit"


def test_groups_are_derived_from_the_kinds():
    assert ARITH_OPS == ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "min", "max")
    assert BIT_OPS == ("and", "or", "xor", "shl", "shr") and LOGIC_OPS == ("land", "lor")
    assert CMP_OPS == ("lt", "le", "gt", "ge", "eq", "ne")
    assert set(ARITH_OPS + BIT_OPS + CMP_OPS + LOGIC_OPS) == set(BinOpKind)
    assert BIT_FUNCS == MATH_FUNCS[-6:] == ("bit_get", "bit_slice", "bit_reverse", "bitcast", "bit_set", "bit_setslice")


def test_nodes_accept_strings_and_hold_kinds():
    i = N.IterVar("i")
    e = N.BinOp("add", i, N.Const(1, Index()), Index())
    assert e.op is BinOpKind.ADD
    assert N.UnaryOp("neg", i, Index()).op is UnaryOpKind.NEG
    assert N.MathCall("exp", [N.Const(1.0, float32)], float32).fn is MathFn.EXP
    with pytest.raises(ValueError):
        N.BinOp("plus", i, i, Index())


def _literal_ops(tree):
    """String literals naming an op kind where allo's code takes one: the op of a node or of the
    emit/render helpers, and comparisons with `.op` / `.fn`."""
    takes = {"BinOp", "UnaryOp", "MathCall", "binary", "unary", "math_call", "shift", "arith", "compare",
             "int_div", "cmp"}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) in takes and n.args:
            yield n.args[0]
        elif isinstance(n, ast.Compare) and any(isinstance(s, ast.Attribute) and s.attr in ("op", "fn")
                                                for s in [n.left] + n.comparators):
            for s in [n.left] + n.comparators:
                yield from (s.elts if isinstance(s, (ast.Tuple, ast.Set, ast.List)) else [s])


def test_allo_names_op_kinds():
    found = []
    for path in sorted(ALLO.rglob("*.py")):
        for c in _literal_ops(ast.parse(path.read_text())):
            if isinstance(c, ast.Constant) and c.value in KINDS:
                found.append(f"{path.relative_to(ALLO)}:{c.lineno}: {c.value!r}")
    assert not found, "\n".join(found)
