"""The operation kinds of the loop IR: `BinOp.op`, `UnaryOp.op` and `MathCall.fn`.

Each kind is a member of a str-valued enum (`StrEnum`): it compares and hashes equal to its
string, and prints, formats and reprs as it, so tables keyed by either spelling keep working and
every printed form (MLIR, C++, messages, DSE fingerprints) is the string. The nodes normalise a
string to its member (`BinOp("add", ...).op is BinOpKind.ADD`); allo's own code uses the names.
The groups of a kind (arithmetic, bitwise, comparison, logical; elementary or bit-level math)
are declared with it and the tuples below derived from them.

Example::

    BinOpKind.ADD == "add"              # True
    BinOpKind("lt") in CMP_OPS          # True
    f"arith.cmpi {BinOpKind.EQ}"        # 'arith.cmpi eq'
    MathFn.BIT_GET.group                # 'bit'

Imports: nothing of allo (the bottom of allo.ir).
"""
from __future__ import annotations

from enum import Enum


class StrEnum(str, Enum):
    """A str-valued enum member that is its string everywhere (str, format and repr), also on
    Python 3.10; `group` (set by `_grouped`) says which family of kinds it belongs to."""

    __str__ = str.__str__
    __format__ = str.__format__
    __repr__ = str.__repr__


def _grouped(cls, value: str, group: str):
    member = str.__new__(cls, value)
    member._value_ = value
    member.group = group
    return member


class BinOpKind(StrEnum):
    """`BinOp.op`: operands of one type (shift amounts may differ); comparisons give bool, the
    logical `land`/`lor` take bool operands."""

    def __new__(cls, value, group):
        return _grouped(cls, value, group)

    ADD = "add", "arith"
    SUB = "sub", "arith"
    MUL = "mul", "arith"
    DIV = "div", "arith"
    FLOORDIV = "floordiv", "arith"
    MOD = "mod", "arith"
    POW = "pow", "arith"
    MIN = "min", "arith"
    MAX = "max", "arith"
    AND = "and", "bit"
    OR = "or", "bit"
    XOR = "xor", "bit"
    SHL = "shl", "bit"
    SHR = "shr", "bit"
    LT = "lt", "cmp"
    LE = "le", "cmp"
    GT = "gt", "cmp"
    GE = "ge", "cmp"
    EQ = "eq", "cmp"
    NE = "ne", "cmp"
    LAND = "land", "logic"
    LOR = "lor", "logic"


class UnaryOpKind(StrEnum):
    """`UnaryOp.op`: arithmetic negation, logical not (bool), bitwise invert (integers)."""

    NEG = "neg"
    NOT = "not"
    INVERT = "invert"


class MathFn(StrEnum):
    """`MathCall.fn`: elementary functions on floats (abs also on integers, pow of two
    arguments), and the bit-level operations of allo.ir.bits on integers."""

    def __new__(cls, value, group):
        return _grouped(cls, value, group)

    EXP = "exp", "float"
    LOG = "log", "float"
    LOG2 = "log2", "float"
    SQRT = "sqrt", "float"
    RSQRT = "rsqrt", "float"
    TANH = "tanh", "float"
    SIN = "sin", "float"
    COS = "cos", "float"
    ERF = "erf", "float"
    ABS = "abs", "float"
    POW = "pow", "float"
    FLOOR = "floor", "float"
    CEIL = "ceil", "float"
    SIGMOID = "sigmoid", "float"
    BIT_GET = "bit_get", "bit"
    BIT_SLICE = "bit_slice", "bit"
    BIT_REVERSE = "bit_reverse", "bit"
    BITCAST = "bitcast", "bit"
    BIT_SET = "bit_set", "bit"
    BIT_SETSLICE = "bit_setslice", "bit"


ARITH_OPS = tuple(k for k in BinOpKind if k.group == "arith")
BIT_OPS = tuple(k for k in BinOpKind if k.group == "bit")
CMP_OPS = tuple(k for k in BinOpKind if k.group == "cmp")
LOGIC_OPS = tuple(k for k in BinOpKind if k.group == "logic")
MATH_FUNCS = tuple(MathFn)
BIT_FUNCS = tuple(k for k in MathFn if k.group == "bit")
